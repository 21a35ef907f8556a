export {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  LOOKUP_PREFIX_LENGTH,
  looksLikePlatformApiKey,
  parseApiKey,
  SECRET_LENGTH,
} from './apiKey.js';
export { apiKeyStatus, type CreateApiKeyInput, type CreatedApiKey } from './apiKeys.js';
export { type AuthStore, type AuthStoreOptions, createAuthStore } from './authStore.js';
export { ID_PREFIXES, newApiKeyId, newProjectId, newTenantId } from './ids.js';
export { authMigrations } from './migrations.js';
export type { CreateProjectInput } from './projects.js';
export {
  type CreatePublicApiKeyInput,
  newPublicApiKeyId,
  PUBLIC_KEY_PREFIX,
  type PublicApiKeyRecord,
  type PublicKeyPermissions,
  type ResolvedPublicKey,
} from './publicKeys.js';
export { checkAllowedOrigins, MAX_ALLOWED_ORIGINS, normalizeOrigin } from './publicOrigins.js';
export {
  expandScopes,
  isScope,
  PERMISSIONS,
  type Permission,
  SCOPE_NAMES,
  SCOPES,
  type Scope,
} from './scopes.js';
export { createTenantProjects, type TenantProjectsOptions } from './tenantProjects.js';
export type { CreateTenantInput } from './tenants.js';
export {
  type ApiKeyRecord,
  type ApiKeyStatus,
  ENVIRONMENT_NAMES,
  type EnvironmentName,
  type Principal,
  type Project,
  type ProjectSettings,
  type Tenant,
  type TenantFeatures,
  type VerifyApiKeyResult,
  type VerifyFailure,
} from './types.js';
