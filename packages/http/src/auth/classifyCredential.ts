/**
 * What credential a request carries (spec 000 §5), decided from its headers
 * alone, before any lookup:
 * - `apiKey`: a platform API key (`plat_…`) in `x-api-key`, or as `Authorization: Bearer` where allowed.
 * - `refused`: a credential of another type (a JWT bearer, a JWT app assertion in `auth`, a public
 *   `pk_` key, an SDK token): 403 PLATFORM_API_KEY_REQUIRED, whatever scopes it carries.
 * - `invalid`: something in a credential header that is none of these, a bearer key where only
 *   `x-api-key` is accepted, or two different credentials at once: 401.
 * - `missing`: no credential header: 401.
 */
export type Credential =
  | { kind: 'apiKey'; key: string }
  | { kind: 'refused'; type: 'jwt' | 'appAssertion' | 'publicKey' | 'sdkToken' }
  | { kind: 'invalid' }
  | { kind: 'missing' };

export interface ClassifyOptions {
  /** `Authorization: Bearer plat_…` accepted (recordings API); false on the analytics APIs. */
  allowBearer: boolean;
}

type Headers = Record<string, string | string[] | undefined>;

const MAX_KEY_LENGTH = 512;
const PLATFORM_KEY = /^plat_[\x21-\x7e]+$/;
const PUBLIC_KEY = /^pk_/;
const JWT = /^[\w-]+\.[\w-]+\.[\w-]*$/;
const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;

/** One candidate per credential header present. */
type Candidate = Exclude<Credential, { kind: 'missing' }>;

export function classifyCredential(request: { headers: Headers }, options: ClassifyOptions): Credential {
  const { headers } = request;
  const candidates: Candidate[] = [];

  const apiKey = headers['x-api-key'];
  if (apiKey !== undefined) candidates.push(fromApiKeyHeader(apiKey));
  const authorization = headers.authorization;
  if (authorization !== undefined) candidates.push(fromAuthorization(authorization, options));
  if (headers.auth !== undefined) candidates.push({ kind: 'refused', type: 'appAssertion' });
  if (headers['x-public-key'] !== undefined) candidates.push({ kind: 'refused', type: 'publicKey' });
  if (headers['x-sdk-token'] !== undefined) candidates.push({ kind: 'refused', type: 'sdkToken' });

  const [first, ...rest] = candidates;
  if (first === undefined) return { kind: 'missing' };
  if (rest.length === 0) return first;
  // The same platform key sent both ways is one credential; anything else
  // mixed is ambiguous and we refuse to guess which one the caller meant.
  if (first.kind === 'apiKey' && rest.every((c) => c.kind === 'apiKey' && c.key === first.key)) return first;
  return { kind: 'invalid' };
}

function fromApiKeyHeader(value: string | string[]): Candidate {
  if (typeof value !== 'string') return { kind: 'invalid' };
  const token = value.trim();
  if (isPlatformKey(token)) return { kind: 'apiKey', key: token };
  if (PUBLIC_KEY.test(token)) return { kind: 'refused', type: 'publicKey' };
  if (JWT.test(token)) return { kind: 'refused', type: 'jwt' };
  return { kind: 'invalid' };
}

function fromAuthorization(value: string | string[], options: ClassifyOptions): Candidate {
  if (typeof value !== 'string') return { kind: 'invalid' };
  const token = BEARER.exec(value.trim())?.[1];
  if (token === undefined) return { kind: 'invalid' };
  if (isPlatformKey(token)) return options.allowBearer ? { kind: 'apiKey', key: token } : { kind: 'invalid' };
  if (PUBLIC_KEY.test(token)) return { kind: 'refused', type: 'publicKey' };
  if (JWT.test(token)) return { kind: 'refused', type: 'jwt' };
  return { kind: 'invalid' };
}

function isPlatformKey(token: string): boolean {
  return token.length <= MAX_KEY_LENGTH && PLATFORM_KEY.test(token);
}
