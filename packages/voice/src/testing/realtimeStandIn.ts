import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  deltaIn,
  formatRate,
  recordedReply,
  type StandInFormat,
  StandInVad,
  samplesOf,
} from './standInAudio.js';
import { functionCall, nextId, responseDone } from './standInEvents.js';

/** What the stand-in's next response does. */
export type StandInResponse = { kind: 'audio' } | { kind: 'function_call'; name: string; arguments: string };

export interface RealtimeStandInOptions {
  /** Responses in order; once spent, every response plays the recorded audio. */
  script?: StandInResponse[];
  /** The transcripts of the caller's utterances, in order (default `hello`). */
  userTranscripts?: string[];
  /** The model's own time before its first audio delta. */
  responseDelayMs?: number;
  /** Between audio deltas (0: all at once; 100: as fast as they play). */
  deltaIntervalMs?: number;
  /** Required `Authorization: Bearer <apiKey>` (absent: none required). */
  apiKey?: string;
  usage?: { input_tokens: number; output_tokens: number; cached_tokens: number };
}

/** Per utterance: when the append that ended it arrived and when the first delta left (performance.now()). */
export interface StandInTiming {
  itemId: string;
  audioEndMs: number;
  stoppedAt: number;
  firstDeltaAt: number | null;
}

export interface RealtimeStandIn {
  /** ws://127.0.0.1:<port>/v1/realtime */
  url: string;
  /** Client events received, in order (input_audio_buffer.append without its audio). */
  received: Array<Record<string, unknown> & { type: string }>;
  /** The `model` query parameter of each connection. */
  models: string[];
  timings: StandInTiming[];
  close(): Promise<void>;
}

/**
 * A local stand-in of the OpenAI Realtime API WebSocket (GA event schema): session.created and
 * session.updated, server VAD over the appended audio (speech_started, speech_stopped, committed,
 * then the input transcription and a response), responses that play the recorded audio deltas
 * (fixtures/realtimeReply.json) or call a function, response.cancel, function_call_output items
 * and response.create. Only what Parley uses; anything else answers an `error` event.
 */
