/** An authenticated platform API key, as the key verifier (packages/auth) returns it. */
export interface Principal {
  keyId: string;
  tenantId: string;
  projectId: string;
  scopes: readonly string[];
  permissions: readonly string[];
}

export type VerifyFailureReason = 'malformed' | 'unknown' | 'expired' | 'revoked';

export type VerifyApiKeyResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: VerifyFailureReason };

/** Checks a raw `plat_…` key. Supplied by the caller (packages/auth's verifyApiKey), never imported here. */
export type VerifyApiKey = (raw: string) => Promise<VerifyApiKeyResult> | VerifyApiKeyResult;
