import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startPrivateNats, startPrivateRedis } from '@parley/platform/testing/privateServer';
import { sleep } from '../load.js';
import { measure, type ScenarioResult } from '../measure.js';
import type { World } from '../world.js';

export interface OutageOptions {
  /** Seconds the dependency stays stopped. */
  downSeconds: number;
  gapSeconds: number;
}

/**
 * A private NATS stopped under ingest: the worker's relay pauses (backoff) and resumes from its
 * checkpoint; the API does not use NATS. Every logged event of the project must be in the stream
 * once (JetStream drops a repeat by Nats-Msg-Id).
 */
export async function natsOutage(
  world: World,
  options: OutageOptions,
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const nats = await startPrivateNats();
  try {
    const stream = `CHAOS_${Date.now().toString(36).toUpperCase()}`;
    const env = { NATS_URL: nats.url, NATS_STREAM_NAME: stream };
    const project = await world.project();
    const api = await world.process('api', 'nats-api');
    const worker = await world.process('worker', 'nats-worker', env);
    await Promise.all([api.start(), worker.start()]);
    const result = await measure({
      name: `NATS stopped ${options.downSeconds} s`,
      world,
      project,
      apis: () => [api],
      chaos: async () => {
        await sleep(options.gapSeconds * 1000);
        const down = Date.now();
        await nats.stop();
        log(`  NATS stopped for ${options.downSeconds} s`);
        await sleep(options.downSeconds * 1000);
        await nats.start();
        const back = Date.now();
        await sleep(options.gapSeconds * 1000);
        return { outages: [{ what: 'NATS', down, back }] };
      },
    });
    const expected = result.counts.logged.sessions + result.counts.logged.messages;
    const { published, caughtUpMs } = await publishedCount(
      nats.url,
      stream,
      project.tenantId,
      project.projectId,
      expected,
    );
    result.extra.published = published;
    result.notes.push(
      `published to JetStream: ${published} of ${expected} logged events${caughtUpMs === null ? ' (relay did not catch up within 120 s)' : ''}`,
    );
    if (published !== expected) result.lost += Math.max(0, expected - published);
    if (published > expected) result.duplicated += published - expected;
    await Promise.all([api.stop(), worker.stop()]);
    return result;
  } finally {
    await nats.destroy();
  }
}

/** The project's messages in the stream, once the relay has published `expected` (or 120 s passed). */
async function publishedCount(
  url: string,
  stream: string,
  tenantId: string,
  projectId: string,
  expected: number,
): Promise<{ published: number; caughtUpMs: number | null }> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const filter = `parley.${tenantId}.${projectId}.>`;
    const started = Date.now();
    for (;;) {
      const info = await jsm.streams.info(stream, { subjects_filter: filter });
      const published = Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
      if (published >= expected) return { published, caughtUpMs: Date.now() - started };
      if (Date.now() - started > 120_000) return { published, caughtUpMs: null };
      await sleep(250);
    }
  } finally {
    await nc.close();
  }
}

/**
 * A private Redis (rate limits, session limits, media tokens, voice limits) stopped under ingest
 * and reads: ingest and reads go on (the tenant rate limit falls back to each process's own), no 5xx.
 */
export async function redisOutage(
  world: World,
  options: OutageOptions,
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const redis = await startPrivateRedis();
  try {
    // A real limit this time (the load stays under it): the limiter must keep answering, not refuse.
    const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '5000' };
    const project = await world.project();
    const api = await world.process('api', 'redis-api', env);
    const worker = await world.process('worker', 'redis-worker', env);
    await Promise.all([api.start(), worker.start()]);
    const result = await measure({
      name: `Redis stopped ${options.downSeconds} s`,
      world,
      project,
      apis: () => [api],
      chaos: async () => {
        await sleep(options.gapSeconds * 1000);
        const down = Date.now();
        await redis.stop();
        log(`  Redis stopped for ${options.downSeconds} s`);
        await sleep(options.downSeconds * 1000);
        await redis.start();
        const back = Date.now();
        await sleep(options.gapSeconds * 1000);
        return { outages: [{ what: 'Redis', down, back }] };
      },
    });
    await Promise.all([api.stop(), worker.stop()]);
    return result;
  } finally {
    await redis.destroy();
  }
}
