export { assertNever } from './assertNever.js';
export { type ClassifyOptions, type Credential, classifyCredential } from './auth/classifyCredential.js';
export type { Principal, VerifyApiKey, VerifyApiKeyResult, VerifyFailureReason } from './auth/principal.js';
export { type RequireApiKeyOptions, requireApiKey } from './auth/requireApiKey.js';
export { errorHandlerPlugin } from './errors/errorHandlerPlugin.js';
export {
  AUTHENTICATION_MESSAGE,
  analyticsError,
  authenticationFailed,
  type EnvelopeKind,
  HttpError,
  type HttpErrorOptions,
  permissionRequired,
  platformApiKeyRequired,
  projectNotFound,
  rateLimited,
} from './errors/httpError.js';
export { type ApiFamily, type ErrorReply, toErrorReply } from './errors/toErrorReply.js';
export { addRoute, type RouteDefinition, type RouteShapes } from './openapi/addRoute.js';
export { errorResponses, errorSchemas } from './openapi/errorSchemas.js';
export { type JsonSchema, jsonSchemaOf } from './openapi/jsonSchemaOf.js';
export { type OpenApiOptions, openApiPlugin } from './openapi/openApiPlugin.js';
export {
  createInProcessRateLimiter,
  type InProcessRateLimiterOptions,
} from './rateLimit/inProcessRateLimiter.js';
export type { RateLimitDecision, RateLimiter } from './rateLimit/rateLimiter.js';
export { type ConfiguredRateLimit, rateLimitFromConfig } from './rateLimit/rateLimitFromConfig.js';
export { type TenantRateLimitOptions, tenantRateLimitPlugin } from './rateLimit/rateLimitPlugin.js';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './rateLimit/redisRateLimiter.js';
export { requestIdFromHeader } from './requestId.js';
