import { migrate, type Pool } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import {
  createIndexesSql,
  ensureProjection,
  type Projection,
  physicalTable,
  projectionRunnerMigrations,
} from '@parley/projection-runner';
// Not exported by the package: the same hashes the projection stores, so the filter finds the rows.
import {
  dimensionMatchKey,
  dimensionNameKey,
  sessionSummariesProjection,
} from '@parley/projection-session-summaries';

/** The 30 days the data covers (fixed, so runs are comparable). */
export const DATA_FROM = new Date('2026-10-01T00:00:00Z');
export const DATA_DAYS = 30;
/** 60% of the rows; eight small projects share the rest (5% each). */
export const BIG_PROJECT = 'bench-big';
export const REGIONS = ['eu-west', 'eu-central', 'us-east', 'us-west', 'apac'] as const;
export const CAMPAIGNS = ['spring', 'summer', 'autumn', 'winter'] as const;
export const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet', 'gemini-1.5-pro', 'unknown'] as const;

const q = (ident: string) => `"${ident}"`;

// Deterministic per session number s: project, creation time (seconds into the 30 days).
const projectOf = (s: string, big: string) =>
  `(case when ${s} % 20 < 12 then '${big}' else 'bench-p' || (${s} % 20 - 11) end)`;
const createdOf = (s: string) =>
  `(timestamptz '${DATA_FROM.toISOString()}' + ((hashint4(${s}) & 2147483647) % ${DATA_DAYS * 86_400}) * interval '1 second')`;
/** `values[weights]` by a uniform r in [0, 1): a case over cumulative weights. */
function pick(r: string, choices: ReadonlyArray<readonly [string, number]>): string {
  const total = choices.reduce((sum, [, w]) => sum + w, 0);
  let acc = 0;
  const arms = choices.slice(0, -1).map(([value, w]) => {
    acc += w / total;
    return `when ${r} < ${acc.toFixed(6)} then '${value}'`;
  });
  return `(case ${arms.join(' ')} else '${choices.at(-1)?.[0]}' end)`;
}

async function dropIndexes(pool: Pool, projection: Projection): Promise<void> {
  for (const table of projection.compiled) {
    const physical = physicalTable(table.logical, 1);
    for (let i = 1; i <= table.indexes.length; i++) await pool.query(`drop index ${q(`${physical}_i${i}`)}`);
    await pool.query(`alter table ${q(physical)} drop constraint ${q(`${physical}_pkey`)}`);
  }
}

/** The runner's own indexes (same names and columns as ensureProjection creates), built after the load. */
function indexStatements(projection: Projection): string[] {
  return projection.compiled.flatMap((table) => {
    const physical = physicalTable(table.logical, 1);
    return [
      `alter table ${q(physical)} add primary key (${table.primaryKey.map(q).join(', ')})`,
      ...createIndexesSql(table, 1),
    ];
  });
}

/** Runs statements on `workers` connections at once (2 cores: two inserts or index builds in parallel). */
async function parallel(pool: Pool, statements: string[], params: unknown[][], workers: number) {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const client = await pool.connect();
      try {
        await client.query("set maintenance_work_mem = '512MB'");
        await client.query('set max_parallel_maintenance_workers = 0');
        for (let i = next++; i < statements.length; i = next++) {
          await client.query(statements[i] as string, params[i] ?? []);
        }
      } finally {
        client.release();
      }
    }),
  );
}

