export { apiBaseUrlAllowlistOf, callbackAllowlistOf, toolAllowlistOf } from './allowlists.js';
export type { ProcessDependencies } from './dependencies.js';
export { callbackRetryScheduleOf } from './retrySchedule.js';
export { publicBaseUrlOf, runtimeOf } from './runtime.js';
export { telephonyAccountsOf } from './telephonyAccounts.js';
