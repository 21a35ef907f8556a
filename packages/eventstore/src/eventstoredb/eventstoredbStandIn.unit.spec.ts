import { describeEventStoreContract } from '../testing/contract.js';
import { createEventStoreDbEventStore } from './createEventStoreDbEventStore.js';
import { createFakeEsdb } from './testing/createFakeEsdb.js';

// The EventStoreDB adapter against the in-memory stand-in of the client (testing/createFakeEsdb.ts):
// the whole contract suite, on every run, so the adapter's mapping of the port (idempotency, positions,
// paging, filters, subscriptions) is checked without a server. The stand-in follows the server where
// the adapter depends on it and does not dedupe ids by itself (the server's worst case). Against a real
// server the same suite runs in eventstoredb.int.spec.ts when EVENTSTORE_URL is set.
describeEventStoreContract(
  'eventstoredb (in-memory stand-in)',
  async () => {
    const fake = createFakeEsdb();
    const store = createEventStoreDbEventStore({ client: fake.client });
    return {
      store,
      async teardown() {
        await store.close();
        if (fake.openSubscriptions() !== 0) throw new Error('subscriptions left open after close');
      },
    };
  },
  { uniqueEventIdsAcrossStreams: false },
);
