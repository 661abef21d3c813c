// Network destinations: which addresses an agent may never reach (SSRF), host normalisation,
// host patterns (globs and CIDRs) and DNS resolution.
//
// Security-sensitive: every spelling of an address that a tool (curl, wget, a browser, Node's
// `net`) would accept must normalise to the same address here, or it walks past the built-in
// network rule. ipaddr.js parses the inet_aton forms (decimal `2130706433`, octal `0177.0.0.1`,
// hex `0x7f.0.0.1`, short `127.1`); on top of it we unwrap IPv6 forms that carry an IPv4 address
// (mapped, compatible, NAT64, 6to4, Teredo), because the packet ends up at that IPv4 address.
import { promises as dnsPromises } from 'node:dns';
import ipaddr from 'ipaddr.js';
import picomatch from 'picomatch';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export type AddressCategory = 'private' | 'loopback' | 'link-local' | 'cloud-metadata' | 'unspecified' | 'carrier-grade-nat' | 'broadcast';

/** Resolves a host name to its addresses (A and AAAA). */
export type Resolver = (host: string) => Promise<string[]>;

/** What DNS said about one name: its addresses, or why there are none. */
export type Resolution = { addresses: string[] } | { error: string };

/** Host name → resolution, for the names of one call. */
export type Resolutions = ReadonlyMap<string, Resolution>;

// Most specific first: 169.254.169.254 is reported as cloud-metadata, not link-local.
const BLOCKED_RANGES: ReadonlyArray<readonly [string, AddressCategory]> = [
  ['169.254.169.254/32', 'cloud-metadata'], // AWS, GCP, Azure, OpenStack, Oracle
  ['100.100.100.200/32', 'cloud-metadata'], // Alibaba Cloud
  ['fd00:ec2::254/128', 'cloud-metadata'], // AWS IMDS over IPv6
  ['0.0.0.0/8', 'unspecified'], // "this network": 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['100.64.0.0/10', 'carrier-grade-nat'], // shared address space, internal to providers
  ['255.255.255.255/32', 'broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'], // deprecated site-local, still routed inside some networks
  ['fc00::/7', 'private'], // unique local
];

/** The ranges the built-in network rule denies, as CIDR strings (for its snapshot). */
export const BLOCKED_CIDRS: readonly string[] = BLOCKED_RANGES.map(([c]) => c);

/** Names that reach the cloud metadata service or the local host whatever DNS says. */
export const BLOCKED_HOST_NAMES: readonly string[] = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'localhost',
  '*.localhost', // RFC 6761: always loopback
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
];

/**
 * A host no program on a developer's machine has a reason to be given: the cloud metadata service
 * (by address or name) and link-local addresses. Loopback and private addresses are left out on
 * purpose: a test runner's `--base-url http://localhost:3000` names a dev server.
 */
export function isMetadataHost(host: string): boolean {
  const h = normalizeHost(host);
  if (h === 'metadata.google.internal' || h === 'metadata.goog' || h === 'instance-data' || h === 'instance-data.ec2.internal') return true;
  const ip = parseIpLiteral(h);
  const b = ip ? blockedCategory(ip) : null;
  return b !== null && (b.category === 'cloud-metadata' || b.category === 'link-local');
}

const parsedBlocked = BLOCKED_RANGES.map(([cidr, category]) => ({ range: ipaddr.parseCIDR(cidr), category, cidr }));

/**
 * Lower-case, no brackets, no trailing dot, no port-less zone surprises: the form hosts are
 * compared in. IP literals become their canonical text (`0x7f.1` → `127.0.0.1`,
 * `::ffff:7f00:1` → `127.0.0.1`).
 */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.') && h.length > 1) h = h.slice(0, -1);
  const ip = parseIpLiteral(h);
  return ip ? ip.toString() : h;
}

/**
 * The address a host string denotes when it is an IP literal in any spelling a resolver
 * accepts, with embedded IPv4 unwrapped; `null` for names.
 */
