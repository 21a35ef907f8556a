export { openApiProblems, recordRoutes } from './openApiProblems.js';
export {
  FIXED_TENANTS,
  fixedTenantProjects,
  KEYS,
  principals,
  testApp,
  verifyFixedKeys,
} from './testApp.js';
