import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storedCallerNumberKey } from '@parley/analytics';
import { createAuthStore } from '@parley/auth';
import { freePort } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedSummary } from './commands/seed.js';
import { CALLER_NUMBERS } from './seed/vocabulary.js';
import { type CliRun, cleanEnv, runCli } from './testing/runCli.js';

// The demo recordings' WAV files go to a directory of this run, not the repository's .parley.
const mediaDir = mkdtempSync(path.join(tmpdir(), 'parley-seed-e2e-'));
// Only printed (the seed serves nothing): the address a client of `parley api` on PORT would use.
const port = await freePort();
const run = (args: string[], databaseUrl: string, timeoutMs = 90_000): Promise<CliRun> =>
  runCli(
    args,
    cleanEnv({ DATABASE_URL: databaseUrl, HOST: '0.0.0.0', PORT: String(port), MEDIA_DIR: mediaDir }),
    timeoutMs,
  );

/**
 * The project's events in the log, counted by type (through `parley replay`). Readers see a
 * commit once every older transaction of the PostgreSQL cluster has finished (docs/log.md), and
 * other test files share the cluster: wait until `total` events are visible.
 */
async function countsByType(url: string, projectId: string, total: number): Promise<Record<string, number>> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const replay = await run(['replay', '--project', projectId], url);
    expect(replay.code, replay.stderr).toBe(0);
    const counts: Record<string, number> = {};
    const lines = replay.stdout.trim().split('\n').filter(Boolean);
    for (const line of lines) {
      const type = (JSON.parse(line) as { type: string }).type;
      counts[type] = (counts[type] ?? 0) + 1;
    }
    if (lines.length >= total || Date.now() > deadline) return counts;
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('parley seed --sessions N', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.close();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  let first: SeedSummary;

  it('--json prints one object: tenant, project, four keys with the right scopes, counts', async () => {
    const result = await run(['seed', '--sessions', '60', '--random-seed', '42', '--json'], db.url);
    expect(result.code, result.stderr).toBe(0);
    first = JSON.parse(result.stdout) as SeedSummary;
    expect(Object.keys(first).sort()).toEqual(
      [
        'accepted',
        'items',
        'keys',
        'projectId',
        'projectSlug',
        'recordings',
        'rejected',
        'sessions',
        'tenantId',
      ].sort(),
    );
    expect(first.recordings.sessions.map((s) => s.status)).toEqual(
      expect.arrayContaining([
        'success',
        'partial',
        'media_in_progress',
        'call_in_progress',
        'media_unavailable',
      ]),
    );
    expect(first.recordings.files).toBe(9);
    const wavs = readdirSync(mediaDir, { recursive: true }).filter((f) => String(f).endsWith('.wav'));
    expect(wavs).toHaveLength(9);
    expect(first).toMatchObject({ projectSlug: 'demo', sessions: 60, rejected: 0 });
    expect(first.tenantId).toMatch(/^ten_/);
    expect(first.projectId).toMatch(/^proj_/);
    expect(first.accepted).toBe(first.items);
    expect(first.items).toBeGreaterThan(60 * 5);
    expect(result.stderr).toMatch(/created demo tenant ten_\S+, created project demo/);

    const auth = createAuthStore(db.pool);
    const scopes = {
      analytics: ['analytics.read'],
      ingest: ['ingest.write'],
      recordings: ['recordings.read'],
      console: [
        'analytics.read',
        'traces.read',
        'conversations.read',
        'recordings.read',
        'projections.admin',
      ],
    } as const;
    expect(Object.keys(first.keys).sort()).toEqual(Object.keys(scopes).sort());
    for (const [name, scope] of Object.entries(scopes)) {
      const verified = await auth.verifyApiKey(first.keys[name as keyof typeof scopes]);
      expect(verified).toMatchObject({
        ok: true,
        principal: { tenantId: first.tenantId, projectId: first.projectId },
      });
      if (verified.ok) expect(verified.principal.scopes).toEqual(scope);
    }
    const project = await auth.getProject(first.projectId);
    expect(project?.settings).toMatchObject({
      reporting: { identityFields: true },
      payloads: { store: true },
    });
  }, 120_000);

  it('puts the facts in the log: N sessions started, every accepted item one event, plus the recorded calls', async () => {
    const recorded = first.recordings.sessions.length;
    const counts = await countsByType(db.url, first.projectId, first.accepted + first.recordings.events);
    expect(counts.SessionStarted).toBe(60 + recorded);
    expect(counts.SessionEnded).toBeGreaterThan(0);
    expect(counts.SessionEnded).toBeLessThan(60 + recorded);
    expect(counts.RecordingFileStored).toBeGreaterThan(0);
    for (const type of ['MessageReceived', 'AgentReplied', 'TraceEventRecorded', 'LlmCallRecorded']) {
      expect(counts[type], type).toBeGreaterThan(60);
    }
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(first.accepted + first.recordings.events);

    const started = await run(['replay', '--type', 'SessionStarted', '--project', first.projectId], db.url);
    const keys = started.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { data: { callerNumberKey?: string } }).data.callerNumberKey)
      .filter(Boolean);
    // Stored as the ingest path's match key, not as sent (the first voice calls use each named format).
    for (const format of CALLER_NUMBERS) expect(keys).toContain(storedCallerNumberKey(format));
    expect(keys).toContain('+442071838750');
    expect(keys).not.toContain('+44 20 7183 8750');
  }, 120_000);

  it('a second run reuses the demo tenant and project, with new keys and more sessions', async () => {
    const result = await run(['seed', '--sessions', '5'], db.url);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      `reused demo tenant ${first.tenantId}, reused project demo (${first.projectId})`,
    );
    expect(result.stdout).toMatch(/Ingested 5 sessions: (\d+) items, \1 accepted, 0 rejected/);
    const analytics = /analytics\.read\s+(plat_\S+)/.exec(result.stdout)?.[1];
    expect(analytics).toBeDefined();
    expect(analytics).not.toBe(first.keys.analytics);
    const recordings = /recordings\.read\s+(plat_\S+)/.exec(result.stdout)?.[1];
    expect(result.stdout).toMatch(/Recorded \d+ demo calls \(9 WAV files\)/);
    // What the README's commands use, ready to paste.
    expect(result.stdout).toContain(
      `export PARLEY_URL=http://localhost:${port} PROJECT=${first.projectId}\n`,
    );
    expect(result.stdout).toContain(`export ANALYTICS_KEY=${analytics} RECORDINGS_KEY=${recordings}\n`);
    expect(result.stdout).toMatch(/export SESSION=demo-rec-\w+\n/);
    expect(result.stdout).toContain(
      'curl -H "x-api-key: $ANALYTICS_KEY" "$PARLEY_URL/api/public/analytics/projects/$PROJECT/sessions?fromDate=',
    );
    expect(result.stdout).toMatch(/fromDate=\d{4}-\d\d-\d\dT00:00:00Z&toDate=\d{4}-\d\d-\d\dT00:00:00Z"/);
    expect(result.stdout).toContain(
      'curl -H "Authorization: Bearer $RECORDINGS_KEY" "$PARLEY_URL/api/public/recordings/projects/$PROJECT/sessions/$SESSION/recordings?disposition=inline"',
    );
    const items = Number(/: (\d+) items/.exec(result.stdout)?.[1]);
    // The same random seed again makes the same item ids: accepted, but nothing new is appended.
    const again = await run(['seed', '--sessions', '60', '--random-seed', '42', '--json'], db.url);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ projectId: first.projectId, accepted: first.items });
    // Every run records the same number of demo calls (the 5-session run made its own).
    const recordedEvents = 2 * first.recordings.events;
    const started = (await countsByType(db.url, first.projectId, first.accepted + items + recordedEvents))
      .SessionStarted;
    expect(started).toBe(65 + 2 * first.recordings.sessions.length);

    // Another slug: a new project of the same demo tenant.
    const other = await run(['seed', '--sessions', '1', '--project-slug', 'demo-two', '--json'], db.url);
    expect(other.code, other.stderr).toBe(0);
    const summary = JSON.parse(other.stdout) as SeedSummary;
    expect(summary.tenantId).toBe(first.tenantId);
    expect(summary.projectId).not.toBe(first.projectId);
    expect(other.stderr).toMatch(/reused demo tenant .*, created project demo-two/);
  }, 180_000);

  it('refuses a bad slug or count with exit code 2', async () => {
    const slug = await run(['seed', '--sessions', '1', '--project-slug', 'Not_A_Slug'], db.url);
    expect(slug.code).toBe(2);
    const count = await run(['seed', '--sessions', '0'], db.url);
    expect(count.code).not.toBe(0);
    expect(count.stderr).toMatch(/--sessions/);
  }, 60_000);
});
