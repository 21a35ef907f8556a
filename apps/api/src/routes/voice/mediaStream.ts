import type { WebSocket } from '@fastify/websocket';
import { sessionStream } from '@parley/events';
import { EventIdConflictError, type EventStore } from '@parley/eventstore';
import type { Runtime } from '@parley/runtime';
import type { TelephonyAccountSecrets } from '@parley/telephony';
import {
  callSlotMember,
  createPipelineCall,
  type EndpointingOptions,
  MEDIA_STREAM_PATH,
  type PipelineCall,
  type RealtimeVoiceProvider,
  type SpeechToText,
  STREAM_TOKEN_PARAMETER,
  speechToTextOf,
  type TextToSpeech,
  textToSpeechOf,
  type VoiceConcurrencyLimiter,
  type VoiceSettings,
  verifyMediaStreamToken,
  voiceMetricsTraceEvent,
} from '@parley/voice';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { realtimeStreamFor } from './realtimeStream.js';
import { sessionOfProject, voiceTurnAgent } from './voiceCall.js';

export interface VoiceMediaRouteOptions {
  /**
   * Telephony accounts with their auth tokens (the key of the stream token); `parameters` are the
   * stream's (a `voice` channel connection's calls carry `connectionId`).
   */
  account(
    accountSid: string,
    parameters: Readonly<Record<string, string>>,
  ): Promise<(TelephonyAccountSecrets & { agentName?: string | undefined }) | null>;
  store: EventStore;
  /**
   * The agent of the call: in pipeline mode each utterance is one runTurn (channel `voice_pipeline`,
   * channelType `pstn`); in realtime mode a realtime conversation (openRealtime, channel `voice_realtime`).
   */
  runtime: Pick<Runtime, 'runTurn' | 'openRealtime'>;
  settings: VoiceSettings;
  /** The limiter /voice/connect admitted the call with: the stream's end frees the call's slot (as its final status does). */
  limiter?: VoiceConcurrencyLimiter;
  /** Default: the engines named by voice.sttEngine / voice.ttsEngine. */
  stt?: SpeechToText;
  tts?: TextToSpeech;
  endpointing?: EndpointingOptions;
  /** Native audio model providers; voice.realtime.defaultProvider picks one (realtime and auto modes). */
  realtimeProviders?: readonly RealtimeVoiceProvider[];
  /** A socket that sends no valid `start` within this long is closed (1008). Default 10 s. */
  startTimeoutMs?: number;
}

/** The gateway's session channel and transport (TurnRequest.channel / channelType). */
export const VOICE_PIPELINE_CHANNEL = 'voice_pipeline';
export const VOICE_PIPELINE_CHANNEL_TYPE = 'pstn';

const sid = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,256}$/;

/** The provider's media stream messages (Twilio Media Streams); other events are ignored. */
const startMessage = z.object({
  event: z.literal('start'),
  streamSid: sid.optional(),
  start: z.object({
    streamSid: sid,
    accountSid: sid,
    callSid: sid,
    customParameters: z.record(z.string(), z.string()).optional(),
    mediaFormat: z
      .object({ encoding: z.string(), sampleRate: z.number(), channels: z.number().optional() })
      .optional(),
  }),
});
const mediaMessage = z.object({
  event: z.literal('media'),
  media: z.object({ track: z.string().optional(), payload: z.string().max(65_536) }),
});
const markMessage = z.object({ event: z.literal('mark'), mark: z.object({ name: z.string() }) });
const stopMessage = z.object({ event: z.literal('stop') });

/** Close codes: 1008 refused (no or bad `start`, bad token), 1011 voice not available, 1007 not JSON. */
const POLICY = 1008;
const UNAVAILABLE = 1011;
const NOT_JSON = 1007;

interface CallContext {
  call: PipelineCall;
  /** How the call is answered, and by what (the metrics trace's engines). */
  mode: 'pipeline' | 'realtime';
  engines: { stt: string; tts: string; realtimeModel?: string };
  streamSid: string;
  callSid: string;
  tenantId: string;
  projectId: string;
  startedAt: Date;
  /** The session the call named (stream parameter), not yet checked. */
  claimed: string | undefined;
}

