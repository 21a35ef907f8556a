import { afterAll, beforeAll } from 'vitest';
import { describeEventStoreContract } from '../testing/contract.js';
import { createEventStoreDbEventStore } from './createEventStoreDbEventStore.js';
import { type EsdbGrpcStandIn, startEsdbGrpcStandIn } from './testing/esdbGrpcStandIn.js';

// The EventStoreDB adapter over the real client and gRPC, against an in-memory server that speaks the
// protocol (testing/esdbGrpcStandIn.ts): the whole contract suite on every run. Against a real server
// the same suite runs in eventstoredb.int.spec.ts when EVENTSTORE_URL is set.
let standIn: EsdbGrpcStandIn;
beforeAll(async () => {
  standIn = await startEsdbGrpcStandIn();
});
afterAll(async () => {
  await standIn?.close();
});

describeEventStoreContract(
  'eventstoredb (in-memory gRPC server)',
  async () => {
    const store = createEventStoreDbEventStore({ connectionString: standIn.connectionString });
    return { store, teardown: () => store.close() };
  },
  // The concurrency property runs on the client-level stand-in (eventstoredbStandIn.unit.spec.ts): over
  // gRPC each readAll moves a whole page of records through the client's protobuf decoding (about
  // 0.1 ms a record here), so the property's readers, reading one to sixteen events per call behind
  // thousands of appends, miss its 10 s deadline without anything being lost.
  { uniqueEventIdsAcrossStreams: false, concurrencyRuns: 0 },
);
