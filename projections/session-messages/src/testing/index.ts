// Test helpers of the session-messages projection (tests only; not in the build).
export { exampleTranscript } from './transcript.js';
