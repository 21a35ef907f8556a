import { describe, expect, it, vi } from 'vitest';
import { encodeMulaw, FRAME_SAMPLES, MULAW_SILENCE } from './audio.js';
import type { SpeechToText, TextToSpeech } from './engines.js';
import { createPipelineCall } from './pipelineCall.js';

// The engines are ports: these stand-ins replace the speech engines (the integration test of the
// media WebSocket runs the real pocketsphinx and espeak-ng).
const loudFrames = (ms: number) => {
  const samples = Int16Array.from({ length: (8 * ms) | 0 }, (_, i) => Math.round(8000 * Math.sin(i / 3)));
  return encodeMulaw(samples);
};
const quiet = (ms: number) => new Uint8Array(8 * ms).fill(MULAW_SILENCE);

function world(transcripts: Array<{ text: string; confidence: number | null } | Error>) {
  let clock = 1_000;
  const sent: string[] = [];
  const heard: number[] = [];
  const stt: SpeechToText = {
    name: 'fake-stt',
    async transcribe(audio) {
      heard.push(audio.samples.length);
      const next = transcripts.shift() ?? { text: '', confidence: null };
      if (next instanceof Error) throw next;
      return next;
    },
  };
  const tts: TextToSpeech = {
    name: 'fake-tts',
    async synthesize(text) {
      clock += 40; // synthesis takes 40 ms
      return { sampleRate: 8000, samples: new Int16Array(text.length * 160).fill(3000) };
    },
  };
  const errors: unknown[] = [];
  const call = createPipelineCall({
    stt,
    tts,
    agent: {
      async reply(text) {
        clock += 100; // the agent takes 100 ms
        return { text: `you said ${text}`, sessionId: 'ses_1' };
      },
    },
    output: {
      media: (frame) => {
        expect(frame).toHaveLength(FRAME_SAMPLES);
        sent.push('media');
      },
      mark: (name) => sent.push(`mark:${name}`),
      clear: () => sent.push('clear'),
    },
    endpointing: { endSilenceMs: 200 },
    now: () => clock,
    onError: (err) => errors.push(err),
  });
  const audio = (bytes: Uint8Array) => {
    // Delivered as the provider does, one 20 ms frame a message, the clock at the frame's end.
    for (let i = 0; i < bytes.length; i += FRAME_SAMPLES) {
      clock += 20;
      call.pushAudio(bytes.subarray(i, i + FRAME_SAMPLES));
    }
  };
  return { call, sent, heard, errors, audio, advance: (ms: number) => (clock += ms) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('createPipelineCall', () => {
  it('answers an utterance with frames and a mark; metrics count it', async () => {
    const w = world([{ text: 'hello', confidence: 0.8 }]);
    w.audio(quiet(200));
    w.audio(loudFrames(500));
    w.audio(quiet(200)); // endSilenceMs: the utterance ends with the last frame
    await settle();
    const marks = w.sent.filter((s) => s.startsWith('mark'));
    expect(marks).toEqual(['mark:reply-1']);
    expect(w.sent.filter((s) => s === 'media')).toHaveLength('you said hello'.length);
    expect(w.heard).toHaveLength(1);
    expect(w.call.sessionId).toBe('ses_1');
    w.call.markPlayed('reply-1');
    w.audio(quiet(100));
    const metrics = await w.call.stop();
    expect(metrics).toEqual({
      callDurationMs: 200 + 500 + 200 + 140 + 100,
      firstResponseTimeMs: 140,
      meanResponseTimeMs: 140,
      turnCount: 1,
      sttConfidence: 0.8,
      bargeInCount: 0,
      bargeInRate: 0,
      silenceDurationMs: 200 + 200 + 100,
      utteranceCount: 1,
      emptyTranscripts: 0,
      failedTurns: 0,
    });
  });

  it('clears the reply when the caller speaks over it (barge-in) and answers the new utterance', async () => {
    const w = world([
      { text: 'one', confidence: 0.5 },
      { text: 'two', confidence: 0.7 },
    ]);
    w.audio(loudFrames(400));
    w.audio(quiet(300));
    await settle();
    w.audio(loudFrames(400)); // reply-1 not played yet
    w.audio(quiet(300));
    await settle();
    expect(w.sent.filter((s) => s !== 'media')).toEqual(['mark:reply-1', 'clear', 'mark:reply-2']);
    w.call.markPlayed('reply-2');
    const metrics = await w.call.stop();
    expect(metrics).toMatchObject({ turnCount: 2, bargeInCount: 1, bargeInRate: 0.5, sttConfidence: 0.6 });
  });

  it('speech after the reply played is not a barge-in', async () => {
    const w = world([
      { text: 'one', confidence: null },
      { text: 'two', confidence: null },
    ]);
    w.audio(loudFrames(400));
    w.audio(quiet(300));
    await settle();
    w.call.markPlayed('reply-1');
    w.call.markPlayed('unknown-mark');
    w.audio(loudFrames(400));
    w.audio(quiet(300));
    await settle();
    expect(w.sent).not.toContain('clear');
    expect(await w.call.stop()).toMatchObject({ turnCount: 2, bargeInCount: 0, sttConfidence: null });
  });

  it('counts empty transcripts and failed turns, and goes on', async () => {
    const w = world([
      { text: '  ', confidence: 0.1 },
      new Error('engine crashed'),
      { text: 'ok', confidence: 0.9 },
    ]);
    for (let i = 0; i < 3; i++) {
      w.audio(loudFrames(300));
      w.audio(quiet(300));
    }
    const metrics = await w.call.stop();
    expect(metrics).toMatchObject({ utteranceCount: 3, emptyTranscripts: 1, failedTurns: 1, turnCount: 1 });
    expect(w.errors).toEqual([new Error('engine crashed')]);
    expect(metrics.sttConfidence).toBeCloseTo(0.5);
  });

  it('has null response times without replies, and ignores audio after stop', async () => {
    const w = world([]);
    w.audio(quiet(1000));
    const metrics = await w.call.stop();
    expect(metrics).toMatchObject({
      firstResponseTimeMs: null,
      meanResponseTimeMs: null,
      turnCount: 0,
      silenceDurationMs: 1000,
    });
    w.audio(loudFrames(500));
    w.audio(quiet(500));
    await settle();
    expect(w.sent).toEqual([]);
    expect(w.heard).toEqual([]);
  });
});

describe('createPipelineCall buffering', () => {
  it('cuts media payloads of any size into 20 ms frames', async () => {
    const w = world([{ text: 'split', confidence: 1 }]);
    const bytes = new Uint8Array([...loudFrames(400), ...quiet(300)]);
    for (let i = 0; i < bytes.length; i += 77) w.call.pushAudio(bytes.subarray(i, i + 77));
    const metrics = await w.call.stop();
    expect(w.heard).toHaveLength(1);
    expect(metrics).toMatchObject({ utteranceCount: 1, turnCount: 1 });
  });
});

describe('createPipelineCall with a streaming agent', () => {
  it('speaks the reply sentence by sentence as it streams, then one mark', async () => {
    const spoken: string[] = [];
    const sent: string[] = [];
    let clock = 0;
    const call = createPipelineCall({
      stt: { name: 's', transcribe: async () => ({ text: 'hi', confidence: 1 }) },
      tts: {
        name: 't',
        async synthesize(text) {
          spoken.push(text);
          return { sampleRate: 8000, samples: new Int16Array(160).fill(3000) };
        },
      },
      agent: {
        async reply(_text, onDelta) {
          for (const delta of ['Hello', ' there. How', ' are you?', ' Fine', ' thanks']) {
            clock += 50;
            onDelta?.(delta);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          return { text: 'Hello there. How are you? Fine thanks', sessionId: 'ses_s' };
        },
      },
      output: {
        media: () => sent.push('media'),
        mark: (name) => sent.push(`mark:${name}`),
        clear: () => sent.push('clear'),
      },
      now: () => clock,
    });
    call.pushAudio(new Uint8Array([...loudFrames(400), ...quiet(800)]));
    await vi.waitFor(() => expect(sent).toContain('mark:reply-1')); // the turn has run
    const metrics = await call.stop();
    expect(spoken).toEqual(['Hello there.', 'How are you?', 'Fine thanks']);
    expect(sent).toEqual(['media', 'media', 'media', 'mark:reply-1']);
    // The first sentence was spoken after the second delta, not after the whole reply.
    expect(metrics.firstResponseTimeMs).toBe(100);
  });

  it('a failing text-to-speech fails the turn without an unhandled rejection', async () => {
    const errors: unknown[] = [];
    const call = createPipelineCall({
      stt: { name: 's', transcribe: async () => ({ text: 'hi', confidence: 1 }) },
      tts: {
        name: 't',
        synthesize: async () => {
          throw new Error('tts down');
        },
      },
      agent: {
        async reply(_text, onDelta) {
          onDelta?.('One. ');
          await new Promise((resolve) => setTimeout(resolve, 5));
          onDelta?.('Two.');
          return { text: 'One. Two.', sessionId: 'ses_f' };
        },
      },
      output: { media: () => {}, mark: () => {}, clear: () => {} },
      onError: (err) => errors.push(err),
    });
    call.pushAudio(new Uint8Array([...loudFrames(400), ...quiet(800)]));
    await vi.waitFor(() => expect(errors).toHaveLength(1)); // the turn has failed
    const metrics = await call.stop();
    expect(errors).toEqual([new Error('tts down')]);
    expect(metrics).toMatchObject({ failedTurns: 1, turnCount: 1, firstResponseTimeMs: null });
  });
});
