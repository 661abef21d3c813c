// The gateway: where an agent's request becomes one ToolCall and goes through the pipeline.
// Every ingress (MCP over HTTP or the stdio bridge, Claude Code hooks, the small HTTP API) calls
// `call()`; this class knows which tools agents may see and how each one runs:
//  - a `tool` plugin's tool → ToolRunner (one-shot, limits, sandbox; `pty = true` tools in a
//    terminal the operators watch, with the same limits and sandbox);
//  - an `mcp` plugin's tool → UpstreamMcp (the upstream server, namespaced);
//  - the built-in `shell` tool → a PTY the operators can watch (Terminals view).
// Plain class; its collaborators are passed in.
import { randomUUID } from 'node:crypto';
import { CallPipeline, type HandleOptions, type PipelineDeps, type PipelineResult, type ToolResult } from '../pipeline/call-pipeline.js';
import { Autonomy, type Classification, type TaintRegistry } from '../policy/autonomy.js';
import type { Extraction, ToolCall } from '../policy/types.js';
import type { PluginEntry, PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginManifest } from '../registry/types.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import { secretInReach } from '../runner/sandbox.js';
import type { SettingsStore } from './settings-store.js';
import { BUILTIN_SHELL_TOOL, runShellTool, type ShellToolDeps } from './shell-tool.js';
import { cleanLabel } from './agent-tokens.js';
import { checkClaudeToolInput } from './claude-tool-inputs.js';
import { checkArguments } from './tool-arguments.js';
import { jsonTooDeep, MAX_ARGUMENT_NESTING } from '../json-depth.js';
import { manifestReadsOnly, pluginToolAnnotations, SHELL_TOOL_ANNOTATIONS, upstreamToolAnnotations, type ToolAnnotations } from './tool-annotations.js';
import type { Clock } from '../core/clock.js';
import { kindInfo, kindProvider, singleToolByPluginName } from '../registry/kinds/index.js';

/** One tool as agents see it (MCP tools/list). */
export interface AgentTool {
  /** ^[a-zA-Z0-9_-]{1,64}$ */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  kind: 'builtin' | 'tool' | 'mcp';
  /** The plugin that provides it (null for built-ins). */
  plugin: string | null;
  /** The tool's name inside its plugin (or upstream server). */
  pluginTool: string | null;
  classification: Classification;
  /** A display name (upstream tools: the server's own). */
  title?: string;
  /** MCP's behaviour hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint): tool-annotations.ts. */
  annotations?: ToolAnnotations;
  /** JSON Schema of `structuredContent` (upstream tools that declare one). */
  outputSchema?: Record<string, unknown>;
}

