import { silentLogger } from '@parley/platform';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TenantProjects } from '../auth/jwtVerifier.js';
import type { Principal, VerifyApiKey } from '../auth/principal.js';
import { errorHandlerPlugin } from '../errors/errorHandlerPlugin.js';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from '../errors/frameworkErrors.js';
import { requestIdFromHeader } from '../requestId.js';

/** A bare app with the error handler, as buildApp sets it up; tests add their routes. */
export async function testApp(options: { bodyLimit?: number } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: silentLogger() as FastifyBaseLogger,
    genReqId: requestIdFromHeader,
    bodyLimit: options.bodyLimit ?? 1_000_000,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler,
  });
  await app.register(errorHandlerPlugin);
  return app;
}

export const KEYS = {
  good: 'plat_good_0123456789abcdef',
  noPermission: 'plat_noperm_0123456789abcdef',
  otherTenant: 'plat_other_0123456789abcdef',
  expired: 'plat_expired_0123456789abcdef',
  revoked: 'plat_revoked_0123456789abcdef',
  malformed: 'plat_x',
} as const;

export const principals: Record<string, Principal> = {
  [KEYS.good]: {
    keyId: 'key_1',
    tenantId: 'tenant_a',
    projectId: 'proj_a',
    scopes: ['recordings.read'],
    permissions: ['recording:read'],
  },
  [KEYS.noPermission]: {
    keyId: 'key_2',
    tenantId: 'tenant_a',
    projectId: 'proj_a',
    scopes: ['ingest.write'],
    permissions: ['ingest:write'],
  },
  [KEYS.otherTenant]: {
    keyId: 'key_3',
    tenantId: 'tenant_b',
    projectId: 'proj_b',
    scopes: ['recordings.read'],
    permissions: ['recording:read'],
  },
};

/** A key verifier with packages/auth's contract over the fixed keys above. */
export const verifyFixedKeys: VerifyApiKey = async (raw) => {
  if (raw === KEYS.expired) return { ok: false, reason: 'expired' };
  if (raw === KEYS.revoked) return { ok: false, reason: 'revoked' };
  if (raw === KEYS.malformed) return { ok: false, reason: 'malformed' };
  const principal = principals[raw];
  return principal === undefined ? { ok: false, reason: 'unknown' } : { ok: true, principal };
};

/** createJwtVerifier's `tenantProjects` over fixed tenants (tenant id to its projects), for unit tests. */
export function fixedTenantProjects(tenants: Record<string, readonly string[]>): TenantProjects {
  return async (tenantId, projectIds) => {
    const owned = Object.hasOwn(tenants, tenantId) ? tenants[tenantId] : undefined;
    return owned === undefined ? null : projectIds.filter((id) => owned.includes(id));
  };
}

/** The tenants of the fixed keys above, and the projects a test's JWTs may name. */
export const FIXED_TENANTS: Record<string, readonly string[]> = {
  tenant_a: ['proj_a', 'proj_c'],
  tenant_b: ['proj_b'],
};
