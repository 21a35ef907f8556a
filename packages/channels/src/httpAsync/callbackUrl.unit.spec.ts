import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  CallbackAllowlistError,
  checkCallbackUrl,
  classifyAddress,
  emptyAllowlist,
  isAllowlistedAddress,
  type LookupFn,
  parseCallbackAllowlist,
} from './callbackUrl.js';

const resolvesTo =
  (...addresses: string[]): LookupFn =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** An independent reading of the IPv4 special-purpose registry, by number, to check classifyAddress against. */
const referenceIPv4 = ([a, b, c]: number[]): AddressClass => {
  const [x = 0, y = 0, z = 0] = [a, b, c];
  if (x === 255 && y === 255 && z === 255) return 'reserved'; // refined below for the broadcast address
  if (x === 0) return 'unspecified';
  if (x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168)) return 'private';
  if (x === 127) return 'loopback';
  if (x === 169 && y === 254) return 'link_local';
  if (x === 100 && y >= 64 && y <= 127) return 'cgnat';
  if (x >= 224 && x <= 239) return 'multicast';
  if (x >= 240) return 'reserved';
  if (x === 192 && y === 0 && (z === 0 || z === 2)) return 'reserved';
  if (x === 192 && y === 88 && z === 99) return 'reserved';
  if (x === 198 && (y === 18 || y === 19)) return 'reserved';
  if (x === 198 && y === 51 && z === 100) return 'reserved';
  if (x === 203 && y === 0 && z === 113) return 'reserved';
  if ((x === 192 && y === 175 && z === 48) || (x === 192 && y === 31 && z === 196)) return 'reserved';
  if (x === 192 && y === 52 && z === 193) return 'reserved';
  return 'public';
};

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const hex16 = (n: number) => n.toString(16);

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    [PUBLIC_V6, 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['[::1]', 'loopback'],
    ['localhost', 'invalid'],
    ['0x7f.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['', 'invalid'],
  ] as const)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('classifies every IPv4 address as the special-purpose registry does', () => {
    fc.assert(
      fc.property(octets, (parts) => {
        const ip = parts.join('.');
        const expected = ip === '255.255.255.255' ? 'broadcast' : referenceIPv4(parts);
        expect(classifyAddress(ip)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('judges IPv4-mapped IPv6 (dotted or hex) and NAT64 addresses by the IPv4 address they carry', () => {
    fc.assert(
      fc.property(octets, ([a, b, c, d]) => {
        const v4 = classifyAddress(`${a}.${b}.${c}.${d}`);
        expect(classifyAddress(`::ffff:${a}.${b}.${c}.${d}`)).toBe(v4);
        expect(classifyAddress(`::ffff:${hex16(a * 256 + b)}:${hex16(c * 256 + d)}`)).toBe(v4);
        expect(classifyAddress(`64:ff9b::${a}.${b}.${c}.${d}`)).toBe(v4);
      }),
      { numRuns: 1000 },
    );
  });

  it('calls an IPv6 address public only inside 2000::/3 and outside the special ranges', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), (groups) => {
        const kind = classifyAddress(groups.map(hex16).join(':'));
        const first = groups[0] as number;
        if (first < 0x2000 || first > 0x3fff) expect(kind).not.toBe('public');
        if (first >= 0xfe80 && first <= 0xfebf) expect(kind).toBe('link_local');
        if (first >= 0xfc00 && first <= 0xfdff) expect(kind).toBe('unique_local');
        if (first >= 0xff00) expect(kind).toBe('multicast');
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws and answers invalid for what is not an address', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const kind = classifyAddress(text);
        if (!/^[0-9a-fA-F:.[\]%]*$/.test(text)) expect(kind).toBe('invalid');
      }),
    );
  });
});

