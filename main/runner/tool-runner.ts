// Runs a tool plugin for a caller: the registry's run-time check of the files, the plugin's
// circuit breaker, its concurrency cap, the sandbox, the one-shot contract (or, for `pty = true`
// tools an agent calls, a terminal operators watch), then metrics and audit events. Every
// execution (an agent's call or an operator's test run) goes through here.
import type { Classification } from '../policy/autonomy.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryError, type PluginRegistry } from '../registry/plugin-registry.js';
import type { PluginManifest, ToolSpec } from '../registry/types.js';
import type { PtyManager } from '../pty/pty-manager.js';
import type { BreakerBoard } from './breaker-board.js';
import type { PluginMetrics, Outcome } from './metrics.js';
import { runOneShot, scrubEnv, type OneShotResult, type RunFailure } from './one-shot.js';
import type { WarmStarts } from './warm-starts.js';
import { runPtyTool } from './pty-tool.js';
import { OperationError } from '../core/operation-error.js';
import type { SandboxPlan } from './sandbox-plan.js';
import { anchorPermissions, detectSandbox, type SandboxDetection } from './sandbox.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { ConcurrencyLimiter, DEFAULT_CONCURRENCY, QueueFullError } from './concurrency.js';
import { runWasmTool, WasmRuntime, type WasmFailure, type WasmRunInfo } from './wasm/wasm-tool.js';
import type { HostPolicy } from './wasm/host-functions.js';
import { readPluginModule } from '../registry/manifest/wasm-checks.js';
import { ModuleRuntime, runModuleTool, type ModuleRuntimeOptions } from './module/module-tool.js';
import { effectiveTrust } from './module/module-exports.js';
import { kindProvider, providerOf, type KindEngines } from '../registry/kinds/index.js';

export interface ToolRunnerDeps {
  registry: PluginRegistry;
  breakers: BreakerBoard;
  metrics: PluginMetrics;
  /**
   * How to confine this plugin; the host builds it from the sandbox detection and settings.
   * `reviewedDir` is given when `dir` is the verified copy of that folder: the sandbox must show
   * nothing of it (sandboxPlan's option of the same name).
   */
  sandboxFor(manifest: PluginManifest, dir: string, reviewedDir?: string): SandboxPlan;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
  env?: NodeJS.ProcessEnv;
  /** Where `pty = true` tools run (the host's PtyManager); without it they cannot be called. */
  ptys?: PtyManager;
  /** Calls of one plugin running at once; more wait their turn. */
  maxConcurrent?: number;
  /**
   * Private folder (made 0700) for the verified copies plugins run from, one per digest; the
   * host puts it under GATEHOUSE_HOME. Default: a fresh private folder in the system temp dir.
   */
  runCache?: string;
  /** The host's policy: every host function a WebAssembly plugin calls is judged by it. */
  policy?: HostPolicy;
  /** Where metered WebAssembly modules are kept (default: next to the run cache). */
  wasmCache?: string;
  /**
   * Runs WebAssembly calls in a child process inside this sandbox (bubblewrap where detected);
   * without it they run in worker threads of this process.
   */
  wasmIsolation?: { detection: SandboxDetection; env?: NodeJS.ProcessEnv; home?: string };
  /** Module plugins (mod.ts): the sandbox their children run in and the operator's fetch settings (default: detected bwrap, no private hosts). */
  modules?: Partial<Omit<ModuleRuntimeOptions, 'record' | 'policy'>>;
  /** Starts the next call's process of a one-shot plugin while this one runs (warm-starts.ts); closed with the runner. */
  warmStarts?: WarmStarts;
}

export interface ToolCallOptions {
  /** Who asked: "agent:…", "operator:…". */
  actor: string;
  /** Operator test runs may run a valid plugin that is not enabled (never exposed to agents). */
  testRun?: boolean;
  /** The agent's tool call this serves: recorded with execution.* so the audit joins them to it. */
  callId?: string;
  /**
   * Asked once the call holds its slot, right before anything starts; throws to refuse the call
   * (it is not run). The gateway's: whether the mode and the audit log still let it run, after the
   * wait for a slot (Gateway.run says why).
   */
  gate?: () => void;
}

