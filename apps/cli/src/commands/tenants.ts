import { type AuthStore, createAuthStore } from '@parley/auth';
import { ParleyError } from '@parley/platform';
import { openSystem, UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';

/**
 * Runs fn with an auth store on a migrated database. The store's 4xx errors
 * (a taken slug, an unknown scope) are usage errors here: exit code 2 with
 * the store's message.
 */
export async function withAuthStore<T>(ctx: CliContext, fn: (store: AuthStore) => Promise<T>): Promise<T> {
  const system = await openSystem(ctx.config, ctx.logger, { database: 'attach', migrate: true, poolMax: 2 });
  try {
    return await fn(createAuthStore(system.pool));
  } catch (err) {
    if (err instanceof ParleyError && err.status < 500) throw new UsageError(err.message);
    throw err;
  } finally {
    await system.close();
  }
}

export const printJson = (ctx: CliContext, value: unknown) =>
  ctx.out.write(`${JSON.stringify(value, null, 2)}\n`);

export const formatTime = (date: Date | null): string => (date ? date.toISOString() : '-');

export async function tenantsCreateCommand(
  ctx: CliContext,
  options: { name: string; rateLimit?: number; json?: boolean },
): Promise<void> {
  const tenant = await withAuthStore(ctx, (store) =>
    store.createTenant({ name: options.name, rateLimitPerSecond: options.rateLimit }),
  );
  if (options.json) printJson(ctx, tenant);
  else ctx.out.write(`created tenant ${tenant.id} (${tenant.name})\n`);
}

export async function tenantsListCommand(ctx: CliContext, options: { json?: boolean }): Promise<void> {
  const tenants = await withAuthStore(ctx, (store) => store.listTenants());
  if (options.json) {
    printJson(ctx, tenants);
    return;
  }
  ctx.out.write(
    formatTable(
      tenants.map((t) => ({
        id: t.id,
        name: t.name,
        features: Object.keys(t.features)
          .filter((f) => t.features[f] === true)
          .join(','),
        'rate limit/s': t.rateLimitPerSecond === null ? 'default' : String(t.rateLimitPerSecond),
        created: formatTime(t.createdAt),
      })),
    ),
  );
}
