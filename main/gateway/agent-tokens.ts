// Per-agent identity: named agent tokens. An agent's name in the audit log, the inbox and every
// grant comes from the token it presented, never from what the client says about itself (MCP
// clientInfo, a hook, the API's `agent` field): those claims are kept only as a label. Without
// this, any client holding an agent token could claim another agent's name and session and use
// a grant an operator gave to that other agent.
//
// The tokens live in GATEHOUSE_HOME/agent-tokens.json, written 0600; only the SHA-256 of each
// token is stored, so the file gives nobody a token, and a token is shown once, when created.
// The single agent token Gatehouse always had (serve.json, used by `gatehouse hook`,
// `gatehouse mcp` and "write it for me") keeps working as the agent named "default".
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import type { Clock } from '../core/clock.js';

/** The agent whose token is the one in serve.json. */
export const DEFAULT_AGENT = 'default';

/** Token names: short, and free of the separator sessions are namespaced with ("ci-bot/build-42"). */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const AGENT_NAME_RULE = 'an agent name is 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-", starting with a letter or digit';

/**
 * Agent and session names as they reach the audit log, the inbox and the operator's terminal:
 * nothing that a terminal or the console could interpret (escape codes, newlines, bidi, zero-width).
 */
export const SAFE_NAME = /^[A-Za-z0-9._:@/-]{1,128}$/;
export const SAFE_NAME_RULE = 'at most 128 characters of A-Z, a-z, 0-9 and . _ : @ / -';

/**
 * A client's self-description (MCP clientInfo.name), kept as a label: characters outside the
 * safe set become "_", so a name with escape codes or newlines never reaches a display as such.
 */
export function cleanLabel(raw: unknown, fallback: string, max = 128): string {
  if (typeof raw !== 'string') return fallback;
  const cleaned = [...raw].slice(0, max).map((c) => (/^[A-Za-z0-9._:@/-]$/.test(c) ? c : '_')).join('');
  return cleaned.length > 0 && /[A-Za-z0-9]/.test(cleaned) ? cleaned : fallback;
}

/** A session bound to the agent that authenticated: another token naming the same session gets another one. */
export function boundSession(agent: string, session: string): string {
  return `${agent}/${session}`;
}

/** Who presented an agent token. */
export interface AgentIdentity {
  /** The token's name ("default" for the token in serve.json). */
  name: string;
}

export interface AgentTokenInfo {
  name: string;
  createdAt: number;
  createdBy: string;
  /** The token in serve.json: it cannot be revoked here (it is replaced with the host's). */
  isDefault: boolean;
  /** Last accepted request since this host started (not kept across restarts). */
  lastUsedAt: number | null;
}

const fileSchema = z.object({
  version: z.literal(1),
  tokens: z.array(z.object({ name: z.string().regex(AGENT_NAME), sha256: z.string().regex(/^[0-9a-f]{64}$/), createdAt: z.number(), createdBy: z.string() })),
});
type StoredToken = z.output<typeof fileSchema>['tokens'][number];

export interface AgentTokensDeps {
  /** GATEHOUSE_HOME. */
  home: string;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  clock?: Clock;
  log?: (msg: string, err?: unknown) => void;
  /** A token was revoked: what it opened (MCP sessions) should end now, not at its next request. */
  revoked?: (name: string) => void;
}

const sha256 = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

export class AgentTokens {
  readonly file: string;
  private tokens: StoredToken[] = [];
  /** SHA-256 of a token → its agent name. The default token is kept apart from the file. */
  private byHash = new Map<string, string>();
  private defaultHash: string | null = null;
  private readonly lastUsed = new Map<string, number>();
  private readonly now: () => number;
  /** Why agent-tokens.json could not be read; while set, nothing rewrites it (it would drop its tokens). */
  private broken: string | null = null;

  constructor(private readonly deps: AgentTokensDeps) {
    this.file = join(deps.home, 'agent-tokens.json');
    this.now = () => (deps.clock ?? Date).now();
    this.load();
  }

  /** The token in serve.json, which authenticates as the agent "default". */
  setDefault(token: string): void {
    this.defaultHash = sha256(token);
  }

  /**
   * The agent a presented token belongs to, or null (missing, unknown or revoked). Looked up by
   * the token's SHA-256: what is compared is a hash, so timing says nothing about the token.
   */
  authenticate(token: string | null | undefined): AgentIdentity | null {
    if (typeof token !== 'string' || token.length < 16 || token.length > 256) return null;
    const h = sha256(token);
    const name = h === this.defaultHash ? DEFAULT_AGENT : this.byHash.get(h);
    if (name === undefined) return null;
    this.lastUsed.set(name, this.now());
    return { name };
  }

