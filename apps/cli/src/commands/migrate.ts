import { migrate, pendingMigrations } from '@parley/platform';
import { ensureProjections } from '@parley/projection-runner';
import { openSystem } from '../system.js';
import { sealTelephonySecrets } from '../telephonyAccounts.js';
import type { CliContext } from './context.js';

export async function migrateCommand(ctx: CliContext, options: { status?: boolean }): Promise<void> {
  const system = await openSystem(ctx.config, ctx.logger, {
    database: 'attach',
    migrate: false,
    requireMigrated: false,
    poolMax: 2,
  });
  try {
    if (options.status) {
      const pending = await pendingMigrations(system.pool, system.migrationSets);
      ctx.out.write(
        pending.length === 0 ? 'migrations: current\n' : `pending migrations:\n  ${pending.join('\n  ')}\n`,
      );
      if (pending.length > 0) process.exitCode = 1;
      return;
    }
    const applied = await migrate(system.pool, system.migrationSets);
    ctx.out.write(applied.length === 0 ? 'nothing to apply\n' : `applied:\n  ${applied.join('\n  ')}\n`);
    const sealed = await sealTelephonySecrets(system.pool, ctx.config, ctx.logger);
    if (sealed > 0) ctx.out.write(`encrypted the secrets of ${sealed} telephony account(s)\n`);
    // The read models' first generation, so an API started before any worker answers (empty pages).
    const created = (await ensureProjections(system.pool, system.projections, { logger: ctx.logger })).filter(
      (o) => o.status === 'created',
    );
    if (created.length > 0) ctx.out.write(`created read models: ${created.map((o) => o.name).join(', ')}\n`);
  } finally {
    await system.close();
  }
}
