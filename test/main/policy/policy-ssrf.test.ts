// SSRF: the built-in network rule judges every host by the address it reaches — literals in any
// spelling a resolver accepts, IPv6 forms that carry IPv4, metadata names, and names after DNS.
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, evaluatePolicyAsync, needsResolution } from '../../../main/policy/rules/engine.js';
import { normalizeHost, parseIpLiteral, resolveHosts, systemResolver, unwrapEmbeddedIpv4, type Resolver } from '../../../main/policy/network.js';
import { call, ruleSet, x } from '../../fixtures/policy/helpers.js';

const rules = ruleSet();
const NET = 'builtin.network.private';
const judgeHost = (host: string) => evaluatePolicy(x('network', [], [host]), call('WebFetch'), { rules });

describe('IP literals in every spelling', () => {
  const denied: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['2130706433', 'loopback'], // decimal
    ['0177.0.0.1', 'loopback'], // octal
    ['0177.0.0.01', 'loopback'],
    ['017700000001', 'loopback'], // octal, one part
    ['0x7f.0.0.1', 'loopback'], // hex
    ['0x7f000001', 'loopback'], // hex, one part
    ['0x7F.1', 'loopback'],
    ['127.1', 'loopback'], // short form
    ['127.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped IPv6, dotted
    ['::ffff:7f00:1', 'loopback'], // IPv4-mapped IPv6, hex
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud-metadata'], // mapped 169.254.169.254
    ['::127.0.0.1', 'loopback'], // IPv4-compatible (deprecated)
    ['64:ff9b::7f00:1', 'loopback'], // NAT64
    ['2002:7f00:1::', 'loopback'], // 6to4
    ['10.0.0.5', 'private'],
    ['10.1', 'private'],
    ['172.16.3.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['3232235777', 'private'], // 192.168.1.1
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['0xa9fea9fe', 'cloud-metadata'],
    ['2852039166', 'cloud-metadata'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['::', 'unspecified'],
    ['[::]', 'unspecified'],
    ['127.0.0.1.', 'loopback'], // trailing dot
  ];
  for (const [host, category] of denied) {
    it(`${host} → ${category}`, () => {
      const r = judgeHost(host);
      expect(r.decision).toBe('deny');
      expect(r.decider).toEqual({ kind: 'rule', rule: NET, origin: 'builtin' });
      expect(r.reason).toContain(category);
    });
  }

  it('public addresses pass without DNS', () => {
    for (const host of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '192.169.0.1', '11.0.0.1']) {
      expect(judgeHost(host).decisive, host).toBeNull();
      expect(needsResolution(x('network', [], [host])), host).toBe(false);
    }
  });

  it('normalises what it compares', () => {
    expect(normalizeHost('[::FFFF:7F00:1]')).toBe('127.0.0.1');
    expect(normalizeHost('Example.COM.')).toBe('example.com');
    expect(parseIpLiteral('08.0.0.1')).toBeNull(); // not valid octal: a name, so DNS decides
    expect(parseIpLiteral('example.com')).toBeNull();
  });

  it('the shortcut for names never turns away a literal ipaddr.js accepts', () => {
    // parseIpLiteral answers most names without asking ipaddr.js (which throws to say no); it
    // must agree with ipaddr.js on every string, in both directions and on the address.
    const chars = [...'0123456789abcdefABCDEFxX.:%', ...'gGlmoz-_%'];
    const candidate = fc.oneof(
      fc.string({ unit: fc.constantFrom(...chars), minLength: 1, maxLength: 24 }),
      fc.tuple(fc.nat(0xffffffff), fc.constantFrom(10, 8, 16)).map(([n, radix]) => (radix === 16 ? '0X' : radix === 8 ? '0' : '') + n.toString(radix)),
      fc.ipV4Extended(),
      fc.ipV6().map((v6) => v6.toUpperCase()),
    );
    fc.assert(
      fc.property(candidate, (s) => {
        let h = s.toLowerCase();
        fc.pre(!h.endsWith('.'));
        if (h.includes(':') && h.includes('%')) h = h.slice(0, h.indexOf('%'));
        const expected = ipaddr.isValid(h) ? unwrapEmbeddedIpv4(ipaddr.parse(h)).toString() : null;
        expect(parseIpLiteral(s)?.toString() ?? null).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('names', () => {
  it('metadata and localhost names are denied without DNS', () => {
    for (const host of ['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata', 'localhost', 'app.localhost', 'instance-data.ec2.internal']) {
      const r = judgeHost(host);
      expect(r.decision, host).toBe('deny');
      expect(r.decider, host).toMatchObject({ rule: NET });
    }
  });

  it('a name that resolves to a private address is denied (injected resolver)', async () => {
    const resolver: Resolver = async (h) => (h === 'intranet.example.com' ? ['93.184.216.34', '10.0.0.7'] : ['93.184.216.34']);
    const r = await evaluatePolicyAsync(x('network', [], ['intranet.example.com']), call(), { rules, resolver });
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('resolves to 10.0.0.7, a private address');
    const ok = await evaluatePolicyAsync(x('network', [], ['www.example.com']), call(), { rules, resolver });
    expect(ok.decisive).toBeNull();
  });

  it('a name resolving to an IPv4-mapped loopback is denied', async () => {
    const r = await evaluatePolicyAsync(x('network', [], ['sneaky.example']), call(), { rules, resolver: async () => ['::ffff:127.0.0.1'] });
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('loopback');
  });

  it('the real resolver: localhost resolves to loopback', async () => {
    const addrs = await systemResolver('localhost');
    expect(addrs.length).toBeGreaterThan(0);
    // Judged as a name that resolves (skipping the name shortcut) by asking about a synonym.
    const r = await evaluatePolicyAsync(x('network', [], ['localhost-synonym.test']), call(), {
      rules,
      resolver: (h) => systemResolver(h === 'localhost-synonym.test' ? 'localhost' : h),
    });
    expect(r.decision).toBe('deny');
    expect(r.reason).toMatch(/resolves to (127\.0\.0\.1|::1), a loopback address/);
  });

  it('unresolvable names fail closed: denied (or asked, when configured)', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const r = await evaluatePolicyAsync(x('network', [], ['no-such-host.invalid']), call(), { rules, resolver: failing });
    expect(r.decision).toBe('deny');
    expect(r.reason).toContain('could not be resolved (DNS failed: ENOTFOUND)');
    // Headlined as a DNS failure: the address is unknown, so "private address" would mislead.
    expect(r.reason).toContain('DNS lookup of no-such-host.invalid failed');
    expect(r.reason).not.toMatch(/may not reach private/);
    const asked = await evaluatePolicyAsync(x('network', [], ['no-such-host.invalid']), call(), { rules, resolver: failing, unresolved: 'ask' });
    expect(asked.decision).toBe('ask');
    expect(asked.decider).toMatchObject({ rule: NET });
  });

  it('a resolver that never answers times out and counts as unresolved', async () => {
    const hanging: Resolver = () => new Promise(() => {});
    const res = await resolveHosts(['slow.example'], hanging, 50);
    expect(res.get('slow.example')).toEqual({ error: 'no answer within 50 ms' });
  });

  it('the synchronous path without resolutions denies names (fail closed), and needsResolution says so', () => {
    const ex = x('network', [], ['www.example.com']);
    expect(needsResolution(ex)).toBe(true);
    expect(evaluatePolicy(ex, call(), { rules }).decision).toBe('deny');
    // Not a network operation: no DNS, no network rule.
    expect(needsResolution(x('read', [], ['www.example.com']))).toBe(false);
  });

  it('DNS runs only for network operations', async () => {
    let asked = 0;
    const counting: Resolver = async () => {
      asked++;
      return ['10.0.0.1'];
    };
    await evaluatePolicyAsync(x('write', ['/tmp/a'], ['internal.example']), call(), { rules, resolver: counting });
    expect(asked).toBe(0);
    await evaluatePolicyAsync(x('network', [], ['internal.example', '8.8.8.8']), call(), { rules, resolver: counting });
    expect(asked).toBe(1);
  });
});
