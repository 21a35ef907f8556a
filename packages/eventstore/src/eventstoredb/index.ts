export { createEventStoreDbEventStore, type EventStoreDbOptions } from './createEventStoreDbEventStore.js';
