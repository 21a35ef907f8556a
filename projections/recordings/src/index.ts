export { loadRecordingFile } from './loadRecordingFile.js';
export { loadSessionRecordings, type SessionRecordings } from './loadSessionRecordings.js';
export {
  addFact,
  canonicalJson,
  emptyFacts,
  type RecordingEvent,
  type RecordingFacts,
} from './recordingFacts.js';
export {
  type DerivedRecording,
  goneCause,
  recordingFromFacts,
  undeletedObjects,
} from './recordingFromFacts.js';
export { type RecordingRow, type RecordingSessionRow, recordingsProjection } from './recordingsProjection.js';
export {
  listRecordingsDueForRetention,
  listRecordingsWithMediaToDelete,
  type MediaToDelete,
} from './retention.js';
