/**
 * Child process of crash.int.spec.ts: appends batches to a few streams as fast
 * as it can and prints `ack <batch> <size>` after each acknowledged append,
 * until the test SIGKILLs it. Usage: crashAppender.ts <url> <type> <prefix>
 */
import { randomUUID } from 'node:crypto';
import { createPool } from '@parley/platform';
import { createPostgresEventStore } from '../postgres/createPostgresEventStore.js';

const [url, eventType, streamPrefix] = process.argv.slice(2);
if (!url || !eventType || !streamPrefix) throw new Error('usage: crashAppender.ts <url> <type> <prefix>');
const type: string = eventType;
const prefix: string = streamPrefix;

const pool = createPool({ connectionString: url, max: 4, applicationName: `crash-${prefix}` });
const store = createPostgresEventStore({ pool });

async function appender(lane: number): Promise<never> {
  for (let n = 0; ; n++) {
    const batch = `${lane}-${n}`;
    const size = 1 + ((n * 37 + lane * 11) % 120);
    const events = Array.from({ length: size }, (_, index) => ({
      eventId: randomUUID(),
      type,
      data: { batch, size, index },
    }));
    await store.append(`${prefix}-${lane}`, events);
    process.stdout.write(`ack ${batch} ${size}\n`);
  }
}

await Promise.all([0, 1, 2, 3].map(appender));
