import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>` and `length` base62 characters (rejection sampling keeps them uniform). */
function prefixed(prefix: string, length = 20): string {
  let out = prefix;
  while (out.length < prefix.length + length) {
    for (const byte of randomBytes(length)) {
      if (byte < 248 && out.length < prefix.length + length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const newSessionId = (): string => prefixed('sess_');
export const newMessageId = (): string => prefixed('msg_');
export const newLlmCallId = (): string => prefixed('llm_');
/** W3C trace-context shapes: 16-byte trace id, 8-byte span id, lowercase hex. */
export const newTraceId = (): string => randomBytes(16).toString('hex');
export const newSpanId = (): string => randomBytes(8).toString('hex');
