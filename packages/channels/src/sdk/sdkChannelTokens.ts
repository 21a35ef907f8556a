import { randomUUID } from 'node:crypto';
import { createHs256Tokens, type VerifyTokenFailureReason } from '@parley/platform';
import { z } from 'zod';

/**
 * Share and embed tokens of an SDK channel (spec 001 §4.6 `POST /{channelId}/token`): a `share`
 * token goes into a link to a hosted chat page, an `embed` token into a web page that embeds the
 * widget. Either names one channel; whoever holds it may open that channel's widget, so the page
 * that accepts it checks at use that the channel still exists and is active (deleting or
 * deactivating the channel revokes its tokens).
 */
export const SDK_CHANNEL_TOKEN_KINDS = ['share', 'embed'] as const;
export type SdkChannelTokenKind = (typeof SDK_CHANNEL_TOKEN_KINDS)[number];

export const SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS = 60;
/** A year: embed tokens live in published pages. */
export const SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS = 31_536_000;
export const SDK_CHANNEL_TOKEN_DEFAULT_TTL_SECONDS: Record<SdkChannelTokenKind, number> = {
  share: 7 * 86_400,
  embed: 30 * 86_400,
};

export interface SdkChannelTokenClaims {
  kind: SdkChannelTokenKind;
  tenantId: string;
  projectId: string;
  channelId: string;
}

export interface IssuedSdkChannelToken {
  token: string;
  /** The `jti` claim: a unique id for logs and a future deny list. */
  tokenId: string;
  expiresAt: Date;
}

export type VerifySdkChannelTokenResult =
  | { ok: true; claims: SdkChannelTokenClaims; tokenId: string; expiresAt: Date }
  | { ok: false; reason: VerifyTokenFailureReason };

export interface SdkChannelTokens {
  /** Valid `expiresInSeconds` from now (default by kind); throws outside 60..31536000. */
  issue(claims: SdkChannelTokenClaims, expiresInSeconds?: number): Promise<IssuedSdkChannelToken>;
  verify(token: string): Promise<VerifySdkChannelTokenResult>;
}

/**
 * The JWS header `typ`. An SDK session token has `sdk+jwt` and the claim `typ: 'sdk'`, so neither
 * verifier accepts the other's tokens although both use SDK_TOKEN_SECRET. A user JWT verifier
 * refuses these too: they carry no `sub`, `scope` nor `project_ids`.
 */
const HEADER_TYP = 'sdk-channel+jwt';
const CLAIM_TYP = 'sdk_channel';

const claimsSchema = z.object({
  typ: z.literal(CLAIM_TYP),
  kind: z.enum(SDK_CHANNEL_TOKEN_KINDS),
  tenant_id: z.string().min(1).max(128),
  project_id: z.string().min(1).max(128),
  channel_id: z.string().regex(/^sdkc_[0-9A-Za-z]{16}$/),
  jti: z.string().min(1).max(64),
  exp: z.number(),
});

/** HS256 (createHs256Tokens: jose) under SDK_TOKEN_SECRET (at least 32 characters). */
export function createSdkChannelTokens(options: {
  secret: string;
  clockToleranceSeconds?: number;
  now?: () => Date;
}): SdkChannelTokens {
  const tokens = createHs256Tokens({
    ...options,
    name: 'createSdkChannelTokens',
    headerTyp: HEADER_TYP,
    claims: claimsSchema,
    requiredClaims: ['jti'],
  });

  return {
    async issue(claims, expiresInSeconds) {
      const ttl = expiresInSeconds ?? SDK_CHANNEL_TOKEN_DEFAULT_TTL_SECONDS[claims.kind];
      if (
        !Number.isInteger(ttl) ||
        ttl < SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS ||
        ttl > SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS
      ) {
        throw new Error(
          `expiresInSeconds must be a whole number in ${SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS}..${SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS}`,
        );
      }
      const issuedAt = tokens.nowSeconds();
      const jti = randomUUID();
      const exp = issuedAt + ttl;
      const token = await tokens.sign(
        {
          typ: CLAIM_TYP,
          kind: claims.kind,
          tenant_id: claims.tenantId,
          project_id: claims.projectId,
          channel_id: claims.channelId,
          jti,
          exp,
        },
        issuedAt,
      );
      return { token, tokenId: jti, expiresAt: new Date(exp * 1000) };
    },

    verify: (token) =>
      tokens.verify(token, (c) => ({
        claims: { kind: c.kind, tenantId: c.tenant_id, projectId: c.project_id, channelId: c.channel_id },
        tokenId: c.jti,
        expiresAt: new Date(c.exp * 1000),
      })),
  };
}
