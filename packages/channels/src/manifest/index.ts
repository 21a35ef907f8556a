export * from './manifest.js';
export * from './providers.js';
