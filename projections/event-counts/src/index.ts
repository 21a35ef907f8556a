export { type EventCount, eventCounts } from './eventCounts.js';
export { type EventCountRow, eventCountsProjection, NO_PROJECT } from './eventCountsProjection.js';
