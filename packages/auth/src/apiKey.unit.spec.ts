import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  LOOKUP_PREFIX_LENGTH,
  parseApiKey,
  SECRET_LENGTH,
} from './apiKey.js';
import { BASE62_ALPHABET, BASE62_BITS_PER_CHAR, randomBase62 } from './base62.js';
import { newApiKeyId, newProjectId, newTenantId } from './ids.js';
import { expandScopes, PERMISSIONS, SCOPE_NAMES, SCOPES } from './scopes.js';

describe('platform API key format', () => {
  it('has at least 256 bits of secret entropy, in base62, after plat_ and the lookup prefix', () => {
    expect(SECRET_LENGTH * BASE62_BITS_PER_CHAR).toBeGreaterThanOrEqual(256);
    const { key, lookupPrefix, hash } = generateApiKey();
    expect(key).toMatch(new RegExp(`^plat_[0-9A-Za-z]{${LOOKUP_PREFIX_LENGTH + SECRET_LENGTH}}$`));
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + LOOKUP_PREFIX_LENGTH)).toBe(lookupPrefix);
    expect(hash.equals(hashApiKey(key))).toBe(true);
    expect(hash).toHaveLength(32);
  });

  it('never repeats a key or a lookup prefix', () => {
    const keys = Array.from({ length: 2_000 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.key)).size).toBe(keys.length);
    expect(new Set(keys.map((k) => k.lookupPrefix)).size).toBe(keys.length);
  });

  it('draws every base62 character about equally often (no modulo bias)', () => {
    const sample = randomBase62(62 * 2_000);
    const counts = new Map<string, number>();
    for (const c of sample) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const c of BASE62_ALPHABET) {
      // Expected 2,000 each; ±20% is about 9 standard deviations.
      expect(counts.get(c)).toBeGreaterThan(1_600);
      expect(counts.get(c)).toBeLessThan(2_400);
    }
  });

  it('parses a generated key and refuses every other shape', () => {
    const { key, lookupPrefix } = generateApiKey();
    expect(parseApiKey(key)).toEqual({ lookupPrefix });
    expect(parseApiKey(key.slice(0, -1))).toBeNull();
    expect(parseApiKey(`${key}x`)).toBeNull();
    expect(parseApiKey(`pk_${key.slice(5)}xx`)).toBeNull();
    expect(parseApiKey(`${key.slice(0, -1)}-`)).toBeNull();
    expect(parseApiKey(`Plat_${key.slice(5)}`)).toBeNull();
    expect(parseApiKey('')).toBeNull();
    expect(parseApiKey(undefined)).toBeNull();
    expect(parseApiKey(['plat_x'])).toBeNull();
    expect(parseApiKey('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.sig')).toBeNull();
  });

  it('parseApiKey never throws and accepts only plat_ + base62 of the exact length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (s) => {
        const parsed = parseApiKey(s);
        if (parsed !== null) {
          expect(s).toMatch(/^plat_[0-9A-Za-z]+$/);
          expect(s).toHaveLength(API_KEY_LENGTH);
        }
      }),
    );
  });
});

describe('ids', () => {
  it('are prefixed and random', () => {
    expect(newTenantId()).toMatch(/^ten_[0-9A-Za-z]{16}$/);
    expect(newProjectId()).toMatch(/^proj_[0-9A-Za-z]{16}$/);
    expect(newApiKeyId()).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(newTenantId()).not.toBe(newTenantId());
  });
});

describe('scopes', () => {
  it('recordings.read expands to recording:read only (spec 000 §5)', () => {
    expect(expandScopes(['recordings.read'])).toEqual(['recording:read']);
  });

  it('analytics.read grants the session list and the ledger, and nothing of recordings or ingest', () => {
    expect(expandScopes(['analytics.read'])).toEqual([
      PERMISSIONS.sessionSummaryRead,
      PERMISSIONS.llmLedgerRead,
    ]);
  });

  it('ingest.write expands to ingest:write; unknown scopes grant nothing; duplicates collapse', () => {
    expect(expandScopes(['ingest.write'])).toEqual(['ingest:write']);
    expect(expandScopes(['admin', 'recording:read', '*'])).toEqual([]);
    expect(expandScopes(['ingest.write', 'ingest.write', 'recordings.read'])).toEqual([
      'ingest:write',
      'recording:read',
    ]);
  });

  it('every scope is in the table and every permission comes from it', () => {
    expect(SCOPE_NAMES).toEqual(
      expect.arrayContaining(['recordings.read', 'analytics.read', 'ingest.write']),
    );
    expect(SCOPE_NAMES).toContain('chat.write');
    expect(expandScopes(['chat.write'])).toEqual(['chat:write']);
    expect(expandScopes(['channels.http_async'])).toEqual(['http_async:submit']);
    // The transcript scope grants message text only; no other scope grants it.
    expect(SCOPE_NAMES).toContain('conversations.read');
    expect(expandScopes(['conversations.read'])).toEqual(['conversation:read']);
    expect(expandScopes(SCOPE_NAMES.filter((s) => s !== 'conversations.read'))).not.toContain(
      'conversation:read',
    );
    const granted = new Set(Object.values(SCOPES).flat());
    expect([...granted].sort()).toEqual(Object.values(PERMISSIONS).sort());
  });
});
