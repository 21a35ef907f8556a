import { type Logger, type Pool, silentLogger, withTransaction } from '@parley/platform';
import { createIndexesSql, createTableSql, viewSql } from './ddl.js';
import { type Projection, ProjectionDefinitionError } from './defineProjection.js';
import { lockRegistryEntry, matchesDefinition, readRegistry } from './registry.js';

export type EnsureOutcome =
  | { readonly name: string; readonly status: 'created' | 'ready'; readonly generation: number }
  | {
      readonly name: string;
      readonly status: 'rebuild_required';
      readonly generation: number;
      readonly registeredVersion: number;
      readonly codeVersion: number;
      readonly reason: string;
    };

/**
 * Registers a projection on first sight: generation 1's tables, their views
 * and a live registry entry whose checkpoint is the start of the log (the
 * runner fills it from there). Afterwards it only compares: a definition that
 * differs from the live generation's (version or tables) is reported as
 * `rebuild_required` and nothing changes; the old generation keeps serving
 * until `rebuildProjection` swaps.
 */
export async function ensureProjection(
  pool: Pool,
  projection: Projection,
  options: { logger?: Logger } = {},
): Promise<EnsureOutcome> {
  const logger = options.logger ?? silentLogger();
  const { name } = projection;
  const outcome = await withTransaction(pool, async (client): Promise<EnsureOutcome> => {
    await lockRegistryEntry(client, name);
    const registered = await readRegistry(client, name);
    if (registered) {
      if (matchesDefinition(registered, projection)) {
        return { name, status: 'ready', generation: registered.liveGeneration };
      }
      const reason =
        registered.version === projection.version
          ? `tables changed without a version bump (version ${projection.version}); bump the version and rebuild`
          : `registered version ${registered.version}, code version ${projection.version}: run a rebuild`;
      return {
        name,
        status: 'rebuild_required',
        generation: registered.liveGeneration,
        registeredVersion: registered.version,
        codeVersion: projection.version,
        reason,
      };
    }
    const tables = projection.storage.map((t) => t.logical);
    const { rows: owners } = await client.query<{ name: string }>(
      'select name from projection_registry where tables && $1::text[]',
      [tables],
    );
    if (owners[0]) {
      throw new ProjectionDefinitionError(
        `projection ${name}: a table name is already owned by projection ${owners[0].name}`,
      );
    }
    for (const table of projection.storage) {
      await client.query(createTableSql(table, 1));
      for (const sql of createIndexesSql(table, 1)) await client.query(sql);
      await client.query(viewSql(table, 1, 'create'));
    }
    await client.query(
      `insert into projection_registry (name, live_generation, version, ddl_hash, tables)
       values ($1, 1, $2, $3, $4)`,
      [name, projection.version, projection.ddlHash, tables],
    );
    await client.query(
      `insert into projection_generations (name, generation, version, ddl_hash, tables, status, live_at)
       values ($1, 1, $2, $3, $4, 'live', now())`,
      [name, projection.version, projection.ddlHash, tables],
    );
    return { name, status: 'created', generation: 1 };
  });
  if (outcome.status === 'rebuild_required') {
    logger.warn({ projection: name, generation: outcome.generation }, outcome.reason);
  } else if (outcome.status === 'created') {
    logger.info({ projection: name, generation: 1 }, 'projection registered');
  }
  return outcome;
}

export async function ensureProjections(
  pool: Pool,
  projections: readonly Projection[],
  options: { logger?: Logger } = {},
): Promise<EnsureOutcome[]> {
  const outcomes: EnsureOutcome[] = [];
  for (const projection of projections) outcomes.push(await ensureProjection(pool, projection, options));
  return outcomes;
}