export function parseIpLiteral(host: string): IpAddress | null {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.') && h.length > 1 && /^[0-9a-fx.]+\.$/.test(h)) h = h.slice(0, -1);
  // The zone (`fe80::1%eth0`) does not change where the packet goes.
  const pct = h.indexOf('%');
  if (pct >= 0 && h.includes(':')) h = h.slice(0, pct);
  // Most hosts are names. ipaddr.js rejects a name by throwing and catching an Error inside
  // isValid (a stack trace per call, the bulk of a decision's time for a URL), so names that can't
  // be literals are answered here: an IPv6 literal has a colon, and every IPv4 spelling ipaddr.js
  // accepts (dotted, decimal, octal, hex parts) consists of hex digits, `x` and dots only.
  if (!h.includes(':') && !IPV4_CHARS.test(h)) return null;
  if (!ipaddr.isValid(h)) return null;
  try {
    return unwrapEmbeddedIpv4(ipaddr.parse(h));
  } catch {
    return null;
  }
}

/** A superset of the characters in any IPv4 spelling ipaddr.js accepts (see parseIpLiteral). */
const IPV4_CHARS = /^[0-9a-fx.]+$/;

const V4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const V4_TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96'); // RFC 6145
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96'); // deprecated ::a.b.c.d
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');

/** IPv6 addresses that deliver to an IPv4 address are judged as that IPv4 address. */
export function unwrapEmbeddedIpv4(ip: IpAddress): IpAddress {
  if (ip.kind() === 'ipv4') return ip;
  const v6 = ip as ipaddr.IPv6;
  const b = v6.toByteArray();
  const v4 = (o: number, xor = 0) => new ipaddr.IPv4([b[o]! ^ xor, b[o + 1]! ^ xor, b[o + 2]! ^ xor, b[o + 3]! ^ xor]);
  if (v6.match(V4_MAPPED) || v6.match(V4_TRANSLATED) || v6.match(NAT64) || v6.match(NAT64_LOCAL)) return v4(12);
  // `::` and `::1` are themselves (unspecified, loopback), not 0.0.0.0 and 0.0.0.1.
  if (v6.match(V4_COMPATIBLE)) return b.slice(0, 15).every((x) => x === 0) && b[15]! <= 1 ? v6 : v4(12);
  if (v6.match(SIX_TO_FOUR)) return v4(2);
  if (v6.match(TEREDO)) return v4(12, 0xff); // the client address, obfuscated by XOR
  return v6;
}

/** The category of a blocked address, or null when it may be reached. */
export function blockedCategory(ip: IpAddress): { category: AddressCategory; cidr: string } | null {
  const addr = unwrapEmbeddedIpv4(ip);
  for (const b of parsedBlocked) {
    if (addr.kind() === b.range[0].kind() && addr.match(b.range)) return { category: b.category, cidr: b.cidr };
  }
  return null;
}

