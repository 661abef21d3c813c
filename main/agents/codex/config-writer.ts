// "Write it for me" for Codex: adds Gatehouse to Codex's own configuration, `config.toml` in
// CODEX_HOME (~/.codex by default), after the operator has seen the diff. The same rules as for
// Claude Code's files (claude-config-writer.ts): written only if the file still holds what the
// preview was computed from, a backup first, an atomic rename with the mode kept, audited as
// agent.config-written (never the token).
//
// What is written, one table:
//   [mcp_servers.gatehouse]
//   command = "<node>"  args = ["<gatehouse.js>", "mcp", "--home", "<GATEHOUSE_HOME>"]   (stdio)
//   url = "http://127.0.0.1:PORT/mcp"  bearer_token_env_var = "GATEHOUSE_AGENT_TOKEN"   (HTTP)
//   required = true
//   default_tools_approval_mode = "approve"
//   tool_timeout_sec = <approval expiry + margin>
// - The stdio bridge by default: Codex starts it in its workspace, so calls run in the agent's
//   folder, and it needs no token (it reads serve.json). The HTTP form names the variable Codex
//   reads the token from; a token never goes into argv or into this file.
// - required = true: Codex waits for Gatehouse's tool list before the first turn. Without it Codex
//   treats the server as optional and sends its first model request before the bridge has listed
//   the tools, so the model's first call to a Gatehouse tool fails ("unsupported call"). It also
//   means Codex does not start while Gatehouse cannot be reached, rather than run without it.
// - default_tools_approval_mode = "approve": Gatehouse does the asking (its inbox). Without it
//   Codex asks its own approval for every tool that is not read-only, which `codex exec` (approval
//   policy "never") turns into a failed call.
// - tool_timeout_sec: Codex gives up on a call after it, even while progress arrives; it is
//   written above Gatehouse's approval expiry and the host is told (settings mcpClientTimeouts)
//   so an approval for Codex always ends before Codex stops waiting.
//
// TOML is edited as text so the user's comments and layout stay: Gatehouse's table (and its
// subtables) is replaced where it is, or appended. The result must parse to exactly the old
// meaning with only mcp_servers.gatehouse changed, or nothing is written (a gatehouse server
// written as an inline table or dotted keys is left for the operator to remove by hand).
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify, TomlError } from 'smol-toml';
import { MCP_SERVER_NAME, TOKEN_ENV } from '../../../shared/claude-config.js';
import type { RuntimeHost } from '../../core/node-runtime.js';
import { agentLauncher, type AgentLauncher } from '../../gateway/agent-launcher.js';
import { OperationError } from '../../core/operation-error.js';
import { ABSENT, ConfigFileError, plannedFile, readCurrent, writePlanned, type ConfigPreview, type ConfigTarget, type CurrentFile, type WrittenFile } from '../config-file.js';
import { DEADLINE_MARGIN_MS } from '../../gateway/mcp-server.js';
import { detectAgent } from '../detect.js';
import { verifyByPreview, type AgentDetection, type AgentIntegration, type AgentOptions, type AgentVerification } from '../integration.js';

/** What Codex sends as clientInfo.name. */
export const CODEX_CLIENT_NAME = 'codex-mcp-client';
/** tool_timeout_sec is written this far above the approval expiry: Gatehouse answers first. */
export const CODEX_TIMEOUT_MARGIN_S = 30;

export type CodexMcpForm = 'stdio' | 'http';

export type CodexConfigRequest = AgentOptions<'codex'>;

/** What Gatehouse cannot guarantee for Codex (docs/security-model.md). */
export const CODEX_LIMITS: readonly string[] = [
  'Codex has no hook Gatehouse answers: only calls of Gatehouse\'s own tools (its MCP server) are judged; Codex\'s built-in shell and file edits are not seen, so keep them off or sandboxed.',
];

/** How Codex starts the stdio bridge: absolute paths, so Codex's PATH does not matter. */
export interface CodexLauncher {
  node: string;
  entry: string;
  env?: Record<string, string>;
}

export interface CodexConfigDeps {
  /** CODEX_HOME: where config.toml lives (default ~/.codex). */
  codexHome: string;
  /** This host's GATEHOUSE_HOME, passed to `gatehouse mcp` as --home. */
  gatehouseHome: string;
  endpoints: () => { mcpUrl: string } | null;
  /** The approval expiry in force, in seconds. */
  approvalExpiryS: () => number;
  /** Tells the host how long Codex waits (settings mcpClientTimeouts), after a write. */
  setClientTimeout?: (client: string, seconds: number, actor: string) => void;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: CodexLauncher | null;
  /** Without `launcher`: stand-ins for Electron's process.versions and PATH and for bin/gatehouse.js (tests). */
  runtime?: RuntimeHost;
  entry?: string | null;
}

/** This installation's node and bin/gatehouse.js (agent-launcher.ts); null when there is none. */
export function defaultCodexLauncher(): CodexLauncher | null {
  return agentLauncher('cli').launcher;
}

