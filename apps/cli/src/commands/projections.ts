import { formatPosition } from '@parley/eventstore';
import {
  formatEventsBehind,
  latestRebuilds,
  ProjectionBusyError,
  projectionStatus,
  rebuildProjection,
} from '@parley/projection-runner';
import { createProgress } from '../progress.js';
import { openSystem, UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';

export async function projectionsStatusCommand(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 2 });
  try {
    const statuses = await projectionStatus(system.pool, system.store, system.projections);
    // Rebuilds requested through the API (the worker runs them): the latest of each projection.
    const rebuilds = await latestRebuilds(
      system.pool,
      statuses.map((s) => s.name),
    );
    if (options.json) {
      const withRebuilds = statuses.map((s) => ({ ...s, rebuild: rebuilds.get(s.name) ?? null }));
      ctx.out.write(
        `${JSON.stringify(withRebuilds, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`,
      );
      return;
    }
    const rows = statuses.flatMap((s) =>
      s.generations.length === 0
        ? [
            {
              projection: s.name,
              version: String(s.codeVersion),
              generation: '-',
              status: s.state,
              checkpoint: '-',
              'events behind': '-',
              'seconds behind': '-',
            },
          ]
        : s.generations.map((g) => ({
            projection: s.name,
            version: String(g.version),
            generation: String(g.generation),
            status:
              g.status +
              (g.generation === s.liveGeneration && s.state !== 'ok'
                ? ` (${s.state.replace('_', ' ')})`
                : '') +
              (g.failure ? `: ${g.failure.error}` : ''),
            checkpoint: formatPosition(g.checkpoint),
            'events behind': formatEventsBehind(g),
            'seconds behind': g.secondsBehind.toFixed(1),
          })),
    );
    ctx.out.write(formatTable(rows));
    for (const r of rebuilds.values()) {
      if (r.state !== 'queued' && r.state !== 'running') continue;
      const total = r.eventsTotal === null ? '' : `/${r.eventsTotal}`;
      ctx.out.write(
        `${r.projection}: rebuild ${r.id} requested through the API is ${r.state} (${r.eventsProcessed}${total} events)\n`,
      );
    }
  } finally {
    await system.close();
  }
}

export async function projectionsRebuildCommand(ctx: CliContext, name: string): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 4 });
  try {
    const projection = system.projections.find((p) => p.name === name);
    if (!projection) {
      throw new UsageError(
        `no projection named ${JSON.stringify(name)}; known: ${system.projections.map((p) => p.name).join(', ')}`,
      );
    }
    const progress = createProgress(`rebuild ${name}`, 0);
    // Ctrl-C stops between batches; the generation being built is kept and the next rebuild resumes it.
    const interrupted = new AbortController();
    const onSigint = () => interrupted.abort();
    process.once('SIGINT', onSigint);
    let result: Awaited<ReturnType<typeof rebuildProjection>>;
    try {
      result = await rebuildProjection({
        pool: system.pool,
        store: system.store,
        projection,
        logger: ctx.logger,
        signal: interrupted.signal,
        onProgress: (p) =>
          progress.update(
            p.eventsProcessed,
            p.eventsBehind === null ? undefined : p.eventsProcessed + p.eventsBehind,
          ),
      });
    } catch (err) {
      if (err instanceof ProjectionBusyError) {
        throw new UsageError(`a rebuild of ${name} is already running; wait for it or stop it first`);
      }
      if (interrupted.signal.aborted) {
        throw new UsageError(
          `rebuild of ${name} interrupted; the live generation still serves; run it again to resume`,
        );
      }
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      progress.stop();
    }
    ctx.out.write(
      `${name}: generation ${result.generation} is live (${result.eventsProcessed} events in ${(result.durationMs / 1000).toFixed(1)} s, ${Math.round(result.eventsPerSecond)} events/s)\n`,
    );
  } finally {
    await system.close();
  }
}
