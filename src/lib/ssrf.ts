// The SSRF guard for every outbound request to a host a user chose (webhook URLs, Mastodon and Bluesky
// instances, media fetched by URL). It refuses private, loopback, link-local, CGNAT, multicast, reserved and
// metadata addresses (IPv4 and IPv6, including IPv4 hidden in IPv6 forms), and it is applied at connect time
// through the socket's `lookup`, so the address checked is the address connected to: DNS rebinding cannot
// slip past. HERALD_OUTBOUND_ALLOWLIST (hosts, IPs, CIDRs) is the operator's exception.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookup: LookupFn = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** Why a destination was refused; `code` is stable (used as a validation rule name). */
export class OutboundBlockedError extends Error {
  readonly code: 'address_blocked' | 'dns_unresolved' | 'scheme_blocked' | 'url_invalid';
  constructor(code: OutboundBlockedError['code'], message: string) {
    super(message);
    this.name = 'OutboundBlockedError';
    this.code = code;
  }
}

// The IANA IPv4 and IPv6 special-purpose address registries: every block not globally reachable (whole, where a
// registry lists a few global anycast addresses inside one, since no webhook or media host lives there), plus
// multicast. IPv6 forms that carry an IPv4 address are also judged by that address (embeddedIpv4 below).
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private-use
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private-use
  ['192.0.0.0', 24], // IETF protocol assignments (dummy address, NAT64 discovery …)
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private-use
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, limited broadcast
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64: translates to whatever the local network means
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy IPv6 prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID …
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

function ipv6Words(address: string): number[] | undefined {
  // Expand an IPv6 literal (with an optional trailing dotted IPv4) into eight 16-bit words.
  let text = address
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text =
      text.slice(0, -dotted[1]!.length) +
      `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = tail !== undefined ? 8 - h.length - t.length : 0;
  const words = [...h, ...Array(Math.max(fill, 0)).fill('0'), ...t].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/**
 * The IPv4 addresses an IPv6 address carries, if any: IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the
 * site's address), and Teredo (2001::/32: the server's address, and the client's, stored inverted).
 */
function embeddedIpv4(w: number[]): string[] {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && w[5] === 0xffff) return [v4(w[6]!, w[7]!)]; // ::ffff:a.b.c.d
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return [v4(w[6]!, w[7]!)]; // ::ffff:0:a.b.c.d
  if (zeros(0, 6) && (w[6] !== 0 || w[7]! > 1)) return [v4(w[6]!, w[7]!)]; // ::a.b.c.d
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return [v4(w[6]!, w[7]!)]; // 64:ff9b::a.b.c.d
  if (w[0] === 0x2002) return [v4(w[1]!, w[2]!)]; // 2002:AABB:CCDD::
  if (w[0] === 0x2001 && w[1] === 0) return [v4(w[2]!, w[3]!), v4(w[6]! ^ 0xffff, w[7]! ^ 0xffff)]; // Teredo
  return [];
}

/** True when `address` (an IP literal) is in a range no user-chosen destination may reach. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, 'ipv4');
  if (family === 6) {
    const words = ipv6Words(bare);
    if (!words) return true;
    // Blocked when the IPv6 block is, or when any IPv4 address it carries is (a mapped or NAT64 loopback …).
    return BLOCKED.check(bare, 'ipv6') || embeddedIpv4(words).some((inner) => BLOCKED.check(inner, 'ipv4'));
  }
  return true; // not an IP at all: refuse rather than guess
}

export interface OutboundGuard {
  /** True when the operator's allow-list exempts this host (name or IP). */
  isAllowlisted(host: string): boolean;
  /**
   * Checks a URL before use (e.g. at webhook creation): scheme, and every address its host resolves to.
   * `https` is required unless the host is allow-listed.
   */
  checkUrl(url: string, options?: { requireHttps?: boolean }): Promise<URL>;
  /** A `lookup` for node:net / node:http that refuses blocked addresses at connect time. */
  lookup: (
    hostname: string,
    options: unknown,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => void;
}

/** Parses HERALD_OUTBOUND_ALLOWLIST entries: hostnames, IPs and CIDRs. */
export function createOutboundGuard(options: { allowlist?: readonly string[]; lookup?: LookupFn } = {}): OutboundGuard {
  const resolve = options.lookup ?? systemLookup;
  const hosts = new Set<string>();
  const allowedNets = new BlockList();
  for (const raw of options.allowlist ?? []) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [net, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(net.replace(/^\[|\]$/g, ''));
    if (family && prefix !== undefined)
      allowedNets.addSubnet(net.replace(/^\[|\]$/g, ''), Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    else if (family) allowedNets.addAddress(net.replace(/^\[|\]$/g, ''), family === 4 ? 'ipv4' : 'ipv6');
    else hosts.add(entry.replace(/\.$/, ''));
  }
  const ipAllowed = (ip: string) => {
    const bare = ip.replace(/^\[|\]$/g, '').split('%')[0]!;
    const family = isIP(bare);
    return family !== 0 && allowedNets.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  };
  const hostAllowed = (host: string) =>
    hosts.has(
      host
        .toLowerCase()
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, ''),
    ) || ipAllowed(host);

  async function addressesOf(host: string): Promise<LookupAddress[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    if (family) return [{ address: bare, family }];
    try {
      const found = await resolve(bare);
      if (found.length === 0) throw new Error('no addresses');
      return found;
    } catch {
      throw new OutboundBlockedError('dns_unresolved', `The host ${host} does not resolve.`);
    }
  }

  function refuseBlocked(host: string, addresses: LookupAddress[]): void {
    if (hostAllowed(host)) return;
    const blocked = addresses.find((a) => !ipAllowed(a.address) && isBlockedAddress(a.address));
    if (blocked)
      throw new OutboundBlockedError(
        'address_blocked',
        `${host} resolves to ${blocked.address}, a private or reserved address Herald does not connect to (allow it with HERALD_OUTBOUND_ALLOWLIST).`,
      );
  }

  return {
    isAllowlisted: hostAllowed,
    async checkUrl(raw, opts = {}) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new OutboundBlockedError('url_invalid', 'Not a valid absolute URL.');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:')
        throw new OutboundBlockedError('scheme_blocked', 'Only http and https URLs are supported.');
      if (url.username || url.password)
        throw new OutboundBlockedError('url_invalid', 'URLs with credentials are not accepted.');
      if ((opts.requireHttps ?? true) && url.protocol !== 'https:' && !hostAllowed(url.hostname)) {
        throw new OutboundBlockedError(
          'scheme_blocked',
          'https is required (plain http only for hosts in HERALD_OUTBOUND_ALLOWLIST).',
        );
      }
      refuseBlocked(url.hostname, await addressesOf(url.hostname));
      return url;
    },
    lookup(hostname, options, callback) {
      const wantAll = Boolean((options as { all?: boolean } | undefined)?.all);
      addressesOf(hostname).then(
        (addresses) => {
          try {
            refuseBlocked(hostname, addresses);
          } catch (error) {
            return callback(error as Error, wantAll ? [] : '', 4);
          }
          if (wantAll) return callback(null, addresses);
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        },
        (error: Error) => callback(error, wantAll ? [] : '', 4),
      );
    },
  };
}
