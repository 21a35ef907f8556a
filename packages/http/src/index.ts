export { assertNever } from './assertNever.js';
export {
  type Caller,
  callerReaches,
  callerSoleProject,
  type VerifyJwt,
  type VerifyJwtFailureReason,
  type VerifyJwtResult,
} from './auth/caller.js';
export { type ClassifyOptions, type Credential, classifyCredential } from './auth/classifyCredential.js';
export { createJwtVerifier, type JwtVerifierOptions, type TenantProjects } from './auth/jwtVerifier.js';
export type { Principal, VerifyApiKey, VerifyApiKeyResult, VerifyFailureReason } from './auth/principal.js';
export { authenticateApiKey, type RequireApiKeyOptions, requireApiKey } from './auth/requireApiKey.js';
export { type RequireCallerOptions, requireCaller, SDK_TOKEN_PERMISSIONS } from './auth/requireCaller.js';
export {
  createSdkTokens,
  type IssuedSdkToken,
  SDK_TOKEN_DEFAULT_TTL_SECONDS,
  SDK_TOKEN_MAX_TTL_SECONDS,
  type SdkTokenClaims,
  type SdkTokens,
  type SdkTokensOptions,
  type VerifySdkToken,
  type VerifySdkTokenFailureReason,
  type VerifySdkTokenResult,
} from './auth/sdkTokens.js';
export { errorHandlerPlugin } from './errors/errorHandlerPlugin.js';
export { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './errors/frameworkErrors.js';
export {
  AUTHENTICATION_MESSAGE,
  analyticsError,
  authenticationFailed,
  CREDENTIALS_MESSAGE,
  credentialTypeRefused,
  type EnvelopeKind,
  HttpError,
  type HttpErrorOptions,
  permissionRequired,
  platformApiKeyRequired,
  projectNotFound,
  rateLimited,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  serviceUnavailable,
  tenantContextRequired,
} from './errors/httpError.js';
export { type ApiFamily, type ErrorReply, toErrorReply } from './errors/toErrorReply.js';
export {
  createExecutionQueue,
  type ExecutionQueue,
  type ExecutionQueueOptions,
  type ExecutionQueueStats,
  queueFull,
} from './executionQueue/executionQueue.js';
export { addRoute, type RouteDefinition, type RouteShapes } from './openapi/addRoute.js';
export { type ApiDescriptionOptions, apiDescription } from './openapi/apiDescription.js';
export { errorResponses, errorSchemas } from './openapi/errorSchemas.js';
export { type JsonSchema, jsonSchemaOf } from './openapi/jsonSchemaOf.js';
export { binaryBody, mediaResponse, textBody } from './openapi/mediaResponse.js';
export { type OpenApiOptions, openApiPlugin } from './openapi/openApiPlugin.js';
export { type UnstorableBodyPolicy, unstorableTextError } from './openapi/refuseUnstorableText.js';
export {
  createInProcessRateLimiter,
  type InProcessRateLimiterOptions,
} from './rateLimit/inProcessRateLimiter.js';
export type { RateLimitDecision, RateLimiter } from './rateLimit/rateLimiter.js';
export { type ConfiguredRateLimit, rateLimitFromConfig } from './rateLimit/rateLimitFromConfig.js';
export { type TenantRateLimitOptions, tenantRateLimitPlugin } from './rateLimit/rateLimitPlugin.js';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './rateLimit/redisRateLimiter.js';
export { requestIdFromHeader } from './requestId.js';
export type { ActiveSessionDecision, ActiveSessionLimiter } from './sessionLimits/activeSessionLimiter.js';
export {
  createInProcessActiveSessionLimiter,
  type InProcessActiveSessionLimiterOptions,
} from './sessionLimits/inProcessActiveSessionLimiter.js';
export {
  createRedisActiveSessionLimiter,
  type RedisActiveSessionLimiterOptions,
} from './sessionLimits/redisActiveSessionLimiter.js';
export {
  type ConfiguredSessionLimits,
  type SessionLimits,
  sessionLimitsFromConfig,
} from './sessionLimits/sessionLimitsFromConfig.js';
