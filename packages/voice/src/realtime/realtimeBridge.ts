import { FRAME_MS } from '../pipeline/audio.js';
import type { VoiceCallMetrics } from '../pipeline/pipelineCall.js';
import { createInboundConverter, createOutboundConverter } from './realtimeAudio.js';
import type { RealtimeCallOptions } from './realtimeCall.js';
import type { RealtimeEvent, RealtimeSession } from './realtimeProvider.js';
import { RealtimeCallStats } from './realtimeStats.js';
import { RealtimeTurns, type ResponseState, type TurnState } from './realtimeTurns.js';

/** The state machine of one realtime call (startRealtimeCall's handle runs it). */
export class RealtimeBridge {
  private session: RealtimeSession | null = null;
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly inbound: (mulaw: Uint8Array) => Uint8Array;
  private readonly turns: RealtimeTurns;
  private current: TurnState | null = null;
  private readonly responses = new Map<string, ResponseState>();
  private active: ResponseState | null = null;
  /** The mark after the last audio sent, not yet echoed: the caller is hearing the agent. */
  private playing: { mark: string; response: ResponseState } | null = null;
  private marks = 0;
  private endAfterPlayed = false;
  private stopped = false;
  private readonly timer: NodeJS.Timeout;
  sessionId: string | null = null;
  private readonly stats = new RealtimeCallStats();

