export {
  fillPath,
  listOperations,
  minimalValue,
  type OpenApiOperation,
  type OpenApiParameter,
  paramContext,
  pathParamsOf,
  type Schema,
  UnfilledParameterError,
} from './openApiOperations.js';
export { openApiProblems, recordRoutes } from './openApiProblems.js';
export {
  FIXED_TENANTS,
  fixedTenantProjects,
  KEYS,
  principals,
  testApp,
  verifyFixedKeys,
} from './testApp.js';
