import { CANONICAL_SESSION_KEY_PREFIX } from './jobs.js';

/** Longest caller key, in characters (http_async_conversations.caller_key). */
export const MAX_CALLER_SESSION_KEY_LENGTH = 256;

/**
 * What a submitted `session_key` is (spec 001 §4.9):
 * - `canonical`: it has the service's prefix (`ha:`), so it must be a key the service issued for
 *   this subscription; the caller never builds one.
 * - `caller`: the caller's own key for a first message: 1..256 characters, none a control
 *   character or half of a surrogate pair (they would not survive storage as sent).
 * - `invalid`: neither; `reason` says why, for the 400.
 */
export type SessionKeyClass =
  | { kind: 'canonical'; key: string }
  | { kind: 'caller'; key: string }
  | { kind: 'invalid'; reason: string };

const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

export function classifySessionKey(key: string): SessionKeyClass {
  if (key.startsWith(CANONICAL_SESSION_KEY_PREFIX)) return { kind: 'canonical', key };
  const length = [...key].length;
  if (length === 0) return { kind: 'invalid', reason: 'session_key is empty' };
  if (length > MAX_CALLER_SESSION_KEY_LENGTH)
    return {
      kind: 'invalid',
      reason: `session_key is longer than ${MAX_CALLER_SESSION_KEY_LENGTH} characters`,
    };
  if (UNPRINTABLE.test(key))
    return {
      kind: 'invalid',
      reason: 'session_key holds a control character or an unpaired surrogate',
    };
  return { kind: 'caller', key };
}
