import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createBotFrameworkTestIssuer } from '../../testing/msteams/botFrameworkTestIssuer.js';
import {
  APP_ID,
  teamsConnection as connection,
  personalMessage,
  request,
  SERVICE_URL,
  TENANT_ID,
} from '../../testing/msteams/msteamsTestActivities.js';
import { createMsTeamsAdapter } from './msteamsAdapter.js';
import { bearerToken } from './msteamsAuth.js';

const METADATA_URL = 'https://login.botframework.test/v1/.well-known/openidconfiguration';
const NOW = new Date();
const NOW_SECONDS = Math.floor(NOW.getTime() / 1000);
const issuer = await createBotFrameworkTestIssuer();
const adapterWith = (fetchFn: typeof fetch) =>
  createMsTeamsAdapter({ now: () => NOW, fetch: fetchFn, openIdMetadataUrl: METADATA_URL });
const goodToken = () => issuer.sign({ audience: APP_ID, serviceUrl: SERVICE_URL });

describe('Teams verifyRequest (Bot Framework JWT)', () => {
  it('accepts a token of the published key for this bot, issuer, serviceUrl and time', async () => {
    const adapter = adapterWith(issuer.inMemoryFetch(METADATA_URL).fetch);
    const token = await goodToken();
    expect(await adapter.verifyRequest(request(personalMessage, `Bearer ${token}`), connection)).toBe(true);
    // Within the 5 minutes of clock skew.
    const skewed = await issuer.sign({
      audience: APP_ID,
      serviceUrl: SERVICE_URL,
      issuedAt: NOW_SECONDS - 3900,
      expiresAt: NOW_SECONDS - 240,
    });
    expect(await adapter.verifyRequest(request(personalMessage, `Bearer ${skewed}`), connection)).toBe(true);
  });

  it('refuses wrong audience, wrong issuer, expired, not yet valid, wrong key, unknown kid, other serviceUrl', async () => {
    const adapter = adapterWith(issuer.inMemoryFetch(METADATA_URL).fetch);
    const base = { audience: APP_ID, serviceUrl: SERVICE_URL };
    const tokens = {
      audience: await issuer.sign({ ...base, audience: 'another-bot-app-id' }),
      issuer: await issuer.sign({ ...base, issuer: 'https://sts.windows.net/evil/' }),
      expired: await issuer.sign({ ...base, issuedAt: NOW_SECONDS - 7200, expiresAt: NOW_SECONDS - 301 }),
      notYet: await issuer.sign({ ...base, notBefore: NOW_SECONDS + 400, expiresAt: NOW_SECONDS + 4000 }),
      foreignKey: await issuer.sign({ ...base, foreignKey: true }),
      unknownKid: await issuer.sign({ ...base, foreignKey: true, kid: 'not-published' }),
      serviceUrl: await issuer.sign({ ...base, serviceUrl: 'https://attacker.example/' }),
      noServiceUrl: await issuer.sign({ ...base, serviceUrl: undefined }),
    };
    for (const [name, token] of Object.entries(tokens)) {
      const verified = await adapter.verifyRequest(request(personalMessage, `Bearer ${token}`), connection);
      expect([name, verified]).toEqual([name, false]);
    }
  });

  it('refuses a missing or malformed header, a connection without credentials, and other tenants', async () => {
    const adapter = adapterWith(issuer.inMemoryFetch(METADATA_URL).fetch);
    const token = await goodToken();
    expect(await adapter.verifyRequest(request(personalMessage), connection)).toBe(false);
    expect(await adapter.verifyRequest(request(personalMessage, token), connection)).toBe(false);
    expect(await adapter.verifyRequest(request(personalMessage, `Basic ${token}`), connection)).toBe(false);
    expect(await adapter.verifyRequest(request(personalMessage, 'Bearer '), connection)).toBe(false);
    const auth = `Bearer ${token}`;
    expect(
      await adapter.verifyRequest(request(personalMessage, auth), {
        ...connection,
        credentials: { appId: APP_ID, clientSecret: 'x' },
      }),
    ).toBe(false);
    expect(
      await adapter.verifyRequest(request(personalMessage, auth), { ...connection, credentials: {} }),
    ).toBe(false);
    const otherTenant = {
      ...personalMessage,
      channelData: { tenant: { id: '0b1c2d3e-0000-4000-8000-000000000000' } },
    };
    expect(await adapter.verifyRequest(request(otherTenant, auth), connection)).toBe(false);
    // The tenant id compares case-insensitively (a GUID).
    const upper = { ...personalMessage, channelData: { tenant: { id: TENANT_ID.toUpperCase() } } };
    expect(await adapter.verifyRequest(request(upper, auth), connection)).toBe(true);
    // The activity must name the serviceUrl the token vouches for.
    const { serviceUrl: _omit, ...noServiceUrl } = personalMessage;
    expect(await adapter.verifyRequest(request(noServiceUrl, auth), connection)).toBe(false);
  });

  it('refuses a key not endorsed for the activity’s channel', async () => {
    const webchatOnly = await createBotFrameworkTestIssuer({ endorsements: ['webchat'] });
    const adapter = adapterWith(webchatOnly.inMemoryFetch(METADATA_URL).fetch);
    const token = await webchatOnly.sign({ audience: APP_ID, serviceUrl: SERVICE_URL });
    expect(await adapter.verifyRequest(request(personalMessage, `Bearer ${token}`), connection)).toBe(false);
    const webchat = { ...personalMessage, channelId: 'webchat' };
    expect(await adapter.verifyRequest(request(webchat, `Bearer ${token}`), connection)).toBe(true);
  });

  it('fetches the metadata and keys once, and refetches the keys for an unknown kid at most once a minute', async () => {
    // jose's remote key set keeps its cache times on the system clock.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const inMemory = issuer.inMemoryFetch(METADATA_URL);
      const keysUrl = 'https://login.botframework.test/v1/.well-known/keys';
      let down = false;
      const adapter = createMsTeamsAdapter({
        now: () => new Date(),
        fetch: (async (input: string | URL | Request) =>
          down ? new Response('down', { status: 503 }) : inMemory.fetch(input)) as typeof fetch,
        openIdMetadataUrl: METADATA_URL,
      });
      const verify = async (token: string) =>
        adapter.verifyRequest(request(personalMessage, `Bearer ${token}`), connection);
      for (let i = 0; i < 3; i += 1) expect(await verify(await goodToken())).toBe(true);
      expect(inMemory.calls).toEqual([METADATA_URL, keysUrl]);
      const rotated = await issuer.sign({
        audience: APP_ID,
        serviceUrl: SERVICE_URL,
        kid: 'rotated',
        foreignKey: true,
      });
      expect(await verify(rotated)).toBe(false);
      expect(inMemory.calls).toHaveLength(2);
      vi.setSystemTime(Date.now() + 61_000);
      expect(await verify(rotated)).toBe(false);
      expect(await verify(rotated)).toBe(false);
      expect(inMemory.calls).toEqual([METADATA_URL, keysUrl, keysUrl]);
      // A day later the keys are fetched again; while that fails, the keys known still verify.
      vi.setSystemTime(Date.now() + 25 * 3600_000);
      down = true;
      expect(await verify(await goodToken())).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses everything while the key set cannot be fetched', async () => {
    const adapter = adapterWith((async () => new Response('down', { status: 503 })) as typeof fetch);
    expect(
      await adapter.verifyRequest(request(personalMessage, `Bearer ${await goodToken()}`), connection),
    ).toBe(false);
  });

  it('never throws and refuses arbitrary headers and bodies (property)', async () => {
    const adapter = adapterWith(issuer.inMemoryFetch(METADATA_URL).fetch);
    const token = await goodToken();
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.oneof(fc.constant('authorization'), fc.constant('Authorization'), fc.string()),
          fc.oneof(fc.string(), fc.array(fc.string()), fc.constant(undefined)),
        ),
        fc.oneof(fc.jsonValue(), fc.constant(personalMessage)),
        fc.uint8Array({ maxLength: 100 }),
        // 'A' first: appended to the signature it always changes its bytes (a lone '=' might not).
        fc.option(
          fc.string().map((s) => `A${s}`),
          { nil: undefined },
        ),
        async (headers, body, raw, tamper) => {
          const auth = tamper === undefined ? headers.authorization : `Bearer ${token}${tamper}`;
          const result = await adapter.verifyRequest(
            {
              headers: { ...headers, ...(auth === undefined ? {} : { authorization: auth }) },
              body,
              rawBody: Buffer.from(raw),
              url: 'https://parley.example/x',
              query: {},
            },
            connection,
          );
          // Only the untouched good token can pass, and only for the activity it vouches for.
          expect(result).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('reads the bearer token of an Authorization header', () => {
    expect(bearerToken('Bearer a.b.c')).toBe('a.b.c');
    expect(bearerToken('bearer a.b.c ')).toBe('a.b.c');
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
