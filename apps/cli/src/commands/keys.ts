import { SCOPE_NAMES } from '@parley/auth';
import { UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';
import { formatTime, printJson, withAuthStore } from './tenants.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** `30d`, `12h`, `90m`, `2w` as milliseconds (throws a UsageError otherwise). */
export function parseDuration(value: string): number {
  const match = /^(\d+)([mhdw])$/.exec(value.trim());
  const amount = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(amount) || amount < 1) {
    throw new UsageError(
      `--expires-in must be a whole number and a unit (m, h, d, w), e.g. 30d; got ${value}`,
    );
  }
  return amount * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

export async function keysCreateCommand(
  ctx: CliContext,
  options: { project: string; scope?: string[]; name?: string; expiresIn?: string; json?: boolean },
): Promise<void> {
  const scopes = options.scope ?? [];
  if (scopes.length === 0) throw new UsageError(`--scope is required (one of ${SCOPE_NAMES.join(', ')})`);
  const expiresAt =
    options.expiresIn === undefined ? undefined : new Date(Date.now() + parseDuration(options.expiresIn));
  const { key, record } = await withAuthStore(ctx, async (store) => {
    const project = await resolveProject(store, options.project);
    return store.createApiKey({ projectId: project.id, scopes, name: options.name, expiresAt });
  });
  if (options.json) {
    printJson(ctx, { ...record, key });
    return;
  }
  // The key alone on stdout (`KEY=$(parley keys create …)`), the rest on stderr.
  ctx.out.write(`${key}\n`);
  ctx.err.write(
    `created ${record.id} (${record.name}) for project ${record.projectId}: scopes ${record.scopes.join(', ')}, ` +
      `expires ${record.expiresAt ? record.expiresAt.toISOString() : 'never'}\n` +
      'This key is shown only now and cannot be shown again: Parley keeps only its hash. Store it safely.\n',
  );
}

export async function keysListCommand(
  ctx: CliContext,
  options: { project: string; json?: boolean },
): Promise<void> {
  const keys = await withAuthStore(ctx, async (store) =>
    store.listApiKeys((await resolveProject(store, options.project)).id),
  );
  if (options.json) {
    printJson(ctx, keys);
    return;
  }
  ctx.out.write(
    formatTable(
      keys.map((k) => ({
        id: k.id,
        name: k.name,
        key: k.displayPrefix,
        scopes: k.scopes.join(','),
        status: k.status,
        created: formatTime(k.createdAt),
        expires: formatTime(k.expiresAt),
        'last used': formatTime(k.lastUsedAt),
      })),
    ),
  );
}

export async function keysRevokeCommand(ctx: CliContext, keyId: string): Promise<void> {
  const record = await withAuthStore(ctx, (store) => store.revokeApiKey(keyId));
  if (!record) throw new UsageError(`no API key ${keyId}`);
  ctx.out.write(`revoked ${record.id} at ${formatTime(record.revokedAt)}\n`);
}