  constructor(private readonly options: RealtimeCallOptions) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.inbound = createInboundConverter(options.session.audioFormat);
    this.turns = new RealtimeTurns(options.conversation, {
      transcriptWaitMs: options.transcriptWaitMs ?? 3000,
      onRecorded: (recorded) => {
        this.sessionId = recorded.sessionId;
        if (recorded.ended) this.endWhenPlayed();
      },
      onError: (err) => options.onError?.(err),
    });
    this.timer = setTimeout(() => this.end('max_session_duration'), options.maxSessionDurationMs);
  }

  async connect(): Promise<void> {
    try {
      this.session = await this.options.provider.connect(this.options.session, (e) => this.onEvent(e));
    } catch (err) {
      clearTimeout(this.timer);
      throw err;
    }
  }

  private end(reason: Parameters<RealtimeCallOptions['onEnd']>[0]): void {
    if (!this.stopped) this.options.onEnd(reason);
  }

  pushAudio(mulaw: Uint8Array): void {
    if (this.stopped || this.session === null) return;
    this.stats.heard(mulaw);
    this.session.appendAudio(this.inbound(mulaw));
  }

  markPlayed(name: string): void {
    if (this.playing?.mark !== name) return;
    this.playing = null;
    if (this.endAfterPlayed) this.end('conversation_ended');
  }

  private onEvent(event: RealtimeEvent): void {
    if (this.stopped) return;
    switch (event.type) {
      case 'speech_started':
        this.speechStarted(event.itemId);
        return;
      case 'speech_stopped':
        this.turns.of(event.itemId).speechStoppedAt = this.now();
        return;
      case 'input_committed':
        this.current = this.turns.of(event.itemId);
        return;
      case 'user_transcript':
      case 'user_transcript_failed': {
        const turn = this.turns.of(event.itemId);
        turn.userText = event.type === 'user_transcript' ? event.transcript.trim() : '';
        if (turn.userText === '') this.stats.emptyTranscripts += 1;
        this.turns.record();
        return;
      }
      case 'response_started':
        this.responseStarted(event.responseId);
        return;
      case 'audio':
        this.audio(event.responseId, event.itemId, event.audio);
        return;
      case 'transcript_delta': {
        const response = this.responses.get(event.responseId);
        if (response !== undefined) response.transcript += event.delta;
        return;
      }
      case 'function_call':
        this.functionCall(event);
        return;
      case 'response_done':
        this.responseDone(event);
        return;
      case 'error':
        this.options.onError?.(new Error(`realtime provider error ${event.code}: ${event.message}`));
        return;
      case 'closed':
        this.end('provider_closed');
        return;
      default: {
        const exhaustive: never = event;
        throw new Error(`unhandled realtime event ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  private speechStarted(itemId: string): void {
    this.stats.utterances += 1;
    const response = this.active;
    if (response !== null || this.playing !== null) {
      this.stats.bargeIns += 1;
      if (response !== null && !response.cancelled) {
        response.cancelled = true;
        response.turn.interrupted = true;
        this.session?.cancelResponse(response.id);
      }
      const heard = this.playing?.response;
      if (heard !== undefined) {
        heard.turn.interrupted = true;
        // What the caller heard of it: played in real time since its first frame, at most what was sent.
        if (heard.itemId !== null && heard.firstFrameAt !== null) {
          const played = Math.min(heard.audioFrames * FRAME_MS, this.now() - heard.firstFrameAt);
          this.session?.truncate(heard.itemId, Math.max(0, Math.round(played)));
        }
      }
      this.playing = null;
      this.endAfterPlayed = false;
      this.options.output.clear();
    }
    this.turns.of(itemId);
  }

  private responseStarted(responseId: string): void {
    const turn = this.current ?? this.turns.of(null);
    this.turns.closeBefore(turn);
    turn.pending += 1;
    turn.hadResponse = true;
    const response: ResponseState = {
      id: responseId,
      turn,
      startedAt: new Date(),
      t0: this.now(),
      firstAudioAt: null,
      transcript: '',
      calls: [],
      cancelled: false,
      itemId: null,
      audioFrames: 0,
      firstFrameAt: null,
      out: createOutboundConverter(this.options.session.audioFormat),
    };
    this.responses.set(responseId, response);
    this.active = response;
    this.turns.record();
  }

  private audio(responseId: string, itemId: string, audio: Uint8Array): void {
    const response = this.responses.get(responseId);
    if (response === undefined || response.cancelled) return;
    response.itemId ??= itemId;
    const at = this.now();
    if (response.firstAudioAt === null) {
      response.firstAudioAt = at;
      const turn = response.turn;
      if (turn.speechStoppedAt !== null && !turn.responseTimed) {
        turn.responseTimed = true;
        this.stats.responded(at - turn.speechStoppedAt);
      }
    }
    this.send(response, response.out.push(audio));
  }

  private send(response: ResponseState, frames: Uint8Array[]): void {
    if (frames.length === 0) return;
    for (const frame of frames) this.options.output.media(frame);
    response.audioFrames += frames.length;
    response.firstFrameAt ??= this.now();
    // Playing until the mark sent after this response's audio comes back.
    this.playing = { mark: '', response };
  }

  private functionCall(event: Extract<RealtimeEvent, { type: 'function_call' }>): void {
    const response = this.responses.get(event.responseId);
    if (response === undefined) return;
    const done = response.turn.turn
      .runTool({ id: event.callId, name: event.name, arguments: event.arguments })
      .catch((err: unknown) => {
        this.options.onError?.(err);
        return { output: JSON.stringify({ error: 'tool_failed' }), status: 'error' as const, ending: false };
      })
      .then((result) => ({ callId: event.callId, output: result.output, ending: result.ending }));
    response.calls.push({ name: event.name, done });
  }

  private responseDone(event: Extract<RealtimeEvent, { type: 'response_done' }>): void {
    const response = this.responses.get(event.responseId);
    if (response === undefined) return;
    this.responses.delete(event.responseId);
    if (this.active === response) this.active = null;
    const turn = response.turn;
    if (!response.cancelled) {
      this.send(response, response.out.flush());
      if (response.audioFrames > 0) {
        this.marks += 1;
        const mark = `rt-${this.marks}`;
        this.options.output.mark(mark);
        this.playing = { mark, response };
      }
    }
    if (event.status === 'failed') this.stats.failed += 1;
    turn.turn.recordResponse({
      responseId: response.id,
      provider: this.options.provider.name,
      model: this.options.session.model,
      status: event.status,
      usage: event.usage,
      startedAt: response.startedAt,
      latencyMs: Math.max(0, this.now() - response.t0),
      timeToFirstAudioMs: response.firstAudioAt === null ? null : response.firstAudioAt - response.t0,
      transcript: response.transcript,
      functionCalls: response.calls.map((c) => c.name),
      ...(event.error === undefined ? {} : { error: event.error }),
    });
    if (response.transcript.trim() !== '') turn.agentText.push(response.transcript.trim());
    turn.pending -= 1;
    if (response.calls.length > 0 && event.status === 'completed') {
      turn.pending += 1; // the response answering the function outputs
      void this.answerCalls(response);
      return;
    }
    turn.answered = true;
    this.turns.record();
  }

  /** Function outputs back to the model, then a response to them (unless the caller spoke meanwhile). */
  private async answerCalls(response: ResponseState): Promise<void> {
    const results = await Promise.all(response.calls.map((c) => c.done));
    const turn = response.turn;
    turn.pending -= 1;
    if (this.stopped) return;
    for (const r of results) this.session?.sendFunctionOutput(r.callId, r.output);
    if (this.active === null && !turn.interrupted) this.session?.createResponse();
    else turn.answered = true;
    this.turns.record();
  }

  private endWhenPlayed(): void {
    if (this.playing === null) this.end('conversation_ended');
    else this.endAfterPlayed = true;
  }

  async stop(): Promise<VoiceCallMetrics> {
    if (!this.stopped) {
      clearTimeout(this.timer);
      const recorded = this.turns.close();
      this.stopped = true;
      this.session?.close();
      await recorded;
    }
    return this.stats.metrics({
      callDurationMs: this.now() - this.startedAt,
      turnCount: this.turns.recorded,
      replies: this.turns.answeredCount(),
    });
  }
}
