// One call of a `wasm` plugin's tool, for the ToolRunner (which has already taken the plugin's
// concurrency slot, verified its files into a private copy and checked its breaker): the module
// is read from that verified copy, metered (once per version, cached), run in a warm worker with
// the manifest's fuel, memory cap, output cap and deadline, and its host functions are answered
// with policy checks and audit events (host-functions.ts).
import { statSync } from 'node:fs';
import { readPluginModule } from '../../registry/manifest/wasm-checks.js';
import { moduleAbi, type ModuleAbi } from '../../registry/manifest/wasm-abi.js';
import { readModuleInfo } from '../../registry/manifest/wasm-module-info.js';
import type { PluginManifest, ToolSpec } from '../../registry/types.js';
import type { RunFailure } from '../one-shot.js';
import type { WasmFailure } from './engine.js';
import { answerHostCall, wasiPreopens, type HostFunctionContext, type HostPolicy } from './host-functions.js';
import type { WasiPreopen } from './wasi-session.js';
import { inputHash, MeterCache } from './meter-cache.js';
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

const MAX_FOLDER_PROCESSES = 8;
/** Modules whose ABI is remembered (abiOf): a few per plugin version, the oldest forgotten first. */
const MAX_ABIS = 64;

type Isolation = { detection: SandboxDetection; env?: NodeJS.ProcessEnv; home?: string };

export class WasmRuntime {
  readonly meter: MeterCache;
  readonly pool: WasmExecutor;
  /** The calls run in a child process inside bubblewrap. */
  readonly sandboxed: boolean;
  /** Sandboxed processes for WASI calls with preopened folders, by the folders they bind. */
  private readonly withFolders = new Map<string, WasmHostClient>();
  /** What a module imports and exports says about how it is called, by the SHA-256 of its bytes. */
  private readonly abis = new Map<string, ModuleAbi>();
  constructor(private readonly opts: { cacheDir: string; maxWorkers?: number; isolation?: Isolation }) {
    this.meter = new MeterCache(opts.cacheDir);
    // With isolation the pool lives in a child process (inside bwrap where it exists), so a V8
    // escape still lands in a sandbox; without it (tests of the engine), in this process.
    this.pool = opts.isolation ? new WasmHostClient(opts.isolation) : new WasmPool(opts.maxWorkers !== undefined ? { maxWorkers: opts.maxWorkers } : {});
    this.sandboxed = this.pool instanceof WasmHostClient && this.pool.sandboxed;
  }

  /**
   * Where a call with these preopened folders runs. The shared process binds no plugin's folders
   * (and a call without preopens reaches no file from it); a WASI call's folders must exist inside
   * its sandbox, so it runs in a process of its own that binds exactly them (read-only unless
   * written) and hides `reviewedDir`, the folder the plugin's verified copy was made from (a
   * preopened project holding it would show the original, changed since the check). Calls share
   * a process only when both are the same: a plugin never sees another's grants, nor another's
   * original folder, through the sandbox.
   */
  executorFor(preopens: readonly WasiPreopen[], reviewedDir?: string): WasmExecutor {
    if (preopens.length === 0 || !this.opts.isolation) return this.pool;
    const key = JSON.stringify({ preopens, reviewed: reviewedDir === undefined ? null : [reviewedDir, folderIdentity(reviewedDir)] });
    let client = this.withFolders.get(key);
    if (!client) {
      // A bounded set: the least recently started process goes (a call on it ends with crash).
      if (this.withFolders.size >= MAX_FOLDER_PROCESSES) {
        const [oldKey, old] = this.withFolders.entries().next().value!;
        this.withFolders.delete(oldKey);
        void old.close();
      }
      client = new WasmHostClient({ ...this.opts.isolation, read: preopens.filter((p) => !p.writable).map((p) => p.path), write: preopens.filter((p) => p.writable).map((p) => p.path), ...(reviewedDir !== undefined ? { reviewedDir } : {}) });
      this.withFolders.set(key, client);
    }
    return client;
  }

