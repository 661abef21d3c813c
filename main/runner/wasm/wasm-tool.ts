// One call of a `wasm` plugin's tool, for the ToolRunner (which has already taken the plugin's
// concurrency slot, verified its files into a private copy and checked its breaker): the module
// is read from that verified copy, metered (once per version, cached), run in a warm worker with
// the manifest's fuel, memory cap, output cap and deadline, and its host functions are answered
// with policy checks and audit events (host-functions.ts).
import { readPluginModule } from '../../registry/manifest/wasm-checks.js';
import type { PluginManifest, ToolSpec } from '../../registry/types.js';
import type { RunFailure } from '../one-shot.js';
import type { WasmFailure } from './engine.js';
import { answerHostCall, type HostPolicy } from './host-functions.js';
import { MeterCache } from './meter-cache.js';
import { WasmPool, type WasmCallResult, type WasmCallSpec } from './wasm-pool.js';
import { WasmHostClient } from './wasm-host-client.js';
import type { SandboxDetection } from '../sandbox.js';

/** Where calls run: warm workers in this process, or the same pool in a sandboxed child process. */
export interface WasmExecutor {
  run(spec: WasmCallSpec): Promise<WasmCallResult>;
  close(): Promise<void>;
}

export type { WasmFailure } from './engine.js';

export interface WasmRunInfo {
  fuelUsed: number;
  fuelLimit: number;
  memoryBytes: number;
  logs: { level: string; line: string }[];
}

export class WasmRuntime {
  readonly meter: MeterCache;
  readonly pool: WasmExecutor;
  /** The calls run in a child process inside bubblewrap. */
  readonly sandboxed: boolean;
  constructor(opts: { cacheDir: string; maxWorkers?: number; isolation?: { detection: SandboxDetection; env?: NodeJS.ProcessEnv; home?: string } }) {
    this.meter = new MeterCache(opts.cacheDir);
    // With isolation the pool lives in a child process (inside bwrap where it exists), so a V8
    // escape still lands in a sandbox; without it (tests of the engine), in this process.
    this.pool = opts.isolation ? new WasmHostClient(opts.isolation) : new WasmPool(opts.maxWorkers !== undefined ? { maxWorkers: opts.maxWorkers } : {});
    this.sandboxed = this.pool instanceof WasmHostClient && this.pool.sandboxed;
  }
  close(): Promise<void> {
    return this.pool.close();
  }
}

export interface WasmToolCall {
  plugin: string;
  spec: ToolSpec;
  manifest: PluginManifest;
  /** The verified copy the module is read from. */
  runDir: string;
  /** The plugin's own folder: relative grants are relative to it. */
  pluginDir: string;
  input: unknown;
  actor: string;
  callId?: string;
  policy?: HostPolicy;
  record(type: string, actor: string, payload: Record<string, unknown>): void;
}

type Result =
  | { ok: true; output: Record<string, unknown>; exitCode: number; stdout: string; stderr: string; durationMs: number; sandboxed: boolean; pid: null; queuedMs: number; wasm: WasmRunInfo }
  | { ok: false; failure: RunFailure | WasmFailure; message: string; exitCode: null; signal: null; stdout: string; stderr: string; durationMs: number; sandboxed: boolean; pid: null; queuedMs: number; wasm?: WasmRunInfo };

export async function runWasmTool(rt: WasmRuntime, c: WasmToolCall): Promise<Result> {
  const w = c.manifest.wasm!;
  const fail = (failure: RunFailure | WasmFailure, message: string, extra: Partial<Result> = {}): Result => ({ ok: false, failure, message: `${c.plugin}: ${message}`, exitCode: null, signal: null, stdout: '', stderr: '', durationMs: 0, sandboxed: false, pid: null, queuedMs: 0, ...extra } as Result);
  const read = readPluginModule(c.runDir, w.module, w.limits.maxModuleMb * 2 ** 20);
  if (!read.bytes) return fail('spawn', read.problems[0]?.message ?? 'the module cannot be read');
  let metered;
  try {
    metered = await rt.meter.get(read.bytes, w.limits.memoryMb, w.limits.fuel);
  } catch (err) {
    return fail('spawn', `the module could not be metered: ${(err as Error).message}`);
  }
  let r: WasmCallResult;
  try {
    r = await rt.pool.run({
      module: metered,
      call: { export: c.spec.export ?? c.spec.name, input: new TextEncoder().encode(JSON.stringify(c.input ?? {})), fuel: w.limits.fuel, memoryMb: w.limits.memoryMb, maxOutputKb: w.limits.maxOutputKb, config: {} },
      timeoutMs: w.limits.timeoutSecs * 1000,
      hostCall: (req) =>
        answerHostCall(
          {
            plugin: c.plugin,
            tool: c.spec.name,
            dir: c.pluginDir,
            actor: c.actor,
            ...(c.callId ? { callId: c.callId } : {}),
            permissions: c.manifest.permissions,
            maxReadBytes: Math.min(w.limits.memoryMb * 2 ** 20, 64 * 2 ** 20),
            ...(c.policy ? { policy: c.policy } : {}),
            record: c.record,
          },
          req,
        ),
    });
  } catch (err) {
    // The sandboxed process could not start, or died before it took the call.
    return fail('crash', (err as Error).message);
  }
  const info: WasmRunInfo = { fuelUsed: r.fuelUsed, fuelLimit: w.limits.fuel, memoryBytes: r.memoryBytes, logs: r.logs };
  const stderr = r.logs.map((l) => `[${l.level}] ${l.line}`).join('\n');
  const common = { stderr, durationMs: r.durationMs, sandboxed: rt.sandboxed, pid: null, queuedMs: 0, wasm: info };
  const text = Buffer.from(r.output).toString('utf8');
  if (!r.ok) return { ok: false, failure: r.failure ?? 'trap', message: `${c.plugin}: ${r.error ?? 'the call failed'} (fuel used ${r.fuelUsed} of ${w.limits.fuel})`, exitCode: null, signal: null, stdout: text, ...common };
  // Extism kits often set plain text: a JSON object is the result, anything else is { text }.
  let output: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    output = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { text };
  } catch {
    output = { text };
  }
  return { ok: true, output, exitCode: 0, stdout: text, ...common };
}
