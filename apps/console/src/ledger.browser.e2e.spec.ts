import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleWorld, hasChromium, startConsoleWorld } from './testing/consoleWorld.js';

/**
 * The ledger and projections screens in headless Chromium against a real `parley start` (API and
 * worker) with seeded demo data. Interactions go through roles and labels only.
 */

/** The texts of one column of a table, by its header's text (data rows only). */
function column(table: Locator, header: string): Promise<string[]> {
  return table.evaluate((el, name) => {
    const t = el as HTMLTableElement;
    const heads = [...t.tHead!.rows[0]!.cells];
    const index = heads.findIndex((c) => c.textContent!.trim().startsWith(name));
    if (index < 0) throw new Error(`no column ${name}`);
    return [...t.tBodies[0]!.rows]
      .filter((r) => r.cells.length === heads.length)
      .map((r) => r.cells[index]!.textContent!.trim());
  }, header);
}

const dollars = (s: string) => Number(s.replace(/[$,]/g, ''));

async function hashQuery(page: Page): Promise<URLSearchParams> {
  const hash = new URL(page.url()).hash;
  return new URLSearchParams(hash.split('?')[1] ?? '');
}

/**
 * Waits until the ledger holds the seeded calls and stops growing: the seed's items are accepted
 * before they are all in the log, so "every projection caught up" can be seen a little early.
 */