function sessionsInsert(big: string): string {
  const t = q(physicalTable('session_summaries', 1));
  return `insert into ${t} (project_id, id, started_event_id, channel, environment, channel_user_id,
      caller_number_key, trace_dimensions, is_test, created_at, last_activity_at, ended_event_id, ended_at,
      recorded_containment_type, status, containment_type, duration_ms, idle_duration_ms, user_messages,
      agent_messages, trace_llm_call, trace_decision, trace_tool_call, trace_error, trace_total, llm_calls,
      input_tokens, cached_tokens, completion_tokens, reasoning_tokens, output_tokens, total_tokens,
      estimated_cost, summary_written_at)
    select project_id, 'sess-' || s, 'start-' || s, channel, environment,
      case when channel in ('whatsapp', 'sms') then 'user-' || (s % 50000) end,
      case when channel in ('voice', 'phone', 'sip') then '4420' || lpad((s % 200000)::text, 7, '0') end,
      case when s % 10 = 0
        then jsonb_build_object('region', ($3::text[])[1 + s % 5], 'campaign', ($4::text[])[1 + s % 4])
        else jsonb_build_object('region', ($3::text[])[1 + s % 5]) end,
      case when r5 < 0.02 then true when r5 < 0.5 then false end,
      created_at, created_at + activity, case when status <> 'active' then 'end-' || s end,
      case when status <> 'active' then created_at + activity + idle end,
      null, status,
      case when status = 'active' then 'contained' when status = 'escalated' then 'escalated'
           when status = 'abandoned' then 'abandoned' else containment end,
      extract(epoch from activity + case when status = 'active' then interval '0' else idle end)::bigint * 1000,
      case when status = 'active' then 0 else extract(epoch from idle)::bigint * 1000 end,
      messages, messages, calls, (messages / 2), (messages / 3), (case when r5 < 0.05 then 1 else 0 end),
      calls + messages, calls, calls * 900, calls * 200, calls * 150, 0, calls * 150, calls * 1050,
      round((calls * 0.0021)::numeric, 6), created_at + activity
    from (
      select s, ${projectOf('s', big)} as project_id, ${createdOf('s')} as created_at,
        ${pick('r1', [
          ['web_chat', 30],
          ['web', 10],
          ['sdk_web', 5],
          ['voice', 15],
          ['phone', 10],
          ['sip', 5],
          ['whatsapp', 15],
          ['sms', 5],
          ['web_debug', 5],
        ])} as channel,
        ${pick('r2', [
          ['production', 55],
          ['staging', 15],
          ['dev', 10],
          ['development', 10],
          ['working-copy', 10],
        ])} as environment,
        ${pick('r3', [
          ['completed', 55],
          ['ended', 10],
          ['escalated', 12],
          ['abandoned', 10],
          ['failed', 3],
          ['active', 10],
        ])} as status,
        ${pick('r4', [
          ['contained_resolved', 50],
          ['contained_partial', 20],
          ['contained_unresolved', 15],
          ['contained', 15],
        ])} as containment,
        (1 + floor(r4 * 20))::int as messages, floor(r5 * 10)::int as calls,
        (30 + floor(r1 * 1200)) * interval '1 second' as activity, floor(r2 * 300) * interval '1 second' as idle, r5
      from (select s, random() r1, random() r2, random() r3, random() r4, random() r5
              from generate_series($1::int, $2::int) s) g
    ) x`;
}

function dimensionsInsert(big: string): string {
  const t = q(physicalTable('session_dimensions', 1));
  return `insert into ${t} (project_id, session_id, name_key, match_key, started_event_id, started_at)
    select ${projectOf('s', big)}, 'sess-' || s, $3, ($4::text[])[1 + s % 5], 'start-' || s, ${createdOf('s')}
      from generate_series($1::int, $2::int) s
    union all
    select ${projectOf('s', big)}, 'sess-' || s, $5, ($6::text[])[1 + s % 4], 'start-' || s, ${createdOf('s')}
      from generate_series($1::int, $2::int) s where s % 10 = 0`;
}

/**
 * Row g is call g % 5 of session g / 5 (five calls a session on average), a few seconds after its
 * start. Each category (model, environment, source, channel) has its own random draw, independent of
 * the token counts, status and payload ones: until 2026-11-21 environment shared its draw with the
 * output length (production calls were all short, hence cheap) and source with the status, which
 * made a by-cost page of production + evals walk 279,000 index entries for 100 matches.
 */
function ledgerInsert(big: string): string {
  const t = q(physicalTable('llm_ledger', 1));
  return `insert into ${t} (project_id, id, call_id, session_id, trace_id, event_id, model, provider, agent_name,
      environment, channel, channel_type, status, status_code, input_tokens, cached_tokens, completion_tokens,
      reasoning_tokens, output_tokens, total_tokens, latency_ms, time_to_first_token_ms, streaming_used, cost,
      started_at, source, source_subtype, source_id, payload_state, payload_bytes)
    select project_id, 'sess-' || s || ':call-' || c, 'call-' || c, 'sess-' || s, 'trace-' || s,
      md5(g::text)::uuid::text, model,
      case model when 'gpt-4o' then 'openai' when 'gpt-4o-mini' then 'openai' when 'claude-3-5-sonnet'
        then 'anthropic' when 'gemini-1.5-pro' then 'google' else 'unknown' end,
      'agent-' || (s % 7), environment, channel,
      case when channel in ('voice', 'phone') then 'voice' else 'chat' end,
      case when r3 < 0.97 then 'success' else 'failed' end, case when r3 < 0.97 then 200 else 500 end,
      input, (input * r4 * 0.3)::bigint, output, 0, output, input + output,
      latency, (latency * 0.3)::bigint, r4 < 0.6, round((input * 0.0000025 + output * 0.00001)::numeric, 8)::float8,
      ${createdOf('s')} + (c * 20 + floor(r4 * 15)) * interval '1 second', source, 'response_generation', null,
      case when r5 < 0.3 then 'available' else 'not_stored' end, case when r5 < 0.3 then 2400 else 0 end
    from (
      select g, g / 5 as s, g % 5 as c, ${projectOf('(g / 5)', big)} as project_id,
        ${pick('r6', [
          ['gpt-4o', 35],
          ['gpt-4o-mini', 35],
          ['claude-3-5-sonnet', 18],
          ['gemini-1.5-pro', 10],
          ['unknown', 2],
        ])} as model,
        ${pick('r7', [
          ['production', 60],
          ['staging', 15],
          ['development', 20],
          ['working-copy', 5],
        ])} as environment,
        ${pick('r9', [
          ['web_chat', 40],
          ['voice', 20],
          ['phone', 10],
          ['whatsapp', 20],
          ['sms', 10],
        ])} as channel,
        ${pick('r8', [
          ['runtime', 80],
          ['runtime_internal', 10],
          ['evals', 6],
          ['arch', 4],
        ])} as source,
        (200 + floor(r1 * 3000))::bigint as input, (20 + floor(r2 * 600))::bigint as output,
        (150 + floor(r4 * r4 * 6000))::bigint as latency, r3, r4, r5
      from (select g, random() r1, random() r2, random() r3, random() r4, random() r5,
                     random() r6, random() r7, random() r8, random() r9
              from generate_series($1::int, $2::int) g) x
    ) y`;
}

