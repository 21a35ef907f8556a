export { emptyState, type MemoryState, memoryRows, projectInMemory } from './projectInMemory.js';
