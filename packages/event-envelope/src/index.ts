export type { EventMetadata, EventToAppend, RecordedEvent, Upcast } from './envelope.js';
export { comparePositions, formatPosition, type Position, parsePosition, START } from './position.js';
