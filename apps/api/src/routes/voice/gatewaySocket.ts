import type { WebSocket } from '@fastify/websocket';
import type { ResolvedConnection } from '@parley/channels';
import {
  bearerOf,
  GATEWAY_CLOSE,
  type GatewayOutbound,
  type GatewayStart,
  gatewayAudio,
  gatewayControlSchema,
  gatewayStartSchema,
  recordGatewayCall,
  type SpeechToText,
  speechToTextOf,
  type TextToSpeech,
  textToSpeechOf,
  tokenMatches,
  type VoiceConcurrencyLimiter,
} from '@parley/voice';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';

import { startVoiceCall, type VoiceCallDeps } from './voiceCall.js';

export interface VoiceGatewayRouteOptions extends Omit<VoiceCallDeps, 'stt' | 'tts'> {
  /** Channel connections (`voice_gateway`, and `voice` on the `byoc_sip` provider), credentials decrypted. */
  connections: { resolve(channelType: string, identifier: string): Promise<ResolvedConnection | null> };
  /** The tenant's concurrent calls (voice.maxConcurrentCalls), as /voice/connect counts them. */
  limiter?: VoiceConcurrencyLimiter;
  stt?: SpeechToText;
  tts?: TextToSpeech;
  /** A socket that sends no valid `start` within this long is closed (1008). Default 10 s. */
  startTimeoutMs?: number;
}

/** The gateway socket's paths (the manifest's webhookPathPattern of each). */
export const VOICE_GATEWAY_PATHS = {
  voice_gateway: '/api/v1/channels/voice_gateway/stream/:identifier',
  byoc_sip: '/api/v1/channels/voice/byoc_sip/stream/:identifier',
} as const;

/** The sessions of gateway calls (TurnRequest.channel / channelType). */
export const VOICE_GATEWAY_CHANNEL = 'voice_pipeline';
export const VOICE_GATEWAY_CHANNEL_TYPE = { voice_gateway: 'voice_gateway', byoc_sip: 'sip' } as const;

type Kind = keyof typeof VOICE_GATEWAY_PATHS;

/** The connection a socket names, when it is one of this kind's and active. */
async function connectionOf(options: VoiceGatewayRouteOptions, kind: Kind, identifier: string) {
  const connection =
    kind === 'voice_gateway'
      ? await options.connections.resolve('voice_gateway', identifier)
      : await options.connections.resolve('voice', identifier);
  if (connection === null || !connection.active) return null;
  if (kind === 'byoc_sip' && connection.provider !== 'byoc_sip') return null;
  return connection;
}

/**
 * The voice gateway's WebSocket (spec 001 "Voice configuration": an inbound call reaches the
 * gateway, which opens a WebSocket to the runtime; audio streams both ways), for `voice_gateway`
 * connections and `voice` connections on the `byoc_sip` provider. Framing in docs/voice.md:
 * JSON control frames (start, mark, stop / started, mark, clear, error), binary audio frames in
 * the start's format. Authenticated by the connection's inboundAuthToken (Authorization: Bearer
 * at the upgrade, or `token` in start), compared in constant time. Calls run the same pipeline as
 * the provider's media streams (sessions `voice_pipeline`).
 */
export const voiceGatewayRoutes: FastifyPluginAsync<VoiceGatewayRouteOptions> = async (app, options) => {
  const stt = options.stt ?? speechToTextOf(options.settings.sttEngine);
  const tts = options.tts ?? textToSpeechOf(options.settings.ttsEngine);
  for (const kind of Object.keys(VOICE_GATEWAY_PATHS) as Kind[]) {
    app.get<{ Params: { identifier: string } }>(
      VOICE_GATEWAY_PATHS[kind],
      { websocket: true, schema: { hide: true } },
      (socket: WebSocket, request) => {
        const header = bearerOf(request.headers.authorization);
        serveCall(socket, request.log, { kind, identifier: request.params.identifier, header }, options, {
          stt,
          tts,
        });
      },
    );
  }
};

