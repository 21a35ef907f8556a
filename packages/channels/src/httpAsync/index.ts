export * from './callbackSignature.js';
export * from './callbackUrl.js';
export * from './guardedFetch.js';
export * from './jobs.js';
export * from './logTransaction.js';
export { httpAsyncMigrations } from './migrations.js';
export * from './payloads.js';
export * from './subscriptionSchema.js';
export * from './subscriptionStore.js';
