import type { Permission } from './scopes.js';

/** Feature switches of a tenant; an absent switch is off. */
export interface TenantFeatures {
  /** Spec 000 §7 "tenant gating": the recordings API answers 403 without it. */
  callRecording?: boolean;
  [feature: string]: unknown;
}

export interface Tenant {
  id: string;
  name: string;
  features: TenantFeatures;
  /** Requests per second for this tenant; null means the deployment's default. */
  rateLimitPerSecond: number | null;
  createdAt: Date;
}

export const ENVIRONMENT_NAMES = ['dev', 'staging', 'production', 'working-copy'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

/**
 * Per-project settings later features read. Known keys are typed; the column
 * is an open JSON object so a feature can add its own without a migration.
 */
export interface ProjectSettings {
  /**
   * Call recording (issue 4). enabled: absent means on. retentionDays: days from the recording's
   * start to `retentionExpiresAt`; absent or null: kept until deleted. objectLimit and
   * mediaUrlTtlSeconds override RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT and
   * RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS (the TTL still capped at 3600).
   */
  recording?: {
    enabled?: boolean;
    retentionDays?: number | null;
    objectLimit?: number;
    mediaUrlTtlSeconds?: number;
  };
  /** Reporting exposure: identityFields enables the callerNumber filter (else 403 CALLER_NUMBER_LOOKUP_DISABLED). */
  reporting?: { identityFields?: boolean };
  /** Whether LLM call payloads (prompts, completions) are kept. */
  payloads?: { store?: boolean };
  [key: string]: unknown;
}

export interface Project {
  id: string;
  tenantId: string;
  slug: string;
  name: string;
  settings: ProjectSettings;
  environments: EnvironmentName[];
  createdAt: Date;
}

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** A key as listed: never its hash, never the key. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  /** `plat_<lookup prefix>…`: enough to recognise a key, nothing to use it. */
  displayPrefix: string;
  scopes: string[];
  status: ApiKeyStatus;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** Who a verified key speaks for. */
export interface Principal {
  keyId: string;
  tenantId: string;
  projectId: string;
  scopes: string[];
  permissions: Permission[];
}

export type VerifyFailure = 'malformed' | 'unknown' | 'expired' | 'revoked';

export type VerifyApiKeyResult = { ok: true; principal: Principal } | { ok: false; reason: VerifyFailure };
