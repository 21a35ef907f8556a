import { randomUUID } from 'node:crypto';
import {
  createSdkTokens,
  type IssuedSdkToken,
  SDK_TOKEN_DEFAULT_TTL_SECONDS,
  SDK_TOKEN_MAX_TTL_SECONDS,
} from '@parley/http';
import { UsageError } from '../system.js';
import type { CliContext } from './context.js';
import { resolveProject } from './projects.js';
import { printJson, withAuthStore } from './tenants.js';

export interface SdkTokenFlags {
  project: string;
  sub?: string;
  ttl?: number;
  channel?: string;
  origin?: string;
  json?: boolean;
}

/**
 * `parley sdk-tokens issue`: mints an SDK session token (X-SDK-Token) for a
 * project with SDK_TOKEN_SECRET, as `POST /api/v1/sdk/init` does for a widget,
 * to try the conversation endpoints without a public key and a browser. The token alone goes
 * to stdout (`TOKEN=$(parley sdk-tokens issue …)`), the rest to stderr.
 */
export async function sdkTokensIssueCommand(ctx: CliContext, flags: SdkTokenFlags): Promise<void> {
  const secret = ctx.config.SDK_TOKEN_SECRET;
  if (secret === undefined) {
    throw new UsageError(
      'SDK_TOKEN_SECRET is not set (at least 32 characters; the API must use the same one)',
    );
  }
  const ttlSeconds = flags.ttl ?? SDK_TOKEN_DEFAULT_TTL_SECONDS;
  if (ttlSeconds > SDK_TOKEN_MAX_TTL_SECONDS) {
    throw new UsageError(`--ttl must be at most ${SDK_TOKEN_MAX_TTL_SECONDS} seconds; got ${ttlSeconds}`);
  }
  const sub = flags.sub ?? `anon_${randomUUID()}`;
  const project = await withAuthStore(ctx, (store) => resolveProject(store, flags.project));
  const claims = {
    tenantId: project.tenantId,
    projectId: project.id,
    sub,
    ...(flags.channel === undefined ? {} : { channelId: flags.channel }),
    ...(flags.origin === undefined ? {} : { origin: flags.origin }),
  };
  let issued: IssuedSdkToken;
  try {
    issued = await createSdkTokens({ secret, ttlSeconds }).issue(claims);
  } catch (err) {
    throw new UsageError(`cannot issue this token: ${(err as Error).message}`);
  }
  if (flags.json) {
    printJson(ctx, { token: issued.token, expiresAt: issued.expiresAt.toISOString(), ...claims });
    return;
  }
  ctx.out.write(`${issued.token}\n`);
  ctx.err.write(
    `SDK token for project ${project.id} (${project.slug}), end user ${sub}, ` +
      `expires ${issued.expiresAt.toISOString()}. Send it as X-SDK-Token to /api/v1/chat/send or chat/stream.\n`,
  );
}
