// Who may talk to the serve shell.
//
// SECURITY: the served console can approve tool calls and read the audit log. These checks
// stop three classes of attack; removing any one reopens it:
//  - the token: any local process or web page could otherwise drive the console;
//  - Host: DNS rebinding (evil.example resolving to 127.0.0.1) would make the console
//    same-origin with an attacker's page;
//  - Origin: browsers let any page open a WebSocket to localhost (cross-site WebSocket hijacking).
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export const WS_PROTOCOL = 'gatehouse.v1';
export const WS_TOKEN_PREFIX = 'gatehouse.token.';

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function hostWithPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`.toLowerCase();
}

export interface AccessPolicy {
  allowedHosts: Set<string>;
  allowedOrigins: Set<string>;
  token: string;
}

/** 0.0.0.0 or :: — every address of this machine. */
export function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || (isIP(h) === 6 && /^[0:]+$/.test(h));
}

/**
 * Host header values (and matching origins) under which this console may be reached. A
 * wildcard bind is reached under loopback names and this machine's own addresses, never under
 * an arbitrary name: a DNS name pointing here is how DNS rebinding gets in (`extraHosts` names
 * one on purpose).
 */
export function accessPolicy(bindHost: string, port: number, token: string, extraHosts: string[] = [], interfaces: () => string[] = interfaceAddresses): AccessPolicy {
  const names = new Set<string>([bindHost, ...extraHosts]);
  if (isLoopback(bindHost)) {
    names.add('localhost');
    names.add(bindHost.includes(':') ? '::1' : '127.0.0.1');
  }
  if (isWildcard(bindHost)) {
    for (const n of ['localhost', '127.0.0.1', '::1', ...interfaces()]) names.add(n);
  }
  const allowedHosts = new Set([...names].map((n) => hostWithPort(n, port)));
  const allowedOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));
  return { allowedHosts, allowedOrigins, token };
}

/** The addresses of this machine's interfaces (IPv6 without a zone, which no Host header carries). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((a) => (a ? [a.address.replace(/%.*$/, '')] : []));
}

export function hostAllowed(policy: AccessPolicy, req: IncomingMessage): boolean {
  const host = req.headers.host;
  return typeof host === 'string' && policy.allowedHosts.has(host.toLowerCase());
}

/** A request without Origin comes from a non-browser client (the CLI); it still needs the token. */
export function originAllowed(policy: AccessPolicy, req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return policy.allowedOrigins.has(origin.toLowerCase());
}

/** Constant-time comparison, over digests so that lengths do not leak either. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token from `Authorization: Bearer T`, or from the WebSocket subprotocol list. */
export function tokenFrom(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7).trim();
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    // Browsers cannot set headers on a WebSocket; the token rides as a subprotocol instead
    // of the query string, so it never appears in a URL or a log.
    for (const p of protocols.split(',')) {
      const t = p.trim();
      if (t.startsWith(WS_TOKEN_PREFIX)) return t.slice(WS_TOKEN_PREFIX.length);
    }
  }
  return undefined;
}
