import { addRoute } from '@parley/http';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';

export interface ReadinessChecks {
  /** True when the database answers. */
  database(): Promise<boolean>;
  /** Migrations not yet applied (empty when current). */
  pendingMigrations(): Promise<string[]>;
}

type CheckResult = 'ok' | 'failing';

const check = z.enum(['ok', 'failing']);
const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({ database: check, migrations: check }),
  pendingMigrations: z.array(z.string()).describe('Migrations not yet applied, as set/name'),
});

/**
 * /healthz: the process is up (liveness; touches nothing).
 * /readyz: the database answers and migrations are current (readiness).
 */
export const healthRoutes: FastifyPluginAsync<{ checks: ReadinessChecks }> = async (app, { checks }) => {
  addRoute(app, {
    method: 'GET',
    url: '/healthz',
    summary: 'Liveness: the process is up',
    tags: ['health'],
    operationId: 'getHealth',
    response: { 200: z.object({ status: z.literal('ok') }) },
    handler: async () => ({ status: 'ok' }),
  });

  addRoute(app, {
    method: 'GET',
    url: '/readyz',
    summary: 'Readiness: the database answers and migrations are current',
    tags: ['health'],
    operationId: 'getReadiness',
    response: { 200: readiness.describe('Ready'), 503: readiness.describe('Not ready') },
    handler: async (request, reply) => {
      let database: CheckResult = 'failing';
      let migrations: CheckResult = 'failing';
      let pending: string[] = [];
      try {
        database = (await checks.database()) ? 'ok' : 'failing';
        if (database === 'ok') {
          pending = await checks.pendingMigrations();
          migrations = pending.length === 0 ? 'ok' : 'failing';
        }
      } catch (err) {
        request.log.warn({ err }, 'readiness check failed');
      }
      const ready = database === 'ok' && migrations === 'ok';
      return reply
        .status(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          status: ready ? 'ready' : 'not_ready',
          checks: { database, migrations },
          pendingMigrations: pending,
        });
    },
  });
};