describe('parseCallbackAllowlist', () => {
  it('reads CIDRs, single addresses and host names; blanks are skipped', () => {
    const list = parseCallbackAllowlist(
      ' 10.0.0.0/8, ::1/128 ,127.0.0.1,[::1], Receiver.Internal., ,localhost',
    );
    expect([...list.hosts]).toEqual(['receiver.internal', 'localhost']);
    expect(list.ranges).toHaveLength(4);
    expect(isAllowlistedAddress('10.200.0.1', list)).toBe(true);
    expect(isAllowlistedAddress('11.0.0.1', list)).toBe(false);
    expect(isAllowlistedAddress('127.0.0.1', list)).toBe(true);
    expect(isAllowlistedAddress('127.0.0.2', list)).toBe(false);
    expect(isAllowlistedAddress('::1', list)).toBe(true);
    expect(isAllowlistedAddress('::ffff:10.1.1.1', list)).toBe(true);
    expect(parseCallbackAllowlist(undefined)).toEqual(emptyAllowlist);
    expect(parseCallbackAllowlist('')).toEqual(emptyAllowlist);
  });

  it('lets an IPv4-mapped IPv6 range cover the IPv4 addresses it maps', () => {
    const list = parseCallbackAllowlist('::ffff:10.0.0.0/104');
    expect(isAllowlistedAddress('10.9.9.9', list)).toBe(true);
    expect(isAllowlistedAddress('11.9.9.9', list)).toBe(false);
  });

  it.each([
    '10.0.0.0/33',
    '10.0.0/8',
    '::1/129',
    'http://receiver.internal',
    'bad host',
    '*.internal',
    'a..b',
  ])('refuses "%s" with a message naming the entry', (entry) => {
    expect(() => parseCallbackAllowlist(`127.0.0.1/32,${entry}`)).toThrow(CallbackAllowlistError);
    expect(() => parseCallbackAllowlist(entry)).toThrow(entry);
  });

  it('puts every valid address of any CIDR it accepts in that range', () => {
    fc.assert(
      fc.property(octets, fc.integer({ min: 0, max: 32 }), (parts, bits) => {
        const ip = parts.join('.');
        expect(isAllowlistedAddress(ip, parseCallbackAllowlist(`${ip}/${bits}`))).toBe(true);
      }),
    );
  });
});

