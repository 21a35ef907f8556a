import { SignJWT } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionsPage } from './sessions/types.js';
import { type ConsoleWorld, hasChromium, startConsoleWorld } from './testing/consoleWorld.js';

/**
 * Issue 10's "done when", as a newcomer does it: the README's start command on a fresh data
 * directory (no DATABASE_URL: the embedded PostgreSQL, whose first start seeds the demo and keeps
 * the console key in .parley/console-key), then the console in Chromium: sign in with that key, see
 * the seeded demo, filter the sessions, open a recorded call, follow its trace and play its recording.
 */
const JWT_SECRET = 'a-user-jwt-secret-of-the-console-browser-test';

describe.skipIf(!hasChromium)('console: a newcomer after `npm start` (browser)', () => {
  let world: ConsoleWorld;
  let page: Page;

  beforeAll(async () => {
    world = await startConsoleWorld({ embedded: true, env: { JWT_SECRET } });
    page = await world.newPage();
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  });

  it('signs in with the key of .parley/console-key and sees the seeded demo', async () => {
    const first = page.waitForResponse((r) =>
      r.url().includes(`/analytics/projects/${world.projectId}/sessions`),
    );
    await world.signIn(page);
    const response = await first;
    const body = (await response.json()) as SessionsPage;
    // The default window is the ledger's "Last 7 days": the last 7 × 24 hours, rolling.
    const asked = new URL(response.url()).searchParams;
    const [from, to] = [Date.parse(asked.get('fromDate') ?? ''), Date.parse(asked.get('toDate') ?? '')];
    expect(to - from).toBe(7 * 24 * 3_600_000);
    // Every session the demo seeding started in that window, from the log (200 sessions and 12 recorded
    // calls spread over the 7 × 24 hours before the seeding: by now the oldest may have left it).
    const started = new Map<string, number>();
    const replay = await world.cli(['replay', '--project', world.projectId, '--type', 'SessionStarted']);
    for (const line of replay.trim().split('\n')) {
      const { data } = JSON.parse(line) as { data: { sessionId: string; startedAt: string } };
      const at = Date.parse(data.startedAt);
      started.set(data.sessionId, Math.min(at, started.get(data.sessionId) ?? at));
    }
    const inWindow = [...started.values()].filter((at) => at >= from && at < to).length;
    expect(started.size).toBeGreaterThanOrEqual(212);
    expect(body.total).toBe(inWindow);
    const rows = page
      .getByRole('table', { name: /Sessions/ })
      .locator('tbody')
      .getByRole('row');
    await expect.poll(() => rows.count()).toBeGreaterThan(10);
    expect(page.url()).toMatch(new RegExp(`#/p/${world.projectId}/sessions`));
  });

  it('filters to voice calls and opens a recorded one: conversation, trace, recording', async () => {
    await page.getByLabel('Channel', { exact: true }).fill('voice_pipeline');
    const filtered = page.waitForResponse((r) => {
      const url = new URL(r.url());
      return url.pathname.endsWith('/sessions') && url.searchParams.get('channel') === 'voice_pipeline';
    });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const body = (await (await filtered).json()) as SessionsPage;
    expect(body.sessions.length).toBeGreaterThan(0);
    for (const s of body.sessions) expect(s.channel).toMatch(/^voice/);

    // The demo's recorded calls are `demo-rec-…`; the first one in the list (newest) has all its files.
    const recorded = page.getByRole('link', { name: /^demo-rec-/ }).first();
    await recorded.waitFor();
    // The link shows a shortened id; its target holds the whole one.
    const target = (await recorded.getAttribute('href')) ?? '';
    const sessionId = decodeURIComponent(target.split('/').pop() ?? '');
    expect(sessionId).toMatch(/^demo-rec-/);
    await recorded.click();
    await page.getByRole('heading', { level: 1, name: new RegExp(sessionId) }).waitFor();

    const bubbles = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem');
    await expect.poll(() => bubbles.count()).toBeGreaterThanOrEqual(2);

    const waterfall = page.getByRole('table', { name: 'Trace waterfall' });
    await expect
      .poll(() => waterfall.getByRole('row').filter({ hasText: 'llm_call' }).count())
      .toBeGreaterThan(0);
    await waterfall
      .getByRole('row')
      .filter({ hasText: 'llm_call' })
      .first()
      .getByRole('button')
      .last()
      .click();
    const call = page.getByRole('region', { name: 'LLM call' });
    await call.waitFor();
    expect(await call.textContent()).toMatch(/Total tokens\s*[\d,]+/);

    const recordings = page.getByRole('region', { name: /Recordings/ });
    await expect.poll(() => recordings.locator('audio').count()).toBeGreaterThanOrEqual(1);
    const audio = recordings.locator('audio').first();
    const handle = await audio.elementHandle();
    await audio.evaluate((a: HTMLAudioElement) => a.play());
    await page.waitForFunction((a) => (a as HTMLAudioElement).currentTime > 0, handle, { timeout: 20_000 });
    await audio.evaluate((a: HTMLAudioElement) => a.pause());
    expect(page.url()).not.toContain('/media/content/');
    expect(world.problems).toEqual([]);
  });

  it('signs in with a user JWT: the key-only screens say so, a session opens by id', async () => {
    const jwt = await new SignJWT({
      tenant_id: world.tenantId,
      project_ids: [world.projectId],
      scope: 'traces.read conversations.read',
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user_ops_1')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const sessionId = decodeURIComponent(new URL(page.url()).hash.split('/').pop() ?? '');
    const other = await world.newPage();
    await other.goto(`${world.baseUrl}/console/`);
    await other.getByLabel('API key or JWT').fill(jwt);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('navigation', { name: 'Screens' }).waitFor();
    // The analytics API takes platform keys only (spec 000 §5): the list explains instead of failing.
    await expect
      .poll(async () => (await other.locator('main').textContent()) ?? '')
      .toMatch(/platform API key/i);

    const box = other.getByRole('form', { name: 'Open a session by id' }).first();
    await box.getByLabel('Session id').fill(sessionId);
    await box.getByRole('button', { name: 'Open' }).click();
    await other.getByRole('heading', { level: 1, name: new RegExp(sessionId) }).waitFor();
    const bubbles = other.getByRole('list', { name: 'Conversation' }).getByRole('listitem');
    await expect.poll(() => bubbles.count()).toBeGreaterThanOrEqual(2);
    const waterfall = other.getByRole('table', { name: 'Trace waterfall' });
    await expect.poll(() => waterfall.getByRole('row').count()).toBeGreaterThan(2);
    expect(other.url()).not.toContain(jwt);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.getByLabel('API key or JWT').waitFor();
    expect(await other.evaluate(() => sessionStorage.length)).toBe(0);
    expect(world.problems.filter((p) => !/status of 403/.test(p))).toEqual([]);
  });
});
