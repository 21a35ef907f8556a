import { afterAll, beforeAll, describe, it } from 'vitest';
import type { EventStore } from '../types.js';
import { appendContract } from './contractAppend.js';
import { readContract } from './contractRead.js';
import { subscribeContract } from './contractSubscribe.js';
import { checkConcurrentAppendsReadOnce } from './logProperty.js';

export interface ContractSubject {
  store: EventStore;
  teardown(): Promise<void>;
}

/**
 * The behaviour every EventStore adapter must have (DESIGN.md "The log
 * store"). Tests use fresh stream names and event types of their own, and only
 * assert about the events they wrote, so the log may be shared.
 */
export interface ContractCapabilities {
  /**
   * The adapter refuses an event id already recorded in ANOTHER stream (PostgreSQL: a unique index
   * on event_id). EventStoreDB keeps no index by event id, so ids are unique per stream only there;
   * the port promises no more than that (types.ts, EventToAppend.eventId).
   */
  uniqueEventIdsAcrossStreams: boolean;
  /**
   * Runs of the concurrency property (many appenders, one restarting reader, within 10 s each);
   * default 40, 0 leaves it out (a subject too slow for its deadline that another run covers).
   */
  concurrencyRuns?: number;
}

export function describeEventStoreContract(
  name: string,
  setup: () => Promise<ContractSubject>,
  capabilities: ContractCapabilities = { uniqueEventIdsAcrossStreams: true },
): void {
  describe(`EventStore contract: ${name}`, () => {
    let subject: ContractSubject | undefined;
    const store = (): EventStore => {
      if (!subject) throw new Error('the contract setup did not run');
      return subject.store;
    };
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(async () => {
      await subject?.teardown();
    });

    appendContract(store, capabilities);
    readContract(store);
    subscribeContract(store);

    const concurrencyRuns = capabilities.concurrencyRuns ?? 40;
    if (concurrencyRuns > 0) {
      describe('concurrency', () => {
        it('many appenders, one restarting reader: nothing lost, nothing twice, streams in order', async () => {
          await checkConcurrentAppendsReadOnce({ store: store(), numRuns: concurrencyRuns });
        }, 90_000);
      });
    }
  });
}
