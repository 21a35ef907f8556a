import type { Position } from '@parley/eventstore';
import type { Pool, PoolClient } from '@parley/platform';
import type { Projection } from './defineProjection.js';

/** Reads and writes of the registry tables (migrations/0001_registry.sql), and the advisory locks. */

export type Queryable = Pool | PoolClient;

export type GenerationState = 'building' | 'live' | 'retired';

export interface RegistryRow {
  readonly name: string;
  readonly liveGeneration: number;
  readonly version: number;
  readonly ddlHash: string;
  readonly tables: readonly string[];
}

export interface Failure {
  readonly error: string;
  readonly eventId: string | null;
  readonly eventType: string | null;
  readonly at: Date;
}

export interface GenerationRow {
  readonly name: string;
  readonly generation: number;
  readonly version: number;
  readonly ddlHash: string;
  readonly tables: readonly string[];
  readonly status: GenerationState;
  readonly checkpoint: Position;
  readonly eventsProcessed: number;
  readonly lastEventRecordedAt: Date | null;
  readonly failure: Failure | null;
  readonly updatedAt: Date;
  readonly tablesDropped: boolean;
}

interface RawGeneration {
  name: string;
  generation: number;
  version: number;
  ddl_hash: string;
  tables: string[];
  status: GenerationState;
  checkpoint_commit: string;
  checkpoint_prepare: string;
  events_processed: string;
  last_event_recorded_at: Date | null;
  error: string | null;
  error_event_id: string | null;
  error_event_type: string | null;
  failed_at: Date | null;
  updated_at: Date;
  tables_dropped: boolean;
}

const GENERATION_COLUMNS = `name, generation, version, ddl_hash, tables, status,
  checkpoint_commit::text, checkpoint_prepare::text, events_processed::text, last_event_recorded_at,
  error, error_event_id, error_event_type, failed_at, updated_at, tables_dropped_at is not null as tables_dropped`;

function toGeneration(r: RawGeneration): GenerationRow {
  return {
    name: r.name,
    generation: r.generation,
    version: r.version,
    ddlHash: r.ddl_hash,
    tables: r.tables,
    status: r.status,
    checkpoint: { commit: BigInt(r.checkpoint_commit), prepare: BigInt(r.checkpoint_prepare) },
    eventsProcessed: Number(r.events_processed),
    lastEventRecordedAt: r.last_event_recorded_at,
    failure:
      r.error === null
        ? null
        : {
            error: r.error,
            eventId: r.error_event_id,
            eventType: r.error_event_type,
            at: r.failed_at ?? r.updated_at,
          },
    updatedAt: r.updated_at,
    tablesDropped: r.tables_dropped,
  };
}

export async function readRegistry(q: Queryable, name: string): Promise<RegistryRow | null> {
  const { rows } = await q.query<{
    live_generation: number;
    version: number;
    ddl_hash: string;
    tables: string[];
  }>('select live_generation, version, ddl_hash, tables from projection_registry where name = $1', [name]);
  const r = rows[0];
  if (!r) return null;
  return {
    name,
    liveGeneration: r.live_generation,
    version: r.version,
    ddlHash: r.ddl_hash,
    tables: r.tables,
  };
}

export async function readGeneration(
  q: Queryable,
  name: string,
  generation: number,
): Promise<GenerationRow | null> {
  const { rows } = await q.query<RawGeneration>(
    `select ${GENERATION_COLUMNS} from projection_generations where name = $1 and generation = $2`,
    [name, generation],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

export async function listGenerations(q: Queryable, name: string): Promise<GenerationRow[]> {
  const { rows } = await q.query<RawGeneration>(
    `select ${GENERATION_COLUMNS} from projection_generations where name = $1 order by generation`,
    [name],
  );
  return rows.map(toGeneration);
}

export async function generationStatus(
  q: Queryable,
  name: string,
  generation: number,
): Promise<GenerationState | null> {
  const { rows } = await q.query<{ status: GenerationState }>(
    'select status from projection_generations where name = $1 and generation = $2',
    [name, generation],
  );
  return rows[0]?.status ?? null;
}

export async function recordFailure(
  q: Queryable,
  name: string,
  generation: number,
  failure: { error: string; eventId?: string | undefined; eventType?: string | undefined },
): Promise<void> {
  await q.query(
    `update projection_generations
        set error = $3, error_event_id = $4, error_event_type = $5, failed_at = now(), updated_at = now()
      where name = $1 and generation = $2`,
    [name, generation, failure.error, failure.eventId ?? null, failure.eventType ?? null],
  );
}

/** The live generation was built by this definition (same version, same tables). */
export const matchesDefinition = (
  registered: { version: number; ddlHash: string },
  projection: Projection,
): boolean => registered.version === projection.version && registered.ddlHash === projection.ddlHash;

/** Serialises registry changes of one projection (ensure, swap) for the current transaction. */
export async function lockRegistryEntry(client: PoolClient, name: string): Promise<void> {
  await client.query(`select pg_advisory_xact_lock(hashtext('parley.projection.registry:' || $1), 0)`, [
    name,
  ]);
}

/** Session-level lock keys: the writer of one generation, and the rebuilder of one projection. */
export const writerLockKey = (name: string, generation: number) =>
  ({ key: `parley.projection:${name}`, sub: generation }) as const;
export const rebuildLockKey = (name: string) =>
  ({ key: `parley.projection.rebuild:${name}`, sub: 0 }) as const;

export async function tryAdvisoryLock(
  client: PoolClient,
  lock: { key: string; sub: number },
): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>(
    'select pg_try_advisory_lock(hashtext($1), $2) as ok',
    [lock.key, lock.sub],
  );
  return rows[0]?.ok === true;
}

export async function advisoryUnlock(client: PoolClient, lock: { key: string; sub: number }): Promise<void> {
  await client.query('select pg_advisory_unlock(hashtext($1), $2)', [lock.key, lock.sub]);
}
