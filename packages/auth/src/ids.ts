import { randomBase62 } from './base62.js';

/**
 * Readable, prefixed ids (`ten_…`, `proj_…`, `key_…`): the prefix says what
 * an id names in logs and support tickets; 16 random base62 characters (about
 * 95 bits) make collisions and guessing moot.
 */
const ID_RANDOM_LENGTH = 16;

export const ID_PREFIXES = { tenant: 'ten_', project: 'proj_', apiKey: 'key_' } as const;

export const newTenantId = (): string => ID_PREFIXES.tenant + randomBase62(ID_RANDOM_LENGTH);
export const newProjectId = (): string => ID_PREFIXES.project + randomBase62(ID_RANDOM_LENGTH);
export const newApiKeyId = (): string => ID_PREFIXES.apiKey + randomBase62(ID_RANDOM_LENGTH);
