// The MCP client side of the gateway: Gatehouse connects to the upstream MCP servers operators
// register as `mcp` plugins, lists their tools, and re-exposes them to agents as
// `<plugin>__<tool>`, each call going through the registry's run-time check, the plugin's
// breaker, its concurrency cap and a timeout.
//
// Each upstream server is one long-lived plugin process, started exactly like the other plugin
// processes (process-transport.ts): the registry's verifyForRun gate, the host's sandbox plan
// (bwrap, rlimits), a scrubbed environment, its own process group; close() leaves nothing
// running.
//
// Lifecycle of a plugin's connection:
//   sync()  connects every enabled `mcp` plugin that has no connection (or a failed one whose
//           breaker lets it try), and drops the ones that were disabled, removed or changed (a
//           changed plugin is reconnected: its pinned hash is part of the connection's identity).
//   crash   the connection is `failed`; its tools stay listed (agents keep a stable list), and
//           the next call, or sync, starts the server again.
//   hang    a call that times out is cancelled (notifications/cancelled); if the server then
//           does not answer a ping either, it is stopped and restarted on the next call.
//
// Tool poisoning: every tool's name, title, description and schema text goes through the same
// scan as plugin manifests (scanManifestText). A tool with any finding is listed with its
// findings and `exposed: false`; agents do not see it and call() refuses it. The plugin's
// manifest scan could not have seen this text (it comes from the server at run time, and can
// change with every tools/list), so unlike a plugin's scan there is no weight threshold and no
// operator override here: a flagged tool stays hidden until its server offers it without the
// finding. Its other tools are not affected.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginManifest } from '../registry/types.js';
import type { BreakerBoard } from '../runner/breaker-board.js';
import { ConcurrencyLimiter, DEFAULT_CONCURRENCY, QueueFullError } from '../runner/concurrency.js';
import type { Outcome, PluginMetrics } from '../runner/metrics.js';
import { scrubEnv } from '../runner/one-shot.js';
import type { SandboxPlan } from '../runner/sandbox-plan.js';
import { auditOutput } from '../runner/tool-runner.js';
import { version } from '../version.js';
import { MAX_MESSAGE_BYTES, ProcessTransport } from './process-transport.js';
import { scanUpstreamTool, upstreamToolName, type UpstreamFinding } from './upstream-tools.js';
import type { Clock } from '../core/clock.js';
import { kindProvider } from '../registry/kinds/index.js';

export type { UpstreamFinding } from './upstream-tools.js';

export interface UpstreamTool {
  /** Name agents see: `${plugin}__${tool}`, inside ^[a-zA-Z0-9_-]{1,64}$ and unique. */
  name: string;
  plugin: string;
  /** The upstream server's own tool name. */
  tool: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** The server's hints (readOnlyHint, destructiveHint, …): claims of the server, not facts. */
  annotations?: Record<string, unknown>;
  /** Tool-poisoning findings over the tool's name, description and schema text. */
  findings: UpstreamFinding[];
  /** False when there are findings: not offered to agents, and call() refuses it. */
  exposed: boolean;
  /** SHA-256 over the tool as the server described it: a change shows a server altering a tool after it was listed. */
  digest: string;
}

export type UpstreamFailure = 'timeout' | 'crash' | 'bad_output' | 'limit' | 'unavailable' | 'cancelled';

export interface UpstreamCallResult {
  /** The call ran and the tool did not report an error. */
  ok: boolean;
  /** The tool's content blocks (empty when the call failed). */
  content: unknown[];
  structuredContent?: unknown;
  /** A tool error (the server's isError) or a failure: the agent gets a tool result with isError. */
  isError: boolean;
  /** A sentence saying what went wrong (a failure, or the server answering with an error). */
  error?: string;
  /** Set when the call failed on our side or the server's process; absent for a tool's own error. */
  failure?: UpstreamFailure;
  durationMs: number;
  /** The server runs inside the OS sandbox. */
  sandboxed: boolean;
}

export type UpstreamState = 'connecting' | 'ready' | 'failed' | 'closed';

export interface UpstreamStatus {
  plugin: string;
  state: UpstreamState;
  error?: string;
  tools: number;
  /** Tools offered to agents (tools without findings). */
  exposed: number;
  sandboxed: boolean;
  pid: number | null;
}

