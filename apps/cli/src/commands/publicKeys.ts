import { UsageError } from '../system.js';
import { formatTable } from '../table.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';
import { formatTime, printJson, withAuthStore } from './tenants.js';

export interface PublicKeyCreateFlags {
  project: string;
  origin?: string[];
  voice?: boolean;
  chat?: boolean;
  name?: string;
  json?: boolean;
}

/**
 * `parley keys create-public`: a public widget key (`pk_…`) for a project's
 * web pages, usable only from the given origins. The key alone goes to stdout
 * (`PK=$(parley keys create-public …)`), the rest to stderr. Public keys are
 * public: `keys list-public` shows them again.
 */
export async function keysCreatePublicCommand(ctx: CliContext, flags: PublicKeyCreateFlags): Promise<void> {
  const origins = flags.origin ?? [];
  if (origins.length === 0) {
    throw new UsageError(
      '--origin is required: the site(s) the widget runs on, e.g. https://shop.example.com',
    );
  }
  const record = await withAuthStore(ctx, async (store) => {
    const project = await resolveProject(store, flags.project);
    return store.createPublicApiKey({
      projectId: project.id,
      allowedOrigins: origins,
      permissions: { chat: flags.chat !== false, voice: flags.voice === true },
      ...(flags.name === undefined ? {} : { name: flags.name }),
    });
  });
  if (flags.json) {
    printJson(ctx, record);
    return;
  }
  ctx.out.write(`${record.key}\n`);
  ctx.err.write(
    `created public key ${record.id} (${record.name}) for project ${record.projectId}: ` +
      `origins ${record.allowedOrigins.join(', ')}; chat ${record.permissions.chat ? 'on' : 'off'}, ` +
      `voice ${record.permissions.voice ? 'on' : 'off'}. Embed it in your pages (X-API-Key / X-Public-Key).\n`,
  );
}

export async function keysListPublicCommand(
  ctx: CliContext,
  options: { project: string; json?: boolean },
): Promise<void> {
  const keys = await withAuthStore(ctx, async (store) =>
    store.listPublicApiKeys((await resolveProject(store, options.project)).id),
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
        key: k.key,
        origins: k.allowedOrigins.join(','),
        permissions: Object.entries(k.permissions)
          .filter(([, on]) => on)
          .map(([p]) => p)
          .join(','),
        status: k.status,
        created: formatTime(k.createdAt),
        revoked: formatTime(k.revokedAt),
      })),
    ),
  );
}

export async function keysRevokePublicCommand(ctx: CliContext, keyId: string): Promise<void> {
  const record = await withAuthStore(ctx, (store) => store.revokePublicApiKey(keyId));
  if (!record) throw new UsageError(`no public key ${keyId}`);
  ctx.out.write(`revoked ${record.id} at ${formatTime(record.revokedAt)}\n`);
}
