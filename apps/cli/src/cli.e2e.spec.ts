import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, parleyBin, repoRoot, runCli } from './testing/runCli.js';

const run = runCli;
const root = repoRoot;
const bin = parleyBin;

function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((res, rej) => {
    let seen = '';
    const timer = setTimeout(
      () => rej(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${seen}`)),
      timeoutMs,
    );
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) {
        clearTimeout(timer);
        res(m);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (seen += d.toString()));
    child.on('close', (code) => rej(new Error(`exited with ${code} before ${pattern}; output:\n${seen}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((res) => {
    if (child.exitCode !== null) res(child.exitCode);
    else child.on('close', (code) => res(code));
  });

/**
 * The README's commands after `parley seed`, as a reader runs them: the `export` lines the seed
 * printed, then the README's block pasted into a shell (curl made to fail on an HTTP error).
 */
async function pasteTheReadme(seedOutput: string): Promise<void> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const block = /paste them, and these work as they are:\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'the README block after the seed').toBeDefined();
  const exports = seedOutput
    .split('\n')
    .filter((line) => line.trimStart().startsWith('export '))
    .join('\n');
  const work = mkdtempSync(join(tmpdir(), 'parley-readme-'));
  try {
    const script = `set -e\n${exports}\n${block!.replaceAll('curl ', 'curl -fsS ')}`;
    const shell = spawnSync('sh', ['-c', script], { cwd: work, encoding: 'utf8', env: cleanEnv() });
    expect(shell.status, `${shell.stderr}\n${script}`).toBe(0);
    // The first demo call's recording, played through its proxied URL with no key.
    expect(readFileSync(join(work, 'call.wav')).toString('ascii', 0, 4)).toBe('RIFF');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('parley start on the embedded default (the README command)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with no configuration, serves, lets other commands attach, and stops cleanly on Ctrl-C', async () => {
    const env = cleanEnv({ PARLEY_DATA_DIR: dataDir, PORT: '0' });
    let seedOutput = '';
    for (const round of [1, 2]) {
      const child = spawn(process.execPath, [bin, 'start'], { cwd: root, env });
      try {
        // The first start prints the banner once it serves, and again once its demo project is made.
        const banner =
          round === 1
            ? /Parley is running at (http:\/\/\S+)[\s\S]*the demo project was just created/
            : /Parley is running at (http:\/\/\S+)/;
        const [, url] = await waitForOutput(child, banner, 90_000);
        const health = await fetch(`${url}/healthz`);
        expect(health.status).toBe(200);
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(200);
        expect(await ready.json()).toMatchObject({ status: 'ready' });

        if (round === 1) {
          const seed = await run(['seed', '--sessions', '20'], env);
          expect(seed.code, seed.stderr).toBe(0);
          seedOutput = seed.stdout;
          expect(seed.stdout).toMatch(/Ingested 20 sessions: \d+ items, \d+ accepted, 0 rejected/);
          // The address of the Parley that runs (PORT=0: a port it picked), in lines to paste.
          expect(seed.stdout).toContain(`export PARLEY_URL=${url} PROJECT=proj_`);
        }
        // The running worker projects what the seed appended.
        let behind: number[] = [];
        for (let i = 0; i < 50; i++) {
          const status = await run(['projections', 'status', '--json'], env);
          expect(status.code, status.stderr).toBe(0);
          const statuses: Array<{ state: string; generations: Array<{ eventsBehind: number }> }> = JSON.parse(
            status.stdout,
          );
          expect(statuses.map((s) => s.state)).toEqual(statuses.map(() => 'ok'));
          behind = statuses.flatMap((s) => s.generations.map((g) => g.eventsBehind));
          if (behind.length > 0 && behind.every((b) => b === 0)) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        expect(behind.length).toBeGreaterThan(0);
        expect(behind).toEqual(behind.map(() => 0));

        const replay = await run(['replay', '--type', 'SessionStarted'], env);
        expect(replay.code, replay.stderr).toBe(0);
        const lines = replay.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(lines.length).toBeGreaterThan(0);
        expect(lines.every((l) => l.type === 'SessionStarted')).toBe(true);
        if (round === 1) await pasteTheReadme(seedOutput);
      } finally {
        child.kill('SIGINT');
      }
      expect(await exited(child)).toBe(0);
    }
  }, 240_000);

  it('refuses a second `parley start` on the same data directory', async () => {
    const env = cleanEnv({ PARLEY_DATA_DIR: dataDir, PORT: '0' });
    const first = spawn(process.execPath, [bin, 'start'], { cwd: root, env });
    try {
      await waitForOutput(first, /Parley is running at/, 90_000);
      const second = await run(['start'], env);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/already running/);
    } finally {
      first.kill('SIGINT');
    }
    expect(await exited(first)).toBe(0);
  }, 180_000);
});

describe('parley commands against an external database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('migrate, seed, replay (with filters and to a file), projections status and rebuild', async () => {
    const env = cleanEnv({ DATABASE_URL: db.url });
    const pending = await run(['migrate', '--status'], env);
    expect(pending.code).toBe(1);
    expect(pending.stdout).toMatch(/pending migrations/);
    const migrated = await run(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((await run(['migrate', '--status'], env)).stdout).toMatch(/migrations: current/);
    // The read models exist before any worker ran: an API started alone answers empty pages, not 500.
    const { rows: readModels } = await db.pool.query<{ name: string }>(
      `select table_name as name from information_schema.views
        where table_name in ('session_summaries', 'session_day_counts', 'llm_ledger') order by 1`,
    );
    expect(readModels.map((r) => r.name)).toEqual(['llm_ledger', 'session_day_counts', 'session_summaries']);

    const seeded = await run(['seed', '--sessions', '20', '--json'], env);
    expect(seeded.code, seeded.stderr).toBe(0);
    const { accepted } = JSON.parse(seeded.stdout) as { accepted: number };
    expect(accepted).toBeGreaterThan(100);

    const all = await run(['replay'], env);
    const events = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThanOrEqual(accepted);
    const stream = events[0].stream as string;
    const oneStream = await run(['replay', '--stream', stream], env);
    const streamEvents = oneStream.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(streamEvents.map((e) => e.revision)).toEqual(streamEvents.map((_, i) => String(i)));
    expect((await run(['replay', '--project', 'nobody'], env)).stdout).toBe('');

    const out = join(mkdtempSync(join(tmpdir(), 'parley-replay-')), 'audit.jsonl');
    const toFile = await run(['replay', '--type', 'SessionEnded', '--out', out], env);
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stderr).toMatch(/wrote \d+ events to/);

    const rebuilt = await run(['projections', 'rebuild', 'event-counts'], env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/generation \d+ is live/);
    const status = await run(['projections', 'status'], env);
    expect(status.stdout).toMatch(/event-counts/);

    const unknown = await run(['projections', 'rebuild', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no projection named "nope"/);
  }, 120_000);

  it('refuses bad configuration and bad arguments with exit code 2 and a message', async () => {
    const badPort = await run(['migrate'], cleanEnv({ DATABASE_URL: db.url, PORT: 'eighty' }));
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/PORT/);
    const badDate = await run(['replay', '--from', 'yesterday'], cleanEnv({ DATABASE_URL: db.url }));
    expect(badDate.code).not.toBe(0);
    expect(badDate.stderr).toMatch(/--from must be an ISO 8601/);
    const noDb = await run(['api'], cleanEnv({}));
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toMatch(/DATABASE_URL is not set/);
  }, 60_000);
});