/**
 * The projections' day rollups, counted from the loaded rows with the groups their `groups`
 * functions give (the runner keeps them so from then on).
 */
function rollupInserts(): string[] {
  const t = (logical: string) => q(physicalTable(logical, 1));
  const day = (column: string) => `date_trunc('day', ${column}, 'UTC')`;
  return [
    `insert into ${t('session_day_counts')} (project_id, day, environment, channel, status, containment_type, n)
     select project_id, ${day('created_at')}, coalesce(environment, ''), coalesce(channel, ''), status,
            containment_type, count(*)
       from ${t('session_summaries')} where created_at is not null group by 1, 2, 3, 4, 5, 6`,
    `insert into ${t('session_dimension_day_counts')} (project_id, day, match_key, n)
     select project_id, ${day('started_at')}, match_key, count(*) from ${t('session_dimensions')} group by 1, 2, 3`,
    `insert into ${t('llm_ledger_day_counts')}
       (project_id, day, model, provider, status, environment, source, source_subtype, n)
     select project_id, ${day('started_at')}, model, provider, status, coalesce(environment, ''), source,
            source_subtype, count(*)
       from ${t('llm_ledger')} group by 1, 2, 3, 4, 5, 6, 7, 8`,
  ];
}

const chunks = (total: number, size: number): Array<[number, number]> =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) => [i * size, Math.min(total, (i + 1) * size) - 1]);

/**
 * A bench database holding `sessions` session summaries and `calls` ledger rows, written straight
 * into the live generation's tables (ensureProjection registers the projections and creates the
 * tables and views; their indexes are dropped for the load and rebuilt after it with the same
 * names), then VACUUM ANALYZE. Building this through the log and a rebuild would take far longer.
 */
export async function loadQueryData(
  pool: Pool,
  options: { sessions: number; calls: number; bigProject?: string },
  progress: (line: string) => void,
): Promise<{ seconds: number }> {
  const started = performance.now();
  // Another id for the big project (the API bench's, from the auth store); checked: it goes into SQL text.
  const big = options.bigProject ?? BIG_PROJECT;
  if (!/^[\w-]+$/.test(big)) throw new Error(`unexpected project id ${big}`);
  await migrate(pool, [projectionRunnerMigrations]);
  for (const projection of [sessionSummariesProjection, llmLedgerProjection]) {
    await ensureProjection(pool, projection);
    await dropIndexes(pool, projection);
  }
  const regionKeys = REGIONS.map((r) => dimensionMatchKey('region', r));
  const campaignKeys = CAMPAIGNS.map((c) => dimensionMatchKey('campaign', c));
  const statements: string[] = [];
  const params: unknown[][] = [];
  for (const [from, to] of chunks(options.sessions, 250_000)) {
    statements.push(sessionsInsert(big), dimensionsInsert(big));
    params.push(
      [from, to, REGIONS, CAMPAIGNS],
      [from, to, dimensionNameKey('region'), regionKeys, dimensionNameKey('campaign'), campaignKeys],
    );
  }
  for (const [from, to] of chunks(options.calls, 500_000)) {
    statements.push(ledgerInsert(big));
    params.push([from, to]);
  }
  await parallel(pool, statements, params, 2);
  progress(`  queries: rows written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const indexes = [sessionSummariesProjection, llmLedgerProjection].flatMap(indexStatements);
  await parallel(pool, indexes, [], 2);
  progress(`  queries: indexes built at ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await parallel(pool, rollupInserts(), [], 2);
  progress(`  queries: rollups counted at ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const tables = [sessionSummariesProjection, llmLedgerProjection].flatMap((p) =>
    p.storage.map((t) => q(physicalTable(t.logical, 1))),
  );
  await parallel(
    pool,
    tables.map((t) => `vacuum analyze ${t}`),
    [],
    2,
  );
  const seconds = (performance.now() - started) / 1000;
  progress(`  queries: vacuum analyze done at ${seconds.toFixed(1)} s`);
  return { seconds };
}
