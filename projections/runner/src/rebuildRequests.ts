import { randomUUID } from 'node:crypto';
import type { EventStore, LogTransaction } from '@parley/eventstore';
import { withLogTransaction } from '@parley/eventstore';
import {
  defineJob,
  isMissingRelation,
  type JobPayload,
  nullIfQueueMissing,
  ParleyError,
  type Pool,
  type PoolClient,
  pgBossQueueExists,
} from '@parley/platform';
import { z } from 'zod';

/**
 * Rebuilds requested through the API and run by the worker (queue `projection-rebuild`): the rows of
 * `projection_rebuilds` (migrations/0002_rebuilds.sql). The API inserts a queued row and its job in
 * one transaction; the worker moves it to running, writes its progress, and ends it completed or
 * failed (or back to queued when it stops before the end: the building generation is kept and the
 * next run resumes it).
 */

/** The pg-boss queue the worker creates at start and works; the API only sends to it. */
export const PROJECTION_REBUILD_QUEUE = 'projection-rebuild';

/** pg-boss's schema (the same as every Parley queue). */

/** A `projection-rebuild` job: the rebuild row it runs (the row holds everything else). */
export const projectionRebuildJob = defineJob(
  PROJECTION_REBUILD_QUEUE,
  z.object({ rebuildId: z.string().min(1), projection: z.string().min(1) }),
);
export type RebuildJobData = JobPayload<typeof projectionRebuildJob>;

export type RebuildState = 'queued' | 'running' | 'completed' | 'failed';

export interface RebuildRequester {
  /** `api_key` (id: the key id) or `user` (id: the JWT's subject). */
  readonly kind: 'api_key' | 'user';
  readonly id: string;
}

export interface RebuildRequest {
  readonly id: string;
  readonly projection: string;
  readonly state: RebuildState;
  readonly requestedAt: Date;
  readonly startedAt: Date | null;
  readonly finishedAt: Date | null;
  /** The generation being built once known, then the one that went live. */
  readonly generation: number | null;
  readonly eventsProcessed: number;
  /** Processed plus still to replay, when counted (a lower bound when the count hit its cap). */
  readonly eventsTotal: number | null;
  readonly eventsPerSecond: number | null;
  readonly error: string | null;
  readonly requestedBy: RebuildRequester;
}

/** pg-boss's `send` (a PgBoss instance, not started: sending runs on the caller's transaction). */
export interface RebuildJobSender {
  send(
    name: string,
    data: object,
    options: {
      id?: string;
      startAfter?: number;
      db: { executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }> };
    },
  ): Promise<string | null>;
}

/** A queued or running rebuild of the projection exists: one at a time. */
export class RebuildInProgressError extends ParleyError {
  override readonly name = 'RebuildInProgressError';
  constructor(
    readonly projection: string,
    readonly rebuildId: string,
  ) {
    super(
      'REBUILD_IN_PROGRESS',
      409,
      `a rebuild of projection ${projection} is already queued or running (${rebuildId})`,
    );
  }
}

/** The worker never ran: pg-boss's schema or the `projection-rebuild` queue does not exist. */
export class RebuildQueueMissingError extends ParleyError {
  override readonly name = 'RebuildQueueMissingError';
  constructor() {
    super(
      'QUEUE_UNAVAILABLE',
      503,
      `the ${PROJECTION_REBUILD_QUEUE} queue does not exist: start the worker once (it creates the queue)`,
    );
  }
}

interface RawRebuild {
  id: string;
  projection: string;
  state: RebuildState;
  requested_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  generation: number | null;
  events_processed: string;
  events_total: string | null;
  events_per_second: number | null;
  error: string | null;
  requested_by_kind: 'api_key' | 'user';
  requested_by_id: string;
}

const COLUMNS = `id, projection, state, requested_at, started_at, finished_at, generation,
  events_processed::text, events_total::text, events_per_second, error, requested_by_kind, requested_by_id`;

const toRebuild = (r: RawRebuild): RebuildRequest => ({
  id: r.id,
  projection: r.projection,
  state: r.state,
  requestedAt: r.requested_at,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  generation: r.generation,
  eventsProcessed: Number(r.events_processed),
  eventsTotal: r.events_total === null ? null : Number(r.events_total),
  eventsPerSecond: r.events_per_second,
  error: r.error,
  requestedBy: { kind: r.requested_by_kind, id: r.requested_by_id },
});

type Queryable = Pool | PoolClient;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One rebuild by id (null for an unknown id, or one that is not a uuid). */
export async function readRebuild(q: Queryable, id: string): Promise<RebuildRequest | null> {
  if (!UUID.test(id)) return null;
  const { rows } = await q.query<RawRebuild>(`select ${COLUMNS} from projection_rebuilds where id = $1`, [
    id,
  ]);
  return rows[0] ? toRebuild(rows[0]) : null;
}

/** The latest requested rebuild of each of these projections. */
export async function latestRebuilds(
  q: Queryable,
  projections: readonly string[],
): Promise<Map<string, RebuildRequest>> {
  const { rows } = await q.query<RawRebuild>(
    `select distinct on (projection) ${COLUMNS} from projection_rebuilds
      where projection = any($1::text[]) order by projection, requested_at desc, id`,
    [projections],
  );
  return new Map(rows.map((r) => [r.projection, toRebuild(r)]));
}

/** Rebuilds still to run or running (the worker's start sweep). */
export async function activeRebuilds(q: Queryable): Promise<RebuildRequest[]> {
  const { rows } = await q.query<RawRebuild>(
    `select ${COLUMNS} from projection_rebuilds where state in ('queued', 'running') order by requested_at`,
  );
  return rows.map(toRebuild);
}