/**
 * The voice gateway's media WebSocket (`/api/v1/voice/media/<CallSid>`, what `/voice/connect`
 * answers), in `pipeline` mode or, by voice.mode, `realtime` (realtimeStream.ts: a native audio
 * model through the realtime bridge). Uses the ONE @fastify/websocket registration of app.ts. The
 * provider connects, sends `connected`, `start` (with the stream parameters of the connect answer:
 * projectId, sessionId?, streamToken), `media` (20 ms of 8 kHz µ-law, base64), `mark`, `stop`;
 * the gateway answers `media`, `mark` and `clear` (barge-in). At `stop` (or when the socket
 * closes) the call's voice metrics are appended to its session as a TraceEventRecorded.
 */
export const voiceMediaRoutes: FastifyPluginAsync<VoiceMediaRouteOptions> = async (app, options) => {
  const { settings } = options;
  const stt = options.stt ?? speechToTextOf(settings.sttEngine);
  const tts = options.tts ?? textToSpeechOf(settings.ttsEngine);

  app.get<{ Params: { callSid: string } }>(
    `${MEDIA_STREAM_PATH}/:callSid`,
    { websocket: true, schema: { hide: true } },
    (socket: WebSocket, request) => {
      const log = request.log;
      const pathCallSid = request.params.callSid;
      let context: CallContext | null = null;
      let finished: Promise<void> | null = null;
      let chain: Promise<void> = Promise.resolve();
      const timer = setTimeout(() => {
        if (context === null) socket.close(POLICY, 'no start');
      }, options.startTimeoutMs ?? 10_000);

      const send = (message: unknown) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };

      const finish = () => {
        finished ??= (async () => {
          clearTimeout(timer);
          const ctx = context;
          if (ctx === null) return;
          const metrics = await ctx.call.stop();
          await options.limiter?.release(ctx.tenantId, 'calls', callSlotMember(ctx.callSid));
          // The session of the call's turns; without turns, the session the call named (if it is the project's).
          const sessionId =
            ctx.call.sessionId ?? (await sessionOfProject(options.store, ctx.projectId, ctx.claimed));
          if (sessionId === null) {
            log.info({ callSid: ctx.callSid, metrics }, 'voice call without a session: metrics not recorded');
            return;
          }
          const event = voiceMetricsTraceEvent({
            sessionId,
            projectId: ctx.projectId,
            tenantId: ctx.tenantId,
            callSid: ctx.callSid,
            streamSid: ctx.streamSid,
            mode: ctx.mode,
            ...ctx.engines,
            startedAt: ctx.startedAt,
            metrics,
            latencyTargetMs: settings.latencyTargetMs,
          });
          try {
            await options.store.append(sessionStream(sessionId), [event]);
          } catch (err) {
            if (!(err instanceof EventIdConflictError)) throw err;
          }
        })().catch((err: unknown) => log.error({ err }, 'voice call metrics not recorded'));
        return finished;
      };

      const begin = async (raw: unknown) => {
        const parsed = startMessage.safeParse(raw);
        if (!parsed.success) {
          socket.close(POLICY, 'invalid start');
          return;
        }
        const start = parsed.data.start;
        const params = start.customParameters ?? {};
        const account =
          start.callSid === pathCallSid ? await options.account(start.accountSid, params) : null;
        const projectId = params.projectId;
        const claimed =
          params.sessionId !== undefined && SESSION_ID.test(params.sessionId) ? params.sessionId : undefined;
        if (
          account === null ||
          projectId !== account.projectId ||
          !verifyMediaStreamToken(
            account.authToken,
            { callSid: start.callSid, projectId, sessionId: params.sessionId },
            params[STREAM_TOKEN_PARAMETER],
          )
        ) {
          socket.close(POLICY, 'stream not authorized');
          return;
        }
        const format = start.mediaFormat;
        if (format !== undefined && (format.encoding !== 'audio/x-mulaw' || format.sampleRate !== 8000)) {
          socket.close(POLICY, 'unsupported media format (audio/x-mulaw 8000 only)');
          return;
        }
        if (!settings.enabled) {
          socket.close(UNAVAILABLE, 'voice not enabled');
          return;
        }
        const streamSid = start.streamSid;
        const output = {
          media: (frame: Uint8Array) =>
            send({ event: 'media', streamSid, media: { payload: Buffer.from(frame).toString('base64') } }),
          mark: (name: string) => send({ event: 'mark', streamSid, mark: { name } }),
          clear: () => send({ event: 'clear', streamSid }),
        };
        const base = {
          streamSid,
          callSid: start.callSid,
          tenantId: account.tenantId,
          projectId: account.projectId,
          startedAt: new Date(),
          claimed,
        };
        const realtime = await realtimeStreamFor(
          { runtime: options.runtime, settings, providers: options.realtimeProviders ?? [], log },
          {
            ...base,
            channelType: VOICE_PIPELINE_CHANNEL_TYPE,
            output,
            // The cap, the agent's end of the conversation, or the provider gone: the stream ends.
            onEnd: (reason) => {
              chain = chain.then(() => finish()).then(() => socket.close(1000, reason));
            },
          },
        );
        if (realtime.mode === 'unavailable') {
          socket.close(UNAVAILABLE, realtime.reason);
          return;
        }
        clearTimeout(timer);
        if (realtime.mode === 'realtime') {
          const engines = { stt: realtime.provider, tts: realtime.provider, realtimeModel: realtime.model };
          context = { ...base, mode: 'realtime', engines, call: realtime.call };
          return;
        }
        if (stt === null || tts === null) {
          socket.close(UNAVAILABLE, 'voice pipeline not configured');
          return;
        }
        // A voice connection's agent (connectionWebhook.ts) starts its calls' sessions.
        const agent = voiceTurnAgent(options.runtime, {
          projectId: account.projectId,
          tenantId: account.tenantId,
          claimed,
          agentName: account.agentName,
          channel: VOICE_PIPELINE_CHANNEL,
          channelType: VOICE_PIPELINE_CHANNEL_TYPE,
          channelMetadata: { callSid: start.callSid, streamSid },
        });
        context = {
          ...base,
          mode: 'pipeline',
          engines: { stt: stt.name, tts: tts.name },
          call: createPipelineCall({
            stt,
            tts,
            agent,
            latencyTargetMs: settings.latencyTargetMs,
            ...(options.endpointing === undefined ? {} : { endpointing: options.endpointing }),
            output,
            onError: (err) => log.warn({ err, callSid: start.callSid }, 'voice turn failed'),
          }),
        };
      };

      const handle = async (data: Buffer | ArrayBuffer | Buffer[]) => {
        let raw: unknown;
        try {
          raw = JSON.parse(
            Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'),
          );
        } catch {
          socket.close(NOT_JSON, 'not JSON');
          return;
        }
        const event = (raw as { event?: unknown } | null)?.event;
        if (context === null) {
          if (event === 'connected') return;
          await begin(raw);
          return;
        }
        if (event === 'media') {
          const media = mediaMessage.safeParse(raw);
          if (media.success && (media.data.media.track ?? 'inbound') === 'inbound')
            context.call.pushAudio(Buffer.from(media.data.media.payload, 'base64'));
        } else if (event === 'mark') {
          const mark = markMessage.safeParse(raw);
          if (mark.success) context.call.markPlayed(mark.data.mark.name);
        } else if (stopMessage.safeParse(raw).success) {
          await finish();
          socket.close(1000, 'stopped');
        }
      };

      socket.on('message', (data: Buffer) => {
        chain = chain.then(() => handle(data)).catch((err: unknown) => logError(log, err));
      });
      socket.on('close', () => {
        chain = chain.then(() => finish()).catch((err: unknown) => logError(log, err));
      });
    },
  );
};

const logError = (log: FastifyBaseLogger, err: unknown) => log.error({ err }, 'voice media stream failed');
