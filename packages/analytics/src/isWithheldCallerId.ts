import { ANONYMOUS_CALLER_KEY, callerNumberKey } from './callerNumberKey.js';

// What telephony providers put in place of a withheld number (RFC 3325 `sip:anonymous@anonymous.invalid`
// gives `anonymous`). Compared case-insensitively on the match key.
const WITHHELD_MARKERS = new Set([
  'anonymous',
  'restricted',
  'private',
  'withheld',
  'unavailable',
  'unknown',
]);

/**
 * For ingest: true when the caller id a session starts with means "number withheld", so that the
 * session stores ANONYMOUS_CALLER_KEY and the filter value `Anonymous` finds it (spec 000 §4.2
 * callerNumber rule 4). Filter values never go through this: matching stays exact and case-sensitive.
 */
export function isWithheldCallerId(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  const key = callerNumberKey(raw);
  return key !== '' && WITHHELD_MARKERS.has(key.toLowerCase());
}

/** The key a session stores for the caller id it started with: `Anonymous` when withheld, else the match key. */
export function storedCallerNumberKey(raw: string): string {
  return isWithheldCallerId(raw) ? ANONYMOUS_CALLER_KEY : callerNumberKey(raw);
}
