export { openApiProblems, recordRoutes } from './openApiProblems.js';
export { KEYS, principals, testApp, verifyFixedKeys } from './testApp.js';