/**
 * Sends the job of a rebuild on the transaction's client; RebuildQueueMissingError when the worker
 * never created the queue (pg-boss answers null, or its schema is missing altogether).
 */
export async function sendRebuildJob(
  client: PoolClient,
  boss: RebuildJobSender,
  data: RebuildJobData,
  options: { id?: string; startAfter?: number } = {},
): Promise<void> {
  const sent = await nullIfQueueMissing(
    boss.send(PROJECTION_REBUILD_QUEUE, data, {
      ...options,
      db: { executeSql: (text, values) => client.query(text, values) },
    }),
  ).catch((err: unknown) => {
    if (isMissingRelation(err)) throw new RebuildQueueMissingError();
    throw err;
  });
  if (sent !== null) return;
  if (!(await pgBossQueueExists(client, PROJECTION_REBUILD_QUEUE))) throw new RebuildQueueMissingError();
  // The queue exists and a job with this id too: the same request sent again, nothing to add.
}

export interface RequestRebuildInput {
  projection: string;
  requestedBy: RebuildRequester;
  /** Runs in the request's transaction, e.g. to append an audit event that commits with it. */
  onRequested?: (tx: LogTransaction, rebuild: RebuildRequest) => Promise<void>;
}

/**
 * Records a queued rebuild and sends its job in one transaction (with onRequested's appends):
 * RebuildInProgressError when one is queued or running (the partial unique index decides, also
 * between concurrent requests), RebuildQueueMissingError when the worker never ran. The caller
 * checks that the projection exists.
 */
export async function requestRebuild(
  deps: { pool: Pool; store: EventStore; boss: RebuildJobSender },
  input: RequestRebuildInput,
): Promise<RebuildRequest> {
  const id = randomUUID();
  return withLogTransaction(deps.pool, deps.store, async (tx) => {
    const rebuild = await insertQueued(tx.client, id, input);
    await sendRebuildJob(tx.client, deps.boss, { rebuildId: id, projection: input.projection }, { id });
    await input.onRequested?.(tx, rebuild);
    return rebuild;
  });
}

/** The queued row, or RebuildInProgressError naming the queued or running one. */
async function insertQueued(
  client: PoolClient,
  id: string,
  input: RequestRebuildInput,
): Promise<RebuildRequest> {
  // A conflicting rebuild can end between the insert and the read of it: then insert again.
  for (let attempt = 0; ; attempt++) {
    const { rows } = await client.query<RawRebuild>(
      `insert into projection_rebuilds (id, projection, state, requested_by_kind, requested_by_id)
       values ($1, $2, 'queued', $3, $4)
       on conflict (projection) where state in ('queued', 'running') do nothing
       returning ${COLUMNS}`,
      [id, input.projection, input.requestedBy.kind, input.requestedBy.id],
    );
    if (rows[0]) return toRebuild(rows[0]);
    const active = await client.query<{ id: string }>(
      `select id from projection_rebuilds where projection = $1 and state in ('queued', 'running')`,
      [input.projection],
    );
    const activeId = active.rows[0]?.id;
    if (activeId !== undefined || attempt >= 2) {
      throw new RebuildInProgressError(input.projection, activeId ?? 'unknown');
    }
  }
}

/**
 * The worker took the job: running (startedAt set on the first run, kept when resumed). Answers the
 * state it had, or null when it is no longer queued or running (ended already: a job sent twice),
 * and then nothing is run.
 */
export async function markRebuildRunning(q: Queryable, id: string): Promise<'queued' | 'running' | null> {
  const { rows } = await q.query<{ state: 'queued' | 'running' }>(
    `with previous as (
       select id, state from projection_rebuilds where id = $1 and state in ('queued', 'running') for update
     )
     update projection_rebuilds r
        set state = 'running', started_at = coalesce(r.started_at, now()), updated_at = now()
       from previous where r.id = previous.id
     returning previous.state`,
    [id],
  );
  return rows[0]?.state ?? null;
}

export interface RebuildProgressRow {
  generation: number;
  eventsProcessed: number;
  eventsTotal: number | null;
  eventsPerSecond: number | null;
}

export async function recordRebuildProgress(q: Queryable, id: string, p: RebuildProgressRow): Promise<void> {
  await q.query(
    `update projection_rebuilds
        set generation = $2, events_processed = $3, events_total = coalesce($4, events_total),
            events_per_second = $5, updated_at = now()
      where id = $1 and state = 'running'`,
    [id, p.generation, p.eventsProcessed, p.eventsTotal, p.eventsPerSecond],
  );
}

export async function markRebuildCompleted(
  q: Queryable,
  id: string,
  r: { generation: number; eventsProcessed: number; eventsPerSecond: number },
): Promise<void> {
  await q.query(
    `update projection_rebuilds
        set state = 'completed', finished_at = now(), generation = $2, events_processed = $3,
            events_total = $3, events_per_second = $4, error = null, updated_at = now()
      where id = $1 and state in ('queued', 'running')`,
    [id, r.generation, r.eventsProcessed, r.eventsPerSecond],
  );
}

/** Failed, with the error and (when it got that far) the generation it was building. */
export async function markRebuildFailed(
  q: Queryable,
  id: string,
  error: string,
  generation: number | null = null,
): Promise<void> {
  await q.query(
    `update projection_rebuilds
        set state = 'failed', finished_at = now(), error = $2, generation = coalesce($3, generation),
            updated_at = now()
      where id = $1 and state in ('queued', 'running')`,
    [id, error, generation],
  );
}

/** Back to queued (the worker stopped, or another process holds the rebuild): run again later. */
export async function markRebuildQueued(q: Queryable, id: string): Promise<void> {
  await q.query(
    `update projection_rebuilds set state = 'queued', events_per_second = null, updated_at = now()
      where id = $1 and state in ('queued', 'running')`,
    [id],
  );
}