/** The Codex server table Gatehouse writes (also what docs/agents.md shows). */
export function codexServer(req: CodexConfigRequest, o: { gatehouseHome: string; mcpUrl: string | null; launcher: CodexLauncher | null; toolTimeoutS: number }): Record<string, unknown> {
  const common = { required: true, default_tools_approval_mode: 'approve', tool_timeout_sec: o.toolTimeoutS };
  if (req.mcp === 'http') {
    if (!o.mcpUrl) throw new OperationError('unavailable', 'This host does not listen for agents over HTTP, so there is no MCP URL to write: choose the stdio bridge, or run gatehouse serve.');
    return { url: o.mcpUrl, bearer_token_env_var: TOKEN_ENV, ...common };
  }
  const args = ['mcp', '--home', o.gatehouseHome];
  const l = o.launcher;
  return l ? { command: l.node, args: [l.entry, ...args], ...common, ...(l.env ? { env: { ...l.env } } : {}) } : { command: 'gatehouse', args, ...common };
}

const MARKER = '# Gatehouse supervises this agent\'s tool calls (written by "write it for me").';

export class CodexConfigWriter implements AgentIntegration<'codex'> {
  readonly id = 'codex' as const;
  readonly displayName = 'Codex';
  readonly limits = CODEX_LIMITS;

  constructor(private readonly deps: CodexConfigDeps) {}

  detect(): AgentDetection {
    return detectAgent([this.deps.codexHome], 'codex');
  }

  verify(req: CodexConfigRequest): AgentVerification {
    return verifyByPreview(this.preview(req));
  }

  snippet(req: CodexConfigRequest): string {
    return this.plan(req, { exists: false, text: '', hash: ABSENT, real: this.file, mode: null }).plan.after;
  }

  listsTools(): boolean {
    return true;
  }

  private launch(): AgentLauncher {
    return this.deps.launcher === undefined ? agentLauncher('cli', this.deps.runtime, this.deps.entry) : { launcher: this.deps.launcher, problem: null };
  }

  get file(): string {
    return join(this.deps.codexHome, 'config.toml');
  }

  /** Codex's timeout for Gatehouse's calls: above the approval expiry, so Gatehouse answers first. */
  toolTimeoutS(): number {
    return Math.ceil(this.deps.approvalExpiryS() + DEADLINE_MARGIN_MS / 1000 + CODEX_TIMEOUT_MARGIN_S);
  }

  preview(req: CodexConfigRequest): ConfigPreview {
    const { plan, toolTimeoutS, kept } = this.plan(req);
    return { files: [plan], notes: this.notes(req, toolTimeoutS, kept) };
  }

  write(req: CodexConfigRequest, expected: readonly { path: string; baseHash: string }[], actor: string, extra: Record<string, unknown> = {}): { files: WrittenFile[] } {
    const { plan, current, toolTimeoutS } = this.plan(req);
    const files = writePlanned([{ target: this.target(), plan, current }], expected, {
      agent: this.displayName,
      // Told before the file changes: from now on an approval for Codex ends before Codex gives up.
      checked: () => this.deps.setClientTimeout?.(CODEX_CLIENT_NAME, toolTimeoutS, actor),
      now: this.deps.now?.() ?? Date.now(),
      recorded: ([w]) =>
        this.deps.record?.('agent.config-written', actor, {
          ...extra,
          client: 'codex',
          scope: 'user',
          projectDir: null,
          mcp: req.mcp,
          hook: 'none',
          files: [{ path: w!.path, created: w!.created, backup: w!.backup, changes: plan.changes }],
        }),
    });
    return { files };
  }

  private target(): ConfigTarget {
    return { path: this.file, kind: 'mcp', newMode: 0o600 };
  }

  private plan(req: CodexConfigRequest, current: CurrentFile = readCurrent(this.file)) {
    const path = this.file;
    const before = parseToml(path, current.text);
    const { launcher } = this.launch();
    const servers = before.mcp_servers;
    if (servers !== undefined && !isTable(servers)) throw new ConfigFileError(path, `${path}: mcp_servers is not a table of servers by name as Codex expects. Fix it by hand, then preview again.`);
    const existing = isTable(servers) ? servers[MCP_SERVER_NAME] : undefined;
    // A tool_timeout_sec already in Gatehouse's entry is the user's (or an earlier write's): kept,
    // and told to the host below, so approvals for Codex still end before Codex stops waiting.
    const had = isTable(existing) ? existing['tool_timeout_sec'] : undefined;
    const kept = typeof had === 'number' && Number.isInteger(had) && had > 0 ? had : null;
    const toolTimeoutS = kept ?? this.toolTimeoutS();
    const ours = codexServer(req, { gatehouseHome: this.deps.gatehouseHome, mcpUrl: this.deps.endpoints()?.mcpUrl ?? null, launcher, toolTimeoutS });
    const changes: string[] = [];
    let after = current.text;
    if (!sameMeaning(existing, ours)) {
      after = replaceTable(current.text, ours);
      const expected = { ...before, mcp_servers: { ...(isTable(servers) ? servers : {}), [MCP_SERVER_NAME]: ours } };
      let meaning: unknown;
      try {
        meaning = parse(after);
      } catch {
        meaning = null;
      }
      if (!sameMeaning(meaning, expected)) {
        throw new ConfigFileError(
          path,
          `${path} defines mcp_servers.${MCP_SERVER_NAME} in a form Gatehouse does not edit (an inline table or dotted keys); remove that entry by hand, then preview again.`,
        );
      }
      const how = req.mcp === 'http' ? `Streamable HTTP at ${String(ours.url)}, token from $${TOKEN_ENV}` : 'the stdio bridge, gatehouse mcp';
      changes.push(`mcp_servers.${MCP_SERVER_NAME}: ${existing === undefined ? 'added' : 'replaced'} (${how}; required = true; default_tools_approval_mode = "approve"; tool_timeout_sec = ${toolTimeoutS})`);
    }
    const plan = plannedFile(this.target(), current, after, changes);
    return { plan, current, toolTimeoutS, kept };
  }

