import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { BOT_FRAMEWORK_ISSUER } from '../../adapters/msteams/msteamsAuth.js';

/** What a test token claims; every field can be bent to test one refusal. */
export interface TestTokenOptions {
  audience: string;
  serviceUrl: string | undefined;
  issuer?: string;
  /** Seconds since the epoch. */
  issuedAt?: number;
  expiresAt?: number;
  notBefore?: number;
  kid?: string;
  /** Sign with a key outside the published set (under `kid`). */
  foreignKey?: boolean;
}

/**
 * Tests only: a stand-in for the Bot Framework's token issuer. An RSA key pair whose public half
 * is published as a JWKS (with `endorsements`, as login.botframework.com does), an OpenID
 * metadata document pointing at it, and tokens signed like the Bot Connector's.
 */
export const createBotFrameworkTestIssuer = async (options: { endorsements?: string[] } = {}) => {
  const kid = 'test-key-1';
  const pair = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const publicJwk: JWK = {
    ...(await exportJWK(pair.publicKey)),
    kid,
    use: 'sig',
    endorsements: options.endorsements ?? ['msteams'],
  } as JWK;
  const jwks = { keys: [publicJwk] };
  const metadata = (jwksUri: string) => ({
    issuer: BOT_FRAMEWORK_ISSUER,
    authorization_endpoint: 'https://invalid.botframework.com',
    jwks_uri: jwksUri,
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['private_key_jwt'],
  });

  const sign = (token: TestTokenOptions): Promise<string> => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const issuedAt = token.issuedAt ?? nowSeconds;
    const key: CryptoKey = token.foreignKey === true ? foreign.privateKey : pair.privateKey;
    return new SignJWT(token.serviceUrl === undefined ? {} : { serviceUrl: token.serviceUrl })
      .setProtectedHeader({ alg: 'RS256', kid: token.kid ?? kid, typ: 'JWT' })
      .setIssuer(token.issuer ?? BOT_FRAMEWORK_ISSUER)
      .setAudience(token.audience)
      .setIssuedAt(issuedAt)
      .setNotBefore(token.notBefore ?? issuedAt)
      .setExpirationTime(token.expiresAt ?? issuedAt + 3600)
      .sign(key);
  };

  /** A fetch answering the metadata URL and its JWKS from memory (unit tests: no sockets). */
  const inMemoryFetch = (metadataUrl: string) => {
    const jwksUri = 'https://login.botframework.test/v1/.well-known/keys';
    const calls: string[] = [];
    const fetchFn = (async (input: string | URL | Request) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      calls.push(url);
      const body = url === metadataUrl ? metadata(jwksUri) : url === jwksUri ? jwks : undefined;
      return body === undefined
        ? new Response('not found', { status: 404 })
        : Response.json(body, { status: 200 });
    }) as typeof fetch;
    return { fetch: fetchFn, calls };
  };

  return { kid, jwks, metadata, sign, inMemoryFetch };
};
