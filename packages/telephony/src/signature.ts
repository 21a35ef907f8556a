import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';

/** Form parameters of a provider callback: a name may repeat (a list), in the order sent. */
export type CallbackParams = ReadonlyArray<readonly [string, string]>;

/** Parameters from a parsed `application/x-www-form-urlencoded` body (or a plain record). */
export function callbackParams(source: URLSearchParams | Readonly<Record<string, string>>): CallbackParams {
  return source instanceof URLSearchParams ? [...source.entries()] : Object.entries(source);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The provider's request signature (Twilio `X-Twilio-Signature`): base64 of HMAC-SHA1, keyed with
 * the account's auth token, over the full URL the provider called followed by every POST parameter
 * sorted by name, each as name then value (a repeated name: its distinct values sorted, each with
 * the name, as Twilio's helper libraries sign them).
 */
export function computeRequestSignature(authToken: string, url: string, params: CallbackParams): string {
  const sorted = [...params].sort(([ka, va], [kb, vb]) => compare(ka, kb) || compare(va, vb));
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  let previous: readonly [string, string] | undefined;
  for (const pair of sorted) {
    if (previous?.[0] === pair[0] && previous[1] === pair[1]) continue;
    hmac.update(pair[0] + pair[1], 'utf8');
    previous = pair;
  }
  return hmac.digest('base64');
}

/**
 * The URL as the provider may have signed it: as given, and with the scheme's default port added
 * or removed (providers differ in whether they keep `:443`).
 */
function urlVariants(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  const defaultPort = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : null;
  if (defaultPort === null) return [url];
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!authority) return [url];
  const [, scheme, host, rest] = authority as unknown as [string, string, string, string];
  const withoutPort = host.endsWith(`:${defaultPort}`) ? host.slice(0, -(defaultPort.length + 1)) : null;
  const other = withoutPort ?? (/:\d+$/.test(host) ? null : `${host}:${defaultPort}`);
  return other === null ? [url] : [url, `${scheme}${other}${rest}`];
}

/** Constant-time check of a callback's signature header; false for a missing or malformed one. */
export function verifyRequestSignature(input: {
  authToken: string;
  url: string;
  params: CallbackParams;
  signature: string | undefined;
}): boolean {
  const { signature } = input;
  if (typeof signature !== 'string' || signature.length === 0 || signature.length > 128) return false;
  return urlVariants(input.url).some((url) =>
    constantTimeEqual(computeRequestSignature(input.authToken, url, input.params), signature),
  );
}