export interface PtyCallOptions extends ToolCallOptions {
  /** The tool's name as the agent called it (default: the plugin's naming rule). */
  agentTool?: string;
}

interface RunContext {
  manifest: PluginManifest;
  /** Where the plugin runs from: its verified copy for agents' calls, the folder itself for a test run. */
  dir: string;
  /** The folder the operator reviewed (`dir` itself for a test run). */
  reviewedDir: string;
  spec: ToolSpec;
  plan: SandboxPlan;
  /** The scrubbed environment plus GATEHOUSE_TOOL. */
  env: Record<string, string>;
}

export type ToolCallResult = {
  ok: boolean;
  output: Record<string, unknown> | null;
  error: string | null;
  failure: RunFailure | WasmFailure | 'breaker_open' | 'queue_full' | null;
  stdout: string;
  stderr: string;
  exitCode: number | null;
  durationMs: number;
  sandboxed: boolean;
  /** WebAssembly plugins: fuel used, log lines, memory at the end. */
  wasm?: WasmRunInfo;
  /** WebAssembly plugins: the fuel the call burnt, of its limit (also in `wasm`; flat for the console). */
  fuelUsed?: number;
  fuelLimit?: number;
  /** Module plugins: the classification the call escalated its taint to (context.escalateTaint). */
  taint?: Classification;
};

/** What one execution produced: a process's result, or a WebAssembly call's. */
type ExecResult =
  | (Extract<OneShotResult, { ok: true }> & { terminal?: string | null; wasm?: WasmRunInfo; taint?: Classification })
  | (Omit<Extract<OneShotResult, { ok: false }>, 'failure'> & { failure: RunFailure | WasmFailure; terminal?: string | null; wasm?: WasmRunInfo; taint?: Classification });

export class ToolRunner {
  private readonly limiter: ConcurrencyLimiter;
  private runCacheDir: string | undefined;
  private wasmRuntime: WasmRuntime | undefined;
  private moduleRuntime: ModuleRuntime | undefined;

  constructor(private readonly deps: ToolRunnerDeps) {
    this.limiter = new ConcurrencyLimiter({ limit: deps.maxConcurrent ?? DEFAULT_CONCURRENCY });
  }

  /** One call of a tool: the plugin's kind runs it on one of the engines below (main/registry/kinds/). */
  call(plugin: string, tool: string | undefined, input: unknown, opts: ToolCallOptions): Promise<ToolCallResult> {
    return this.execute(plugin, tool, opts, ({ spec, dir, reviewedDir, manifest, plan, env }) => {
      // execute() let only a kind with run() through.
      const run = providerOf(manifest).run!;
      // An operator's test run starts no process ahead: it checks the plugin, and is seldom repeated at once.
      return run({ plugin, spec, manifest, dir, input, actor: opts.actor, ...(opts.callId ? { callId: opts.callId } : {}) }, this.engines(plan, env, reviewedDir, !opts.testRun));
    });
  }

  /**
   * What a kind's provider may run a call on: a process per call, a WebAssembly export, a module's
   * warm child. `plan`, `env` and `reviewedDir` are the call's (execute()); without them (prepare)
   * only prepareWasm can be used.
   */
  private engines(plan?: SandboxPlan, env?: Record<string, string>, reviewedDir?: string, warm = false): KindEngines<ExecResult> {
    return {
      // The WraithRun contract: JSON on stdin, one JSON object on stdout.
      oneShot: (a) => {
        if (!plan || !env) throw new Error('a one-shot run needs the sandbox plan and environment of its call');
        return runOneShot({ plugin: a.plugin, command: join(a.dir, a.spec.command), args: a.spec.args, cwd: a.dir, input: a.input, timeoutMs: a.manifest.timeoutSecs * 1000, env, wrap: plan.wrap, ...(warm && this.deps.warmStarts ? { warm: this.deps.warmStarts } : {}) });
      },
      wasm: (a) => {
        // The folder the copy was made from, as the call's check found it: its grants and files are the copy's, and it is hidden.
        if (reviewedDir === undefined) throw new Error('a wasm run needs the folder its verified copy was made from');
        return runWasmTool(this.wasm(), { plugin: a.plugin, spec: a.spec, manifest: a.manifest, runDir: a.dir, reviewedDir, input: a.input, actor: a.actor, ...(a.callId ? { callId: a.callId } : {}), record: this.deps.record, ...(this.deps.policy ? { policy: this.deps.policy } : {}) });
      },
      module: (a) => {
        if (!plan) throw new Error('a module run needs the sandbox plan of its call');
        return runModuleTool(this.modules(), { plugin: a.plugin, spec: a.spec, manifest: a.manifest, runDir: a.dir, trusted: this.moduleTrusted(a.plugin, a.manifest), plan, input: a.input, actor: a.actor, ...(a.callId ? { callId: a.callId } : {}) });
      },
      prepareWasm: (plugin) => this.prepareWasm(plugin),
    };
  }

