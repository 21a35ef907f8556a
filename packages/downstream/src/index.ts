export * from './checkpoints.js';
export * from './consumer.js';
export * from './contract.js';
export * from './relay.js';
export * from './replayPublisher.js';
export * from './stream.js';
