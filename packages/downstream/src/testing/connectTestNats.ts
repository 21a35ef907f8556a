import { connect, type NatsConnection } from '@nats-io/transport-node';

/**
 * The NATS of a test suite: never mocked, a real server with JetStream at NATS_URL (default
 * nats://127.0.0.1:4222). Without one the suite is skipped loudly on a workstation (null) and fails
 * with CI=true. The caller closes the connection it gets.
 */
export async function connectTestNats(suite: string): Promise<{ nc: NatsConnection; url: string } | null> {
  const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  try {
    const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
    return { nc, url };
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`NATS at ${url} does not answer (CI=true): ${String(err)}`);
    console.warn(`\n!!! SKIPPING ${suite}: NATS at ${url} does not answer (${String(err)}) !!!\n`);
    return null;
  }
}