  /**
   * Warms an enabled plugin up as its kind says (a wasm module is metered, off the main thread),
   * so that its first call does not pay for it; the host calls this when a plugin is enabled or
   * its change approved. Kinds with nothing to prepare do nothing.
   */
  async prepare(plugin: string): Promise<void> {
    const m = this.deps.registry.get(plugin)?.manifest;
    const prepare = m ? providerOf(m).prepare : undefined;
    if (prepare) await prepare(plugin, this.engines());
  }

  /** The module plugins' warm children, made on first use. */
  modules(): ModuleRuntime {
    const m = this.deps.modules ?? {};
    this.moduleRuntime ??= new ModuleRuntime({ cacheDir: m.cacheDir ?? join(this.runCache(), '..', 'module-cache'), detection: m.detection ?? detectSandbox(), ...(m.home ? { home: m.home } : {}), ...(m.allowPrivateHosts ? { allowPrivateHosts: m.allowPrivateHosts } : {}), ...(m.resolver ? { resolver: m.resolver } : {}), ...(this.deps.policy ? { policy: this.deps.policy } : {}), record: this.deps.record });
    return this.moduleRuntime;
  }

  /** Triggerfish's rule: trusted only when the module's manifest and the operator (a trust mark on the pinned version) both say so. */
  private moduleTrusted(plugin: string, manifest: PluginManifest): boolean {
    return effectiveTrust({ trust: manifest.module?.trust ?? 'sandboxed' }, this.deps.registry.get(plugin)?.trust?.trusted ? 'trusted' : undefined) === 'trusted';
  }

  /** The WebAssembly runtime (warm workers, metered modules), made on first use. */
  wasm(): WasmRuntime {
    this.wasmRuntime ??= new WasmRuntime({ cacheDir: this.deps.wasmCache ?? join(this.runCache(), '..', 'wasm-cache'), ...(this.deps.wasmIsolation ? { isolation: this.deps.wasmIsolation } : {}) });
    return this.wasmRuntime;
  }

  /**
   * Meters an enabled wasm plugin's module now (fuel and memory cap written in, cached), so that
   * its first call does not pay for it; the host calls this when a plugin is enabled. A failure
   * here is reported again by the call, which meters the module itself if it must.
   */
  async prepareWasm(plugin: string): Promise<void> {
    const { manifest, runDir } = this.deps.registry.verifyForRun(plugin, { copyTo: this.runCache() });
    if (!manifest.wasm) return;
    const read = readPluginModule(runDir, manifest.wasm.module, manifest.wasm.limits.maxModuleMb * 2 ** 20);
    if (read.bytes) await this.wasm().meter.get(read.bytes, manifest.wasm.limits.memoryMb, manifest.wasm.limits.fuel);
  }

  /** Stops the WebAssembly workers (host shutdown, tests). */
  async close(): Promise<void> {
    await this.deps.warmStarts?.close();
    await this.wasmRuntime?.close();
    await this.moduleRuntime?.close();
  }

