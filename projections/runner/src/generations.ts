import { type Position, START } from '@parley/eventstore';
import type { Logger, Pool, PoolClient } from '@parley/platform';
import { createIndexesSql, createTableSql, dropTableSql, dropViewSql, viewSql } from './ddl.js';
import { type Projection, ProjectionDefinitionError } from './defineProjection.js';
import { inTransaction } from './inTransaction.js';
import { listGenerations, lockRegistryEntry, readRegistry } from './registry.js';
import { withShortLockWaits } from './withShortLockWaits.js';

/** The steps of a generation's life that a rebuild takes: prepare, swap in, drop the retired. */

export interface BuildTarget {
  generation: number;
  checkpoint: Position;
  eventsProcessed: number;
  resumed: boolean;
}

/** Resumes an interrupted build of the same definition, or starts generation max+1. */
export async function prepareGeneration(client: PoolClient, projection: Projection): Promise<BuildTarget> {
  const { name } = projection;
  const tables = projection.storage.map((t) => t.logical);
  return inTransaction(client, async () => {
    await lockRegistryEntry(client, name);
    const { rows: owners } = await client.query<{ name: string }>(
      'select name from projection_registry where tables && $1::text[] and name <> $2',
      [tables, name],
    );
    if (owners[0]) {
      throw new ProjectionDefinitionError(`projection ${name}: a table name is owned by ${owners[0].name}`);
    }
    const generations = await listGenerations(client, name);
    const building = generations.find((g) => g.status === 'building');
    if (building?.version === projection.version && building.ddlHash === projection.ddlHash) {
      const { generation, checkpoint, eventsProcessed } = building;
      return { generation, checkpoint, eventsProcessed, resumed: true };
    }
    if (building) {
      for (const logical of building.tables) await client.query(dropTableSql(logical, building.generation));
      await client.query(
        `update projection_generations
            set status = 'retired', retired_at = now(), tables_dropped_at = now(), updated_at = now()
          where name = $1 and generation = $2`,
        [name, building.generation],
      );
    }
    const generation = Math.max(0, ...generations.map((g) => g.generation)) + 1;
    for (const table of projection.storage) await client.query(createTableSql(table, generation));
    await client.query(
      `insert into projection_generations (name, generation, version, ddl_hash, tables, status)
       values ($1, $2, $3, $4, $5, 'building')`,
      [name, generation, projection.version, projection.ddlHash, tables],
    );
    return { generation, checkpoint: START, eventsProcessed: 0, resumed: false };
  });
}

/**
 * The generation's secondary indexes, after its bulk load: two at a time, on `client` and a second
 * connection of the pool when it allows one. Each build is mostly one process's sort, and during
 * the builds nothing else of the rebuild runs, so a second build uses the machine's other core (the
 * ledger's five covering indexes were a third of its rebuild).
 */
export async function buildIndexes(
  pool: Pool,
  client: PoolClient,
  projection: Projection,
  generation: number,
): Promise<void> {
  const statements = projection.storage.flatMap((table) => createIndexesSql(table, generation));
  const second = statements.length > 1 && (pool.options.max ?? 10) > 1 ? await pool.connect() : undefined;
  let next = 0;
  const work = async (on: PoolClient): Promise<void> => {
    for (let sql = statements[next++]; sql !== undefined; sql = statements[next++]) await on.query(sql);
  };
  const done = await Promise.allSettled([work(client), ...(second ? [work(second)] : [])]);
  second?.release();
  for (const result of done) if (result.status === 'rejected') throw result.reason;
}

const VIEW_SHAPE_ERRORS = new Set(['42P16', '42804']);

/** The views of `projection` onto `generation`'s tables; views of tables it no longer has are dropped. */
async function replaceViews(
  client: PoolClient,
  projection: Projection,
  generation: number,
  registeredTables: readonly string[],
): Promise<void> {
  for (const table of projection.storage) {
    // Same leading columns: replace in place (dependent views survive).
    // Otherwise drop and create, still inside this transaction.
    await client.query('savepoint view_swap');
    try {
      await client.query(viewSql(table, generation, 'replace'));
      await client.query('release savepoint view_swap');
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !VIEW_SHAPE_ERRORS.has(code)) throw err;
      await client.query('rollback to savepoint view_swap');
      await client.query(dropViewSql(table.logical));
      await client.query(viewSql(table, generation, 'create'));
    }
  }
  for (const logical of registeredTables) {
    if (!projection.storage.some((t) => t.logical === logical)) await client.query(dropViewSql(logical));
  }
}

/** Inside the swap transaction: views to the new tables, registry to the new generation. */
export async function swapGeneration(
  client: PoolClient,
  projection: Projection,
  generation: number,
): Promise<number> {
  const { name } = projection;
  const registered = await readRegistry(client, name);
  if (!registered) throw new Error(`projection ${name} vanished from the registry during its rebuild`);
  // Every view this swap changes, all or none (see withShortLockWaits): replacing them one by one
  // holds the first while waiting for a read of the second, which may be waiting for the first.
  await withShortLockWaits(client, () => replaceViews(client, projection, generation, registered.tables));
  await client.query(
    `update projection_generations set status = 'retired', retired_at = now(), updated_at = now()
      where name = $1 and status = 'live'`,
    [name],
  );
  const promoted = await client.query(
    `update projection_generations set status = 'live', live_at = now(), updated_at = now()
      where name = $1 and generation = $2 and status = 'building'`,
    [name, generation],
  );
  if (promoted.rowCount !== 1)
    throw new Error(`projection ${name} generation ${generation} is no longer building`);
  await client.query(
    `update projection_registry
        set live_generation = $2, version = $3, ddl_hash = $4, tables = $5, updated_at = now()
      where name = $1`,
    [name, generation, projection.version, projection.ddlHash, projection.storage.map((t) => t.logical)],
  );
  return registered.liveGeneration;
}

/** Drops the tables of retired generations; waits for a writer still in a batch on them. */
export async function dropRetiredTables(client: PoolClient, name: string, log: Logger): Promise<void> {
  for (const g of await listGenerations(client, name)) {
    if (g.status !== 'retired' || g.tablesDropped) continue;
    try {
      await inTransaction(client, async () => {
        // A read that began before the swap may still hold some of them (see withShortLockWaits).
        await withShortLockWaits(client, async () => {
          for (const logical of g.tables) await client.query(dropTableSql(logical, g.generation));
        });
        await client.query(
          `update projection_generations set tables_dropped_at = now(), updated_at = now()
            where name = $1 and generation = $2`,
          [name, g.generation],
        );
      });
    } catch (err) {
      log.warn({ err, generation: g.generation }, 'could not drop retired tables; the next rebuild retries');
    }
  }
}
