// The operator token. Generated once per GATEHOUSE_HOME and kept (owner-only), so a console
// left open keeps working when the host restarts; `--token` overrides, `--new-token` rotates.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Tokens travel in URLs and WebSocket subprotocols: keep to characters both accept. */
export function validToken(t: string): boolean {
  return /^[A-Za-z0-9_-]{16,256}$/.test(t);
}

export const TOKEN_RULE = '--token must be 16 to 256 characters of A-Z, a-z, 0-9, "-" or "_".';

export const AGENT_TOKEN_RULE = TOKEN_RULE.replace('--token', '--agent-token');

export function operatorToken(home: string, opts: { given?: string; rotate?: boolean } = {}): string {
  return keptToken(join(home, 'operator-token'), TOKEN_RULE, opts);
}

/**
 * The agent token: opens /mcp and the hook route, nothing else. Kept per home like the
 * operator token, so agents configured once keep working across restarts.
 */
export function agentToken(home: string, opts: { given?: string; rotate?: boolean } = {}): string {
  return keptToken(join(home, 'agent-token'), AGENT_TOKEN_RULE, opts);
}

function keptToken(file: string, rule: string, opts: { given?: string; rotate?: boolean }): string {
  if (opts.given !== undefined) {
    if (!validToken(opts.given)) throw new Error(rule);
    return opts.given;
  }
  if (!opts.rotate && existsSync(file)) {
    const t = readFileSync(file, 'utf8').trim();
    if (validToken(t)) return t;
  }
  const t = newToken();
  writeFileSync(file, t + '\n', { mode: 0o600 });
  return t;
}