export interface UpstreamCallOptions {
  /** Default: the manifest's timeout_secs. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Who asked, for the audit log ("agent:…"). Default "agent". */
  actor?: string;
  /** The agent's tool call this serves: recorded with execution.* so the audit joins them to it. */
  callId?: string;
  /** Asked once the call holds its slot, right before it is sent; throws to refuse it (ToolCallOptions.gate). */
  gate?: () => void;
}

export interface UpstreamMcpDeps {
  registry: Pick<PluginRegistry, 'list' | 'verifyForRun'>;
  /** How to confine a plugin; the same function the tool runner gets. */
  sandboxFor(manifest: PluginManifest, dir: string): SandboxPlan;
  breakers?: BreakerBoard;
  metrics?: PluginMetrics;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
  /** The tool list (what tools() returns) changed: tell agents (notifications/tools/list_changed) and consoles. */
  changed(): void;
  log?: (msg: string, err?: unknown) => void;
  /** Accepted for symmetry with the other services; durations use performance.now and breakers keep their own clock. */
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Start + initialize + the first tools/list. Default: the manifest's timeout_secs. */
  connectTimeoutMs?: number;
  /** Calls of one server at once; more wait, FIFO (default 4, like tools). */
  maxConcurrent?: number;
  maxMessageBytes?: number;
  /** After stdin is closed, how long a server may take to exit before SIGTERM, then SIGKILL. */
  closeGraceMs?: number;
  /** How long a server that timed out a call gets to answer a ping before it is restarted. Default 5 s. */
  pingTimeoutMs?: number;
}

/** Upper bounds on what a server's tools/list may return, against a server that pages forever. */
const MAX_PAGES = 100;
const MAX_TOOLS = 1000;
const DEFAULT_PING_TIMEOUT_MS = 5000;

interface Conn {
  plugin: string;
  /** The pinned hash this connection runs; a different one means the plugin changed. */
  signature: string;
  state: UpstreamState;
  error?: string;
  client: Client | null;
  transport: ProcessTransport | null;
  tools: UpstreamTool[];
  timeoutMs: number;
  sandboxed: boolean;
  /** We are stopping it (disabled, removed, changed, host closing): its close is not a crash. */
  closing: boolean;
  connecting: Promise<void> | null;
  relisting: Promise<void> | null;
  relistAgain: boolean;
  pinging: boolean;
}

export class UpstreamMcp {
  private readonly conns = new Map<string, Conn>();
  /** Every transport not yet gone: close() waits for all of them. */
  private readonly transports = new Set<ProcessTransport>();
  private readonly limiter: ConcurrencyLimiter;
  private syncing: Promise<void> = Promise.resolve();
  private lastKey = '[]';
  private closed = false;

  constructor(private readonly deps: UpstreamMcpDeps) {
    this.limiter = new ConcurrencyLimiter({ limit: deps.maxConcurrent ?? DEFAULT_CONCURRENCY });
  }

  /** Brings the connections in line with the registry. Calls are serialised; never rejects. */
  sync(): Promise<void> {
    const run = this.syncing.then(() => this.syncNow());
    this.syncing = run.catch((err) => this.deps.log?.('mcp sync failed', err));
    return this.syncing;
  }