  /**
   * How a module is called (WASI or not, a command or exports), from the bytes a call read,
   * known by their SHA-256: parsing the module's sections again at every call of the same bytes
   * cost a warm call tens of µs before V8 had optimised the parser. Throws when the module
   * cannot be read (nothing is remembered then).
   */
  abiOf(bytes: Uint8Array, hash: string): ModuleAbi {
    let abi = this.abis.get(hash);
    if (!abi) {
      const info = readModuleInfo(bytes);
      abi = moduleAbi(info.imports, info.exports);
      if (this.abis.size >= MAX_ABIS) this.abis.delete(this.abis.keys().next().value!);
      this.abis.set(hash, abi);
    }
    return abi;
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), ...[...this.withFolders.values()].map((c) => c.close())]);
    this.withFolders.clear();
  }
}

/**
 * The folder as an object on disk (device, inode, status change), in the key of the process that
 * hides it. The process lives on, and its empty folder over the original is a mount on the folder
 * as it was at its start: an original deleted and made again (by an agent that can write the
 * project it lies in) is a new folder there, shown by the bind of a preopened project. Its new
 * identity starts a process that hides it. A rename moves the mount with the folder.
 */
function folderIdentity(dir: string): string {
  try {
    const st = statSync(dir, { bigint: true });
    return `${st.dev}:${st.ino}:${st.ctimeNs}`;
  } catch {
    return 'missing';
  }
}

export interface WasmToolCall {
  plugin: string;
  spec: ToolSpec;
  manifest: PluginManifest;
  /**
   * The folder the plugin runs from (the verified copy for an agent's call): the module, the
   * plugin's own files and its relative grants are read there.
   */
  runDir: string;
  /**
   * The folder the operator reviewed (the same as runDir for an author's test run). When runDir
   * is a copy of it, nothing of it is reachable: host functions refuse paths into it, and the
   * WASI process hides it (WasmRuntime.executorFor).
   */
  reviewedDir: string;
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
  // Hashed once: the key of its metered version and of its ABI.
  const hash = inputHash(read.bytes);
  let metered;
  try {
    metered = await rt.meter.get(read.bytes, w.limits.memoryMb, w.limits.fuel, { inputHash: hash });
  } catch (err) {
    return fail('spawn', `the module could not be metered: ${(err as Error).message}`);
  }
  const ctx: HostFunctionContext = {
    plugin: c.plugin,
    tool: c.spec.name,
    dir: c.runDir,
    reviewedDir: c.reviewedDir,
    actor: c.actor,
    ...(c.callId ? { callId: c.callId } : {}),
    permissions: c.manifest.permissions,
    maxReadBytes: Math.min(w.limits.memoryMb * 2 ** 20, 64 * 2 ** 20),
    ...(c.policy ? { policy: c.policy } : {}),
    record: c.record,
  };
  // A module importing WASI gets argv (plugin, tool), no environment, and the granted folders.
  let abi;
  try {
    abi = rt.abiOf(read.bytes, hash);
  } catch (err) {
    return fail('spawn', `the module cannot be read: ${(err as Error).message}`);
  }
  const wasi = abi.wasi ? { command: abi.command, args: [c.plugin, c.spec.name], preopens: await wasiPreopens(ctx) } : undefined;
  let r: WasmCallResult;
  try {
    r = await rt.executorFor(wasi?.preopens ?? [], c.reviewedDir === c.runDir ? undefined : c.reviewedDir).run({
      module: metered,
      call: { export: c.spec.export ?? c.spec.name, input: new TextEncoder().encode(JSON.stringify(c.input ?? {})), fuel: w.limits.fuel, memoryMb: w.limits.memoryMb, maxOutputKb: w.limits.maxOutputKb, config: {}, ...(wasi ? { wasi } : {}), ...(abi.agentzero ? { agentzero: { workspaceRoot: wasi?.preopens[0]?.path ?? '' } } : {}) },
      timeoutMs: w.limits.timeoutSecs * 1000,
      hostCall: (req) => answerHostCall(ctx, req),
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
  // Extism kits and WASI programs often write plain text: a JSON object is the result, anything else is { text }.
  let output: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    output = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { text };
  } catch {
    output = { text };
  }
  return { ok: true, output, exitCode: 0, stdout: text, ...common };
}