  /**
   * A `pty = true` tool: the same checks, breaker, limits, sandbox and audit, but the command
   * runs in a terminal operators watch live (pty-tool.ts), started on behalf of `opts.actor`.
   */
  callPty(plugin: string, tool: string | undefined, input: unknown, opts: PtyCallOptions): Promise<ToolCallResult> {
    const ptys = this.deps.ptys;
    if (!ptys) throw new OperationError('state', `${plugin} runs in a terminal (pty = true), and this host has no terminals.`);
    return this.execute(plugin, tool, opts, ({ spec, dir, manifest, plan, env }) => {
      const shown = opts.agentTool ?? (spec.name === plugin ? plugin : `${plugin}__${spec.name}`);
      return runPtyTool({
        ptys,
        plugin,
        command: join(dir, spec.command),
        args: spec.args,
        cwd: dir,
        input,
        timeoutMs: manifest.timeoutSecs * 1000,
        env,
        wrap: plan.wrap,
        title: `${opts.actor.replace(/^agent:/, '')}: ${shown}`,
        origin: { actor: opts.actor, tool: shown, plugin, ...(opts.callId ? { callId: opts.callId } : {}) },
      });
    });
  }

  /** What every execution shares: resolve, concurrency cap, breaker, sandbox plan, metrics, audit. */
  private async execute(plugin: string, tool: string | undefined, opts: ToolCallOptions, run: (x: RunContext) => Promise<ExecResult>): Promise<ToolCallResult> {
    // The slot first, then the check: a call that waited for a slot runs what its files are when
    // it starts, never what they were when it was queued (a swap while queued ran unapproved code).
    let release: () => void;
    try {
      release = await this.limiter.acquire(plugin);
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      // Too many calls waiting is the callers' doing, not the plugin's: no breaker count.
      return { ok: false, output: null, error: err.message, failure: 'queue_full', stdout: '', stderr: '', exitCode: null, durationMs: 0, sandboxed: false };
    }
    let r: ExecResult;
    let plan: SandboxPlan;
    let ticket: ReturnType<CircuitBreaker['acquire']>;
    let spec: ToolSpec;
    const breaker = this.deps.breakers.get(plugin);
    try {
      opts.gate?.();
      const resolved = this.resolve(plugin, opts);
      // Relative permission paths mean what they meant where they were reviewed (the plugin's
      // folder), not next to the copy it runs from.
      const manifest = anchorPermissions(resolved.manifest, resolved.sourceDir);
      // The verified copy for agents' calls, the folder itself for an author's test run.
      const dir = resolved.runDir;
      if (!kindProvider(manifest.kind)?.run) throw new OperationError('state', `${plugin} is a ${manifest.kind} plugin, not a tool.`);
      const found = tool ? manifest.tools.find((t) => t.name === tool) : manifest.tools[0];
      if (!found) throw new OperationError('not_found', `${plugin} has no tool "${tool}". Its tools: ${manifest.tools.map((t) => t.name).join(', ')}.`);
      spec = found;
      ticket = breaker.acquire();
      if (!ticket.ok) {
        this.deps.metrics.record(plugin, 'error', 0);
        return { ok: false, output: null, error: `${plugin} was not run: its circuit breaker is ${ticket.reason}`, failure: 'breaker_open', stdout: '', stderr: '', exitCode: null, durationMs: 0, sandboxed: false };
      }
      // From the copy, the folder it was made from is hidden: a link to it that an agent makes in
      // a granted folder after the check would otherwise run or read files changed since.
      plan = dir === resolved.sourceDir ? this.deps.sandboxFor(manifest, dir) : this.deps.sandboxFor(manifest, dir, resolved.sourceDir);
      this.deps.record('execution.started', opts.actor, { ...(opts.callId ? { call: opts.callId } : {}), plugin, tool: spec.name, sandboxed: plan.sandboxed, testRun: opts.testRun ?? false });
      const env = { ...scrubEnv(this.deps.env ?? process.env, manifest.permissions.env), GATEHOUSE_TOOL: spec.name };
      r = await run({ spec, dir, reviewedDir: resolved.sourceDir, manifest, plan, env });
    } finally {
      release();
    }

    // Out of fuel or memory is a limit the call hit; a guest trap is the plugin failing.
    const outcome: Outcome = r.ok ? 'success' : r.failure === 'fuel' || r.failure === 'memory' ? 'limit' : r.failure === 'trap' ? 'crash' : r.failure;
    this.deps.metrics.record(plugin, outcome, r.durationMs);
    if (r.wasm) this.deps.metrics.recordFuel(plugin, r.wasm.fuelUsed, r.wasm.fuelLimit);
    if (r.ok) breaker.success(ticket.probe);
    else breaker.failure(r.message, ticket.probe);
    this.deps.record('execution.ended', opts.actor, {
      ...(opts.callId ? { call: opts.callId } : {}),
      plugin,
      tool: spec.name,
      ok: r.ok,
      exitCode: r.exitCode,
      durationMs: Math.round(r.durationMs),
      outputBytes: Buffer.byteLength(r.stdout),
      // What the tool printed, cut to a size the log can hold for every call (search, review).
      ...auditOutput(r.stdout),
      failure: r.ok ? null : r.failure,
      error: r.ok ? null : r.message,
      stderrTail: r.stderr,
      testRun: opts.testRun ?? false,
      ...(r.terminal ? { terminal: r.terminal } : {}),
      ...(r.wasm ? { fuelUsed: r.wasm.fuelUsed, memoryBytes: r.wasm.memoryBytes } : {}),
      // The classification a module's call raised its data to (Triggerfish's escalateTaint), with the call.
      ...(r.taint ? { taint: r.taint } : {}),
    });
    return r.ok
      ? { ok: true, output: r.output, error: null, failure: null, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, durationMs: r.durationMs, sandboxed: r.wasm ? r.sandboxed : plan.sandboxed, ...(r.wasm ? { wasm: r.wasm, fuelUsed: r.wasm.fuelUsed, fuelLimit: r.wasm.fuelLimit } : {}), ...(r.taint ? { taint: r.taint } : {}) }
      : { ok: false, output: null, error: r.message, failure: r.failure, stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, durationMs: r.durationMs, sandboxed: r.wasm ? r.sandboxed : plan.sandboxed, ...(r.wasm ? { wasm: r.wasm, fuelUsed: r.wasm.fuelUsed, fuelLimit: r.wasm.fuelLimit } : {}), ...(r.taint ? { taint: r.taint } : {}) };
  }