  /** Every listed tool, exposed or not, ordered by name. */
  tools(): UpstreamTool[] {
    return [...this.conns.values()].flatMap((c) => c.tools).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The tools agents may see and call. */
  exposedTools(): UpstreamTool[] {
    return this.tools().filter((t) => t.exposed);
  }

  /** The first exposed tool named `name`, in connection order: the one tools() lists first under it (its sort keeps equal names in that order). */
  exposedTool(name: string): UpstreamTool | undefined {
    for (const c of this.conns.values()) for (const t of c.tools) if (t.name === name && t.exposed) return t;
    return undefined;
  }

  find(name: string): UpstreamTool | undefined {
    for (const c of this.conns.values()) {
      const t = c.tools.find((x) => x.name === name);
      if (t) return t;
    }
    return undefined;
  }

  status(): UpstreamStatus[] {
    return [...this.conns.values()]
      .map((c) => ({
        plugin: c.plugin,
        state: c.state,
        ...(c.error !== undefined ? { error: c.error } : {}),
        tools: c.tools.length,
        exposed: c.tools.filter((t) => t.exposed).length,
        sandboxed: c.sandboxed,
        pid: c.transport?.pid ?? null,
      }))
      .sort((a, b) => a.plugin.localeCompare(b.plugin));
  }

  async call(name: string, args: Record<string, unknown> | null, opts: UpstreamCallOptions = {}): Promise<UpstreamCallResult> {
    const started = performance.now();
    const actor = opts.actor ?? 'agent';
    const fail = (failure: UpstreamFailure, error: string, sandboxed = false): UpstreamCallResult => ({ ok: false, content: [], isError: true, error, failure, durationMs: performance.now() - started, sandboxed });
    if (this.closed) return fail('unavailable', `${name} was not called: Gatehouse is shutting down.`);
    const listed = this.find(name);
    if (!listed) return fail('unavailable', `No upstream MCP tool is named "${name}"; it may have been removed, or its plugin disabled.`);
    if (!listed.exposed) return fail('unavailable', notExposed(listed));
    const plugin = listed.plugin;

    // The same gate as every other execution: enabled, valid, and its files as approved.
    let verified: { manifest: PluginManifest; hash: string };
    try {
      verified = this.deps.registry.verifyForRun(plugin);
    } catch (err) {
      const c = this.conns.get(plugin);
      // Its server goes now, and its tools leave the list, without waiting for the next sync.
      if (c) void this.drop(c, (err as Error).message).then(() => this.emitIfChanged());
      return fail('unavailable', `${name} was not called: ${(err as Error).message}`);
    }
    let c = this.conns.get(plugin);
    if (c && c.signature !== verified.hash) {
      // Approved again with different files: the running server is not what was approved.
      await this.drop(c, 'the plugin changed');
      c = undefined;
    }
    if (!c) {
      await this.connect(plugin, verified.hash);
      this.emitIfChanged();
      c = this.conns.get(plugin);
      if (!c) return fail('unavailable', `${name} was not called: ${plugin} is no longer an enabled mcp plugin.`);
    }

    let release: () => void;
    try {
      release = await this.limiter.acquire(plugin);
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      // Too many calls waiting is the callers' doing, not the server's: no breaker count.
      return fail('limit', err.message, c.sandboxed);
    }
    const breaker = this.deps.breakers?.get(plugin);
    try {
      opts.gate?.();
      const ticket = breaker?.acquire() ?? { ok: true as const, probe: false };
      if (!ticket.ok) {
        this.deps.metrics?.record(plugin, 'error', Number.NaN);
        return fail('unavailable', `${name} was not called: ${plugin} ${ticket.reason}.`, c.sandboxed);
      }
      const settle = (outcome: Outcome | null, failure: string | null, durationMs: number) => {
        if (outcome) this.deps.metrics?.record(plugin, outcome, durationMs);
        if (failure === null) breaker?.success(ticket.probe);
        else breaker?.failure(failure, ticket.probe);
      };

      if (c.state !== 'ready') {
        // Crashed or stopped since it was listed: start it again, once, for this call.
        await this.reopen(c);
        this.emitIfChanged();
        // (reopen changed c.state; TypeScript still narrows it from the test above.)
        if ((c.state as UpstreamState) !== 'ready' || !c.client || !c.transport) {
          const why = `${name} was not called: ${plugin} could not be started again (${c.error ?? c.state}).`;
          settle('spawn', why, Number.NaN);
          return fail('crash', why, c.sandboxed);
        }
      }
      const tool = c.tools.find((t) => t.name === name);
      if (!tool) {
        settle(null, null, 0);
        return fail('unavailable', `${plugin} no longer offers the tool behind ${name}.`, c.sandboxed);
      }
      if (!tool.exposed) {
        settle(null, null, 0);
        return fail('unavailable', notExposed(tool), c.sandboxed);
      }

      const client = c.client!;
      const transport = c.transport!;
      const timeoutMs = opts.timeoutMs ?? c.timeoutMs;
      const sandboxed = c.sandboxed;
      this.deps.record('execution.started', actor, { ...(opts.callId ? { call: opts.callId } : {}), plugin, tool: tool.tool, name, kind: 'mcp', sandboxed });
      const ended = (r: UpstreamCallResult) => {
        this.deps.record('execution.ended', actor, {
          ...(opts.callId ? { call: opts.callId } : {}),
          plugin,
          tool: tool.tool,
          name,
          kind: 'mcp',
          ok: r.ok,
          isError: r.isError,
          durationMs: Math.round(r.durationMs),
          failure: r.failure ?? null,
          error: r.error ?? null,
          ...mcpOutput(r),
        });
        return r;
      };
      try {
        const r = await client.callTool({ name: tool.tool, arguments: args ?? {} }, undefined, { timeout: timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
        const durationMs = performance.now() - started;
        const content = 'content' in r && Array.isArray(r.content) ? (r.content as unknown[]) : [];
        const isError = r.isError === true;
        settle('success', null, durationMs);
        return ended({
          ok: !isError,
          content,
          ...('structuredContent' in r && r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
          isError,
          ...(isError ? { error: `${name} reported an error: ${textOf(content) || '(no message)'}` } : {}),
          durationMs,
          sandboxed,
        });
      } catch (err) {
        const durationMs = performance.now() - started;
        const f = this.classify(err, c, transport, name, timeoutMs, opts.signal);
        if (f.failure === null) {
          // The server answered with a JSON-RPC error: it is alive and said no.
          settle('error', null, durationMs);
          return ended({ ok: false, content: [], isError: true, error: f.message, durationMs, sandboxed });
        }
        if (f.failure === 'cancelled') {
          if (ticket.probe) breaker?.success(true);
        } else if (f.failure === 'unavailable') {
          settle('error', null, durationMs);
        } else {
          settle(f.failure, f.message, durationMs);
        }
        if (f.failure === 'timeout') this.checkAlive(c, transport);
        return ended({ ok: false, content: [], isError: true, error: f.message, failure: f.failure, durationMs, sandboxed });
      }
    } finally {
      release();
    }
  }

  /** Closes every connection; resolves once no server process (or anything it started) is left. */
  async close(): Promise<void> {
    this.closed = true;
    await this.syncing;
    await Promise.all([...this.conns.values()].map((c) => this.drop(c, 'Gatehouse is shutting down')));
    await Promise.all([...this.transports].map((t) => t.close()));
  }

  // --- connections ------------------------------------------------------------------------

  private async syncNow(): Promise<void> {
    if (this.closed) return;
    const wanted = new Map<string, string>();
    for (const e of this.deps.registry.list()) {
      if (e.manifest && kindProvider(e.manifest.kind)?.upstream && e.status === 'enabled') wanted.set(e.name, e.trust?.hash ?? e.digest?.hash ?? '');
    }
    const drops: Promise<void>[] = [];
    for (const c of this.conns.values()) {
      const sig = wanted.get(c.plugin);
      if (sig === undefined) drops.push(this.drop(c, 'the plugin was disabled or removed'));
      else if (sig !== c.signature) drops.push(this.drop(c, 'the plugin changed'));
    }
    await Promise.all(drops);
    this.emitIfChanged();
    const starts: Promise<void>[] = [];
    for (const [plugin, sig] of wanted) {
      const c = this.conns.get(plugin);
      if (!c) starts.push(this.connect(plugin, sig));
      else if (c.state === 'failed' && !c.connecting) starts.push(this.retry(c));
    }
    await Promise.all(starts);
    this.emitIfChanged();
  }

  /** A new connection for a plugin (its breaker permitting). */
  private async connect(plugin: string, signature: string): Promise<void> {
    const c: Conn = { plugin, signature, state: 'connecting', client: null, transport: null, tools: [], timeoutMs: 30_000, sandboxed: false, closing: false, connecting: null, relisting: null, relistAgain: false, pinging: false };
    this.conns.set(plugin, c);
    await this.retry(c);
  }

  /** Start a failed connection again from sync: one attempt, counted by the breaker. */
  private async retry(c: Conn): Promise<void> {
    const breaker = this.deps.breakers?.get(c.plugin);
    const ticket = breaker?.acquire() ?? { ok: true as const, probe: false };
    if (!ticket.ok) {
      c.state = 'failed';
      c.error = `not started: its circuit breaker is ${ticket.reason}`;
      return;
    }
    await this.reopen(c);
    if (c.closing) {
      if (ticket.probe) breaker?.success(true);
    } else if (c.state === 'ready') breaker?.success(ticket.probe);
    else breaker?.failure(c.error ?? 'could not be started', ticket.probe);
  }

  /** Starts the server, initializes, lists its tools; joins an attempt already under way. */
  private reopen(c: Conn): Promise<void> {
    c.connecting ??= this.open(c).finally(() => {
      c.connecting = null;
    });
    return c.connecting;
  }

  private async open(c: Conn): Promise<void> {
    const { plugin } = c;
    c.state = 'connecting';
    delete c.error;
    let transport: ProcessTransport | null = null;
    try {
      const { manifest, dir } = this.deps.registry.verifyForRun(plugin);
      if (!kindProvider(manifest.kind)?.upstream) throw new Error(`${plugin} is a ${manifest.kind} plugin, not an upstream MCP server.`);
      c.timeoutMs = manifest.timeoutSecs * 1000;
      // A long-lived plan: no lifetime CPU limit (sandboxPlan), each call timed by timeout_secs.
      const plan = this.deps.sandboxFor(manifest, dir);
      c.sandboxed = plan.sandboxed;
      transport = new ProcessTransport({
        name: plugin,
        command: join(dir, manifest.command),
        args: manifest.args,
        cwd: dir,
        env: scrubEnv(this.deps.env ?? process.env, manifest.permissions.env),
        wrap: plan.wrap,
        maxMessageBytes: this.deps.maxMessageBytes ?? MAX_MESSAGE_BYTES,
        ...(this.deps.closeGraceMs !== undefined ? { closeGraceMs: this.deps.closeGraceMs } : {}),
        ...(this.deps.log ? { log: this.deps.log } : {}),
      });
      const t = transport;
      this.transports.add(t);
      void t.gone().then(() => this.transports.delete(t));
      const client = new Client({ name: 'gatehouse', version }, { capabilities: {} });
      client.onerror = (err) => this.deps.log?.(`mcp ${plugin}: ${err.message}`);
      client.onclose = () => this.onClosed(c, t);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.relist(c, t));
      c.client = client;
      c.transport = t;
      const timeout = this.deps.connectTimeoutMs ?? c.timeoutMs;
      await client.connect(t, { timeout });
      c.sandboxed = t.sandboxed;
      if (c.closing) return;
      const tools = await listAllTools(client, timeout);
      if (c.closing) return;
      if (c.transport !== t) throw new Error('the connection closed while its tools were listed');
      c.tools = this.build(plugin, tools, c.tools);
      c.state = 'ready';
      // A tools/list_changed that came while the first listing was under way.
      if (c.relistAgain) {
        c.relistAgain = false;
        this.relist(c, t);
      }
      const server = client.getServerVersion();
      this.deps.record('mcp.connected', 'host', {
        plugin,
        pid: t.pid,
        sandboxed: t.sandboxed,
        server: server ? { name: server.name, version: server.version } : null,
        tools: c.tools.length,
        exposed: c.tools.filter((x) => x.exposed).length,
      });
      if (!t.sandboxed && plan.warning) this.deps.log?.(plan.warning);
    } catch (err) {
      if (c.closing) return;
      const t = transport;
      const message = describeConnectError(plugin, err, t);
      c.state = 'failed';
      c.error = message;
      c.client = null;
      c.transport = null;
      this.deps.record('mcp.connect-failed', 'host', { plugin, pid: t?.pid ?? null, error: message, failure: t?.failure?.kind ?? null, stderrTail: t?.stderrTail().slice(-500) ?? '' });
      // Nothing of a failed attempt may keep running.
      await t?.close();
    }
  }

  /** The server's process ended while we were not stopping it. */
  private onClosed(c: Conn, t: ProcessTransport): void {
    if (c.closing || c.transport !== t) return;
    c.transport = null;
    c.client = null;
    // While connecting, open() reports the failure with the right sentence.
    if (c.state === 'connecting') return;
    c.state = 'failed';
    c.error = t.failure?.message ?? t.describeExit();
    this.deps.record('mcp.disconnected', 'host', { plugin: c.plugin, pid: t.pid, reason: c.error, failure: t.failure?.kind ?? 'crash', stderrTail: t.stderrTail().slice(-500) });
  }

  /** Stops a connection we no longer want; its tools leave the list. */
  private async drop(c: Conn, reason: string): Promise<void> {
    if (this.conns.get(c.plugin) === c) this.conns.delete(c.plugin);
    if (c.closing) return;
    c.closing = true;
    const t = c.transport;
    const client = c.client;
    c.state = 'closed';
    c.client = null;
    c.transport = null;
    c.tools = [];
    this.deps.record('mcp.disconnected', 'host', { plugin: c.plugin, pid: t?.pid ?? null, reason, failure: null });
    try {
      await client?.close();
    } catch (err) {
      this.deps.log?.(`mcp ${c.plugin}: close failed`, err);
    }
    await t?.close();
    await c.connecting;
  }

  /** A call timed out: a server that does not answer a ping either is stopped, to start afresh on the next call. */
  private checkAlive(c: Conn, t: ProcessTransport): void {
    const client = c.client;
    if (!client || c.transport !== t || c.pinging) return;
    c.pinging = true;
    client
      .ping({ timeout: this.deps.pingTimeoutMs ?? DEFAULT_PING_TIMEOUT_MS })
      .then(
        () => undefined,
        () => {
          if (c.closing || c.transport !== t) return;
          const reason = `${c.plugin} stopped answering (a call timed out and a ping got no answer); it was stopped and starts again on the next call.`;
          c.transport = null;
          c.client = null;
          c.state = 'failed';
          c.error = reason;
          this.deps.record('mcp.disconnected', 'host', { plugin: c.plugin, pid: t.pid, reason, failure: 'timeout' });
          return t.close();
        },
      )
      .finally(() => {
        c.pinging = false;
      });
  }

  /** notifications/tools/list_changed: list again; notifications arriving meanwhile cause one more listing, not one each. */
  private relist(c: Conn, t: ProcessTransport): void {
    if (c.transport !== t) return;
    if (c.state === 'connecting') {
      c.relistAgain = true;
      return;
    }
    if (c.state !== 'ready') return;
    if (c.relisting) {
      c.relistAgain = true;
      return;
    }
    c.relisting = (async () => {
      do {
        c.relistAgain = false;
        const client = c.client;
        if (!client) return;
        try {
          const listed = await listAllTools(client, c.timeoutMs);
          if (c.transport !== t || c.closing) return;
          const before = new Map(c.tools.map((x) => [x.tool, x]));
          c.tools = this.build(c.plugin, listed, c.tools);
          const after = new Map(c.tools.map((x) => [x.tool, x]));
          const added = [...after.keys()].filter((k) => !before.has(k));
          const removed = [...before.keys()].filter((k) => !after.has(k));
          const altered = [...after.keys()].filter((k) => before.has(k) && before.get(k)!.digest !== after.get(k)!.digest);
          this.deps.record('mcp.tools-changed', 'host', { plugin: c.plugin, added, removed, altered, tools: c.tools.length, exposed: c.tools.filter((x) => x.exposed).length });
          this.emitIfChanged();
        } catch (err) {
          this.deps.log?.(`mcp ${c.plugin}: listing its tools again failed`, err);
        }
      } while (c.relistAgain && c.transport === t);
    })().finally(() => {
      c.relisting = null;
    });
  }

  /** The server's tools as agents will see them: named, scanned, and flagged ones recorded. */
  private build(plugin: string, listed: Tool[], previous: UpstreamTool[]): UpstreamTool[] {
    // Names other plugins already use; this plugin's earlier names are kept where possible.
    const taken = new Set<string>();
    for (const c of this.conns.values()) if (c.plugin !== plugin) for (const t of c.tools) taken.add(t.name);
    const prevName = new Map(previous.map((t) => [t.tool, t.name]));
    const prevDigest = new Map(previous.map((t) => [t.tool, t.digest]));
    const out: UpstreamTool[] = [];
    const seen = new Set<string>();
    for (const t of listed) {
      if (seen.has(t.name)) {
        this.deps.log?.(`mcp ${plugin}: lists the tool "${t.name}" twice; the first is used`);
        continue;
      }
      seen.add(t.name);
      const keep = prevName.get(t.name);
      const name = keep && !taken.has(keep) ? keep : upstreamToolName(plugin, t.name, taken);
      taken.add(name);
      const findings = scanUpstreamTool(plugin, t);
      const digest = createHash('sha256')
        .update(JSON.stringify([t.name, t.title ?? null, t.description ?? '', t.inputSchema, t.outputSchema ?? null, t.annotations ?? null]))
        .digest('hex');
      const tool: UpstreamTool = {
        name,
        plugin,
        tool: t.name,
        ...(t.title ? { title: t.title } : {}),
        description: t.description ?? '',
        inputSchema: t.inputSchema as Record<string, unknown>,
        ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
        ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
        findings,
        exposed: findings.length === 0,
        digest,
      };
      if (findings.length > 0 && prevDigest.get(t.name) !== digest) {
        this.deps.record('mcp.tool-flagged', 'host', { plugin, tool: t.name, name, findings });
      }
      out.push(tool);
    }
    return out;
  }

  /** Calls changed() when what tools() returns differs from the last time it was called. */
  private emitIfChanged(): void {
    const key = JSON.stringify(this.tools().map((t) => [t.name, t.exposed, t.digest]));
    if (key === this.lastKey) return;
    this.lastKey = key;
    try {
      this.deps.changed();
    } catch (err) {
      this.deps.log?.('mcp: changed() callback failed', err);
    }
  }

  private classify(err: unknown, c: Conn, t: ProcessTransport, name: string, timeoutMs: number, signal: AbortSignal | undefined): { failure: UpstreamFailure | null; message: string } {
    const msg = err instanceof Error ? err.message : String(err);
    if (signal?.aborted) return { failure: 'cancelled', message: `${name} was cancelled by the caller; the server was told to stop (notifications/cancelled).` };
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
      return { failure: 'timeout', message: `${name} did not answer within ${formatMs(timeoutMs)}; the call was cancelled.` };
    }
    if (c.closing) return { failure: 'unavailable', message: `${name} was stopped: its plugin was disabled, changed or removed while the call ran.` };
    if (t.failure) return { failure: t.failure.kind === 'spawn' ? 'crash' : t.failure.kind, message: `${name} failed: ${t.failure.message} It starts again on the next call.` };
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return { failure: 'crash', message: `${name} failed: ${t.describeExit()}. It starts again on the next call.` };
    if (err instanceof McpError && /output schema|structured content/i.test(msg)) return { failure: 'bad_output', message: `${name} returned a result that breaks its own output schema: ${msg}` };
    if (err instanceof McpError) return { failure: null, message: `${name} answered with an error: ${msg.replace(/^MCP error -?\d+: /, '')}` };
    // A response that is not a CallToolResult (the SDK's schema rejected it).
    return { failure: 'bad_output', message: `${name} returned a result that is not a valid MCP tool result: ${msg.slice(0, 300)}` };
  }
}

/** tools/list, every page, bounded. */
async function listAllTools(client: Client, timeout: number): Promise<Tool[]> {
  const out: Tool[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    out.push(...r.tools);
    if (out.length > MAX_TOOLS) throw new Error(`lists more than ${MAX_TOOLS} tools`);
    cursor = r.nextCursor;
    if (cursor === undefined) return out;
    if (cursors.has(cursor)) throw new Error(`sent the page cursor ${JSON.stringify(cursor.slice(0, 40))} twice; its tool list never ends`);
    cursors.add(cursor);
  }
  throw new Error(`sent more than ${MAX_PAGES} pages of tools`);
}

function describeConnectError(plugin: string, err: unknown, t: ProcessTransport | null): string {
  if (t?.failure) return t.failure.message;
  const msg = err instanceof Error ? err.message : String(err);
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return `${plugin} did not complete the MCP handshake (initialize and tools/list) in time and was stopped.`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed && t) return `${t.describeExit()} (before the MCP handshake was complete)`;
  return `${plugin} could not be connected: ${msg.replace(/^MCP error -?\d+: /, '')}`;
}

function notExposed(t: UpstreamTool): string {
  const first = t.findings[0];
  return `${t.name} is not offered to agents: the security scan flagged its description or schema as text aimed at the model (${t.findings.length} finding${t.findings.length === 1 ? '' : 's'}${first ? `; ${first.rule}: ${first.message}` : ''}).`;
}

function textOf(content: unknown[]): string {
  return content
    .map((b) => (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : ''))
    .filter(Boolean)
    .join('\n')
    .slice(0, 500);
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * One content item as JSON, or a note when it nests deeper than the stack goes: thrown here, the
 * answer that had been counted a success was counted again as a failure (the gateway answers such
 * a result as the tool's bad output).
 */
function writeOut(c: unknown): string {
  try {
    return JSON.stringify(c);
  } catch (err) {
    return `(a content item Gatehouse could not write out: ${(err as Error).message})`;
  }
}

/** The result's content as text for execution.ended: its size and the first part of it. */
function mcpOutput(r: UpstreamCallResult): { outputBytes: number; output: string; outputTruncated: boolean } {
  const text = r.content.map((c) => (c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : writeOut(c))).join('\n');
  return { outputBytes: Buffer.byteLength(text), ...auditOutput(text) };
}
