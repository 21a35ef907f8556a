import { derivedUuid as platformDerivedUuid } from '@parley/platform';

/**
 * A UUID (version 8, RFC 9562) derived from a kind and a key: a callback delivered twice gets the
 * same event id, so the log records it once.
 */
export const derivedUuid = (kind: string, key: string): string =>
  platformDerivedUuid('parley-voice', kind, key);