  list(): AgentTokenInfo[] {
    const out: AgentTokenInfo[] = [];
    // Without a listening shell (a CLI command's own host) the default is the kept agent-token file.
    if (this.defaultHash || existsSync(join(this.deps.home, 'agent-token'))) out.push({ name: DEFAULT_AGENT, createdAt: 0, createdBy: 'host', isDefault: true, lastUsedAt: this.lastUsed.get(DEFAULT_AGENT) ?? null });
    for (const t of this.tokens) out.push({ name: t.name, createdAt: t.createdAt, createdBy: t.createdBy, isDefault: false, lastUsedAt: this.lastUsed.get(t.name) ?? null });
    return out;
  }

  /** A new token for a new agent name; the token itself is returned this once and never stored. */
  create(name: string, operator: string): { name: string; token: string; createdAt: number } {
    this.refuseIfBroken();
    if (!AGENT_NAME.test(name)) throw new OperationError('invalid', `Agent token name ${JSON.stringify(name)} is not allowed: ${AGENT_NAME_RULE}.`);
    // Names differing only in case would read as one agent in the inbox and the audit log.
    if (name.toLowerCase() === DEFAULT_AGENT) throw new OperationError('invalid', `"${DEFAULT_AGENT}" is the agent of the token in serve.json; pick another name.`);
    const taken = this.tokens.find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (taken) throw new OperationError('conflict', `There is already an agent token named ${taken.name}. Revoke it first to replace it.`);
    // Same alphabet and length as the serve.json tokens, so every client that takes one takes this.
    const token = randomBytes(32).toString('base64url');
    const entry: StoredToken = { name, sha256: sha256(token), createdAt: this.now(), createdBy: operator };
    this.save([...this.tokens, entry]);
    this.deps.record?.('agent.token-created', `operator:${operator}`, { name });
    return { name, token, createdAt: entry.createdAt };
  }

  /** From now on the token authenticates nobody (the next request with it is refused). */
  revoke(name: string, operator: string): void {
    this.refuseIfBroken();
    if (name === DEFAULT_AGENT) {
      throw new OperationError('invalid', `The "${DEFAULT_AGENT}" agent token is the one in serve.json, which \`gatehouse hook\` and \`gatehouse mcp\` use; it cannot be revoked here. Give each agent its own named token instead.`);
    }
    if (!this.tokens.some((t) => t.name === name)) throw new OperationError('not_found', `There is no agent token named ${JSON.stringify(name)}; \`gatehouse agent token list\` shows them.`);
    this.save(this.tokens.filter((t) => t.name !== name));
    this.lastUsed.delete(name);
    this.deps.record?.('agent.token-revoked', `operator:${operator}`, { name });
    this.deps.revoked?.(name);
  }

  private refuseIfBroken(): void {
    if (this.broken) throw new OperationError('invalid', `${this.file} could not be read (${this.broken}); fix it or move it aside and restart Gatehouse before changing agent tokens.`);
  }

  private load(): void {
    if (!existsSync(this.file)) return;
    let parsed: z.output<typeof fileSchema>;
    try {
      parsed = fileSchema.parse(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch (err) {
      // Fail closed: a damaged file authenticates no named agent (the default token still works),
      // and it is left as it is for the operator to look at.
      this.broken = (err as Error).message.split('\n')[0] ?? 'unreadable';
      this.deps.log?.(`${this.file} could not be read; named agent tokens are refused until it is fixed or removed`, err);
      return;
    }
    this.apply(parsed.tokens);
  }

  private apply(tokens: StoredToken[]): void {
    this.tokens = tokens;
    this.byHash = new Map(tokens.map((t) => [t.sha256, t.name]));
  }

  /** Written whole to a temporary file created 0600 (fchmod too: the umask could loosen it), then renamed. */
  private save(tokens: StoredToken[]): void {
    const text = JSON.stringify({ version: 1, tokens }, null, 2) + '\n';
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    this.apply(tokens);
  }
}

type TokenMethods = Extract<keyof GatehouseContract['methods'], `agents.tokens.${string}`>;
export type AgentTokenHandlers = Pick<Handlers<GatehouseContract['methods']>, TokenMethods>;

/** The agents.tokens.* methods of the contract (operators only: agents never reach the dispatcher). */
export function agentTokenHandlers(tokens: AgentTokens): AgentTokenHandlers {
  return {
    'agents.tokens.list': () => ({ tokens: tokens.list() }),
    'agents.tokens.create': ({ name }, ctx) => tokens.create(name, ctx.operator),
    'agents.tokens.revoke': ({ name }, ctx) => {
      tokens.revoke(name, ctx.operator);
      return { revoked: true };
    },
  };
}
