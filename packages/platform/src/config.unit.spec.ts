import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('needs nothing: every variable has a default', () => {
    expect(loadConfig({})).toEqual({
      DATABASE_POOL_MAX: 10,
      HOST: '127.0.0.1',
      PORT: 3000,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'auto',
      NATS_STREAM_NAME: 'PARLEY_EVENTS',
      NATS_STREAM_REPLICAS: 1,
      NATS_DUPLICATE_WINDOW: 120_000,
      PARLEY_DATA_DIR: '.parley',
      PARLEY_EMBEDDED_PG_PORT: 0,
      PROJECTION_BATCH_SIZE: 2000,
      LOG_POLL_INTERVAL_MS: 500,
      MEDIA_STORAGE: 'filesystem',
      RATE_LIMIT_PER_SECOND: 100,
      RATE_LIMIT_TENANT_LIMITS: {},
      RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS: 900,
      RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT: 32,
      RECORDING_RETENTION_SWEEP_INTERVAL_SECONDS: 300,
      S3_FORCE_PATH_STYLE: false,
      S3_REGION: 'us-east-1',
      CHAT_SESSION_MESSAGES_PER_MINUTE: 60,
      CHAT_MAX_CONCURRENT_SESSIONS: 100,
      CHAT_ACTIVE_SESSION_WINDOW_SECONDS: 300,
      SESSION_IDLE_AFTER_SECONDS: 300,
      SESSION_ABANDON_AFTER_SECONDS: 1800,
      SESSION_ARCHIVE_AFTER_DAYS: 30,
      SESSION_LIFECYCLE_SWEEP_INTERVAL_SECONDS: 30,
      CHANNEL_WORKER_CONCURRENCY: 4,
      CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS: 120,
      LLM_MAX_RETRIES: 2,
      LLM_TIMEOUT_MS: 60_000,
      ANTHROPIC_MAX_TOKENS: 4096,
      TOOL_SUSPENSION_TIMEOUT_SECONDS: 86_400,
      TURN_CONCURRENCY: 16,
      TURN_QUEUE_DEPTH: 64,
      VONAGE_WEBHOOK_MAX_AGE_SECONDS: 300,
      VOICE_ENABLED: false,
      VOICE_MODE: 'pipeline',
      VOICE_LATENCY_TARGET_MS: 500,
      VOICE_MAX_CONCURRENT_CALLS: 50,
      VOICE_REALTIME_ENABLED: false,
      VOICE_REALTIME_AUDIO_FORMAT: 'pcm16',
      VOICE_REALTIME_MAX_SESSION_DURATION_MS: 1_800_000,
      VOICE_RTC_VENDOR: 'livekit',
      VOICE_RTC_TOKEN_TTL_SECONDS: 3600,
      VOICE_RTC_MAX_CONCURRENT_ROOMS: 50,
      VOICE_TELEPHONY_TOKEN_TTL_SECONDS: 3600,
    });
  });

  it('reads the user JWT settings; a JWT_SECRET shorter than 32 characters is refused', () => {
    expect(
      loadConfig({
        JWT_SECRET: 'x'.repeat(32),
        JWT_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
        JWT_ISSUER: 'https://idp.example.com/',
        JWT_AUDIENCE: 'parley',
      }),
    ).toMatchObject({
      JWT_SECRET: 'x'.repeat(32),
      JWT_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
      JWT_ISSUER: 'https://idp.example.com/',
      JWT_AUDIENCE: 'parley',
    });
    expect(loadConfig({ JWT_SECRET: '', JWT_JWKS_URL: '' }).JWT_SECRET).toBeUndefined();
    expect(() => loadConfig({ JWT_SECRET: 'too-short' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ CHAT_MAX_CONCURRENT_SESSIONS: '0' })).toThrow(/CHAT_MAX_CONCURRENT_SESSIONS/);
  });

  it('reads SDK_TOKEN_SECRET: empty is unset, shorter than 32 characters is refused', () => {
    expect(loadConfig({ SDK_TOKEN_SECRET: 's'.repeat(32) }).SDK_TOKEN_SECRET).toBe('s'.repeat(32));
    expect(loadConfig({ SDK_TOKEN_SECRET: '' }).SDK_TOKEN_SECRET).toBeUndefined();
    expect(() => loadConfig({ SDK_TOKEN_SECRET: 'too-short' })).toThrow(/SDK_TOKEN_SECRET/);
  });

  it('reads the external services and treats empty values as unset', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/parley',
      EVENTSTORE_URL: 'esdb://localhost:2113?tls=false',
      REDIS_URL: 'redis://127.0.0.1:6379',
      NATS_URL: 'nats://127.0.0.1:4222',
    });
    expect(config).toMatchObject({
      DATABASE_URL: 'postgres://u:p@db:5432/parley',
      EVENTSTORE_URL: 'esdb://localhost:2113?tls=false',
      REDIS_URL: 'redis://127.0.0.1:6379',
      NATS_URL: 'nats://127.0.0.1:4222',
    });
    const empty = loadConfig({ DATABASE_URL: '', EVENTSTORE_URL: ' ', REDIS_URL: '', NATS_URL: '' });
    expect(empty.DATABASE_URL).toBeUndefined();
    expect(empty.EVENTSTORE_URL).toBeUndefined();
    expect(empty.REDIS_URL).toBeUndefined();
    expect(empty.NATS_URL).toBeUndefined();
  });

  it('reads the NATS stream settings, durations in ms, s, m, h or d', () => {
    expect(loadConfig({})).toMatchObject({
      NATS_STREAM_NAME: 'PARLEY_EVENTS',
      NATS_STREAM_REPLICAS: 1,
      NATS_DUPLICATE_WINDOW: 120_000,
    });
    expect(loadConfig({}).NATS_STREAM_MAX_AGE).toBeUndefined();
    const config = loadConfig({
      NATS_STREAM_NAME: 'EVENTS_A',
      NATS_STREAM_REPLICAS: '3',
      NATS_STREAM_MAX_AGE: '30d',
      NATS_STREAM_MAX_BYTES: '1000000',
      NATS_DUPLICATE_WINDOW: '5m',
    });
    expect(config).toMatchObject({
      NATS_STREAM_NAME: 'EVENTS_A',
      NATS_STREAM_REPLICAS: 3,
      NATS_STREAM_MAX_AGE: 30 * 86_400_000,
      NATS_STREAM_MAX_BYTES: 1_000_000,
      NATS_DUPLICATE_WINDOW: 300_000,
    });
    fc.assert(
      fc.property(
        fc.nat({ max: 1_000_000 }),
        fc.constantFrom(['ms', 1], ['s', 1_000], ['m', 60_000], ['h', 3_600_000], ['d', 86_400_000]),
        (n, [unit, ms]) => {
          expect(loadConfig({ NATS_DUPLICATE_WINDOW: `${n}${unit}` }).NATS_DUPLICATE_WINDOW).toBe(
            n * (ms as number),
          );
        },
      ),
    );
    for (const bad of [
      { NATS_STREAM_MAX_AGE: '30 days' },
      { NATS_STREAM_REPLICAS: '6' },
      { NATS_STREAM_NAME: 'a.b' },
      { NATS_DUPLICATE_WINDOW: '-1s' },
    ])
      expect(() => loadConfig(bad)).toThrow(Object.keys(bad)[0] as string);
  });

  it('coerces every valid port number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), (port) => {
        expect(loadConfig({ PORT: String(port) }).PORT).toBe(port);
      }),
    );
  });

  it('refuses bad values, naming every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'not a url',
        EVENTSTORE_URL: 'http://x',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.join('\n');
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'EVENTSTORE_URL'])
      expect(issues).toContain(name);
  });

  it('caps the media URL lifetime at 3600 seconds', () => {
    expect(
      loadConfig({ RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS: '7200' }).RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS,
    ).toBe(3600);
    expect(() => loadConfig({ RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS: '0' })).toThrow(
      /RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS/,
    );
  });

  it('refuses out-of-range numbers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: -1 }), fc.integer({ min: 65536 })), (port) => {
        expect(() => loadConfig({ PORT: String(port) })).toThrow(ConfigError);
      }),
    );
    expect(() => loadConfig({ PROJECTION_BATCH_SIZE: '0' })).toThrow(/PROJECTION_BATCH_SIZE/);
    expect(() => loadConfig({ DATABASE_POOL_MAX: '2.5' })).toThrow(/DATABASE_POOL_MAX/);
  });

  it('reads per-tenant rate limits and refuses malformed pairs', () => {
    const config = loadConfig({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_TENANT_LIMITS: 't_a=5, t_b=1000' });
    expect(config.RATE_LIMIT_PER_SECOND).toBe(20);
    expect(config.RATE_LIMIT_TENANT_LIMITS).toEqual({ t_a: 5, t_b: 1000 });
    for (const bad of ['t_a', 't_a=0', 't_a=x', '=5'])
      expect(() => loadConfig({ RATE_LIMIT_TENANT_LIMITS: bad })).toThrow(/RATE_LIMIT_TENANT_LIMITS/);
    expect(() => loadConfig({ RATE_LIMIT_PER_SECOND: '0' })).toThrow(/RATE_LIMIT_PER_SECOND/);
  });
});