/** The default resolver: the system's (getaddrinfo, so /etc/hosts counts), every address. */
export const systemResolver: Resolver = async (host) => {
  const answers = await dnsPromises.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/** Is this host a name that needs DNS (not an IP literal)? */
export function isHostName(host: string): boolean {
  return parseIpLiteral(host) === null;
}

/**
 * Resolves every name among `hosts` (IP literals need no DNS), concurrently, each with a time
 * limit. A failure or timeout is recorded as `{ error }`, never thrown: the caller decides.
 */
export async function resolveHosts(hosts: readonly string[], resolver: Resolver = systemResolver, timeoutMs = 2000): Promise<Map<string, Resolution>> {
  const out = new Map<string, Resolution>();
  const names = [...new Set(hosts.map(normalizeHost))].filter(isHostName);
  await Promise.all(
    names.map(async (name) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        });
        const addresses = await Promise.race([resolver(name), timeout]);
        out.set(name, addresses.length > 0 ? { addresses } : { error: 'no addresses' });
      } catch (err) {
        out.set(name, { error: (err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err) });
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return out;
}

// ---- host patterns (block_hosts) ----------------------------------------------------------------

/** A compiled `block_hosts` list: CIDRs / IP literals and host-name globs. */
export interface HostPattern {
  readonly source: readonly string[];
  /** Why `host` matches (a short phrase), or null. `resolution` is used for names against CIDRs. */
  match(host: string, resolution: Resolution | undefined): string | null;
  /** For allow rules: is everything this host can reach covered by the patterns? */
  covers(host: string, resolution: Resolution | undefined): boolean;
}

/** Checks one `block_hosts` entry; returns a problem sentence or null. */
export function hostPatternProblem(entry: string): string | null {
  const e = entry.trim();
  if (e === '') return 'an empty host pattern';
  if (e.includes('/')) {
    return /^[^/\s]+\/\d{1,3}$/.test(e) && safeCidr(e) ? null : `"${entry}" is not a valid CIDR (like 10.0.0.0/8 or fc00::/7)`;
  }
  if (parseIpLiteral(e)) return null;
  if (!/^[a-z0-9*?.\-_[\]{},!]+$/i.test(e)) return `"${entry}" is neither an IP address, a CIDR nor a host-name glob`;
  if (e.startsWith('!')) return `"${entry}": negated patterns are not supported; use a separate allow rule`;
  try {
    picomatch.makeRe(e, { strictBrackets: true });
  } catch (err) {
    return `"${entry}" is not a valid glob: ${(err as Error).message}`;
  }
  return null;
}

function safeCidr(cidr: string): [IpAddress, number] | null {
  const [addr, bits] = cidr.split('/');
  if (addr === undefined || bits === undefined) return null;
  const ip = parseIpLiteral(addr);
  const n = Number(bits);
  if (!ip || !Number.isInteger(n) || n < 0 || n > (ip.kind() === 'ipv4' ? 32 : 128)) return null;
  return [ip, n];
}

/** Compiles `block_hosts` (validated beforehand with hostPatternProblem). */
export function compileHostPattern(entries: readonly string[]): HostPattern {
  const cidrs: Array<{ range: [IpAddress, number]; text: string }> = [];
  const globs: string[] = [];
  for (const raw of entries) {
    const e = raw.trim().toLowerCase();
    if (e.includes('/')) {
      const range = safeCidr(e);
      if (range) cidrs.push({ range, text: raw });
      continue;
    }
    const ip = parseIpLiteral(e);
    if (ip) cidrs.push({ range: [ip, ip.kind() === 'ipv4' ? 32 : 128], text: raw });
    else globs.push(normalizeHost(e));
  }
  const glob = globs.length > 0 ? picomatch(globs, { nocase: true, dot: true }) : null;
  const inCidr = (ip: IpAddress): string | null => {
    const a = unwrapEmbeddedIpv4(ip);
    for (const c of cidrs) if (a.kind() === c.range[0].kind() && a.match(c.range)) return c.text;
    return null;
  };
  const addressesOf = (resolution: Resolution | undefined): IpAddress[] | null => {
    if (!resolution || !('addresses' in resolution)) return null;
    const out: IpAddress[] = [];
    for (const a of resolution.addresses) {
      const ip = parseIpLiteral(a);
      if (ip) out.push(ip);
    }
    return out;
  };
  return {
    source: Object.freeze([...entries]),
    match(host, resolution) {
      const h = normalizeHost(host);
      const ip = parseIpLiteral(h);
      if (ip) {
        const c = inCidr(ip);
        if (c) return `host ${host} is in ${c}`;
      } else if (cidrs.length > 0) {
        for (const a of addressesOf(resolution) ?? []) {
          const c = inCidr(a);
          if (c) return `host ${host} resolves to ${a.toString()}, in ${c}`;
        }
      }
      if (glob && glob(h)) return `host ${host} matches ${globs.find((g) => picomatch.isMatch(h, g, { nocase: true, dot: true })) ?? 'a host pattern'}`;
      return null;
    },
    covers(host, resolution) {
      const h = normalizeHost(host);
      if (glob && glob(h)) return true;
      const ip = parseIpLiteral(h);
      if (ip) return inCidr(ip) !== null;
      const addrs = addressesOf(resolution);
      return addrs !== null && addrs.length > 0 && addrs.every((a) => inCidr(a) !== null);
    },
  };
}
