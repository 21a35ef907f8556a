import { createHmac } from 'node:crypto';

/** One header value, case-insensitively; the first when the header repeats. */
export const headerValue = (
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
};

export const hmacSha256Hex = (secret: string, data: Buffer | string): string =>
  createHmac('sha256', secret).update(data).digest('hex');

/** Cuts a string to at most `max` characters (code points, so no half surrogate pair is sent). */
export const truncate = (text: string, max: number): string => {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return max <= 1 ? chars.slice(0, max).join('') : `${chars.slice(0, max - 1).join('')}…`;
};

/** Cuts a string to at most `max` UTF-8 bytes without splitting a character. */
export const truncateBytes = (text: string, max: number): string => {
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > max) break;
    out += char;
    bytes += size;
  }
  return out;
};

/** Splits text into chunks of at most `max` characters, preferring line then word breaks. */
export const splitText = (text: string, max: number): string[] => {
  const chunks: string[] = [];
  let rest = Array.from(text);
  while (rest.length > max) {
    const window = rest.slice(0, max).join('');
    // A line break in the second half of the window wins over a later space: paragraphs and
    // option lines ("3. Large") stay whole; a space is the fallback, a hard cut the last resort.
    const newline = window.lastIndexOf('\n');
    const breakAt = newline > max / 2 ? newline : Math.max(newline, window.lastIndexOf(' '));
    const cut = breakAt > max / 2 ? Array.from(window.slice(0, breakAt)).length : max;
    chunks.push(rest.slice(0, cut).join(''));
    rest = rest.slice(cut);
    while (rest[0] === '\n' || rest[0] === ' ') rest = rest.slice(1);
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest.join(''));
  return chunks;
};

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON body: the already-parsed body when the route parsed it, else the raw bytes. */
export const jsonBody = (body: unknown, rawBody: Buffer): unknown => {
  if (isRecord(body)) return body;
  try {
    return JSON.parse(rawBody.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export interface PlatformResponse {
  status: number;
  json: unknown;
  retryAfter: string | undefined;
}

/**
 * POSTs an encoded body and reads the platform's answer (JSON when it parses); a network failure
 * is reported as status 0 (retryable) rather than thrown.
 */
const post = async (
  fetchFn: typeof fetch,
  url: string,
  contentType: string,
  body: string,
  headers: Record<string, string>,
): Promise<PlatformResponse> => {
  try {
    const response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': contentType, ...headers },
      body,
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, retryAfter: response.headers.get('retry-after') ?? undefined };
  } catch {
    return { status: 0, json: undefined, retryAfter: undefined };
  }
};

/** POSTs JSON; a network failure is reported as status 0 (retryable) rather than thrown. */
export const postJson = (
  fetchFn: typeof fetch,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<PlatformResponse> =>
  post(fetchFn, url, 'application/json; charset=utf-8', JSON.stringify(body), headers);

/** POSTs a form (application/x-www-form-urlencoded); a network failure is status 0, as postJson. */
export const postForm = (
  fetchFn: typeof fetch,
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<PlatformResponse> =>
  post(fetchFn, url, 'application/x-www-form-urlencoded', new URLSearchParams(form).toString(), headers);

/** Network failures, throttling and server errors are worth retrying; other 4xx are not. */
export const isRetryableStatus = (status: number): boolean =>
  status === 0 || status === 408 || status === 429 || status >= 500;

/**
 * An ACTION_SET element id and value packed into a platform callback id: a JSON pair when the value
 * differs and the pair fits, else the id alone (cut by `shorten` when even that is too long).
 */
export const encodeAction = (
  id: string,
  value: string,
  fits: (encoded: string) => boolean,
  shorten: (encoded: string) => string,
): string => {
  const pair = JSON.stringify([id, value]);
  if (value !== id && fits(pair)) return pair;
  return fits(id) ? id : shorten(id);
};

/** Reverses encodeAction: a JSON pair gives id and value; anything else is an id that is also the value. */
export const decodeAction = (encoded: string): { actionId: string; value: string } => {
  if (encoded.startsWith('[')) {
    try {
      const parsed = JSON.parse(encoded) as unknown;
      if (Array.isArray(parsed) && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
        return { actionId: parsed[0], value: parsed[1] };
      }
    } catch {
      // Not one of ours: treat as a plain id.
    }
  }
  return { actionId: encoded, value: encoded };
};
