import { afterEach, describe, expect, it } from 'vitest';
import { encodeMulaw, FRAME_SAMPLES, MULAW_SILENCE } from '../pipeline/audio.js';
import { type RealtimeStandIn, type StandInResponse, startRealtimeStandIn } from '../testing/index.js';
import { createOpenAiRealtimeProvider } from './openAiRealtime.js';
import type { RealtimeAudioFormat } from './realtimeAudio.js';
import { type RealtimeCallEnd, startRealtimeCall } from './realtimeCall.js';
import type { RealtimeAgentTurn, RealtimeResponseRecord } from './realtimeTurns.js';

/** 20 ms µ-law frames: a 440 Hz tone (speech to the VAD) or silence. */
const tone = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, (_, f) =>
    encodeMulaw(
      Int16Array.from({ length: FRAME_SAMPLES }, (_, i) =>
        Math.round(6000 * Math.sin((2 * Math.PI * 440 * (f * FRAME_SAMPLES + i)) / 8000)),
      ),
    ),
  );
const silence = (ms: number): Uint8Array[] =>
  Array.from({ length: ms / 20 }, () => new Uint8Array(FRAME_SAMPLES).fill(MULAW_SILENCE));

interface Recorded {
  tools: Array<{ id: string; name: string; arguments: string }>;
  responses: RealtimeResponseRecord[];
  turns: Array<{ userText: string; agentText: string; interrupted: boolean }>;
}

const standIns: RealtimeStandIn[] = [];
afterEach(async () => {
  for (const s of standIns.splice(0)) await s.close();
});

