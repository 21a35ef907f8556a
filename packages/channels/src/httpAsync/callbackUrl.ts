import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ParleyError } from '@parley/platform';
import ipaddr from 'ipaddr.js';

/**
 * Where an address routes. Only `public` may be called without an allowlist entry; everything else
 * reaches the service's own machine or network (server-side request forgery through a callback URL).
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

export type CallbackUrlRefusal =
  | 'invalid_url'
  | 'url_too_long'
  | 'unsupported_scheme'
  | 'insecure_scheme'
  | 'credentials_in_url'
  | 'dns_failure'
  | 'forbidden_address';

export interface CallbackAllowlist {
  /** Lower-case host names without a trailing dot: the host and every address it resolves to are allowed. */
  readonly hosts: ReadonlySet<string>;
  /** Address ranges whose addresses are allowed. */
  readonly ranges: readonly (readonly [ipaddr.IPv4 | ipaddr.IPv6, number])[];
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name (dns.lookup with `all: true` by default). */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export type CallbackUrlCheck =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; reason: CallbackUrlRefusal; message: string };

export interface CheckCallbackUrlOptions {
  allowlist: CallbackAllowlist;
  lookup?: LookupFn;
  /** A lookup that takes longer is a `dns_failure`; default 5,000 ms. */
  lookupTimeoutMs?: number;
}

export const MAX_CALLBACK_URL_LENGTH = 2048;

export const emptyAllowlist: CallbackAllowlist = { hosts: new Set(), ranges: [] };

export class CallbackAllowlistError extends ParleyError {
  override readonly name = 'CallbackAllowlistError';
  constructor(message: string) {
    super('CALLBACK_ALLOWLIST_INVALID', 500, message);
  }
}

const normaliseHost = (host: string): string => host.toLowerCase().replace(/\.$/, '');

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * HTTP_ASYNC_CALLBACK_ALLOWLIST: comma-separated CIDRs (`10.0.0.0/8`, `::1/128`), single addresses
 * (a /32 or /128) or host names (`receiver.internal`). Throws a CallbackAllowlistError naming the
 * first bad entry, so a typo fails at start rather than silently refusing every callback.
 */
export function parseCallbackAllowlist(value: string | undefined): CallbackAllowlist {
  const hosts = new Set<string>();
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const raw of (value ?? '').split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const unbracketed = entry.replace(/^\[(.*)\]$/, '$1');
    if (unbracketed.includes('/')) {
      if (!ipaddr.isValidCIDR(unbracketed) || !isIP(unbracketed.slice(0, unbracketed.lastIndexOf('/')))) {
        throw new CallbackAllowlistError(`HTTP_ASYNC_CALLBACK_ALLOWLIST: "${entry}" is not a valid CIDR`);
      }
      const [address, bits] = ipaddr.parseCIDR(unbracketed);
      ranges.push([address, bits]);
    } else if (isIP(unbracketed) !== 0) {
      const address = ipaddr.parse(unbracketed);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(normaliseHost(entry))) {
      hosts.add(normaliseHost(entry));
    } else {
      throw new CallbackAllowlistError(
        `HTTP_ASYNC_CALLBACK_ALLOWLIST: "${entry}" is neither a CIDR, an address nor a host name`,
      );
    }
  }
  return { hosts, ranges };
}

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

const classifyIPv4 = (address: ipaddr.IPv4): AddressClass => {
  const range = address.range();
  switch (range) {
    case 'unicast':
      return 'public';
    case 'private':
      return 'private';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link_local';
    case 'carrierGradeNat':
      return 'cgnat';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      // Documentation, benchmarking, AS112, AMT, 240/4 and any range a later ipaddr.js names.
      return 'reserved';
  }
};

