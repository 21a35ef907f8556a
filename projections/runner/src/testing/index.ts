export { emptyState, type MemoryState, memoryRows, projectInMemory } from './projectInMemory.js';
export { createProjectionHarness, type ProjectionHarness } from './projectionHarness.js';
