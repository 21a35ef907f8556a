export * from './callbackSignature.js';
export * from './callbackUrl.js';
export * from './guardedFetch.js';
export { httpAsyncMigrations } from './migrations.js';
export * from './subscriptionSchema.js';
export * from './subscriptionStore.js';
