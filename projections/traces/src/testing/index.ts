// Test helpers of the traces projection (tests only; not in the build): a realistic traced session
// and the CSV reader the export tests check their output with.
export { parseCsv } from './parseCsv.js';
export { type CallInput, exampleSession, type TraceInput } from './sessionTrace.js';
