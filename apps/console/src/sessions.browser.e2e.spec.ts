import type { Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSummary, SessionsPage } from './sessions/types.js';
import { type ConsoleWorld, hasChromium, startConsoleWorld } from './testing/consoleWorld.js';

/**
 * The sessions screens in a real browser against a real, seeded Parley: the list with filters,
 * sorting and paging, then one recorded session: chat bubbles, the span waterfall (expand by mouse
 * and keys, an LLM call's detail), and a recording played and sought through its issued URL.
 * Selectors are the accessible ones (roles, labels, names).
 */
/** Polls a page condition; generous, as the machine running the suite may be busy. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 100 });

describe.skipIf(!hasChromium)('console: sessions (browser)', () => {
  let world: ConsoleWorld;
  let page: Page;

  beforeAll(async () => {
    world = await startConsoleWorld();
    page = await world.newPage();
    await world.signIn(page);
  }, 300_000);

  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !page) return;
    // What the operator saw, for the failure report (the page never shows a secret).
    const text =
      (await page
        .locator('main')
        .textContent()
        .catch(() => '')) ?? '';
    console.error(
      `page: ${new URL(page.url()).hash}\n${text.slice(0, 2000)}\nproblems: ${world.problems.join('\n')}`,
    );
  });

  afterAll(async () => {
    await world?.close();
  });

  /** The next sessions-API answer whose query satisfies `match`. */
  function sessionsAnswer(match: (q: URLSearchParams) => boolean): Promise<Response> {
    return page.waitForResponse((r) => {
      const url = new URL(r.url());
      return (
        url.pathname.endsWith(`/analytics/projects/${world.projectId}/sessions`) && match(url.searchParams)
      );
    });
  }
  const bodyOf = async (r: Response) => {
    expect(r.status()).toBe(200);
    return (await r.json()) as SessionsPage;
  };

  it('lists sessions, sorts by a column and pages with Next while hasMore', async () => {
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: /Sessions/ });
    await poll(() => table.getByRole('row').count()).toBeGreaterThan(2);
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Read model at position' }).count())
      .toBe(1);

    // Sort by cost: the header button flips aria-sort and the API answers in that order.
    const costHeader = page.getByRole('columnheader', { name: /Cost/ });
    const sorted = sessionsAnswer(
      (q) => q.get('sortBy') === 'estimatedCost' && q.get('sortOrder') === 'desc',
    );
    await costHeader.getByRole('button').click();
    const byCost = await bodyOf(await sorted);
    await poll(() => costHeader.getAttribute('aria-sort')).toBe('descending');
    const costs = byCost.sessions.map((s) => s.estimatedCost);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    expect(page.url()).toContain('sortBy=estimatedCost');
    await world.screenshot(page, 'sessions');

    const ascending = sessionsAnswer(
      (q) => q.get('sortBy') === 'estimatedCost' && q.get('sortOrder') === 'asc',
    );
    await costHeader.getByRole('button').click();
    const asc = (await bodyOf(await ascending)).sessions.map((s) => s.estimatedCost);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    await poll(() => costHeader.getAttribute('aria-sort')).toBe('ascending');

    // 25 rows a page, then Next (offset += rows returned) and Previous.
    await page.getByLabel('Rows').selectOption('25');
    const first = sessionsAnswer((q) => q.get('limit') === '25' && q.get('offset') === '0');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const page1 = await bodyOf(await first);
    expect(page1.hasMore).toBe(true);
    const pager = page.getByRole('navigation', { name: 'Session pages' });
    const next = sessionsAnswer((q) => q.get('offset') === String(page1.sessions.length));
    await pager.getByRole('button', { name: 'Next' }).click();
    const page2 = await bodyOf(await next);
    await poll(() => pager.textContent()).toContain(`${page1.sessions.length + 1}–`);
    const ids1 = new Set(page1.sessions.map((s) => s.id));
    expect(page2.sessions.some((s) => ids1.has(s.id))).toBe(false);
    const back = sessionsAnswer((q) => q.get('offset') === '0');
    await pager.getByRole('button', { name: 'Previous' }).click();
    expect((await bodyOf(await back)).sessions.map((s) => s.id)).toEqual(page1.sessions.map((s) => s.id));
  });

  it('filters by status, containment type and channel; every row shown matches', async () => {
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('checkbox', { name: 'contained_resolved', exact: true }).check();
    await page.getByLabel('Channel', { exact: true }).fill('web');
    const filtered = sessionsAnswer(
      (q) =>
        q.get('status') === 'completed' &&
        q.getAll('containmentType').includes('contained_resolved') &&
        q.has('channel'),
    );
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const body = await bodyOf(await filtered);
    expect(body.sessions.length).toBeGreaterThan(0);
    const webFamily = (c: string) => ['web', 'web_chat', 'sdk_web'].includes(c);
    for (const s of body.sessions as SessionSummary[]) {
      expect(s.status).toBe('completed');
      expect(s.containmentType).toBe('contained_resolved');
      expect(webFamily(s.channel)).toBe(true);
    }
    // The table shows exactly those rows, and the cells agree.
    const rows = page
      .getByRole('table', { name: /Sessions/ })
      .locator('tbody')
      .getByRole('row');
    await poll(() => rows.count()).toBe(body.sessions.length);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('completed');
      expect(text).toContain('contained_resolved');
      expect(text).toMatch(/web_chat|sdk_web|web/);
    }
    // Filters live in the address (shareable), never a secret.
    const url = page.url();
    expect(url).toContain('status=completed');
    expect(url).toContain('containmentType=contained_resolved');
    expect(url).not.toContain(world.consoleKey);
  });

  it('opens a recorded session: chat bubbles, waterfall, LLM call detail, playable recordings', async () => {
    const recorded =
      world.seed?.recordings.sessions.find(
        (s) => s.status === 'success' && /caller\/agent\/mixed/.test(s.shows),
      ) ?? world.seed?.recordings.sessions.find((s) => s.status === 'success');
    expect(recorded).toBeDefined();
    const sessionId = recorded?.sessionId as string;
    const box = page.getByRole('form', { name: 'Open a session by id' }).first();
    await box.getByLabel('Session id').fill(sessionId);
    await box.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(sessionId) }).waitFor();

    // The conversation as bubbles.
    const bubbles = page.getByRole('list', { name: 'Conversation' }).getByRole('listitem');
    await poll(() => bubbles.count()).toBeGreaterThanOrEqual(2);
    expect(await bubbles.first().textContent()).toMatch(/User|Agent|assistant/i);

    // The waterfall: turns open, nested spans collapsed. Every turn has children (its decision at
    // least; a tool call with its result only in some turns of the random seed), so a turn is the
    // span to collapse by mouse, then open and close by keys.
    const waterfall = page.getByRole('table', { name: 'Trace waterfall' });
    await poll(() => waterfall.getByRole('row').count()).toBeGreaterThan(2);
    const rowsBefore = await waterfall.getByRole('row').count();
    const collapse = waterfall.getByRole('button', { name: /^Collapse / }).first();
    const name = ((await collapse.getAttribute('aria-label')) ?? '').replace(/^Collapse /, '');
    expect(await collapse.getAttribute('aria-expanded')).toBe('true');
    await collapse.click();
    const expand = waterfall.getByRole('button', { name: `Expand ${name}` }).first();
    await poll(() => expand.getAttribute('aria-expanded')).toBe('false');
    expect(await waterfall.getByRole('row').count()).toBeLessThan(rowsBefore);
    const spanButton = waterfall.getByRole('button', { name, exact: true }).first();
    await spanButton.focus();
    await page.keyboard.press('ArrowRight');
    await poll(() => spanButton.getAttribute('aria-expanded')).toBe('true');
    expect(await waterfall.getByRole('row').count()).toBe(rowsBefore);
    await page.keyboard.press('ArrowLeft');
    await poll(() => spanButton.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('ArrowRight');
    await poll(() => spanButton.getAttribute('aria-expanded')).toBe('true');

    // An LLM call's detail: model, tokens, cost.
    await waterfall
      .getByRole('row')
      .filter({ hasText: 'llm_call' })
      .first()
      .getByRole('button')
      .last()
      .click();
    const call = page.getByRole('region', { name: 'LLM call' });
    await call.waitFor();
    const detail = (await call.textContent()) ?? '';
    expect(detail).toMatch(/Model/);
    expect(detail).toMatch(/Total tokens\s*[\d,]+/);
    expect(detail).toMatch(/Cost\s*\$\d/);
    // For the screenshot, prefer a call whose prompt and response were stored (the seed stores some).
    const llmRows = waterfall.getByRole('row').filter({ hasText: 'llm_call' });
    for (let i = 0, n = Math.min(8, await llmRows.count()); i < n; i++) {
      const select = llmRows.nth(i).getByRole('button').last();
      // Clicking the selected span again would close its detail.
      if ((await select.getAttribute('aria-pressed')) !== 'true') await select.click();
      await poll(async () =>
        /Payload|Prompt|not in the LLM ledger/.test((await call.textContent()) ?? ''),
      ).toBe(true);
      if (await call.getByRole('heading', { name: 'Prompt' }).count()) break;
    }
    await page.getByRole('heading', { level: 1, name: new RegExp(sessionId) }).scrollIntoViewIfNeeded();
    await world.screenshot(page, 'session');

    // Recordings: one labelled player per file; play, then seek.
    const recordings = page.getByRole('region', { name: /Recordings/ });
    await poll(() => recordings.locator('audio').count()).toBeGreaterThanOrEqual(3);
    for (const role of ['Caller', 'Agent', 'Mixed']) {
      await expect
        .poll(() => page.getByLabel(new RegExp(`^${role} audio`)).count())
        .toBeGreaterThanOrEqual(1);
    }
    expect(await recordings.textContent()).toMatch(/URLs expire at/);
    const audio = page.getByLabel(/^Caller audio/).first();
    const handle = await audio.elementHandle();
    await audio.evaluate((a: HTMLAudioElement) => a.play());
    await page.waitForFunction((a) => (a as HTMLAudioElement).currentTime > 0, handle, { timeout: 20_000 });
    await audio.evaluate((a: HTMLAudioElement) => a.pause());
    const seeked = await audio.evaluate(
      (a: HTMLAudioElement) =>
        new Promise<{ currentTime: number; readyState: number; duration: number }>((resolve) => {
          const target = Math.min(5, a.duration - 0.5);
          a.addEventListener(
            'seeked',
            () => resolve({ currentTime: a.currentTime, readyState: a.readyState, duration: a.duration }),
            {
              once: true,
            },
          );
          a.currentTime = target;
        }),
    );
    expect(seeked.readyState).toBeGreaterThanOrEqual(1);
    expect(Math.abs(seeked.currentTime - Math.min(5, seeked.duration - 0.5))).toBeLessThan(0.25);

    // Refresh URLs fetches new ones; the media URL never reaches the address bar.
    const refreshed = page.waitForResponse((r) => r.url().includes(`/sessions/${sessionId}/recordings`));
    await recordings.getByRole('button', { name: 'Refresh URLs' }).click();
    expect((await refreshed).status()).toBe(200);
    expect(page.url()).not.toContain('/media/content/');
    expect(world.problems).toEqual([]);
  });
});