async function ledgerSettled(world: ConsoleWorld, timeoutMs = 60_000): Promise<void> {
  const now = Date.now();
  const query = new URLSearchParams({
    fromDate: new Date(now - 8 * 86_400_000).toISOString(),
    toDate: new Date(now + 3_600_000).toISOString(),
    limit: '1',
  });
  const url = `${world.baseUrl}/api/public/analytics/projects/${world.projectId}/llm-ledger?${query}`;
  const deadline = now + timeoutMs;
  let last = -1;
  for (;;) {
    const response = await fetch(url, { headers: { 'x-api-key': world.consoleKey } });
    const { total } = (await response.json()) as { total: number };
    if (total > 0 && total === last) return;
    if (Date.now() > deadline) throw new Error(`the ledger did not settle (total ${total})`);
    last = total;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

describe.skipIf(!hasChromium)('console in a browser: ledger and projections', () => {
  let world: ConsoleWorld;

  beforeAll(async () => {
    world = await startConsoleWorld();
    await ledgerSettled(world);
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  });

  it('ledger: charts, group by, a provider filter, sort by cost both ways, paging, an expanded row', async () => {
    const page = await world.newPage();
    await world.signIn(page);
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Ledger' }).click();
    await page.getByRole('heading', { name: 'LLM ledger' }).waitFor();

    // Three charts, each a labelled image holding a canvas, each with a data table.
    const charts = ['Cost (USD)', 'Tokens', 'Latency p50 / p95'];
    for (const title of charts) {
      const chart = page.getByRole('img', { name: new RegExp(`^${title.replace(/[()/]/g, '\\$&')}:`) });
      await chart.waitFor();
      expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
      await page.locator('summary', { hasText: `${title}: data table` }).click();
      const data = page.getByRole('table', { name: new RegExp(`^${title.replace(/[()/]/g, '\\$&')}:`) });
      await expect.poll(() => data.getByRole('row').count()).toBeGreaterThan(1);
      await page.locator('summary', { hasText: `${title}: data table` }).click();
    }
    const byModel = page.getByRole('table', { name: 'Totals by model' });
    await expect.poll(() => byModel.getByRole('row').count()).toBeGreaterThan(1);
    const calls = page.getByRole('table', { name: 'Calls' });
    await expect.poll(async () => (await column(calls, 'Provider')).length).toBeGreaterThan(0);
    await world.screenshot(page, 'ledger');

    // Group by provider: the URL, the totals and the legend follow.
    await page.getByLabel('Group by').selectOption('provider');
    const byProvider = page.getByRole('table', { name: 'Totals by provider' });
    await byProvider.waitFor();
    expect((await hashQuery(page)).get('groupBy')).toBe('provider');
    const providers = await byProvider.getByRole('rowheader').allInnerTexts();
    expect(providers.length).toBeGreaterThan(0);
    // The busiest provider by cost, so that paging has pages.
    const provider = providers[0]!.trim();

    // Filter by that provider.
    await page.getByLabel('Provider', { exact: true }).fill(provider);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await hashQuery(page)).getAll('provider')).toEqual([provider]);
    await expect
      .poll(async () => {
        const shown = await column(calls, 'Provider');
        return shown.length > 0 && shown.every((p) => p === provider);
      })
      .toBe(true);
    await expect
      .poll(async () => (await byProvider.getByRole('rowheader').allInnerTexts()).map((s) => s.trim()))
      .toEqual([provider]);

    // Sort by cost: descending first, then ascending; the order shown follows.
    const costHeader = calls.getByRole('columnheader', { name: /^Cost/ });
    await calls.getByRole('button', { name: /^Cost/ }).click();
    await expect.poll(() => costHeader.getAttribute('aria-sort')).toBe('descending');
    await expect
      .poll(async () => {
        const costs = (await column(calls, 'Cost')).map(dollars);
        return costs.length > 1 && costs.every((c, i) => i === 0 || costs[i - 1]! >= c);
      })
      .toBe(true);
    expect((await hashQuery(page)).get('sortBy')).toBe('cost');
    await calls.getByRole('button', { name: /^Cost/ }).click();
    await expect.poll(() => costHeader.getAttribute('aria-sort')).toBe('ascending');
    await expect
      .poll(async () => {
        const costs = (await column(calls, 'Cost')).map(dollars);
        return costs.length > 1 && costs.every((c, i) => i === 0 || costs[i - 1]! <= c);
      })
      .toBe(true);
    expect((await hashQuery(page)).get('sortOrder')).toBe('asc');
    expect(await calls.getByRole('columnheader', { name: /^Time/ }).getAttribute('aria-sort')).toBe('none');

    // Paging by hasMore: the next page continues the ascending order.
    const next = page.getByRole('button', { name: 'Next page' });
    const previous = page.getByRole('button', { name: 'Previous page' });
    expect(await previous.isDisabled()).toBe(true);
    const firstPage = (await column(calls, 'Cost')).map(dollars);
    expect(await next.isEnabled()).toBe(true);
    await next.click();
    await expect.poll(async () => (await hashQuery(page)).get('offset')).toBe(String(firstPage.length));
    await expect.poll(() => page.getByText(new RegExp(`^${firstPage.length + 1}–`)).count()).toBe(1);
    // The address and the pager change before the new rows arrive: wait for the rows themselves.
    const last = firstPage[firstPage.length - 1]!;
    await expect
      .poll(async () => {
        const secondPage = (await column(calls, 'Cost')).map(dollars);
        return (
          secondPage.length > 0 &&
          secondPage.join() !== firstPage.slice(0, secondPage.length).join() &&
          secondPage[0]! >= last
        );
      })
      .toBe(true);
    expect(await previous.isEnabled()).toBe(true);

    // A row expands to the call's details with a link to its session. The seed has design-time calls
    // too ("none (design-time call)", no link): the first row of the page that has a session is used.
    const expands = calls.getByRole('button', { name: /^Details of call/ });
    let linked = false;
    for (let row = 0; row < (await expands.count()) && !linked; row++) {
      const expand = expands.nth(row);
      expect(await expand.getAttribute('aria-expanded')).toBe('false');
      await expand.click();
      expect(await expand.getAttribute('aria-expanded')).toBe('true');
      await calls.getByText('Event id').waitFor();
      expect(await calls.getByText('Event id').count()).toBe(1);
      linked = (await calls.getByRole('link').count()) > 0;
      if (!linked) {
        expect(await calls.getByText('none (design-time call)').count()).toBe(1);
        await expand.click();
        expect(await expand.getAttribute('aria-expanded')).toBe('false');
      }
    }
    expect(linked).toBe(true);
    const sessionLink = calls.getByRole('link').first();
    expect(await sessionLink.getAttribute('href')).toMatch(new RegExp(`^#/p/${world.projectId}/sessions/.+`));
    await previous.click();
    await expect.poll(async () => (await hashQuery(page)).get('offset')).toBe(null);

    expect(world.problems).toEqual([]);
    await page.context().close();
  });

  it('projections: the lag table lists every projection; a rebuild runs to completed with its progress', async () => {
    const response = await fetch(`${world.baseUrl}/api/v1/projections`, {
      headers: { 'x-api-key': world.consoleKey },
    });
    expect(response.status).toBe(200);
    const names = ((await response.json()) as { projections: Array<{ name: string }> }).projections.map(
      (p) => p.name,
    );
    expect(names).toContain('event-counts');

    const page = await world.newPage();
    await world.signIn(page);
    await page
      .getByRole('navigation', { name: 'Screens' })
      .getByRole('link', { name: 'Projections' })
      .click();
    const table = page.getByRole('table', { name: /^Projections/ });
    await table.waitFor();
    await expect
      .poll(async () => (await table.getByRole('rowheader').allInnerTexts()).map((s) => s.trim()).sort())
      .toEqual([...names].sort());
    for (const header of [
      'State',
      'Live generation',
      'Events behind',
      'Seconds behind',
      'Checkpoint',
      'Last event (UTC)',
    ]) {
      expect(await table.getByRole('columnheader', { name: header }).count()).toBe(1);
    }

    // The auto-refresh can be paused and resumed (a toggle button).
    const pause = page.getByRole('button', { name: 'Pause auto-refresh' });
    await pause.click();
    expect(await page.getByRole('button', { name: 'Resume auto-refresh' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.getByRole('button', { name: 'Resume auto-refresh' }).click();

    // Cancel first: nothing starts.
    const name = 'event-counts';
    await page.getByRole('button', { name: `Rebuild ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Rebuild ${name}?` });
    await dialog.waitFor();
    expect(await dialog.getByText(/whole deployment/).count()).toBe(1);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByRole('progressbar').count()).toBe(0);

    // Then start it and watch it to the end.
    await page.getByRole('button', { name: `Rebuild ${name}` }).click();
    await dialog.getByRole('button', { name: 'Start rebuild' }).click();
    const progress = page.getByRole('progressbar', { name: `Rebuild of ${name}` });
    await progress.waitFor();
    await expect
      .poll(() => page.getByRole('status').textContent(), { timeout: 10_000 })
      .toMatch(/event-counts/);
    const row = page.getByRole('row').filter({ has: progress });
    await row.getByText('completed', { exact: true }).waitFor({ timeout: 90_000 });
    const max = await progress.getAttribute('max');
    expect(await progress.getAttribute('value')).toBe(max);
    expect(Number(max)).toBeGreaterThan(0);
    expect(await row.getByText(/events/).count()).toBeGreaterThan(0);
    // The list shows the new live generation once it has taken over.
    await expect
      .poll(async () => table.getByRole('row').filter({ hasText: name }).first().innerText(), {
        timeout: 15_000,
      })
      .toMatch(/gen [2-9]/);
    await world.screenshot(page, 'projections');

    expect(world.problems).toEqual([]);
    await page.context().close();
  });
});