  /** Whether the plugin's next call would run in the sandbox (the plan its call gets, for the folder it is registered from). */
  sandboxedNow(plugin: string): boolean {
    const e = this.deps.registry.get(plugin);
    return e?.manifest ? this.deps.sandboxFor(e.manifest, e.dir).sandboxed : false;
  }

  private resolve(plugin: string, opts: ToolCallOptions): { manifest: PluginManifest; runDir: string; sourceDir: string } {
    if (!opts.testRun) {
      const v = this.deps.registry.verifyForRun(plugin, { copyTo: this.runCache() });
      return { manifest: v.manifest, runDir: v.runDir, sourceDir: v.dir };
    }
    // A test run is the author's own action on a plugin they are writing: any valid version.
    const e = this.deps.registry.require(plugin);
    if (!e.manifest || e.status === 'invalid') throw new RegistryError('invalid', `${plugin} is invalid; fix its problems before a test run.`);
    return { manifest: e.manifest, runDir: e.dir, sourceDir: e.dir };
  }

  private runCache(): string {
    this.runCacheDir ??= this.deps.runCache ?? mkdtempSync(join(tmpdir(), 'gatehouse-run-'));
    return this.runCacheDir;
  }
}

/** Output kept with execution.ended: the first AUDIT_OUTPUT_CHARS characters and whether more was cut. */
export const AUDIT_OUTPUT_CHARS = 4096;
export function auditOutput(text: string): { output: string; outputTruncated: boolean } {
  return text.length > AUDIT_OUTPUT_CHARS ? { output: text.slice(0, AUDIT_OUTPUT_CHARS), outputTruncated: true } : { output: text, outputTruncated: false };
}
