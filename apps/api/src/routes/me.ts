import { addRoute, errorResponses, requireCaller, type VerifyApiKey, type VerifyJwt } from '@parley/http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

/** The lookups of GET /api/v1/me: @parley/auth's store (getApiKey, getProject) satisfies it. */
export interface MeLookups {
  getApiKey(keyId: string): Promise<{ name: string } | null>;
  getProject(projectId: string): Promise<{ tenantId: string; slug: string; name: string } | null>;
}

export interface MeRouteOptions {
  verifyApiKey: VerifyApiKey;
  /** User JWT bearer tokens; unset: only platform API keys (a JWT is 401). */
  verifyJwt?: VerifyJwt | undefined;
  lookups: MeLookups;
}

const meShape = z.object({
  success: z.literal(true),
  credential: z.object({
    kind: z.enum(['api_key', 'user_jwt']),
    id: z.string().nullable().describe('The key id (key_…) for an API key; null for a JWT.'),
    name: z.string().nullable().describe("The key's name; null for a JWT."),
    subject: z.string().nullable().describe("The JWT's `sub`; null for an API key."),
  }),
  tenantId: z.string(),
  projects: z
    .array(
      z.object({
        id: z.string(),
        slug: z.string().nullable().describe('Null only when the project was deleted since the check.'),
        name: z.string().nullable(),
      }),
    )
    .describe(
      "The key's project, or those of the JWT's project_ids that are its tenant's (others are left out), in order.",
    ),
  scopes: z.array(z.string()).describe("A key's scopes, or the JWT's `scope` claim split on spaces."),
  permissions: z.array(z.string()).describe('What the scopes grant (the permissions routes check).'),
});

/**
 * GET /api/v1/me: who the credential is (a platform API key or a user JWT, requireCaller with no
 * permission and no project), so that a client (the console's sign-in) can learn its tenant,
 * projects and permissions. Never echoes the secret.
 */
export const meRoutes: FastifyPluginAsync<MeRouteOptions> = async (app, deps) => {
  const preHandler = requireCaller({
    verifyApiKey: deps.verifyApiKey,
    verifyJwt: deps.verifyJwt,
    permission: null,
  });
  const { lookups } = deps;

  addRoute(app, {
    method: 'GET',
    url: '/api/v1/me',
    tags: ['me'],
    summary: 'Who the credential is',
    description:
      'The calling credential (API key or user JWT), its tenant, the projects it reaches (with slug and name), its scopes and permissions. Needs no permission.',
    operationId: 'getMe',
    security: [{ bearer: [] }, { apiKey: [] }, { userJwt: [] }],
    preHandler,
    response: {
      200: meShape,
      401: errorResponses.authentication,
      403: errorResponses.standard,
      429: errorResponses.rateLimited,
    },
    handler: async (request, reply) => {
      // requireCaller refuses SDK tokens here (acceptSdkToken unset): an API key or a JWT.
      const caller = request.caller!;
      const isKey = caller.kind === 'apiKey';
      const [key, projects] = await Promise.all([
        isKey ? lookups.getApiKey(caller.subject) : Promise.resolve(null),
        Promise.all(
          caller.projectIds.map(async (id) => {
            const project = await lookups.getProject(id);
            // The verifier kept only the tenant's projects; one deleted since has no slug to show.
            const known = project !== null && project.tenantId === caller.tenantId;
            return { id, slug: known ? project.slug : null, name: known ? project.name : null };
          }),
        ),
      ]);
      reply.header('cache-control', 'no-store');
      return {
        success: true as const,
        credential: {
          kind: isKey ? ('api_key' as const) : ('user_jwt' as const),
          id: isKey ? caller.subject : null,
          name: key?.name ?? null,
          subject: isKey ? null : caller.subject,
        },
        tenantId: caller.tenantId,
        projects,
        scopes: [...(caller.scopes ?? [])],
        permissions: [...caller.permissions],
      };
    },
  });
};
