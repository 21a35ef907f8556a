export { type ContractCapabilities, type ContractSubject, describeEventStoreContract } from './contract.js';
export {
  collect,
  eventually,
  makeEvents,
  openSubscription,
  type ReadAllOfOptions,
  readAllOf,
  sleep,
  uniqueName,
  uniqueType,
} from './helpers.js';
export { type AppendStep, checkConcurrentAppendsReadOnce, type LogPropertyOptions } from './logProperty.js';
