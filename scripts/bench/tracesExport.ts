import type { AddressInfo } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { eventStoreMigrations } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { ensureProjection, physicalTable, projectionRunnerMigrations } from '@parley/projection-runner';
import { createTraceReads, tracesProjection } from '@parley/projection-traces';

export interface TracesExportResult {
  rows: number;
  loadSeconds: number;
  seconds: number;
  rowsPerSecond: number;
  megabytes: number;
  megabytesPerSecond: number;
  /** Resident set size before the export and its peak during it (sampled every 50 ms). */
  rssBeforeMb: number;
  rssPeakMb: number;
  heapBeforeMb: number;
  heapPeakMb: number;
  /** The V8 heap limit the run had (set it low with NODE_OPTIONS=--max-old-space-size=… to prove the bound). */
  heapLimitMb: number;
}

/**
 * GET /api/projects/{projectId}/sessions/export?format=csv over real HTTP (the app as the API
 * composes the trace routes: key verification, the keyset walk in EXPORT_BATCH_ROWS batches,
 * Readable.from with backpressure) for `rows` trace events written straight into the live
 * generation of the traces projection (a tenth of them with names and attributes full of commas,
 * quotes and newlines, so quoting is on the path). The client, in this process, counts records
 * and bytes as they arrive and keeps nothing, so the peak RSS is the server's streaming footprint
 * plus the client's, whatever the row count.
 */
export async function benchTracesExport(
  pool: Pool,
  options: { rows: number },
  progress: (line: string) => void,
): Promise<TracesExportResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations, authMigrations]);
  await ensureProjection(pool, tracesProjection);
  const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
  const tenant = await auth.createTenant({ name: 'Bench' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench-traces' });
  const { key } = await auth.createApiKey({ projectId: project.id, scopes: ['traces.read'] });

  const loadStarted = performance.now();
  const table = physicalTable('trace_events', 1);
  for (let from = 0; from < options.rows; from += 250_000) {
    const to = Math.min(options.rows, from + 250_000) - 1;
    await pool.query(
      `insert into ${table} (project_id, session_id, event_id, seq, trace_id, span_id, parent_span_id, event_type,
                             name, status, decision_kind, llm_call_id, started_at, duration_ms, ended_at, attributes)
       select $1, 'sess-' || (g / 50), 'evt-' || g, g % 50, 'trace-' || (g / 50), 'span-' || g,
              case when g % 50 = 0 then null else 'span-' || (g - g % 50) end,
              (array['llm_call','tool_call','tool_result','decision','guardrail_eval','response'])[1 + g % 6],
              case when g % 10 = 0 then 'say "hi", then' || chr(10) || 'wait' else 'lookup_invoices' end,
              'ok', null, null,
              timestamptz '2026-11-01' + g * interval '1 millisecond', g % 900,
              timestamptz '2026-11-01' + g * interval '1 millisecond' + (g % 900) * interval '1 millisecond',
              case when g % 10 = 0 then jsonb_build_object('q', 'a,"b"' || chr(13) || chr(10) || 'c', 'n', g)
                   else jsonb_build_object('customerId', 'cus_' || g) end
         from generate_series($2::int, $3::int) g`,
      [project.id, from, to],
    );
    progress(`  traces-export: loaded ${to + 1} rows`);
  }
  await pool.query(`vacuum analyze ${table}`);
  const loadSeconds = (performance.now() - loadStarted) / 1000;

  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
    traces: { verifyApiKey: (raw) => auth.verifyApiKey(raw), reads: createTraceReads(pool) },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/projects/${project.id}/sessions/export?format=csv`;
  try {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      rssPeak = Math.max(rssPeak, m.rss);
      heapPeak = Math.max(heapPeak, m.heapUsed);
    }, 50);
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200 || res.body === null) throw new Error(`export answered ${res.status}`);
    let bytes = 0;
    let lineEnds = 0;
    let previous = 0;
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      // Record ends. The bench data has no CRLF inside a field (names hold a bare LF; attributes are
      // JSON, where CR and LF are escaped), so every CRLF ends a record.
      for (const byte of value) {
        if (byte === 10 && previous === 13) lineEnds++;
        previous = byte;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const records = lineEnds - 1;
    if (records !== options.rows) throw new Error(`export gave ${records} records, expected ${options.rows}`);
    const mb = (n: number) => n / 1024 / 1024;
    return {
      rows: options.rows,
      loadSeconds,
      seconds,
      rowsPerSecond: options.rows / seconds,
      megabytes: mb(bytes),
      megabytesPerSecond: mb(bytes) / seconds,
      rssBeforeMb: mb(rssBefore),
      rssPeakMb: mb(rssPeak),
      heapBeforeMb: mb(heapBefore),
      heapPeakMb: mb(heapPeak),
      heapLimitMb: mb(getHeapStatistics().heap_size_limit),
    };
  } finally {
    await app.close();
  }
}
