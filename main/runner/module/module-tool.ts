// One call of a `module` plugin's tool, for the ToolRunner (which has already taken the
// plugin's concurrency slot, verified its files into a private copy and checked its breaker).
// The runtime keeps one warm child per plugin version: a new verified copy (another digest)
// or another effective trust gets a fresh child, and the old one is stopped.
import type { Classification } from '../../policy/autonomy.js';
import type { Resolver } from '../../policy/network.js';
import type { PluginManifest, ToolSpec } from '../../registry/types.js';
import type { RunFailure } from '../one-shot.js';
import type { SandboxDetection } from '../sandbox.js';
import type { SandboxPlan } from '../sandbox-plan.js';
import type { HostPolicy } from '../wasm/host-functions.js';
import { ModuleProcess, type ModuleFailure } from './module-process.js';

export interface ModuleRuntimeOptions {
  cacheDir: string;
  detection: SandboxDetection;
  home?: string;
  /** The operator's setting: hosts a module's fetch may reach although they are private (e.g. a local test server). */
  allowPrivateHosts?: readonly string[] | (() => readonly string[]);
  resolver?: Resolver;
  policy?: HostPolicy;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
}

export class ModuleRuntime {
  private readonly procs = new Map<string, { key: string; proc: ModuleProcess }>();
  constructor(readonly opts: ModuleRuntimeOptions) {}

  /** The warm child for this plugin's verified copy and trust. */
  process(plugin: string, runDir: string, trusted: boolean): ModuleProcess {
    const key = `${runDir}\0${trusted}`;
    const have = this.procs.get(plugin);
    if (have?.key === key) return have.proc;
    if (have) void have.proc.close();
    const o = this.opts;
    const proc = new ModuleProcess({
      pluginDir: runDir,
      cacheDir: o.cacheDir,
      detection: o.detection,
      trusted,
      ...(o.home ? { home: o.home } : {}),
      fetch: { record: o.record, ...(o.allowPrivateHosts ? { allowPrivateHosts: o.allowPrivateHosts } : {}), ...(o.resolver ? { resolver: o.resolver } : {}), ...(o.policy ? { policy: o.policy } : {}) },
    });
    this.procs.set(plugin, { key, proc });
    return proc;
  }

  async close(): Promise<void> {
    const all = [...this.procs.values()];
    this.procs.clear();
    await Promise.all(all.map((p) => p.proc.close()));
  }
}

type Result =
  | { ok: true; output: Record<string, unknown>; exitCode: number; stdout: string; stderr: string; durationMs: number; sandboxed: boolean; pid: null; queuedMs: number; taint?: Classification }
  | { ok: false; failure: RunFailure; message: string; exitCode: null; signal: null; stdout: string; stderr: string; durationMs: number; sandboxed: boolean; pid: null; queuedMs: number; taint?: Classification };

/** The runner's failure kinds (for metrics and breakers) for a module's. */
function failureOf(f: ModuleFailure): RunFailure {
  if (f === 'timeout' || f === 'load-timeout') return 'timeout';
  if (f === 'log-flood') return 'limit';
  if (f === 'invalid-exports' || f === 'load-error') return 'spawn';
  if (f === 'not-handled' || f === 'protocol') return 'bad_output';
  return 'crash';
}

export async function runModuleTool(rt: ModuleRuntime, c: { plugin: string; spec: ToolSpec; manifest: PluginManifest; runDir: string; trusted: boolean; plan: SandboxPlan; input: unknown; actor: string; callId?: string }): Promise<Result> {
  // "Require sandbox": the plan refuses an unsandboxed run by throwing from its wrap, before
  // anything starts; a module's child obeys the same refusal.
  if (!c.plan.sandboxed) {
    try {
      void c.plan.wrap('/bin/true', []).finish?.();
    } catch (err) {
      return { ok: false, failure: 'spawn', message: (err as Error).message, exitCode: null, signal: null, stdout: '', stderr: '', durationMs: 0, sandboxed: false, pid: null, queuedMs: 0 };
    }
  }
  const proc = rt.process(c.plugin, c.runDir, c.trusted);
  const r = await proc.call(c.spec.name, c.input ?? {}, { timeoutMs: c.manifest.timeoutSecs * 1000, actor: c.actor, ...(c.callId ? { callId: c.callId } : {}) });
  const stderr = [...r.logs.map((l) => `[${l.level}] ${l.message}`), ...(r.droppedLogs ? [`(${r.droppedLogs} more log lines left out)`] : [])].join('\n');
  const common = { stderr, durationMs: r.durationMs, sandboxed: proc.sandboxed, pid: null, queuedMs: 0, ...(r.taint ? { taint: r.taint } : {}) };
  // A string result is the tool's text; a JSON object is the result itself; anything else is { result }.
  if (!r.ok) return { ok: false, failure: failureOf(r.failure), message: `${c.plugin}: ${r.error}`, exitCode: null, signal: null, stdout: '', ...common };
  const v = r.output;
  const output = typeof v === 'string' ? { text: v } : v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { result: v };
  return { ok: true, output, exitCode: 0, stdout: typeof v === 'string' ? v : JSON.stringify(v), ...common };
}
