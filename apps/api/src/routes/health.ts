import type { FastifyPluginAsync } from 'fastify';

export interface ReadinessChecks {
  /** True when the database answers. */
  database(): Promise<boolean>;
  /** Migrations not yet applied (empty when current). */
  pendingMigrations(): Promise<string[]>;
}

type CheckResult = 'ok' | 'failing';

/**
 * /healthz: the process is up (liveness; touches nothing).
 * /readyz: the database answers and migrations are current (readiness).
 */
export const healthRoutes: FastifyPluginAsync<{ checks: ReadinessChecks }> = async (app, { checks }) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
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
  });
};
