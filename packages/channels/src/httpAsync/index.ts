export * from './callbackSignature.js';
export * from './callbackUrl.js';
export * from './guardedFetch.js';
