// Test-only helpers (the package's `./testing` subpath): never imported by production code.

export { createQueuedProvider, type QueuedAnswer, type QueuedProvider } from './queuedProvider.js';
export { createTestCipher } from './testCipher.js';
export { anthropicAnswer, openAiAnswer, type ScriptedToolCall } from './vendorAnswers.js';
export {
  jsonAnswer,
  type StandInAnswer,
  type StandInRequest,
  sseAnswer,
  startVendorStandIn,
  type VendorStandIn,
} from './vendorStandIn.js';