function serveCall(
  socket: WebSocket,
  log: FastifyBaseLogger,
  target: { kind: Kind; identifier: string; header: string | undefined },
  options: VoiceGatewayRouteOptions,
  engines: { stt: SpeechToText | null; tts: TextToSpeech | null },
): void {
  let state: 'waiting' | 'starting' | 'refused' | 'running' = 'waiting';
  let running: { pushAudio(frame: Uint8Array): void; control(raw: unknown): Promise<void> } | null = null;
  let finish: (() => Promise<void>) | null = null;
  let chain: Promise<void> = Promise.resolve();
  const send = (frame: GatewayOutbound | Uint8Array) => {
    if (socket.readyState !== socket.OPEN) return;
    socket.send(frame instanceof Uint8Array ? frame : JSON.stringify(frame));
  };
  const refuse = (close: number, code: string, message: string) => {
    state = 'refused';
    send({ type: 'error', code, message });
    socket.close(close, message.slice(0, 120));
  };
  const timer = setTimeout(() => {
    if (state === 'waiting') refuse(GATEWAY_CLOSE.policy, 'START_TIMEOUT', 'no start frame');
  }, options.startTimeoutMs ?? 10_000);

  const begin = async (raw: unknown) => {
    state = 'starting';
    const parsed = gatewayStartSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(
        GATEWAY_CLOSE.policy,
        'INVALID_START',
        `invalid start frame: ${issue?.path.join('.') || 'frame'} ${issue?.message ?? ''}`.trim(),
      );
    }
    const start: GatewayStart = parsed.data;
    const connection = await connectionOf(options, target.kind, target.identifier);
    const stored = connection?.credentials.inboundAuthToken;
    // One answer for an unknown connection and a wrong token: the socket learns nothing.
    if (connection === null || stored === undefined || !tokenMatches(stored, target.header ?? start.token)) {
      return refuse(GATEWAY_CLOSE.policy, 'UNAUTHORIZED', 'unknown connection or invalid token');
    }
    const { settings } = options;
    const { stt, tts } = engines;
    if (!settings.enabled || settings.mode === 'realtime' || stt === null || tts === null) {
      return refuse(GATEWAY_CLOSE.unavailable, 'VOICE_NOT_CONFIGURED', 'voice pipeline not configured');
    }
    const member = `call:${connection.id}:${start.callId}`;
    if (options.limiter) {
      const decision = await options.limiter.admit(
        connection.tenantId,
        [{ pool: 'calls', member, limit: settings.maxConcurrentCalls }],
        4 * 60 * 60 * 1000,
      );
      if (!decision.admitted) {
        return refuse(1013, 'VOICE_SESSION_LIMIT_REACHED', 'maximum concurrent voice sessions reached');
      }
    }
    clearTimeout(timer);
    const audio = gatewayAudio(start.format);
    const channelType = VOICE_GATEWAY_CHANNEL_TYPE[target.kind];
    const startedAt = new Date();
    const voice = startVoiceCall(
      { ...options, stt, tts },
      {
        callId: start.callId,
        streamId: connection.id,
        tenantId: connection.tenantId,
        projectId: connection.projectId,
        claimed: start.sessionId,
        agentName: connection.agentName ?? undefined,
        channel: VOICE_GATEWAY_CHANNEL,
        channelType,
        channelMetadata: {
          callId: start.callId,
          connectionId: connection.id,
          ...(start.from === undefined ? {} : { from: start.from }),
          ...(start.to === undefined ? {} : { to: start.to }),
        },
      },
      {
        media: (frame) => send(audio.outbound(frame)),
        mark: (name) => send({ type: 'mark', name }),
        clear: () => send({ type: 'clear' }),
      },
      log,
    );
    finish = async () => {
      await voice.finish();
      await options.limiter?.release(connection.tenantId, 'calls', member);
      await recordGatewayCall(options.store, {
        connection,
        callId: start.callId,
        sessionId: voice.call.sessionId,
        startedAt,
        endedAt: new Date(),
      });
    };
    running = {
      pushAudio: (frame) => voice.call.pushAudio(audio.inbound(frame)),
      async control(frame) {
        const control = gatewayControlSchema.safeParse(frame);
        if (!control.success) return;
        if (control.data.type === 'mark') voice.call.markPlayed(control.data.name);
        else {
          await finishOnce();
          socket.close(GATEWAY_CLOSE.stopped, 'stopped');
        }
      },
    };
    state = 'running';
    send({ type: 'started', callId: start.callId, format: start.format, sessionId: start.sessionId ?? null });
  };

  let finished: Promise<void> | null = null;
  const finishOnce = () => {
    finished ??= (finish?.() ?? Promise.resolve()).catch((err: unknown) =>
      log.error({ err }, 'voice gateway call not recorded'),
    );
    return finished;
  };

  const handle = async (data: Buffer, isBinary: boolean) => {
    if (state === 'refused') return;
    if (isBinary) {
      if (running === null) return refuse(GATEWAY_CLOSE.unsupported, 'NOT_STARTED', 'audio before start');
      running.pushAudio(data);
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data.toString('utf8'));
    } catch {
      return refuse(GATEWAY_CLOSE.notJson, 'NOT_JSON', 'control frames are JSON');
    }
    if (running === null) return begin(raw);
    await running.control(raw);
  };

  socket.on('message', (data: Buffer, isBinary: boolean) => {
    chain = chain.then(() => handle(data, isBinary)).catch((err: unknown) => logError(log, err));
  });
  socket.on('close', () => {
    clearTimeout(timer);
    chain = chain.then(() => finishOnce()).catch((err: unknown) => logError(log, err));
  });
}

const logError = (log: FastifyBaseLogger, err: unknown) => log.error({ err }, 'voice gateway socket failed');
