export {
  type AnyEventInput,
  anyEventArbitrary,
  eventDataArbitraries,
  llmCallRecordedV1Arbitrary,
} from './arbitraries.js';
export {
  eventExamples,
  llmCallRecordedV1Example,
  llmCallRecordedV1ExampleAsV2,
  llmCallRecordedV1ToAppend,
} from './fixtures.js';
export { recordedFrom } from './recordedFrom.js';