  private notes(req: CodexConfigRequest, t: number, kept: number | null): string[] {
    const notes = [
      `Codex waits ${t} s for a Gatehouse call (tool_timeout_sec${kept !== null ? ', the value already in the file, kept' : ''}); Gatehouse's approvals for Codex expire ${DEADLINE_MARGIN_MS / 1000} s before it gives up, so a call is never approved after Codex stopped waiting.`,
      'Codex does not ask its own approval for Gatehouse\'s tools (default_tools_approval_mode = "approve"): Gatehouse decides, and asks in its inbox.',
      'Codex waits for Gatehouse\'s tools when it starts (required = true), and does not start while Gatehouse is not running.',
    ];
    if (req.mcp === 'http') notes.push(`Codex reads the agent token from ${TOKEN_ENV}: set it to the agent token in the environment you start Codex from (export ${TOKEN_ENV}=…).`);
    else notes.push('Codex starts the bridge in its workspace: calls run in that folder. The bridge needs no token.');
    const { problem } = this.launch();
    if (req.mcp === 'stdio' && problem) notes.push(problem);
    notes.push('Codex reads config.toml when it starts: restart it (codex mcp list shows gatehouse).');
    return notes;
  }
}

/** Equal as data (smol-toml's tables are not plain objects; dates compare as their text). */
function sameMeaning(a: unknown, b: unknown): boolean {
  const plain = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return isDeepStrictEqual(plain(a), plain(b));
}

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

function parseToml(file: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      throw new ConfigFileError(file, `${file} is not valid TOML: line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}. Gatehouse does not change a file it cannot read exactly; fix that line (or move the file aside), then preview again.`, err.line, err.column);
    }
    throw new ConfigFileError(file, `${file} is not valid TOML (${(err as Error).message}); fix it (or move it aside), then preview again.`);
  }
}

/** A table header's key path, unquoted: `[ mcp_servers . "gatehouse" ]` → ["mcp_servers", "gatehouse"]. */
function headerPath(line: string): string[] | null {
  const m = /^\s*\[\[?\s*(.+?)\s*\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return null;
  const parts: string[] = [];
  for (const raw of m[1]!.match(/"(?:[^"\\]|\\.)*"|'[^']*'|[^.]+/g) ?? []) {
    const p = raw.trim();
    if (p === '') continue;
    parts.push(p.startsWith('"') ? (JSON.parse(p) as string) : p.startsWith("'") ? p.slice(1, -1) : p);
  }
  return parts;
}

const ours = (path: string[] | null) => path !== null && path[0] === 'mcp_servers' && path[1] === MCP_SERVER_NAME;

/** The file with Gatehouse's table (and subtables) replaced where the first one was, or appended. */
function replaceTable(text: string, server: Record<string, unknown>): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const block = [MARKER, ...stringify({ mcp_servers: { [MCP_SERVER_NAME]: server } }).trimEnd().split('\n')];
  const lines = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  const out: string[] = [];
  let inserted = false;
  for (let i = 0; i < lines.length; ) {
    if (!ours(headerPath(lines[i]!))) {
      out.push(lines[i]!);
      i++;
      continue;
    }
    // Gatehouse's own marker line above the header goes with it.
    if (out.length > 0 && out[out.length - 1] === MARKER) out.pop();
    let end = i + 1;
    while (end < lines.length && headerPath(lines[end]!) === null) end++;
    // Comments and blank lines just before the next table are that table's, not ours.
    let keep = end;
    while (keep > i + 1 && /^\s*(#.*)?$/.test(lines[keep - 1]!)) keep--;
    if (!inserted) {
      out.push(...block);
      inserted = true;
      // A blank line between Gatehouse's table and whatever follows it.
      const next = lines[keep < end ? keep : end];
      if (next !== undefined && next.trim() !== '') out.push('');
    }
    const tail = lines.slice(keep, end);
    // Where a removed subtable was, one blank line is enough.
    while (tail.length > 0 && tail[0]!.trim() === '' && out.length > 0 && out[out.length - 1]!.trim() === '') tail.shift();
    out.push(...tail);
    i = end;
  }
  if (!inserted) {
    if (out.length > 0 && out[out.length - 1]!.trim() !== '') out.push('');
    out.push(...block);
  }
  return out.join(eol) + eol;
}
