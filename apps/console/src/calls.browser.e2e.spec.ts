import { createHmac, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleWorld, hasChromium, startConsoleWorld } from './testing/consoleWorld.js';

/**
 * A session's voice calls in the console: the provider's signed status callbacks (initiated,
 * ringing, in-progress, completed; another call failed) for a seeded session reach the traces
 * read model, and the session screen lists each call with its lifecycle and duration.
 */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000, interval: 150 });

/** X-Twilio-Signature: HMAC-SHA1 (auth token) of the URL and the sorted parameters, base64. */
function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const sorted = [...params.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const data = url + sorted.map(([k, v]) => k + v).join('');
  return createHmac('sha1', authToken).update(data).digest('base64');
}

describe.skipIf(!hasChromium)('console: a session’s voice calls (browser)', () => {
  let world: ConsoleWorld;
  let page: Page;
  const accountSid = 'ACconsoleCalls';
  const authToken = 'console-calls-auth-token';

  beforeAll(async () => {
    world = await startConsoleWorld({
      sessions: 6,
      env: { CHANNEL_CREDENTIALS_KEY: randomBytes(32).toString('base64') },
    });
    await world.cli([
      'telephony',
      'accounts',
      'add',
      '--account-sid',
      accountSid,
      '--project',
      world.projectId,
      '--auth-token',
      authToken,
    ]);
    page = await world.newPage();
    await world.signIn(page);
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  });

  async function status(sessionId: string, fields: Record<string, string>) {
    const url = `${world.baseUrl}/api/v1/voice/status?sessionId=${sessionId}`;
    const form = new URLSearchParams({ AccountSid: accountSid, ...fields });
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(authToken, url, form),
      },
      body: form.toString(),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { sessionId: string } }).data.sessionId).toBe(sessionId);
  }

  it('shows each call with its statuses, its duration and a failed call', async () => {
    const sessionId = world.seed?.recordings.sessions[0]?.sessionId as string;
    expect(sessionId).toBeDefined();
    const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s)).toUTCString();
    for (const [CallStatus, second] of [
      ['initiated', 0],
      ['ringing', 2],
      ['in-progress', 5],
    ] as const)
      await status(sessionId, { CallSid: 'CAconsole1', CallStatus, Timestamp: at(second) });
    await status(sessionId, {
      CallSid: 'CAconsole1',
      CallStatus: 'completed',
      CallDuration: '42',
      Timestamp: at(47),
    });
    await status(sessionId, {
      CallSid: 'CAconsole2',
      CallStatus: 'failed',
      ErrorCode: '31005',
      Timestamp: at(50),
    });

    await page.goto(`${world.baseUrl}/console/#/p/${world.projectId}/sessions/${sessionId}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(sessionId) }).waitFor();
    const table = page.getByRole('table', { name: 'Voice calls' });
    // The read model catches up (perhaps one status at a time); reload until every call is there.
    await poll(async () => {
      await table.waitFor({ timeout: 3_000 }).catch(() => {});
      const rows = (await table.count()) === 0 ? 0 : await table.getByRole('row').count();
      if (rows < 3) await page.reload();
      return rows;
    }).toBe(3);
    const first = table.getByRole('row', { name: /CAconsole1/ });
    await poll(() => first.textContent()).toMatch(/completed/);
    const lifecycle = first.getByRole('list', { name: 'Statuses of call CAconsole1' });
    expect(await lifecycle.getByRole('listitem').allTextContents()).toEqual([
      expect.stringMatching(/^initiated/),
      expect.stringMatching(/^ringing/),
      expect.stringMatching(/^in-progress/),
      expect.stringMatching(/^completed/),
    ]);
    expect(await first.textContent()).toContain('42.0 s');
    const second = table.getByRole('row', { name: /CAconsole2/ });
    expect(await second.textContent()).toMatch(/failed/);
    // The statuses are also state changes in the trace waterfall, each saying its status.
    const waterfall = page.getByRole('table', { name: 'Trace waterfall' });
    await poll(() => waterfall.getByText('completed · call CAconsole1').count()).toBe(1);
    expect(await waterfall.getByText('failed · call CAconsole2').count()).toBe(1);
    await table.scrollIntoViewIfNeeded();
    await world.screenshot(page, 'session-calls');

    // The session list tags the session with its calls and the latest status.
    const listed = async () => {
      const url = `${world.baseUrl}/api/public/analytics/projects/${world.projectId}/sessions?sessionIds=${sessionId}`;
      const body = (await (await fetch(url, { headers: { 'x-api-key': world.consoleKey } })).json()) as {
        sessions: Array<{ voiceCalls?: Array<{ status: string }> }>;
      };
      return body.sessions[0]?.voiceCalls?.map((c) => c.status);
    };
    await poll(listed).toEqual(['completed', 'failed']);
    await page.goto(`${world.baseUrl}/console/#/p/${world.projectId}/sessions`);
    // The list shortens ids (middle ellipsis); the link's title holds the whole id.
    const row = page.getByRole('row').filter({ has: page.locator(`a[title="${sessionId}"]`) });
    await poll(async () => {
      if ((await row.count()) === 0) await page.reload();
      return (await row.first().textContent()) ?? '';
    }).toMatch(/2 calls failed/);
    expect(world.problems).toEqual([]);
  });
});
