import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, parleyBin, repoRoot, runCli } from './testing/runCli.js';

/**
 * Issue 10 E as deployed: `parley api` and `parley worker` on one database. A rebuild requested over
 * HTTP is refused 503 until a worker has created its queue, then accepted, run by the worker to
 * completion and visible in GET /api/v1/projections with the new generation live.
 */

const freePort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

const until = async <T>(what: string, get: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await get().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('projections admin API end to end', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let api: ChildProcess | undefined;
  let worker: ChildProcess | undefined;
  let base: string;
  let key: string;
  let logs = '';

  const start = (command: 'api' | 'worker'): ChildProcess => {
    const child = spawn(process.execPath, [parleyBin, command], { cwd: repoRoot, env });
    child.stdout?.on('data', (d) => (logs += d));
    child.stderr?.on('data', (d) => (logs += d));
    return child;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = cleanEnv({ DATABASE_URL: db.url, PORT: String(port) });
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code, migrate.stderr).toBe(0);
    const seeded = await runCli(['seed', '--sessions', '5', '--json'], env, 120_000);
    expect(seeded.code, seeded.stderr).toBe(0);
    const tenant = JSON.parse((await runCli(['tenants', 'create', '--name', 'Ops', '--json'], env)).stdout);
    const project = JSON.parse(
      (await runCli(['projects', 'create', '--tenant', tenant.id, '--slug', 'ops', '--json'], env)).stdout,
    );
    const created = await runCli(
      ['keys', 'create', '--project', project.id, '--scope', 'projections.admin'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    api = start('api');
    await until(
      'the API',
      async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined),
      60_000,
    );
  }, 240_000);

  afterAll(async () => {
    for (const child of [api, worker]) child?.kill('SIGTERM');
    await Promise.all(
      [api, worker].map(
        (child) =>
          new Promise((resolve) =>
            child === undefined || child.exitCode !== null ? resolve(null) : child.on('exit', resolve),
          ),
      ),
    );
    await db?.close();
  });

  const call = (method: 'GET' | 'POST', path: string) =>
    fetch(`${base}${path}`, { method, headers: { 'x-api-key': key } });

  it('503 before any worker ran, then 202, run by the worker, and the new generation is live', async () => {
    const early = await call('POST', '/api/v1/projections/session-summaries/rebuilds');
    expect(early.status, logs).toBe(503);
    expect(((await early.json()) as { error: { code: string } }).error.code).toBe('QUEUE_UNAVAILABLE');

    worker = start('worker');
    await until(
      'the worker’s queue',
      async () =>
        (await db.pool.query(`select 1 from pgboss.queue where name = 'projection-rebuild'`)).rowCount === 1
          ? true
          : undefined,
      60_000,
    );
    const accepted = await call('POST', '/api/v1/projections/session-summaries/rebuilds');
    expect(accepted.status, logs).toBe(202);
    const { rebuild } = (await accepted.json()) as { rebuild: { id: string; state: string } };
    expect(rebuild.state).toBe('queued');

    type Rebuild = { state: string; generation: number; eventsProcessed: number; eventsTotal: number };
    const done = await until(
      'the rebuild',
      async () => {
        const res = await call('GET', `/api/v1/projections/session-summaries/rebuilds/${rebuild.id}`);
        const body = (await res.json()) as { rebuild: Rebuild };
        return body.rebuild.state === 'completed' || body.rebuild.state === 'failed'
          ? body.rebuild
          : undefined;
      },
      90_000,
    );
    expect(done.state, logs).toBe('completed');
    expect(done.eventsProcessed).toBeGreaterThan(0);
    expect(done.eventsTotal).toBe(done.eventsProcessed);

    const list = (await (await call('GET', '/api/v1/projections')).json()) as {
      projections: { name: string; liveGeneration: number; rebuild: { id: string } | null }[];
    };
    const summaries = list.projections.find((p) => p.name === 'session-summaries');
    expect(summaries?.liveGeneration).toBe(done.generation);
    expect(summaries?.rebuild?.id).toBe(rebuild.id);
  }, 180_000);
});