export async function startRealtimeStandIn(options: RealtimeStandInOptions = {}): Promise<RealtimeStandIn> {
  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    verifyClient: ({ req }: { req: IncomingMessage }) =>
      options.apiKey === undefined || req.headers.authorization === `Bearer ${options.apiKey}`,
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const state: RealtimeStandIn = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`,
    received: [],
    models: [],
    timings: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
  const script = [...(options.script ?? [])];
  const transcripts = [...(options.userTranscripts ?? [])];
  server.on('connection', (socket, req) => {
    state.models.push(new URL(req.url ?? '/', 'http://x').searchParams.get('model') ?? '');
    new StandInSession(socket, options, state, script, transcripts);
  });
  return state;
}

class StandInSession {
  private format: StandInFormat = 'audio/pcm';
  private silenceMs = 500;
  private createResponse = true;
  private readonly vad = new StandInVad();
  private itemId: string | null = null;
  private lastItem: string | null = null;
  private active: { id: string; cancelled: boolean } | null = null;
  private readonly running = new Map<string, { id: string; cancelled: boolean }>();

  constructor(
    private readonly socket: WebSocket,
    private readonly options: RealtimeStandInOptions,
    private readonly state: RealtimeStandIn,
    private readonly script: StandInResponse[],
    private readonly transcripts: string[],
  ) {
    this.send({ type: 'session.created', session: this.session() });
    socket.on('message', (data) => this.onMessage(String(data)));
  }

  private send(event: Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN)
      this.socket.send(JSON.stringify({ event_id: nextId('event'), ...event }));
  }

  private session() {
    const format = this.format === 'audio/pcm' ? { type: this.format, rate: 24_000 } : { type: this.format };
    return {
      id: 'sess_standin',
      object: 'realtime.session',
      type: 'realtime',
      audio: {
        input: { format, turn_detection: { type: 'server_vad', silence_duration_ms: this.silenceMs } },
        output: { format },
      },
    };
  }

  private onMessage(text: string): void {
    const event = JSON.parse(text) as Record<string, unknown> & { type: string };
    const { audio, ...rest } = event as { audio?: unknown; type: string };
    this.state.received.push(rest as Record<string, unknown> & { type: string });
    switch (event.type) {
      case 'session.update':
        this.update(event.session as Record<string, never>);
        return;
      case 'input_audio_buffer.append':
        this.append(Buffer.from(String(audio), 'base64'));
        return;
      case 'conversation.item.create': {
        const item = { id: nextId('item'), ...(event.item as object) };
        this.send({ type: 'conversation.item.added', previous_item_id: this.lastItem, item });
        this.lastItem = item.id;
        return;
      }
      case 'conversation.item.truncate':
        this.send({
          type: 'conversation.item.truncated',
          item_id: event.item_id,
          content_index: event.content_index ?? 0,
          audio_end_ms: event.audio_end_ms,
        });
        return;
      case 'response.create':
        void this.respond();
        return;
      case 'response.cancel': {
        // The named response (published: response_id, else the one in progress), if still running.
        const named = typeof event.response_id === 'string' ? this.running.get(event.response_id) : undefined;
        const target = event.response_id === undefined ? this.active : (named ?? null);
        if (target === null || target.cancelled) {
          this.send({
            type: 'error',
            error: {
              type: 'invalid_request_error',
              code: 'response_cancel_not_active',
              message: 'no response',
            },
          });
        } else target.cancelled = true;
        return;
      }
      default:
        this.send({
          type: 'error',
          error: {
            type: 'invalid_request_error',
            code: 'unknown_event',
            message: `unsupported ${event.type}`,
          },
        });
    }
  }

  private update(session: { audio?: { input?: Record<string, never> } }): void {
    const input = session.audio?.input as
      | {
          format?: { type?: StandInFormat };
          turn_detection?: { silence_duration_ms?: number; create_response?: boolean };
        }
      | undefined;
    if (input?.format?.type !== undefined) this.format = input.format.type;
    this.silenceMs = input?.turn_detection?.silence_duration_ms ?? this.silenceMs;
    this.createResponse = input?.turn_detection?.create_response ?? true;
    this.send({ type: 'session.updated', session: this.session() });
  }

  private append(bytes: Buffer): void {
    const receivedAt = performance.now();
    for (const change of this.vad.push(
      samplesOf(this.format, bytes),
      formatRate(this.format),
      this.silenceMs,
    )) {
      if (change.kind === 'start') {
        this.itemId = nextId('item');
        this.send({
          type: 'input_audio_buffer.speech_started',
          audio_start_ms: change.ms,
          item_id: this.itemId,
        });
        continue;
      }
      const itemId = this.itemId ?? nextId('item');
      this.state.timings.push({ itemId, audioEndMs: change.ms, stoppedAt: receivedAt, firstDeltaAt: null });
      this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: change.ms, item_id: itemId });
      this.send({ type: 'input_audio_buffer.committed', previous_item_id: this.lastItem, item_id: itemId });
      this.lastItem = itemId;
      this.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript: this.transcripts.shift() ?? 'hello',
        usage: { type: 'duration', seconds: 1 },
      });
      if (this.createResponse) void this.respond();
    }
  }

  private async respond(): Promise<void> {
    const response = { id: nextId('resp'), cancelled: false };
    this.active = response;
    this.running.set(response.id, response);
    this.send({
      type: 'response.created',
      response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [] },
    });
    const next = this.script.shift() ?? { kind: 'audio' };
    const output = next.kind === 'audio' ? await this.speak(response) : this.call(response, next);
    if (this.active === response) this.active = null;
    this.running.delete(response.id);
    this.send(responseDone(response, output, this.options.usage));
  }

  /** Plays the recorded deltas (stops at response.cancel), then the transcript of what was played. */
  private async speak(response: { id: string; cancelled: boolean }): Promise<Record<string, unknown>> {
    const reply = recordedReply();
    const itemId = nextId('item');
    const at = { response_id: response.id, item_id: itemId, output_index: 0, content_index: 0 };
    if ((this.options.responseDelayMs ?? 0) > 0) await sleep(this.options.responseDelayMs ?? 0);
    this.send({
      type: 'response.output_item.added',
      response_id: response.id,
      output_index: 0,
      item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    });
    let played = 0;
    for (const delta of reply.deltas) {
      if (response.cancelled) break;
      const timing = this.state.timings.at(-1);
      if (timing !== undefined && timing.firstDeltaAt === null) timing.firstDeltaAt = performance.now();
      this.send({
        type: 'response.output_audio.delta',
        ...at,
        delta: deltaIn(this.format, delta).toString('base64'),
      });
      played += 1;
      if ((this.options.deltaIntervalMs ?? 0) > 0) await sleep(this.options.deltaIntervalMs ?? 0);
    }
    const words = reply.transcript.split(' ');
    const transcript = words.slice(0, Math.ceil((words.length * played) / reply.deltas.length)).join(' ');
    this.send({ type: 'response.output_audio_transcript.delta', ...at, delta: transcript });
    this.send({ type: 'response.output_audio_transcript.done', ...at, transcript });
    this.send({ type: 'response.output_audio.done', ...at });
    return {
      id: itemId,
      type: 'message',
      role: 'assistant',
      status: response.cancelled ? 'incomplete' : 'completed',
      content: [{ type: 'output_audio', transcript }],
    };
  }

  private call(response: { id: string }, next: { name: string; arguments: string }): Record<string, unknown> {
    const { events, item } = functionCall(response.id, next);
    for (const event of events) this.send(event);
    return item;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