async function call(
  options: {
    script?: StandInResponse[];
    deltaIntervalMs?: number;
    audioFormat?: RealtimeAudioFormat;
    maxSessionDurationMs?: number;
    ending?: boolean;
  } = {},
) {
  const standIn = await startRealtimeStandIn({
    apiKey: 'sk-test',
    userTranscripts: ['what is the weather in Paris', 'stop'],
    ...(options.script === undefined ? {} : { script: options.script }),
    ...(options.deltaIntervalMs === undefined ? {} : { deltaIntervalMs: options.deltaIntervalMs }),
  });
  standIns.push(standIn);
  const recorded: Recorded = { tools: [], responses: [], turns: [] };
  const out = { media: [] as Uint8Array[], marks: [] as string[], clears: 0, ends: [] as RealtimeCallEnd[] };
  const turn = (): RealtimeAgentTurn => ({
    async runTool(c) {
      recorded.tools.push(c);
      return { output: JSON.stringify({ temperature: 21 }), status: 'ok', ending: options.ending === true };
    },
    recordResponse: (r) => recorded.responses.push(r),
    async finish(input) {
      recorded.turns.push(input);
      return { sessionId: 'sess_1', ended: options.ending === true };
    },
  });
  const handle = await startRealtimeCall({
    provider: createOpenAiRealtimeProvider({ url: standIn.url, apiKey: 'sk-test' }),
    conversation: { sessionId: 'sess_1', beginTurn: turn },
    session: {
      model: 'gpt-realtime',
      voice: 'marin',
      instructions: 'You are a weather bot.',
      tools: [
        { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
      audioFormat: options.audioFormat ?? 'pcm16',
      history: [{ role: 'user', text: 'hi from the web' }],
      silenceDurationMs: 200,
    },
    output: {
      media: (f) => out.media.push(f),
      mark: (m) => out.marks.push(m),
      clear: () => {
        out.clears += 1;
      },
    },
    maxSessionDurationMs: options.maxSessionDurationMs ?? 60_000,
    onEnd: (reason) => out.ends.push(reason),
  });
  const speak = (frames: Uint8Array[]) => {
    for (const f of frames) handle.pushAudio(f);
  };
  return { standIn, recorded, out, handle, speak };
}

async function until(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a realtime call against the Realtime API stand-in', () => {
  it('configures the session, answers an utterance with media frames and records the turn', async () => {
    const { standIn, recorded, out, handle, speak } = await call();
    speak([...silence(100), ...tone(400), ...silence(300)]);
    await until(() => recorded.turns.length === 1);
    expect(standIn.models).toEqual(['gpt-realtime']);
    const update = standIn.received[0] as { type: string; session: Record<string, unknown> };
    expect(update).toMatchObject({
      type: 'session.update',
      session: {
        type: 'realtime',
        instructions: 'You are a weather bot.',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            turn_detection: { type: 'server_vad', silence_duration_ms: 200, interrupt_response: false },
          },
          output: { format: { type: 'audio/pcm', rate: 24_000 }, voice: 'marin' },
        },
        tools: [{ type: 'function', name: 'get_weather' }],
      },
    });
    expect(standIn.received[1]).toMatchObject({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi from the web' }] },
    });
    // 1.2 s of recorded speech → 60 frames of 20 ms µ-law, then a mark.
    expect(out.media).toHaveLength(60);
    for (const frame of out.media) expect(frame).toHaveLength(FRAME_SAMPLES);
    expect(out.marks).toEqual(['rt-1']);
    expect(recorded.turns).toEqual([
      {
        userText: 'what is the weather in Paris',
        agentText: 'It is sunny in Paris today.',
        interrupted: false,
      },
    ]);
    expect(recorded.responses).toHaveLength(1);
    expect(recorded.responses[0]).toMatchObject({
      provider: 'openai',
      model: 'gpt-realtime',
      status: 'completed',
      usage: { inputTokens: 120, cachedTokens: 20, outputTokens: 80 },
      functionCalls: [],
    });
    const metrics = await handle.stop();
    expect(metrics).toMatchObject({ turnCount: 1, utteranceCount: 1, bargeInCount: 0 });
    expect(metrics.firstResponseTimeMs).not.toBeNull();
  });

  it('runs a function call through the agent and answers it with function_call_output and response.create', async () => {
    const { standIn, recorded, out, handle, speak } = await call({
      script: [{ kind: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    });
    speak([...tone(400), ...silence(300)]);
    await until(() => recorded.turns.length === 1);
    expect(recorded.tools).toEqual([
      { id: expect.any(String), name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    const output = standIn.received.find(
      (e) =>
        e.type === 'conversation.item.create' && (e.item as { type: string }).type === 'function_call_output',
    );
    expect(output).toEqual({
      type: 'conversation.item.create',
      item: { type: 'function_call_output', call_id: recorded.tools[0]?.id, output: '{"temperature":21}' },
    });
    const types = standIn.received.map((e) => e.type);
    expect(types.indexOf('response.create')).toBeGreaterThan(types.lastIndexOf('conversation.item.create'));
    expect(recorded.responses.map((r) => r.functionCalls)).toEqual([['get_weather'], []]);
    expect(out.media.length).toBe(60);
    expect(recorded.turns[0]?.agentText).toBe('It is sunny in Paris today.');
    await handle.stop();
  });

  it('on barge-in cancels the response and clears the provider buffer', async () => {
    const { standIn, recorded, out, handle, speak } = await call({ deltaIntervalMs: 100 });
    speak([...tone(400), ...silence(300)]);
    await until(() => out.media.length > 0);
    speak(tone(200));
    await until(() => recorded.turns.length === 1);
    expect(out.clears).toBe(1);
    const cancel = standIn.received.find((e) => e.type === 'response.cancel');
    expect(cancel).toEqual({ type: 'response.cancel', response_id: recorded.responses[0]?.responseId });
    expect(recorded.responses[0]?.status).toBe('cancelled');
    // The model learns how much of its reply the caller heard.
    const truncate = standIn.received.find((e) => e.type === 'conversation.item.truncate') as
      | { item_id: string; content_index: number; audio_end_ms: number }
      | undefined;
    expect(truncate?.item_id).toMatch(/^item_/);
    expect(truncate?.content_index).toBe(0);
    expect(truncate?.audio_end_ms).toBeGreaterThan(0);
    expect(truncate?.audio_end_ms).toBeLessThanOrEqual(out.media.length * 20);
    expect(recorded.turns[0]?.interrupted).toBe(true);
    expect(out.media.length).toBeLessThan(60);
    speak(silence(300));
    await until(() => recorded.turns.length === 2);
    const metrics = await handle.stop();
    expect(metrics).toMatchObject({ bargeInCount: 1, utteranceCount: 2, turnCount: 2, bargeInRate: 0.5 });
  });

  it('converts G.711 µ-law sessions without resampling', async () => {
    const { standIn, recorded, out, handle, speak } = await call({ audioFormat: 'g711_ulaw' });
    speak([...tone(400), ...silence(300)]);
    await until(() => recorded.turns.length === 1);
    expect(standIn.received[0]).toMatchObject({
      session: { audio: { input: { format: { type: 'audio/pcmu' } } } },
    });
    expect(out.media).toHaveLength(60);
    await handle.stop();
  });

  it('ends the call at voice.realtime.maxSessionDurationMs', async () => {
    const { out, handle } = await call({ maxSessionDurationMs: 150 });
    await until(() => out.ends.length > 0);
    expect(out.ends).toEqual(['max_session_duration']);
    await handle.stop();
  });

  it('ends the call once the agent ended the conversation and its reply played', async () => {
    const { out, recorded, handle, speak } = await call({
      ending: true,
      script: [{ kind: 'function_call', name: 'end_conversation', arguments: '{"reason":"done"}' }],
    });
    speak([...tone(400), ...silence(300)]);
    // The turn is recorded (and said the conversation ended) while its reply still plays.
    await until(() => out.marks.length === 1 && recorded.turns.length === 1);
    expect(out.ends).toEqual([]);
    handle.markPlayed('rt-1');
    await until(() => out.ends.length > 0);
    expect(out.ends).toEqual(['conversation_ended']);
    await handle.stop();
  });

  it('refuses a provider that rejects the key', async () => {
    const standIn = await startRealtimeStandIn({ apiKey: 'right' });
    standIns.push(standIn);
    const provider = createOpenAiRealtimeProvider({ url: standIn.url, apiKey: 'wrong' });
    await expect(
      provider.connect(
        { model: 'gpt-realtime', instructions: '', tools: [], audioFormat: 'pcm16', history: [] },
        () => {},
      ),
    ).rejects.toThrow(/HTTP 401/);
  });
});
