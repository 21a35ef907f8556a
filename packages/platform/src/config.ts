import { z } from 'zod';
import { ParleyError } from './errors.js';

/**
 * Parley's configuration: environment variables, parsed once per process and
 * validated. Every variable is listed in the README's configuration table.
 */
const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url().optional())
  .optional();

/** A duration: `500ms`, `90s`, `15m`, `12h`, `30d` or bare milliseconds → milliseconds. */
const durationMs = z
  .string()
  .trim()
  .regex(/^\d+(ms|s|m|h|d)?$/, 'expected a duration like 30d, 12h, 15m, 90s or 500ms')
  .transform((v) => {
    const match = /^(\d+)(ms|s|m|h|d)?$/.exec(v) as RegExpExecArray;
    const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] as number;
    return Number(match[1]) * unit;
  });

/** Base64 (or base64url) of exactly 32 bytes. */
function isBase64Key(value: string): boolean {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

export const configSchema = z.object({
  /** External PostgreSQL. Unset: `parley start` runs the embedded PostgreSQL. */
  DATABASE_URL: optionalUrl,
  /** Connections in each process's pool. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `pretty` (human-readable), `json`, or `auto`: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  /** EventStoreDB connection string (esdb://…). Set: the log lives in EventStoreDB instead of PostgreSQL. */
  EVENTSTORE_URL: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .regex(/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//)
        .optional(),
    )
    .optional(),
  REDIS_URL: optionalUrl,
  NATS_URL: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** The JetStream stream the NATS relay publishes to (created or updated at the worker's start). */
  NATS_STREAM_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,255}$/, 'letters, digits, _ and - only')
    .default('PARLEY_EVENTS'),
  /** Copies of the stream in a NATS cluster (1–5). */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Oldest message the stream keeps (`30d`, `12h`, …); unset or `0`: no age limit. */
  NATS_STREAM_MAX_AGE: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(durationMs.optional())
    .optional(),
  /** Bytes the stream keeps; unset: no limit. */
  NATS_STREAM_MAX_BYTES: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.coerce.number<string | undefined>().int().min(1).optional())
    .optional(),
  /** How long JetStream remembers an event id (Nats-Msg-Id) to drop a repeat publish. */
  NATS_DUPLICATE_WINDOW: durationMs.default(120_000),
  /** Where the embedded default keeps its data (PostgreSQL cluster, media). */
  PARLEY_DATA_DIR: z.string().min(1).default('.parley'),
  /** Port of the embedded PostgreSQL; 0 picks a free one at each start. */
  PARLEY_EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Events read per projection batch. */
  PROJECTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(2_000),
  /** How often an idle reader polls the log when no wake-up arrives (milliseconds). */
  LOG_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Requests per second a tenant may make (spec 000 §8: a number it does not show); per-tenant overrides below. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /** Per-tenant request rates, `tenantId=limit` pairs separated by commas (e.g. `t_big=1000,t_small=10`). */
  RATE_LIMIT_TENANT_LIMITS: z
    .string()
    .trim()
    .default('')
    .transform((value, ctx) => {
      const limits: Record<string, number> = {};
      for (const entry of value.split(',').map((e) => e.trim())) {
        if (entry === '') continue;
        const match = /^([^=\s]+)=(\d{1,7})$/.exec(entry);
        const limit = match === null ? 0 : Number(match[2]);
        if (match === null || limit < 1) {
          ctx.addIssue({ code: 'custom', message: `expected tenantId=limit (limit >= 1), got "${entry}"` });
          return z.NEVER;
        }
        limits[match[1] as string] = limit;
      }
      return limits;
    }),
  /** Where recording media is kept: `filesystem` (under MEDIA_DIR, served as proxied URLs) or `s3`. */
  MEDIA_STORAGE: z.enum(['filesystem', 's3']).default('filesystem'),
  /** Media directory of the filesystem storage; default `<PARLEY_DATA_DIR>/media`. */
  MEDIA_DIR: z.string().min(1).optional(),
  /** S3-compatible storage (MEDIA_STORAGE=s3): bucket, region, endpoint (unset: AWS), path-style addressing. */
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: optionalUrl,
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** Static S3 credentials; unset: the AWS SDK's default provider chain. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Lifetime of issued media URLs, seconds (spec 000 §2.1): default 900; values above 3600 are capped to 3600. */
  RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(900)
    .transform((v) => Math.min(v, 3600)),
  /** Stored files across a session's recordings the recordings API returns (spec 000 §8); more: 413. */
  RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT: z.coerce.number().int().min(1).max(10_000).default(32),
  /**
   * The address telephony providers call (scheme, host and any path prefix a proxy strips), e.g.
   * https://parley.example.com: webhook signatures cover the full public URL. Unset: the request's
   * protocol and Host header.
   */
  PUBLIC_BASE_URL: optionalUrl,
  /** How often the worker's recording retention sweep runs, seconds. */
  RECORDING_RETENTION_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /**
   * OpenAI-compatible chat completions endpoint, including the version segment (the provider posts to
   * `<base>/chat/completions`), e.g. http://127.0.0.1:11434/v1. Unset while OPENAI_API_KEY is set:
   * https://api.openai.com/v1. Both unset: the `openai-compatible` provider is not configured.
   */
  OPENAI_BASE_URL: optionalUrl,
  /** Bearer key of the OpenAI-compatible endpoint; optional for local servers. Never logged. */
  OPENAI_API_KEY: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** Key of Anthropic's Messages API (`x-api-key`); set: agents with provider `anthropic` work. Never logged. */
  ANTHROPIC_API_KEY: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** Messages API endpoint without the version segment (`<base>/v1/messages`); default https://api.anthropic.com. */
  ANTHROPIC_BASE_URL: optionalUrl,
  /** `max_tokens` Parley asks the Messages API for (it requires one). */
  ANTHROPIC_MAX_TOKENS: z.coerce.number().int().min(1).max(200_000).default(4096),
  /** Whole time of one model call of the HTTP providers, retries included, ms; past it the call fails with `timeout`. */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Retries the vendor SDKs make on 408/409/429/5xx and connection errors (Retry-After honoured). */
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /**
   * Agent turns one process runs at once through the conversation endpoints (chat/send,
   * chat/stream, chat/agent, AG-UI, web chat); more wait in the execution queue.
   */
  TURN_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(16),
  /** Turns that may wait for a free slot; one more is refused with 429 QUEUE_FULL and Retry-After (spec 000 §7). */
  TURN_QUEUE_DEPTH: z.coerce.number().int().min(0).max(100_000).default(64),
  /**
   * Channel connections' `settings.apiBaseUrl`: comma-separated CIDRs, addresses or host names it
   * may reach although they are not public (and over plain http), e.g. `10.0.0.0/8,sms-gw.internal`.
   * Unset: only https URLs whose every address is public (the SSRF guard of HTTP async callbacks,
   * same syntax); checked when a connection is saved and again before each send.
   */
  CHANNEL_API_BASE_URL_ALLOWLIST: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /**
   * Agents' http tools: comma-separated CIDRs, addresses or host names their URLs may reach although
   * they are not public (and over plain http), e.g. `10.0.0.0/8,crm.internal`. Unset: only https
   * URLs whose every address is public (the SSRF guard of HTTP async callbacks, same syntax).
   */
  TOOL_HTTP_ALLOWLIST: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** How long a suspended (asynchronous) tool waits for its callback by default, seconds; an agent's tool may say less. */
  TOOL_SUSPENSION_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(86_400),
  /** HS256 secret of user JWT bearer tokens (at least 32 characters); never logged. Unset with JWT_JWKS_URL unset: JWTs are refused. */
  JWT_SECRET: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional())
    .optional(),
  /** JWKS of the identity provider for asymmetric (RS/PS/ES/EdDSA) user JWTs. */
  JWT_JWKS_URL: optionalUrl,
  /** Required `iss` of user JWTs, when set. */
  JWT_ISSUER: z.string().trim().min(1).optional(),
  /** Required `aud` of user JWTs, when set. */
  JWT_AUDIENCE: z.string().trim().min(1).optional(),
  /** Messages a session may receive per minute on the conversation endpoints (spec 000 §8); more: 429. */
  CHAT_SESSION_MESSAGES_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  /** Sessions a tenant may have active at once on the conversation endpoints (spec 000 §8); a new one over it: 429. */
  CHAT_MAX_CONCURRENT_SESSIONS: z.coerce.number().int().min(1).max(10_000_000).default(100),
  /** A session stops counting as active (for the concurrent-sessions limit) this long after its last message, seconds. */
  CHAT_ACTIVE_SESSION_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Session lifecycle (docs/sessions.md): an active session with no activity for this long goes idle, seconds. */
  SESSION_IDLE_AFTER_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(300),
  /** An open (active or idle) session with no activity for this long is abandoned, seconds; more than the idle threshold. */
  SESSION_ABANDON_AFTER_SECONDS: z.coerce.number().int().min(2).max(31_536_000).default(1800),
  /** An ended session is archived this many days after it ended. */
  SESSION_ARCHIVE_AFTER_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  /** How often the worker's session lifecycle sweep runs, seconds. */
  SESSION_LIFECYCLE_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(30),
  /** HS256 secret of SDK session tokens (`X-SDK-Token`, at least 32 characters); never logged. Unset: SDK tokens are refused (401). */
  SDK_TOKEN_SECRET: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().min(32, 'SDK_TOKEN_SECRET must be at least 32 characters').optional())
    .optional(),
  /**
   * AES-256-GCM key of channel connection credentials, webhook subscription secrets and telephony
   * account auth tokens: base64 of 32 random bytes (`openssl rand -base64 32`); never logged. Unset:
   * the channel-connection routes answer 503 and telephony accounts cannot be added.
   */
  CHANNEL_CREDENTIALS_KEY: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z.string().refine(isBase64Key, 'CHANNEL_CREDENTIALS_KEY must be base64 of 32 random bytes').optional(),
    )
    .optional(),
  /** Older credential keys, comma-separated base64, still decrypting after a rotation (docs/channels.md). */
  CHANNEL_CREDENTIALS_KEYS: z
    .string()
    .trim()
    .refine(
      (v) => v.split(',').every((k) => k.trim() === '' || isBase64Key(k.trim())),
      'CHANNEL_CREDENTIALS_KEYS must be comma-separated base64 keys of 32 bytes',
    )
    .optional(),
  /**
   * Channel messages the worker answers at once (turns and sends, each a pg-boss worker of its
   * queue); a turn waits on its model, so more than one keeps other conversations moving.
   */
  CHANNEL_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /**
   * How long the parts of a message a platform delivers in pieces (a concatenated SMS through
   * Vonage's SMS API) wait for the others before what came is released as one message, seconds.
   */
  CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  /**
   * HTTP async callbacks: comma-separated CIDRs, addresses or host names that callback URLs may
   * reach although they are not public (and over plain http), e.g. `127.0.0.1/32,receiver.internal`.
   * Unset: only https URLs whose every address is public. Parsed by @parley/channels
   * `parseCallbackAllowlist`, which refuses a bad entry at start.
   */
  HTTP_ASYNC_CALLBACK_ALLOWLIST: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /**
   * Vonage signed webhooks: how far (seconds, either way) their signed time (the JWT's `iat`, the
   * SMS API's `timestamp`) may be from the server's clock; outside it they are refused like a bad
   * signature (docs/channels.md "SMS through Vonage").
   */
  VONAGE_WEBHOOK_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /**
   * HTTP async callbacks: the delays before attempt 2, 3, ... of a failed delivery, comma-separated
   * whole numbers with a unit s, m or h (1 to 50 entries, each 1s..24h); a delivery makes one
   * attempt more than there are entries, then is dead-lettered. Unset: `10s,30s,1m,2m,5m,10m,30m,1h,
   * 2h,4h,8h` (12 attempts over about 16 h). Parsed by @parley/channels `parseRetrySchedule`, which
   * refuses a bad entry at start.
   */
  HTTP_ASYNC_CALLBACK_RETRY_SCHEDULE: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** Port of the worker's inbound SMTP server for the email channel (docs/channels.md "Email"). Unset: no SMTP server. */
  EMAIL_SMTP_PORT: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : Number(v)))
    .pipe(z.number().int().min(0).max(65535).optional())
    .optional(),
  /** Address the inbound SMTP server binds to; default 127.0.0.1 (0.0.0.0: all interfaces, as a mail exchanger needs). */
  EMAIL_SMTP_HOST: z.string().trim().min(1).optional(),
  /** Name the SMTP server greets with; default the machine's host name. */
  EMAIL_SMTP_HOSTNAME: z.string().trim().min(1).optional(),
  /** PEM files of the key and certificate for STARTTLS on the inbound SMTP server (both or neither). */
  EMAIL_SMTP_TLS_KEY: z.string().trim().min(1).optional(),
  EMAIL_SMTP_TLS_CERT: z.string().trim().min(1).optional(),
  /** Largest inbound email accepted, bytes (default 10 MiB); larger ones are refused with 552. */
  EMAIL_SMTP_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .optional(),
  // Voice (spec 001 §4.4, §4.5, §8, "Voice configuration"; docs/voice.md maps each to its dotted option).
  /** voice.enabled: the voice routes answer (else capabilities say false and tokens answer 503). */
  VOICE_ENABLED: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** voice.mode: `pipeline` (STT, agent, TTS), `realtime` (native audio model) or `auto`. */
  VOICE_MODE: z.enum(['pipeline', 'realtime', 'auto']).default('pipeline'),
  /** voice.latencyTargetMs: target end-to-end latency, milliseconds. */
  VOICE_LATENCY_TARGET_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** voice.maxConcurrentCalls: voice calls (telephony and real-time rooms) a tenant may have at once; more: 429. */
  VOICE_MAX_CONCURRENT_CALLS: z.coerce.number().int().min(1).max(1_000_000).default(50),
  /** Speech engines of the pipeline (`pocketsphinx`, `espeak-ng`: @parley/voice pipeline/engines.ts); unset: that service is not configured. */
  VOICE_STT_ENGINE: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.enum(['pocketsphinx'], 'VOICE_STT_ENGINE must be pocketsphinx (or empty)').optional())
    .optional(),
  VOICE_TTS_ENGINE: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.enum(['espeak-ng'], 'VOICE_TTS_ENGINE must be espeak-ng (or empty)').optional())
    .optional(),
  /** voice.realtime.enabled: the realtime mode (a native audio model) may be used. */
  VOICE_REALTIME_ENABLED: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** voice.realtime.defaultProvider: the realtime provider's identifier (e.g. `openai`). */
  VOICE_REALTIME_DEFAULT_PROVIDER: z
    .string()
    .regex(/^[a-z][a-z0-9._-]{0,63}$/, 'VOICE_REALTIME_DEFAULT_PROVIDER must be a lowercase provider id')
    .optional(),
  /** voice.realtime.defaultVoice: the voice the realtime model speaks with. */
  VOICE_REALTIME_DEFAULT_VOICE: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'VOICE_REALTIME_DEFAULT_VOICE must be a voice name')
    .optional(),
  /** voice.realtime.audioFormat: `pcm16` (default), `g711_ulaw` or `g711_alaw`. */
  VOICE_REALTIME_AUDIO_FORMAT: z.enum(['pcm16', 'g711_ulaw', 'g711_alaw']).default('pcm16'),
  /** voice.realtime.maxSessionDurationMs: longest real-time call; a room is counted this long after its token. */
  VOICE_REALTIME_MAX_SESSION_DURATION_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(86_400_000)
    .default(1_800_000),
  /**
   * The realtime provider's WebSocket endpoint (`openai`: the OpenAI Realtime API, default
   * wss://api.openai.com/v1/realtime, keyed with OPENAI_API_KEY). Set it for a compatible server.
   */
  VOICE_REALTIME_URL: optionalUrl,
  /** The path segment of the real-time room service routes (`/api/v1/<vendor>/…`). */
  VOICE_RTC_VENDOR: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'VOICE_RTC_VENDOR must be a lowercase path segment')
    .refine((v) => v !== 'voice', 'VOICE_RTC_VENDOR must not be `voice` (the telephony routes)')
    .default('livekit'),
  /** voice.rtc.url, apiKey, apiSecret: the real-time room service (LiveKit); all three or it is not configured. */
  VOICE_RTC_URL: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.url({ protocol: /^(wss?|https?)$/ }).optional())
    .optional(),
  VOICE_RTC_API_KEY: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  VOICE_RTC_API_SECRET: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.string().min(32, 'VOICE_RTC_API_SECRET must be at least 32 characters').optional())
    .optional(),
  /** voice.rtc.tokenTtlSeconds: lifetime of real-time room tokens (spec 001 §8: 3600). */
  VOICE_RTC_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  /** voice.rtc.maxConcurrentRooms: real-time rooms open at once, all tenants together (spec 000 §8: global); more: 429. */
  VOICE_RTC_MAX_CONCURRENT_ROOMS: z.coerce.number().int().min(1).max(1_000_000).default(50),
  /** Real-time rooms one tenant may have open at once, within the global limit; unset: no per-tenant limit. */
  VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.coerce.number<string | undefined>().int().min(1).max(1_000_000).optional())
    .optional(),
  /**
   * The telephony provider's client SDK tokens (`POST /api/v1/voice/token`, Twilio-style access
   * token): account SID, API key SID and secret (never logged), and the optional outgoing
   * application (TwiML app) SID. Without the first three: that route answers 503.
   */
  VOICE_TELEPHONY_ACCOUNT_SID: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  VOICE_TELEPHONY_API_KEY_SID: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  VOICE_TELEPHONY_API_KEY_SECRET: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  VOICE_TELEPHONY_APP_SID: z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional(),
  /** Lifetime of telephony client tokens, seconds. */
  VOICE_TELEPHONY_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends ParleyError {
  override readonly name = 'ConfigError';
  constructor(readonly issues: string[]) {
    super('CONFIG_INVALID', 500, `Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
  }
}

/** Parses the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return parsed.data;
}
