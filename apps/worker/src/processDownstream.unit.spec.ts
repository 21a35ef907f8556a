import { loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { workerDownstream } from './process.js';

const downstreamOf = (env: Record<string, string>) => workerDownstream({ config: loadConfig(env) });

describe('workerDownstream', () => {
  it('is off without NATS_URL', () => {
    expect(downstreamOf({})).toBeUndefined();
    expect(downstreamOf({ NATS_URL: '' })).toBeUndefined();
  });

  it('connects to every listed server with the default stream settings', () => {
    expect(downstreamOf({ NATS_URL: 'nats://a:4222, nats://b:4222' })).toEqual({
      nats: { servers: ['nats://a:4222', 'nats://b:4222'], name: 'parley-worker-relay' },
      stream: { name: 'PARLEY_EVENTS', replicas: 1, duplicateWindowMs: 120_000 },
    });
  });

  it('passes the stream settings of the configuration', () => {
    expect(
      downstreamOf({
        NATS_URL: 'nats://127.0.0.1:4222',
        NATS_STREAM_NAME: 'EVENTS',
        NATS_STREAM_REPLICAS: '3',
        NATS_STREAM_MAX_AGE: '30d',
        NATS_STREAM_MAX_BYTES: '1073741824',
        NATS_DUPLICATE_WINDOW: '10m',
      })?.stream,
    ).toEqual({
      name: 'EVENTS',
      replicas: 3,
      duplicateWindowMs: 600_000,
      maxAgeMs: 30 * 86_400_000,
      maxBytes: 1_073_741_824,
    });
  });
});