/** Parses only what node:net calls an address, so odd forms like `0x7f.1` are `invalid`, not guessed. */
const parseAddress = (ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined => {
  const unbracketed = ip.replace(/^\[(.*)\]$/, '$1');
  const version = isIP(unbracketed);
  if (version === 0) return undefined;
  try {
    if (version === 4) return ipaddr.process(unbracketed);
    // ipaddr.js reads the IPv4-compatible `::127.0.0.1` as if it were mapped (`::ffff:127.0.0.1`);
    // the URL parser's all-hex form keeps the two apart.
    const hex = new URL(`http://[${unbracketed.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
    return ipaddr.process(hex);
  } catch {
    return undefined;
  }
};

/**
 * Where an IPv4 or IPv6 address routes; IPv4-mapped IPv6 (`::ffff:127.0.0.1`) and the NAT64
 * well-known prefix (`64:ff9b::/96`) are judged by the IPv4 address they carry. Other tunnel and
 * translation prefixes (6to4, Teredo, IPv4-compatible `::a.b.c.d`) are `reserved`: their embedded
 * targets are hard to reason about and no receiver needs them.
 */
export function classifyAddress(ip: string): AddressClass {
  const address = parseAddress(ip);
  if (address === undefined) return 'invalid';
  if (address.kind() === 'ipv4') return classifyIPv4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const bytes = v6.toByteArray().slice(12);
    return classifyIPv4(ipaddr.fromByteArray(bytes) as ipaddr.IPv4);
  }
  const range = v6.range();
  switch (range) {
    case 'unicast':
      return v6.match(IPV6_GLOBAL_UNICAST) ? 'public' : 'reserved';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link_local';
    case 'uniqueLocal':
      return 'unique_local';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    default:
      return 'reserved';
  }
}

/** Whether an address falls in one of the allowlist's ranges (IPv4-mapped IPv6 judged as IPv4). */
export function isAllowlistedAddress(ip: string, allowlist: CallbackAllowlist): boolean {
  const address = parseAddress(ip);
  if (address === undefined) return false;
  return allowlist.ranges.some(([range, bits]) => {
    if (range.kind() === address.kind()) return address.match(range, bits);
    // An IPv6 entry such as ::ffff:10.0.0.0/104 still covers the IPv4 address it maps.
    if (range.kind() === 'ipv6' && address.kind() === 'ipv4') {
      return (address as ipaddr.IPv4).toIPv4MappedAddress().match(range, bits);
    }
    return false;
  });
}

export const defaultLookup: LookupFn = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('lookup timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

const refuse = (reason: CallbackUrlRefusal, message: string): CallbackUrlCheck => ({
  ok: false,
  reason,
  message,
});

/**
 * Checks a callback URL before it is stored and again before every delivery (DNS can change): https
 * (http only for an allowlisted host or addresses), no credentials, and EVERY address the host
 * resolves to public unless allowlisted. The answer carries the checked addresses, which are the only
 * ones a delivery may connect to. Never throws; messages name no address, so a refusal does not
 * turn into a probe of the internal network's DNS.
 */
export async function checkCallbackUrl(
  url: string,
  options: CheckCallbackUrlOptions,
): Promise<CallbackUrlCheck> {
  if (url.length > MAX_CALLBACK_URL_LENGTH) {
    return refuse('url_too_long', `callback URL is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('invalid_url', 'callback URL is not an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return refuse('unsupported_scheme', 'callback URL must use https');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return refuse('credentials_in_url', 'callback URL must not contain a user name or password');
  }
  const host = normaliseHost(parsed.hostname.replace(/^\[(.*)\]$/, '$1'));
  if (host === '') return refuse('invalid_url', 'callback URL has no host');
  const { allowlist } = options;
  const hostAllowed = allowlist.hosts.has(host);

  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      const found = await withTimeout(
        (options.lookup ?? defaultLookup)(host),
        options.lookupTimeoutMs ?? 5_000,
      );
      addresses = [...new Set(found.map((entry) => entry.address))];
    } catch {
      return refuse('dns_failure', `callback host ${host} could not be resolved`);
    }
    if (addresses.length === 0) return refuse('dns_failure', `callback host ${host} has no addresses`);
  }

  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'invalid')
      return refuse('dns_failure', `callback host ${host} resolved to an invalid address`);
    if (kind !== 'public' && !hostAllowed && !isAllowlistedAddress(address, allowlist)) {
      return refuse('forbidden_address', `callback host ${host} resolves to a non-public address (${kind})`);
    }
  }
  if (
    parsed.protocol === 'http:' &&
    !hostAllowed &&
    !addresses.every((address) => isAllowlistedAddress(address, allowlist))
  ) {
    return refuse('insecure_scheme', 'callback URL must use https');
  }
  return { ok: true, url: parsed, addresses };
}
