import { abortableSleep, type Logger } from '@parley/platform';
import pgListen, { type Subscriber } from 'pg-listen';

type CreateSubscriber = typeof pgListen;
// pg-listen is CommonJS with an `exports.default`; loaders differ on whether
// the default import is that function or the whole module object.
const createSubscriber: CreateSubscriber =
  (pgListen as unknown as { default?: CreateSubscriber }).default ?? pgListen;

export interface ListenerOptions {
  connectionString: string;
  channel: string;
  logger: Logger;
  /** Called on every notification and after every (re)connection, which may have missed some. */
  onWake(): void;
  /** What the listener is called in logs and in pg_stat_activity (default: the log's listener). */
  name?: string;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * LISTEN on its own connection. pg-listen reconnects after short outages by
 * itself; when it gives up (or the first connection fails) this loop starts a
 * new subscriber with backoff, forever, until close(). Readers poll meanwhile.
 */
export function startListener(options: ListenerOptions): Listener {
  const { channel, onWake } = options;
  const name = options.name ?? 'log';
  const logger = options.logger.child({ listener: name });
  const stopped = new AbortController();
  let current: Subscriber | undefined;

  const session = async (sub: Subscriber): Promise<void> => {
    const gaveUp = new Promise<Error>((resolve) => sub.events.on('error', resolve));
    sub.events.on('notification', (n) => {
      if (n.channel === channel) onWake();
    });
    sub.events.on('reconnect', (attempt) => logger.debug({ attempt }, `${name} listener reconnecting`));
    sub.events.on('connected', () => {
      // pg-listen can finish a reconnection after close(); do not keep that connection.
      if (stopped.signal.aborted) void sub.close().catch(() => {});
      else onWake();
    });
    await sub.connect();
    await sub.listenTo(channel);
    logger.debug({ channel }, `${name} listener listening`);
    const stop = new Promise<undefined>((resolve) =>
      stopped.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    const err = await Promise.race([gaveUp, stop]);
    if (err) throw err;
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!stopped.signal.aborted) {
      const sub = createSubscriber(
        { connectionString: options.connectionString, application_name: `parley-${name}-listener` },
        {
          // Payloads are opaque: pg-listen's default JSON.parse would turn a plain-text payload into
          // an 'error' (and a reconnection) instead of a notification.
          parse: (payload: string) => payload,
          paranoidChecking: 15_000,
          retryLimit: 6,
          retryInterval: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
        },
      );
      current = sub;
      try {
        await session(sub);
        failures = 0;
      } catch (err) {
        if (!stopped.signal.aborted) {
          // Once per outage at warn; the retries after it at debug.
          if (failures === 0) logger.warn({ err }, `${name} listener is down; readers poll until it is back`);
          else logger.debug({ err, failures }, `${name} listener still down`);
        }
        failures += 1;
      }
      await sub.close().catch(() => {});
      if (!stopped.signal.aborted)
        await abortableSleep(Math.min(250 * 2 ** failures, 10_000), stopped.signal);
    }
  };

  const running = run();
  return {
    async close() {
      stopped.abort();
      await current?.close().catch(() => {});
      await running;
    },
  };
}