describe('checkCallbackUrl', () => {
  const options = { allowlist: emptyAllowlist, lookup: resolvesTo(PUBLIC_V4, PUBLIC_V6) };

  it('accepts an https URL whose every address is public, with the addresses it checked', async () => {
    const result = await checkCallbackUrl('https://Receiver.Example.com/hooks?x=1', options);
    expect(result).toMatchObject({ ok: true, addresses: [PUBLIC_V4, PUBLIC_V6] });
    expect(result.ok && result.url.href).toBe('https://receiver.example.com/hooks?x=1');
  });

  it.each([
    ['not a url', 'invalid_url'],
    ['/relative/path', 'invalid_url'],
    [`https://receiver.example.com/${'a'.repeat(2048)}`, 'url_too_long'],
    ['ftp://receiver.example.com/', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['http://receiver.example.com/', 'insecure_scheme'],
    ['https://user:pw@receiver.example.com/', 'credentials_in_url'],
    ['https://user@receiver.example.com/', 'credentials_in_url'],
    ['https://127.0.0.1/', 'forbidden_address'],
    ['https://[::1]/', 'forbidden_address'],
    ['https://0x7f.1/', 'forbidden_address'],
    ['https://2130706433/', 'forbidden_address'],
    ['https://[::ffff:169.254.169.254]/', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
  ] as const)('refuses %s: %s', async (url, reason) => {
    const result = await checkCallbackUrl(url, options);
    expect(result).toMatchObject({ ok: false, reason });
    expect(result.ok || result.message.length > 0).toBe(true);
    // A refusal never repeats credentials from the URL.
    expect(result.ok || !result.message.includes('pw')).toBe(true);
  });

  it('refuses a host when ANY of its addresses is not public, naming the kind but not the address', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(PUBLIC_V4, PUBLIC_V6, '8.8.4.4'), { maxLength: 4 }),
        fc.constantFrom(
          '10.0.0.7',
          '127.0.0.1',
          '::1',
          'fd00::7',
          '169.254.169.254',
          '100.64.1.1',
          '::ffff:192.168.0.1',
        ),
        fc.nat(),
        async (publics, internal, at) => {
          const addresses: string[] = [...publics];
          addresses.splice(at % (publics.length + 1), 0, internal);
          const result = await checkCallbackUrl('https://receiver.example.com/', {
            allowlist: emptyAllowlist,
            lookup: resolvesTo(...addresses),
          });
          expect(result).toMatchObject({ ok: false, reason: 'forbidden_address' });
          expect(result.ok || result.message.includes(internal)).toBe(false);
        },
      ),
    );
  });

  it('reports a failing, empty, slow or nonsensical lookup as dns_failure', async () => {
    const cases: LookupFn[] = [
      async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
      resolvesTo(),
      () => new Promise(() => {}),
      resolvesTo('not-an-address'),
    ];
    for (const lookup of cases) {
      const result = await checkCallbackUrl('https://receiver.example.com/', {
        allowlist: emptyAllowlist,
        lookup,
        lookupTimeoutMs: 50,
      });
      expect(result).toMatchObject({ ok: false, reason: 'dns_failure' });
    }
  });

  it('lets the allowlist admit non-public addresses, and http only for allowlisted hosts or addresses', async () => {
    const loopback = resolvesTo('127.0.0.1', '::1');
    const byHost = parseCallbackAllowlist('receiver.internal');
    expect(
      await checkCallbackUrl('http://receiver.internal:8080/cb', { allowlist: byHost, lookup: loopback }),
    ).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1', '::1'],
    });
    // The host entry admits that host only, not its addresses under another name.
    expect(
      await checkCallbackUrl('https://other.internal/', { allowlist: byHost, lookup: loopback }),
    ).toMatchObject({
      ok: false,
      reason: 'forbidden_address',
    });

    const byRange = parseCallbackAllowlist('127.0.0.0/8');
    expect(await checkCallbackUrl('https://127.0.0.1:9443/', { allowlist: byRange })).toMatchObject({
      ok: true,
    });
    // Every address must be covered: ::1 is not in 127.0.0.0/8.
    expect(
      await checkCallbackUrl('https://localhost/', { allowlist: byRange, lookup: loopback }),
    ).toMatchObject({
      ok: false,
      reason: 'forbidden_address',
    });
    expect(await checkCallbackUrl('http://127.0.0.1:9080/', { allowlist: byRange })).toMatchObject({
      ok: true,
    });
    // A public address outside the allowlist still needs https.
    const mixed = parseCallbackAllowlist(`127.0.0.0/8`);
    expect(
      await checkCallbackUrl('http://receiver.example.com/', {
        allowlist: mixed,
        lookup: resolvesTo('127.0.0.1', PUBLIC_V4),
      }),
    ).toMatchObject({ ok: false, reason: 'insecure_scheme' });
  });

  it('does not look up an address literal', async () => {
    let calls = 0;
    const counting: LookupFn = async () => {
      calls += 1;
      return [];
    };
    expect(
      await checkCallbackUrl(`https://${PUBLIC_V4}/`, { allowlist: emptyAllowlist, lookup: counting }),
    ).toMatchObject({
      ok: true,
      addresses: [PUBLIC_V4],
    });
    expect(
      await checkCallbackUrl('https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/', {
        ...options,
        lookup: counting,
      }),
    ).toMatchObject({
      ok: true,
      addresses: [PUBLIC_V6],
    });
    expect(calls).toBe(0);
  });

  it('never throws, whatever the URL', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        async (url) => {
          const result = await checkCallbackUrl(url, options);
          expect(typeof result.ok).toBe('boolean');
        },
      ),
    );
  });
});
