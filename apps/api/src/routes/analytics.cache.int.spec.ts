import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AnalyticsFixture, createAnalyticsFixture, sessionItems } from '../testing/analyticsFixture.js';

// The fixture wires a page cache as apps/api/src/server.ts does.
let f: AnalyticsFixture;
beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject(sessionItems(`sess_${randomUUID()}`, '2026-04-01T10:00:00.000Z'));
});
afterAll(() => f.close());

const get = (path: string) =>
  f.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': f.keys.analytics } });
const sessions = () =>
  get(`/api/public/analytics/projects/${f.projectId}/sessions?fromDate=2026-04-01&toDate=2026-04-02`);
const ledger = () =>
  get(`/api/public/analytics/projects/${f.projectId}/llm-ledger?fromDate=2026-04-01&toDate=2026-04-02`);

it('answers a repeated request with the same bytes and headers while the read model has not moved', async () => {
  for (const request of [sessions, ledger]) {
    const first = await request();
    const second = await request();
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(second.body).success).toBe(true);
  }
});

it('reads the page again once the read model has applied more events', async () => {
  const before = (await sessions()).json();
  const ledgerBefore = (await ledger()).json();
  await f.ingestAndProject(sessionItems(`sess_${randomUUID()}`, '2026-04-01T11:00:00.000Z'));
  const after = (await sessions()).json();
  expect(after.total).toBe(before.total + 1);
  expect(after.freshness.position).not.toBe(before.freshness.position);
  expect((await ledger()).json().total).toBeGreaterThan(ledgerBefore.total);
});
