export * from './keyring.js';
