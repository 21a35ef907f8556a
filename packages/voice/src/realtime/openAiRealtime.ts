import WebSocket from 'ws';
import { historyItemOf, portEventOf, serverEventSchema, sessionUpdateOf } from './openAiRealtimeEvents.js';
import type { RealtimeEvent, RealtimeSession, RealtimeVoiceProvider } from './realtimeProvider.js';

export const OPENAI_REALTIME_PROVIDER = 'openai';
export const DEFAULT_OPENAI_REALTIME_URL = 'wss://api.openai.com/v1/realtime';
export const DEFAULT_OPENAI_REALTIME_MODEL = 'gpt-realtime';

export interface OpenAiRealtimeOptions {
  /** The WebSocket endpoint (default wss://api.openai.com/v1/realtime); `?model=` is added. */
  url?: string;
  /** Sent as `Authorization: Bearer …`; absent for a local stand-in that needs none. */
  apiKey?: string;
  /** The model of sessions whose agent has no realtime model (default gpt-realtime). */
  defaultModel?: string;
  /** Input transcription model (default whisper-1). */
  transcriptionModel?: string;
  /** Connection timeout (default 10 s). */
  connectTimeoutMs?: number;
}

/** Models the OpenAI Realtime API serves: gpt-realtime…, gpt-4o(-mini)-realtime-preview…. */
const REALTIME_MODEL = /(^|[-_])realtime($|[-_])/;

/**
 * The OpenAI Realtime API over WebSocket (GA protocol): `session.update` first, then
 * `input_audio_buffer.append` per chunk of caller audio; server VAD commits utterances and starts
 * responses; `conversation.item.create` (function_call_output) + `response.create` answer function
 * calls; `response.cancel` stops a response. Server events are parsed (openAiRealtimeEvents.ts)
 * and reported as port events.
 */
export function createOpenAiRealtimeProvider(options: OpenAiRealtimeOptions = {}): RealtimeVoiceProvider {
  const base = options.url ?? DEFAULT_OPENAI_REALTIME_URL;
  const transcriptionModel = options.transcriptionModel ?? 'whisper-1';
  return {
    name: OPENAI_REALTIME_PROVIDER,
    defaultModel: options.defaultModel ?? DEFAULT_OPENAI_REALTIME_MODEL,
    supportsModel: (model) => REALTIME_MODEL.test(model),
    async connect(config, onEvent) {
      const url = new URL(base);
      url.searchParams.set('model', config.model);
      const socket = new WebSocket(url, {
        headers: options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` },
        perMessageDeflate: false,
      });
      await opened(socket, options.connectTimeoutMs ?? 10_000);
      socket.on('message', (data, isBinary) => {
        if (isBinary) return;
        const event = parseServerEvent(String(data));
        if (event !== null) onEvent(event);
      });
      socket.on('close', (code, reason) => onEvent({ type: 'closed', code, reason: String(reason) }));
      socket.on('error', (err) => onEvent({ type: 'error', code: 'socket_error', message: err.message }));
      const send = (message: Record<string, unknown>) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
      };
      send(sessionUpdateOf(config, transcriptionModel));
      for (const turn of config.history) send(historyItemOf(turn));
      const session: RealtimeSession = {
        appendAudio: (audio) =>
          send({ type: 'input_audio_buffer.append', audio: Buffer.from(audio).toString('base64') }),
        sendFunctionOutput: (callId, output) =>
          send({
            type: 'conversation.item.create',
            item: { type: 'function_call_output', call_id: callId, output },
          }),
        createResponse: () => send({ type: 'response.create' }),
        cancelResponse: (responseId) => send({ type: 'response.cancel', response_id: responseId }),
        truncate: (itemId, audioEndMs) =>
          send({
            type: 'conversation.item.truncate',
            item_id: itemId,
            content_index: 0,
            audio_end_ms: audioEndMs,
          }),
        close: () => {
          if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING)
            socket.close(1000);
        },
      };
      return session;
    },
  };
}

function parseServerEvent(text: string): RealtimeEvent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { type: 'error', code: 'invalid_event', message: 'a server event was not JSON' };
  }
  const parsed = serverEventSchema.safeParse(raw);
  if (parsed.success) return portEventOf(parsed.data);
  const type = (raw as { type?: unknown } | null)?.type;
  // Event types Parley does not use are skipped; a known type with a bad shape is reported.
  return KNOWN_TYPES.has(String(type))
    ? { type: 'error', code: 'invalid_event', message: `malformed ${String(type)}` }
    : null;
}

const KNOWN_TYPES = new Set(serverEventSchema.options.map((o) => (o.shape.type as { value: string }).value));

function opened(socket: WebSocket, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('realtime provider connection timed out'));
    }, timeoutMs);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      socket.terminate();
      reject(new Error(`realtime provider refused the connection (HTTP ${res.statusCode})`));
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
