import type { Server } from 'node:http';
import { createApiServer } from '@parley/api/server';
import { createWorkerProcess, workerSettingsOf } from '@parley/worker/process';
import closeWithGrace from 'close-with-grace';
import { forgetRunningApi, recordRunningApi } from '../runningApi.js';
import { type DatabaseMode, openSystem, type System } from '../system.js';
import { type CliContext, printNextSteps } from './context.js';
import { type FirstRunDemo, firstRunDemo } from './firstRunDemo.js';

export interface ServeOptions {
  api: boolean;
  worker: boolean;
  database: DatabaseMode;
  /** Print the URL and what to do next (the one-machine `parley start`). */
  welcome: boolean;
  /** With welcome, on the embedded database: seed the demo project on the first start. */
  demo?: boolean;
}

/**
 * Runs the API and/or the worker until SIGINT/SIGTERM, then shuts down in
 * order: stop accepting requests, finish the batch in flight, close the log
 * store, the pool and the embedded PostgreSQL.
 */
export async function serve(ctx: CliContext, options: ServeOptions): Promise<void> {
  const { config, logger } = ctx;
  // The worker's settings are checked before anything is opened (a ConfigError stops here).
  const workerSettings = options.worker ? workerSettingsOf(config) : null;
  const system = await openSystem(config, logger, {
    database: options.database,
    migrate: true,
    poolMax: config.DATABASE_POOL_MAX + (workerSettings?.lockConnections ?? 0),
  });
  // What each process runs: apps/worker/src/process.ts and apps/api/src/server.ts.
  const worker = workerSettings ? createWorkerProcess(system, workerSettings) : null;
  const api = options.api ? await createApiServer(system) : null;
  const app = api?.app ?? null;

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    logger.info('shutting down');
    if (system.embedded) forgetRunningApi(config.PARLEY_DATA_DIR);
    await api?.close();
    await worker?.stop();
    await system.close();
    logger.info('stopped');
  };
  closeWithGrace(
    { delay: 15_000, logger: { error: (msg: unknown) => logger.error({ msg }, 'forced exit') } },
    async ({ err }) => {
      if (err) logger.error({ err }, 'fatal error');
      await shutdown();
    },
  );

  try {
    await worker?.start();
    if (app) await app.listen({ host: config.HOST, port: config.PORT });
  } catch (err) {
    await shutdown();
    throw err;
  }
  if (options.welcome && app) await welcome(system, app.server.address(), options);
}

/**
 * What to do next, printed once Parley serves. On the embedded database's first start the demo
 * project is made then (with its progress), and the banner printed again when it is ready: its
 * console key and project are in it, and the seeding's output pushed the first one up.
 */
async function welcome(
  system: System,
  address: ReturnType<Server['address']>,
  options: ServeOptions,
): Promise<void> {
  const { config, logger } = system;
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  if (system.embedded) recordRunningApi(config.PARLEY_DATA_DIR, url);
  const banner = (demo: FirstRunDemo, seeding = false) =>
    printNextSteps({
      url,
      dataDir: config.PARLEY_DATA_DIR,
      embeddedPort: system.embedded?.port ?? null,
      consoleKeyFile: demo.keyFile,
      demoProjectId: demo.projectId,
      seeded: demo.seeded,
      seeding,
    });
  let demo: FirstRunDemo = { keyFile: null, projectId: null, seeded: false };
  if (options.demo === false) return banner(demo);
  try {
    demo = await firstRunDemo(system, config.PARLEY_DATA_DIR, process.stdout, () => banner(demo, true));
  } catch (err) {
    // Parley runs without its demo; the next steps say how to seed one by hand.
    logger.error({ err }, 'the demo project could not be created');
  }
  banner(demo);
}