/** One upstream server's tool as the gateway reads it. */
export interface UpstreamToolInfo {
  name: string;
  plugin: string;
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  exposed: boolean;
  title?: string;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** What the gateway needs of the upstream MCP connections (UpstreamMcp fits). */
export interface UpstreamTools {
  /** Every connection's tools, sorted by name (equal names in the order of exposedTool's search). */
  tools(): ReadonlyArray<UpstreamToolInfo>;
  /** The first exposed tool named `name`, in the order tools() lists equal names; without sorting them all. */
  exposedTool(name: string): UpstreamToolInfo | undefined;
  call(name: string, args: Record<string, unknown> | null, opts?: { timeoutMs?: number; actor?: string; callId?: string; gate?: () => void; signal?: AbortSignal }): Promise<{ ok: boolean; content: unknown[]; structuredContent?: unknown; isError: boolean; error?: string; failure?: string; durationMs: number }>;
}

export interface IncomingCall {
  /** A call id chosen by the caller (the console's test call records it before sending); default: a new one. */
  id?: string;
  /** The authenticated agent (the agent token's name), never a name the client chose. */
  agent: string;
  /** Bound to the transport and namespaced by the agent by the ingress (agent-tokens.ts). */
  session: string;
  tool: string;
  arguments: Record<string, unknown> | null;
  cwd?: string;
  source: ToolCall['source'];
  /** What the client says it is: a label, cleaned to the safe character set. */
  client?: string;
}

export type GatewayCallOptions = HandleOptions;

/** The result an agent gets: the pipeline's, plus the tool's output when it ran. */
export interface GatewayResult extends PipelineResult {
  call: ToolCall;
  /** MCP-shaped content for a call that ran. */
  content?: unknown[];
  structuredContent?: unknown;
}

export type GatewayDeps = Omit<PipelineDeps, 'run' | 'autonomy' | 'mode' | 'toolClassification' | 'toolReadsOnly' | 'taint'> & {
  registry: PluginRegistry;
  toolRunner: ToolRunner;
  upstream?: UpstreamTools | null;
  settings: SettingsStore;
  taint: TaintRegistry;
  shell?: ShellToolDeps | null;
  /** Working directory of calls that name none (the host's). */
  defaultCwd: string;
  /** Gatehouse's own folder: a tool that may read it is no confined reader (secretInReach). */
  gatehouseHome?: string;
  clock?: Clock;
  newId?: () => string;
  /**
   * The audit log's durability (AuditStore fits). With it, a call's answer is sent only once its
   * events are on disk, a tool runs only once its decision is, and a call whose events could not
   * be written (the disk is full) is denied with the log's own sentence.
   */
  durability?: {
    mark(): number;
    whenDurable(mark: number): Promise<void>;
    whenCallDurable?(call: string): Promise<void>;
    /** Why the log cannot take events now (its file deleted or replaced, appends failing), looked at now; null while it can. */
    failure?(): string | null;
  };
};

export const AGENT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class Gateway {
  private readonly pipeline: CallPipeline;
  private readonly newId: () => string;
  private readonly now: () => number;
  private autonomyCache: { key: string; value: Autonomy } | null = null;
  /** Each running call's audit mark (durability.mark() when it arrived). */
  private readonly auditMarks = new WeakMap<ToolCall, number>();
  /** Each call's "the caller is gone" signal (a cancelled MCP request, a closed connection), asked by the runner's gate. */
  private readonly callerGone = new WeakMap<ToolCall, AbortSignal>();

  constructor(private readonly deps: GatewayDeps) {
    this.newId = deps.newId ?? (() => `call-${randomUUID()}`);
    this.now = () => (deps.clock ?? Date).now();
    // The host's clock stamps calls (receivedAt); step timings use the pipeline's own
    // monotonic, sub-millisecond clock.
    const { clock: _wallClock, ...pipelineDeps } = deps;
    const common: PipelineDeps = {
      ...pipelineDeps,
      autonomy: () => this.autonomy(),
      mode: () => deps.settings.current.mode,
      taint: (session) => deps.taint.get(session),
      toolClassification: (call) => this.find(call.tool)?.classification,
      toolReadsOnly: (call) => this.confinedReader(call.tool),
      run: (call, x) => this.run(call, x),
    };
    this.pipeline = new CallPipeline(common);
  }

  private autonomy(): Autonomy {
    const s = this.deps.settings.current;
    const key = JSON.stringify([s.autonomy, s.autoApprove, s.alwaysAsk]);
    if (this.autonomyCache?.key !== key) this.autonomyCache = { key, value: new Autonomy({ level: s.autonomy, autoApprove: s.autoApprove, alwaysAsk: s.alwaysAsk }) };
    return this.autonomyCache.value;
  }

  /** The tools agents may call now: enabled plugin tools, exposed upstream tools, the shell. */
  tools(): AgentTool[] {
    const out: AgentTool[] = [];
    if (this.deps.shell) out.push(shellTool());
    for (const e of this.deps.registry.list()) {
      const m = callableManifest(e);
      if (!m) continue;
      const single = m.tools.length === 1 && singleToolByPluginName(m);
      for (const t of m.tools) {
        const name = single ? m.name : `${m.name}__${t.name}`;
        if (AGENT_TOOL_NAME.test(name)) out.push(pluginTool(m, t, name));
      }
    }
    const taken = new Set(out.map((t) => t.name));
    for (const t of this.deps.upstream?.tools() ?? []) {
      // A tool plugin may already hold the name (`fs__read_file`): the first one keeps it.
      if (!t.exposed || !AGENT_TOOL_NAME.test(t.name) || taken.has(t.name)) continue;
      out.push(this.upstreamTool(t));
    }
    return out;
  }

  /**
   * The tool agents call `name`: the one tools() lists first under that name. Asked several times
   * for every call (the ingress, the judgement, the level's classification, the confined-reader
   * check, the run), so it looks up only the plugins that could make the name and builds only the
   * tool it finds: building the whole list each time made every call pay for every enabled
   * plugin's tools and for sorting every upstream server's (24 µs a lookup with 200 plugins,
   * 130 µs with 1000, ~35 µs more per 100 upstream tools).
   */
  find(name: string): AgentTool | undefined {
    if (this.deps.shell && name === BUILTIN_SHELL_TOOL) return shellTool();
    if (!AGENT_TOOL_NAME.test(name)) return undefined;
    // The plugins that could make it: one named `name` (a kind that names a lone tool by its
    // plugin), and one named by the part before each `__` (<plugin>__<tool>). Plugin names have no
    // `__` and do not end in `_`, so that is one plugin at most; every split is tried all the same,
    // and of two the one first in the list (the registry's order) wins, as in tools().
    const candidates: Array<[PluginEntry | undefined, string | null]> = [[this.deps.registry.get(name), null]];
    for (let at = name.indexOf('__', 1); at !== -1; at = name.indexOf('__', at + 1)) candidates.push([this.deps.registry.get(name.slice(0, at)), name.slice(at + 2)]);
    let first: { e: PluginEntry; tool: AgentTool } | null = null;
    for (const [e, inner] of candidates) {
      const tool = e ? toolNamed(e, name, inner) : null;
      if (e && tool && (!first || e.name.localeCompare(first.e.name) < 0)) first = { e, tool };
    }
    if (first) return first.tool;
    const t = this.deps.upstream?.exposedTool(name);
    return t ? this.upstreamTool(t) : undefined;
  }

  private upstreamTool(t: UpstreamToolInfo): AgentTool {
    const entry = this.deps.registry.get(t.plugin);
    return {
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      kind: 'mcp',
      plugin: t.plugin,
      pluginTool: t.tool,
      classification: entry?.manifest?.classification ?? 'INTERNAL',
      // The server's own title, hints and output schema (scanned with the rest of the tool).
      ...(t.title ? { title: t.title } : {}),
      annotations: upstreamToolAnnotations(t.annotations, entry?.manifest ?? null),
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
    };
  }

  /** Resolves with null once the host has started, or with why it could not (judgeAfter). */
  private startUp: Promise<string | null> = Promise.resolve(null);

  /** Calls wait for the host's first scan (plugins, checkers, upstream servers) before they are judged. */
  judgeAfter(startUp: Promise<unknown>): void {
    this.startUp = startUp.then(
      () => null,
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  }

  /**
   * Resolves once the host's first scan is over (however it ended). The ingresses list and look up
   * tools after it: an agent connecting the moment `gatehouse serve` listens was told an enabled
   * tool did not exist (an empty tools/list, "Unknown tool" for its call) until the scan ended.
   */
  async whenStarted(): Promise<void> {
    await this.startUp;
  }

  /**
   * A tool plugin that can only read: its manifest (manifestReadsOnly) and the sandbox it runs in
   * now. A plugin that would run unsandboxed (no bubblewrap, trusted with sandbox = "none"), a
   * terminal (pty) tool, WebAssembly, module and upstream tools keep their judgement, whatever
   * their manifest or annotations claim; so does one whose read paths reach a secret folder.
   */
  private confinedReader(name: string): boolean {
    const t = this.find(name);
    if (t?.kind !== 'tool' || !t.plugin) return false;
    const e = this.deps.registry.get(t.plugin);
    const m = e?.manifest;
    if (!e || !m || !kindProvider(m.kind)?.confinedByManifest || m.pty || !manifestReadsOnly(m)) return false;
    // Not cached per plugin version: a read path that does not exist yet, or a folder on it, can
    // become a symlink into ~/.ssh between two calls (an agent can make one), so the links are
    // followed again for each call; a few realpaths, against a judgement that would skip the operator.
    if (secretInReach(m, e.dir, this.deps.gatehouseHome !== undefined ? { gatehouseHome: this.deps.gatehouseHome } : {}) !== null) return false;
    return this.deps.toolRunner.sandboxedNow(t.plugin);
  }

  /** Releases the waiting calls a grant now allows (CallPipeline.releaseWaiting); how many. */
  releaseWaiting(): Promise<number> {
    return this.pipeline.releaseWaiting();
  }

  /** Builds the ToolCall and runs it through the pipeline. Never throws: failures are denials. */
  async call(input: IncomingCall, opts: GatewayCallOptions = {}): Promise<GatewayResult> {
    const call: ToolCall = {
      id: input.id || this.newId(),
      // The ingresses validate names with a clear error; this is the last guard, so that no name
      // with control or bidi characters reaches the audit log, the inbox or a terminal as such.
      agent: cleanLabel(input.agent, 'unknown'),
      // 200: a bound session is the agent's name (≤ 64), "/" and the client's session (≤ 128).
      session: cleanLabel(input.session, 'default', 200),
      tool: input.tool,
      arguments: input.arguments,
      cwd: input.cwd || this.deps.defaultCwd,
      source: input.source,
      receivedAt: this.now(),
      ...(input.client !== undefined ? { client: cleanLabel(input.client, 'unknown') } : {}),
    };
    const execute = opts.execute ?? true;
    // Taken before anything of this call is recorded: every answer, a refusal before judgement too,
    // waits for this call's record below (a refusal used to be answered with its events lost).
    const durability = this.deps.durability;
    const mark = durability?.mark();
    if (mark !== undefined) this.auditMarks.set(call, mark);
    if (opts.signal) this.callerGone.set(call, opts.signal);
    let r: PipelineResult = await this.judge(call, opts, execute);
    if (durability && mark !== undefined) {
      try {
        await this.durable(call, mark);
      } catch (err) {
        // Nothing is decided that is not recorded: the answer becomes a deny with the log's reason.
        // A tool that already ran keeps its result (what happened must still be told).
        if (!r.executed) r = { ...r, decision: 'deny', decider: { kind: 'error', message: (err as Error).message }, reason: (err as Error).message };
      }
    }
    const out: GatewayResult = { ...r, call };
    const res = r.result as (ToolResult & { content?: unknown[]; structuredContent?: unknown }) | undefined;
    if (res?.content) out.content = res.content;
    if (res && res.structuredContent !== undefined) out.structuredContent = res.structuredContent;
    return out;
  }

  /** The refusals before judgement, then the pipeline: what call() answers once it is on record. */
  private async judge(call: ToolCall, opts: GatewayCallOptions, execute: boolean): Promise<PipelineResult> {
    // SECURITY: no call is judged before the host's first scan is done. Until then the enabled
    // checkers and plugins are not known, and a hook call sent the moment `gatehouse serve`
    // listened was judged without the checkers an operator enabled (a start-up window open).
    const notStarted = await this.startUp;
    if (notStarted !== null) return this.refuse(call, 'start-up failed', `Gatehouse did not finish starting (${notStarted}), so it cannot judge calls with the checkers and plugins it was given. Fix what the host's log names and restart it.`);
    // SQLite's JSON functions stop at 1,000 levels and the audit index reads every payload with
    // them: one call with deeper arguments failed its whole batch of events, every agent's. So
    // such a call is refused here, where every ingress passes, and recorded without its arguments.
    const deep = jsonTooDeep(call.arguments, MAX_ARGUMENT_NESTING);
    if (deep !== null) {
      // Recorded without them: they are what broke the audit index.
      return this.refuse(call, 'arguments nested too deep', `The call's arguments nest more than ${MAX_ARGUMENT_NESTING} levels deep (at ${deep}); Gatehouse does not judge such arguments. Send flatter arguments.`, false);
    }
    // A call of one of Claude Code's own tools, which Claude Code runs (a hook: decided here, not
    // run): the judge reads its fields by name, so a field of the wrong type or a missing one would
    // be judged as absent, a harmless call. Refused instead, naming the field.
    if (!execute) {
      const input = checkClaudeToolInput(call.tool, call.arguments, call.source === 'hook' ? 'tool_input' : 'arguments');
      if (input && !input.ok) return this.refuse(call, 'malformed tool input', input.message);
    }
    // A tool agents cannot see is not run (a hook names Claude Code's own tools, which it runs itself).
    if (execute) {
      const tool = this.find(call.tool);
      if (!tool) return this.refuse(call, 'unknown tool', `Gatehouse has no tool named ${JSON.stringify(call.tool)} enabled. Ask an operator to enable the plugin that provides it.`);
      // A plugin never receives what its inputSchema rules out, whichever ingress sent the call:
      // /mcp answers such a call with InvalidParams before it gets here; the agent API did not check.
      const checked = checkArguments(call.tool, tool.inputSchema, call.arguments ?? {});
      if (!checked.ok) return this.refuse(call, 'invalid arguments', checked.message);
    }
    return this.pipeline.handle(call, { ...opts, execute });
  }

  /**
   * This call's events are on disk. Asked per call when the log can tell (call-trails.ts): a batch
   * of other calls failing meanwhile does not turn this call's recorded allow into a runner-error
   * deny, which wrote a second, contradicting decision for it.
   */
  private async durable(call: ToolCall, mark: number): Promise<void> {
    const d = this.deps.durability;
    if (!d) return;
    if (d.whenCallDurable) await d.whenCallDurable(call.id);
    else await d.whenDurable(mark);
  }

  /** Denies a call before it is judged (the error is the decider), recorded as received, decided and not run. */
  private refuse(call: ToolCall, why: string, message: string, recordArguments = true): GatewayResult {
    const decider = { kind: 'error' as const, message: why };
    const mode = this.deps.settings.current.mode;
    this.deps.record('call.received', `agent:${call.agent}`, { call: call.id, agent: call.agent, session: call.session, tool: call.tool, arguments: recordArguments ? call.arguments : null, source: call.source, cwd: call.cwd, ...(call.client !== undefined ? { client: call.client } : {}) });
    this.deps.record('call.decided', 'host', { call: call.id, decision: 'deny', decider, reason: message });
    this.deps.record('call.result', 'host', { call: call.id, decision: 'deny', executed: false, mode });
    return { call, decision: 'deny', decider, reason: message, steps: [], executed: false, mode };
  }

  /** The runner step: maps the agent's tool to what provides it. */
  private async run(call: ToolCall, x: Extraction): Promise<ToolResult> {
    const tool = this.find(call.tool);
    if (!tool) throw new Error(`the tool ${call.tool} is no longer available (its plugin was disabled or changed)`);
    const actor = `agent:${call.agent}`;
    // The decision is on disk before anything runs (a full disk denies here, as a runner error).
    const mark = this.auditMarks.get(call);
    if (mark !== undefined) await this.durable(call, mark);
    // Asked again right before anything starts: after the wait for the decision to reach the disk
    // (the shell tool), and once the call holds its plugin's slot. A call queued behind others, or
    // held by a slow or locked log, started after the operator switched to dry-run, or after the
    // log was found deleted (every call is then denied), because both were checked only before the
    // wait (reviews ran all three). And a call whose agent cancelled it or dropped its connection
    // meanwhile is not started for nobody: the approval wait withdrew such a call, the runner's
    // queue did not (it ran with its answer thrown away).
    const signal = this.callerGone.get(call);
    const gate = () => {
      if (this.deps.settings.current.mode !== 'live') throw new Error('Gatehouse was switched to dry-run while this call waited (for its decision to reach the audit log, or for a free slot of its plugin), so it was not run.');
      const lost = this.deps.durability?.failure?.() ?? null;
      if (lost !== null) throw new Error(`it was not run: ${lost}`);
      if (signal?.aborted) throw new Error(`it was not run: the agent cancelled the call or its connection ended while it waited (${typeof signal.reason === 'string' ? signal.reason : 'cancelled'}).`);
    };
    let result: ToolResult & { content?: unknown[]; structuredContent?: unknown };
    if (tool.kind === 'builtin') {
      if (!this.deps.shell) throw new Error('the shell tool is not available in this host');
      // Nothing awaits between the gate and the start of the command.
      gate();
      // Confined to what policy judged: the paths and hosts extracted from the command.
      result = await runShellTool(this.deps.shell, call, x);
    } else if (tool.kind === 'tool') {
      // `pty = true`: a terminal operators watch live (the runner re-checks the files first).
      const pty = this.deps.registry.get(tool.plugin!)?.manifest?.pty === true;
      result = pty
        ? await this.deps.toolRunner.callPty(tool.plugin!, tool.pluginTool!, call.arguments ?? {}, { actor, callId: call.id, agentTool: tool.name, gate })
        : await this.deps.toolRunner.call(tool.plugin!, tool.pluginTool!, call.arguments ?? {}, { actor, callId: call.id, gate });
      result = nestedTooDeep(result, tool.name);
      if (result.ok) result.content = [{ type: 'text', text: JSON.stringify(result.output) }];
      if (result.ok && result.output) result.structuredContent = result.output;
    } else {
      const up = this.deps.upstream;
      if (!up) throw new Error('upstream MCP servers are not available in this host');
      // The signal also tells the upstream server to stop a call the agent cancels while it runs.
      const r = await up.call(tool.name, call.arguments, { actor, callId: call.id, gate, ...(signal ? { signal } : {}) });
      result = {
        ok: r.ok && !r.isError,
        output: null,
        error: r.ok ? (r.isError ? textOf(r.content) || 'the upstream tool reported an error' : null) : (r.error ?? 'the upstream server failed'),
        failure: (r.ok ? null : (r.failure ?? 'error')) as ToolResult['failure'],
        stdout: '',
        stderr: '',
        exitCode: null,
        durationMs: r.durationMs,
        sandboxed: false,
        content: r.content,
        ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
      };
      result = nestedTooDeep(result, tool.name);
    }
    // Taint: what the tool returned is now in the agent's session.
    if (result.ok) this.deps.taint.get(call.session).raise(tool.classification, tool.plugin ?? tool.name);
    // A module plugin's context.escalateTaint(level) raises the session's taint as Triggerfish's does (never lowers it).
    if (result.ok && result.taint) this.deps.taint.get(call.session).raise(result.taint, tool.plugin ?? tool.name);
    return result;
  }
}

/** Levels of objects and arrays a tool's result may have (the agent's arguments may have MAX_ARGUMENT_NESTING). */
export const MAX_RESULT_NESTING = 256;

/**
 * The result as a failure of the tool when what it returned nests deeper than MAX_RESULT_NESTING.
 * Security-sensitive: a plugin printing 300,000 nested arrays ran, then the result's serialising
 * overflowed the stack, and the call was recorded and answered as a runner error's deny, not
 * executed: a hostile plugin's runs hidden behind a decision that says nothing ran. Now the call
 * stays executed, with a bad-output failure saying why.
 */
function nestedTooDeep<R extends ToolResult & { content?: unknown[]; structuredContent?: unknown }>(result: R, tool: string): R {
  const at = jsonTooDeep([result.output, result.content ?? null, result.structuredContent ?? null], MAX_RESULT_NESTING + 1);
  if (at === null) return result;
  const { content: _c, structuredContent: _s, ...rest } = result;
  return { ...rest, ok: false, output: null, failure: 'bad_output', error: `${tool} returned a result nested deeper than ${MAX_RESULT_NESTING} levels of objects and arrays (at ${at.replace(/^\[\d\]\.?/, '') || 'its top'}); Gatehouse did not pass it on.` } as R;
}

function textOf(content: unknown[]): string {
  return content
    .map((c) => (c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' ? String((c as { text?: unknown }).text ?? '') : ''))
    .filter(Boolean)
    .join('\n');
}

/** The built-in shell tool as agents see it. */
function shellTool(): AgentTool {
  return {
    name: BUILTIN_SHELL_TOOL,
    description: 'Runs a shell command on the operator\'s machine in a terminal the operators can watch, and returns its output and exit code.',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command line, run by /bin/sh -c.' }, cwd: { type: 'string', description: 'Working directory (default: the agent\'s).' } },
      required: ['command'],
      additionalProperties: false,
    },
    kind: 'builtin',
    plugin: null,
    pluginTool: null,
    classification: 'PUBLIC',
    title: 'Shell (supervised by Gatehouse)',
    annotations: SHELL_TOOL_ANNOTATIONS,
  };
}

/** An enabled plugin's manifest, when its kind's tools are called through the gateway. */
function callableManifest(e: PluginEntry): PluginManifest | null {
  return e.status === 'enabled' && e.manifest && kindInfo(e.manifest.kind)?.callable ? e.manifest : null;
}

/**
 * The tool of plugin `e` agents call `name`, if it has one: `inner` null for the name of a kind
 * that names its lone tool by its plugin, else the tool's own name after `<plugin>__`.
 */
function toolNamed(e: PluginEntry, name: string, inner: string | null): AgentTool | null {
  const m = callableManifest(e);
  if (!m) return null;
  const single = m.tools.length === 1 && singleToolByPluginName(m);
  if (inner === null ? !single || m.name !== name : single || name !== `${m.name}__${inner}`) return null;
  const t = inner === null ? m.tools[0] : m.tools.find((x) => x.name === inner);
  return t ? pluginTool(m, t, name) : null;
}

/** One tool of a plugin, named `name` for agents (the kind names its tools: a module's always <plugin>__<tool>, as Triggerfish always prefixes them). */
function pluginTool(m: PluginManifest, t: PluginManifest['tools'][number], name: string): AgentTool {
  // A module's systemPrompt goes with each of its tools (scanned for tool poisoning with the descriptions before the plugin could be enabled).
  const prompt = m.module?.systemPrompt;
  const description = (t.description || m.description) + (prompt ? `\n\n${prompt}` : '');
  return { name, description, inputSchema: t.inputSchema, kind: 'tool', plugin: m.name, pluginTool: t.name, classification: m.classification, annotations: pluginToolAnnotations(m) };
}
