// How a browser console gets its credential without the operator token ever entering a URL.
//
// SECURITY: a browser keeps every URL it opened (History, Sessions, "Current Tabs") in files an
// agent running as the same user can read; history.replaceState does not take it back out.
// So the printed URL carries a one-time code: random (192 bits), good for two minutes, good
// once. The console trades it (POST /api/session/exchange) for a session credential that it
// keeps in its tab's sessionStorage and sends as a Bearer token / WebSocket subprotocol.
// Replaying the URL later gets "this link was already used", never a console.
//
// The session credential is a MAC over its expiry, keyed by a key derived from the operator
// token: no server-side table, so a console left open reconnects by itself after the host
// restarts (same home, same operator token), and rotating the operator token (`--new-token`)
// revokes every session at once. It expires 12 hours after it was last refreshed; the console
// refreshes it each time it checks its session (at every connect, and hourly while connected).
// Renewals never carry it past 7 days from the link it came from, so a session that leaked
// cannot be kept alive for good by whoever holds it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CONSOLE_LINK_TTL_MS = 2 * 60_000;
export const SESSION_TTL_MS = 12 * 3_600_000;
export const SESSION_MAX_AGE_MS = 7 * 24 * 3_600_000;
/** Codes minted but not yet expired; minting needs the operator token, this only bounds memory. */
const MAX_OUTSTANDING_CODES = 1000;
const SESSION_VERSION = 's1';

/** What the console is told when a code does not open a session; the renderer shows it as is. */
export const LINK_REFUSALS = {
  used: 'This console link was already used: each link opens one console, once. Run `gatehouse url` for a new one (restarting `gatehouse serve` prints one too).',
  expired: 'This console link has expired (links last 2 minutes). Run `gatehouse url` for a new one.',
  unknown: 'This console link is not valid for this host: it was used or has expired, or an earlier run of the host printed it. Run `gatehouse url` for a new one.',
} as const;

export type LinkRefusal = keyof typeof LINK_REFUSALS;

export interface IssuedSession {
  session: string;
  expiresAt: number;
}

export class ConsoleSessions {
  private readonly key: Buffer;
  /** forgetAt: an unused code is forgotten when it expires, a used one much later (see exchange). */
  private readonly codes = new Map<string, { expiresAt: number; used: boolean; forgetAt: number }>();

  constructor(
    operatorToken: string,
    private readonly now: () => number = Date.now,
  ) {
    // Derived, not the token itself: a session credential reveals nothing about the token.
    this.key = createHmac('sha256', operatorToken).update('gatehouse console session key v1').digest();
  }

  /** A fresh one-time code for a console URL. */
  newCode(): { code: string; expiresAt: number } {
    this.prune();
    if (this.codes.size >= MAX_OUTSTANDING_CODES) {
      // Oldest first (Map keeps insertion order): a flood of minting cannot grow memory.
      const oldest = this.codes.keys().next().value;
      if (oldest !== undefined) this.codes.delete(oldest);
    }
    const code = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + CONSOLE_LINK_TTL_MS;
    this.codes.set(code, { expiresAt, used: false, forgetAt: expiresAt });
    return { code, expiresAt };
  }

  /** Trades a code for a session, once. */
  exchange(code: unknown): ({ ok: true } & IssuedSession) | { ok: false; reason: LinkRefusal } {
    if (typeof code !== 'string') return { ok: false, reason: 'unknown' };
    const entry = this.codes.get(code);
    // Looked up before pruning, so that an expired code is called expired, then forgotten.
    this.prune();
    if (!entry) return { ok: false, reason: 'unknown' };
    if (entry.used) return { ok: false, reason: 'used' };
    if (entry.expiresAt <= this.now()) return { ok: false, reason: 'expired' };
    // Kept, marked, for as long as a session lasts: a replay of the URL from the browser's
    // history then says "already used" instead of something vaguer.
    entry.used = true;
    entry.forgetAt = this.now() + SESSION_TTL_MS;
    return { ok: true, ...this.issue(this.now()) };
  }

  /**
   * A session credential good for SESSION_TTL_MS from now, capped at SESSION_MAX_AGE_MS after
   * `born` (when its link was used): `s1.<expiry>.<born>.<nonce>.<MAC of the rest>`.
   */
  private issue(born: number): IssuedSession {
    const expiresAt = Math.min(this.now() + SESSION_TTL_MS, born + SESSION_MAX_AGE_MS);
    const body = `${SESSION_VERSION}.${expiresAt.toString(36)}.${born.toString(36)}.${randomBytes(12).toString('base64url')}`;
    return { session: `${body}.${this.mac(body)}`, expiresAt };
  }

  /** A fresh credential for a valid one (same origin, new expiry), or null. */
  renew(credential: string | undefined): IssuedSession | null {
    const parsed = this.parse(credential);
    return parsed ? this.issue(parsed.born) : null;
  }

  /** True for a credential this key issued that has not expired. */
  valid(credential: string | undefined): boolean {
    return this.parse(credential) !== null;
  }

  /**
   * When a valid credential stops being one (its expiry, within the cap after its link was used),
   * or null. A console's WebSocket lives no longer: it was let in by this credential, and the
   * renewals its console gets over HTTP are not this one.
   */
  endOf(credential: string | undefined): number | null {
    const parsed = this.parse(credential);
    return parsed ? Math.min(parsed.expiresAt, parsed.born + SESSION_MAX_AGE_MS) : null;
  }

  /** Whether `at` (an endOf) has come, by this store's clock. */
  passed(at: number): boolean {
    return this.now() >= at;
  }

  private parse(credential: string | undefined): { expiresAt: number; born: number } | null {
    if (!credential) return null;
    const parts = credential.split('.');
    if (parts.length !== 5 || parts[0] !== SESSION_VERSION) return null;
    const body = parts.slice(0, 4).join('.');
    const given = Buffer.from(parts[4]!, 'base64url');
    const expected = Buffer.from(this.mac(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const expiresAt = parseInt(parts[1]!, 36);
    const born = parseInt(parts[2]!, 36);
    if (!Number.isSafeInteger(expiresAt) || !Number.isSafeInteger(born)) return null;
    const now = this.now();
    return expiresAt > now && born + SESSION_MAX_AGE_MS > now ? { expiresAt, born } : null;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  private prune(): void {
    const now = this.now();
    for (const [code, entry] of this.codes) if (entry.forgetAt <= now) this.codes.delete(code);
  }
}
