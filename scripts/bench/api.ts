import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { buildApp, createPageCache, type PageCache } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { createInProcessRateLimiter } from '@parley/http';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { ledgerStats, listLedger } from '@parley/projection-llm-ledger';
import { projectionFreshness } from '@parley/projection-runner';
import { listSessions } from '@parley/projection-session-summaries';
import Fastify, { type FastifyInstance } from 'fastify';
import { DATA_FROM, loadQueryData } from './queryData.js';

export interface ApiRunResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface ApiScenarioResult {
  scenario: string;
  bodyBytes: number;
  rows: number;
  total: number;
  bare: ApiRunResult;
  /** The route as deployed: repeated requests for one page are answered from the page cache. */
  route: ApiRunResult;
  ratio: number;
  /** The same route with no page cache: every request reads freshness, total and page. */
  uncached: ApiRunResult;
  uncachedRatio: number;
}

export interface ApiBenchResult {
  sessions: number;
  seconds: number;
  connections: number;
  scenarios: ApiScenarioResult[];
}

interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/**
 * autocannon (v9) in a child process, so that the load generator does not share this process's
 * event loop with the servers it measures.
 */
function autocannon(url: string, headers: Record<string, string>, seconds: number, connections: number) {
  const args = ['-j', '-c', String(connections), '-d', String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  return new Promise<ApiRunResult>((resolve, reject) => {
    const child = spawn(new URL('../../node_modules/.bin/autocannon', import.meta.url).pathname, args, {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out) as AutocannonJson;
      resolve({
        requestsPerSecond: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    });
  });
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * GET …/sessions (100-row pages: a wide and a narrow filter) through the real app (buildApp with the analytics
 * option wired as the API composes it: key verification with its cache, rate limit, query parsing,
 * listSessions, freshness, serialisation) against a bare Fastify route returning the same JSON
 * object, each for `seconds` with the same connections, bare first.
 */
export async function benchApi(
  pool: Pool,
  options: { sessions: number; seconds: number; connections: number },
  progress: (line: string) => void,
): Promise<ApiBenchResult> {
  await migrate(pool, [authMigrations]);
  const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
  const tenant = await auth.createTenant({ name: 'Bench' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench' });
  const { key } = await auth.createApiKey({ projectId: project.id, scopes: ['analytics.read'] });
  await loadQueryData(pool, { sessions: options.sessions, calls: 0, bigProject: project.id }, progress);

  const makeApp = (pageCache: PageCache | undefined) =>
    buildApp({
      logger: silentLogger(),
      readiness: { database: async () => true, pendingMigrations: async () => [] },
      rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000_000 },
      analytics: {
        verify: (apiKey) => auth.verifyApiKey(apiKey),
        listSessions: (filter) => listSessions(pool, filter),
        listLedger: (filter) => listLedger(pool, filter),
        ledgerStats: (filter) => ledgerStats(pool, filter),
        callerNumberLookupEnabled: async (projectId) =>
          (await auth.getProject(projectId))?.settings.reporting?.identityFields !== false,
        freshness: (projection) => projectionFreshness(pool, projection),
        ...(pageCache && { pageCache }),
      },
    });
  const app = await makeApp(createPageCache());
  const uncachedApp = await makeApp(undefined);
  const day = 86_400_000;
  const week = new Date(DATA_FROM.getTime() + 7 * day);
  const base = `/api/public/analytics/projects/${project.id}/sessions?limit=100`;
  const range = (from: Date, days: number) =>
    `&fromDate=${from.toISOString()}&toDate=${new Date(from.getTime() + days * day).toISOString()}`;
  const scenarios = [
    { scenario: 'a week, no other filter', path: `${base}${range(week, 7)}` },
    {
      scenario: 'a day + environment=staging + status=escalated',
      path: `${base}${range(week, 1)}&environment=staging&status=escalated`,
    },
  ];
  const headers = { 'x-api-key': key };
  const routeUrl = await listen(app);
  const uncachedUrl = await listen(uncachedApp);
  const results: ApiScenarioResult[] = [];
  try {
    for (const { scenario, path } of scenarios) {
      const sample = await app.inject({ method: 'GET', url: path, headers });
      if (sample.statusCode !== 200)
        throw new Error(`sessions route answered ${sample.statusCode}: ${sample.body}`);
      const body = sample.json() as { sessions?: unknown[]; total?: number };
      // The same JSON object, serialised by Fastify on each request as the real route's is.
      const bare = Fastify({ logger: false });
      bare.get('/bare', async () => body);
      const bareUrl = await listen(bare);
      try {
        progress(`  api (${scenario}): bare Fastify route, ${options.seconds} s…`);
        const bareRun = await autocannon(`${bareUrl}/bare`, {}, options.seconds, options.connections);
        progress(`  api (${scenario}): sessions route, ${options.seconds} s…`);
        const routeRun = await autocannon(
          `${routeUrl}${path}`,
          headers,
          options.seconds,
          options.connections,
        );
        progress(`  api (${scenario}): sessions route without the page cache, ${options.seconds} s…`);
        const uncachedRun = await autocannon(
          `${uncachedUrl}${path}`,
          headers,
          options.seconds,
          options.connections,
        );
        results.push({
          scenario,
          bodyBytes: Buffer.byteLength(sample.body),
          rows: body.sessions?.length ?? 0,
          total: body.total ?? 0,
          bare: bareRun,
          route: routeRun,
          ratio: routeRun.requestsPerSecond / bareRun.requestsPerSecond,
          uncached: uncachedRun,
          uncachedRatio: uncachedRun.requestsPerSecond / bareRun.requestsPerSecond,
        });
      } finally {
        await bare.close();
      }
    }
    return {
      sessions: options.sessions,
      seconds: options.seconds,
      connections: options.connections,
      scenarios: results,
    };
  } finally {
    await app.close();
    await uncachedApp.close();
  }
}
