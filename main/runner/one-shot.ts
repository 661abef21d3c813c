// The one-shot runner: the WraithRun tool.toml contract. Spawn the command in the plugin folder,
// write the arguments as one JSON object to stdin and close it, read exactly one JSON object
// (at most 1 MiB, counted while reading) from stdout, bounded by a wall-clock timeout.
//
// Containment: the process leads its own process group (and session: no controlling terminal),
// and the whole group is killed on timeout, on output overflow, and as soon as the main process
// exits, so a child the plugin backgrounded does not outlive the call. The call does not return
// until the group is empty. A `wrap` (sandbox.ts) adds bwrap, rlimits and a pids cgroup; the
// cgroup also catches processes that left the group with setsid().
//
// Every way a call can fail ends in one of five kinds (RunFailure), with a sentence that names
// the plugin:
//   timeout     — still running at the wall-clock limit; TERM to the group, KILL after a grace.
//   crash       — exited non-zero or was killed by a signal; carries the last 500 chars of stderr.
//   bad_output  — exit 0 but stdout is not exactly one JSON object (nothing, not JSON, a JSON
//                 value followed by more output, an array or scalar).
//   limit       — a resource limit: stdout over 1 MiB (stopped at once), the process limit
//                 (pids cgroup), CPU seconds (SIGXCPU), file size (SIGXFSZ), or the plugin's
//                 concurrency queue was full (never started).
//   spawn       — could not be started: missing or non-executable command, the sandbox failed to
//                 set up, or the policy requires a sandbox and there is none.
import { accessSync, constants as fsConstants } from 'node:fs';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { startChild, type ChildEvent, type ChildIo, type ChildRequest } from '../pty/child-io.js';
import { QueueFullError, type ConcurrencyLimiter } from './concurrency.js';
import { ForkThreadUnavailable } from '../pty/fork-thread.js';
import { sharedChildStarter } from '../pty/spawner.js';
import type { ChildStarter } from '../pty/spawn-service.js';
import { killGroupUntilGone } from '../core/kill-group.js';
import { formatBytes } from '../../shared/format.js';
import { GATE_NAME, GATE_READY, GATE_SCRIPT, Spare, type WarmStarts } from './warm-starts.js';

export const MAX_STDOUT = 1 << 20;
export const STDERR_TAIL = 500;
export const KILL_GRACE_MS = 500;
/** After the main process exits, how long pipes held by escaped processes may stay open. */
export const EXIT_DRAIN_MS = 500;

/** Variables a plugin gets by default; the manifest's permissions.env adds to these. */
export const BASE_ENV_ALLOWLIST = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'];

export type RunFailure = 'timeout' | 'crash' | 'bad_output' | 'limit' | 'spawn';
/** Which limit a `limit` failure hit. */
export type LimitKind = 'stdout' | 'processes' | 'cpu' | 'file_size' | 'queue';

/** What a wrap (sandbox.ts) reports after the run. */
export interface ContainmentReport {
  /** A fork was refused because the call reached its process limit. */
  processLimitHit: boolean;
}

/** The command a wrap turns the plugin's command into, with hooks for its own cleanup. */
export interface WrappedCommand {
  command: string;
  args: string[];
  /** Runs inside an OS sandbox (reported as `sandboxed` in the result). */
  sandboxed?: boolean;
  /** Kill, at once, whatever the containment still holds (called when the main process exits and on stop). */
  kill?: () => void;
  /** Called exactly once after the run: kill leftovers, wait until they are gone, clean up. */
  finish?: () => Promise<ContainmentReport>;
  /** finish's cleanup for a host that is exiting (its 'exit' event): blocking, at most `timeoutMs`. */
  finishNow?: (timeoutMs: number) => void;
  /** Sandboxed: whether the box that `pid`, a process in it, sees is the one this wrap would build now (sandbox.ts boxShowsNow). */
  sameBox?: (pid: number) => boolean;
  /** Contained with less than planned (its cgroup could not be made): never kept as a warm start. */
  degraded?: boolean;
}

/** Wraps the command (the sandbox). Throwing refuses the run: a `spawn` failure with the error's message. */
export interface WrapFn {
  (command: string, args: string[]): WrappedCommand;
  /**
   * Everything that shapes the wrap, worked out now (warm-starts.ts): two calls with the same key
   * run in the same sandbox under the same limits. Absent: its calls are never started warm.
   */
  warmKey?: () => string;
}

export interface OneShotSpec {
  /** Plugin name, for error messages and the concurrency key. */
  plugin: string;
  command: string;
  args: string[];
  cwd: string;
  input: unknown;
  timeoutMs: number;
  env: Record<string, string>;
  maxStdout?: number;
  /** Wraps the command (sandbox + limits, see sandbox.ts); identity when absent. */
  wrap?: WrapFn;
  /** Refuse (failure "spawn") unless the wrap reports `sandboxed`. */
  requireSandbox?: boolean;
  /** Per-plugin concurrency cap: waits for a slot of `plugin` (FIFO); a full queue is a `limit` failure. */
  concurrency?: ConcurrencyLimiter;
  /** TERM-to-KILL grace on timeout (default 500 ms). */
  killGraceMs?: number;
  /**
   * Called once the process has started, with its pid (= its process group id), the thread that
   * forked it (0: a main thread) and the process it ran in (the host's pid, or its spawner's).
   */
  onSpawn?: (pid: number, forkedOnThread: number, forkedBy: number) => void;
  /**
   * What starts the process: the host's spawner process, or its fork thread when it has none (the
   * default: pty/spawner.ts sharedChildStarter), a given one (tests), or this thread (false: for
   * comparing).
   */
  forkThread?: ChildStarter | false;
  /**
   * Where the next call's process is started ahead (warm-starts.ts): this call takes a spare
   * started for it if one waits, and starts one for the next. Only by the spawner or the fork thread.
   */
  warm?: WarmStarts;
}

interface Common {
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Ran inside the OS sandbox. False: the UI warns. */
  sandboxed: boolean;
  /** The process (and process group) id; null when it never started. */
  pid: number | null;
  /** Time spent waiting for a concurrency slot. */
  queuedMs: number;
}

export type OneShotResult =
  | (Common & { ok: true; output: Record<string, unknown>; exitCode: number })
  | (Common & { ok: false; failure: RunFailure; message: string; exitCode: number | null; signal: string | null; limit?: LimitKind });

/** The environment a plugin sees: the allow-list plus what its manifest declares, nothing else. */
export function scrubEnv(source: NodeJS.ProcessEnv, declared: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...BASE_ENV_ALLOWLIST, ...declared]) {
    const v = source[k];
    if (typeof v === 'string') out[k] = v;
  }
  // Python would otherwise write __pycache__ into the plugin folder and change its pinned hash.
  out.PYTHONDONTWRITEBYTECODE = '1';
  return out;
}

export async function runOneShot(spec: OneShotSpec): Promise<OneShotResult> {
  const queuedAt = performance.now();
  let release: (() => void) | null = null;
  if (spec.concurrency) {
    try {
      release = await spec.concurrency.acquire(spec.plugin);
    } catch (err) {
      if (!(err instanceof QueueFullError)) throw err;
      const waited = performance.now() - queuedAt;
      return { ok: false, failure: 'limit', limit: 'queue', message: err.message, stdout: '', stderr: '', exitCode: null, signal: null, durationMs: waited, sandboxed: false, pid: null, queuedMs: waited };
    }
  }
  try {
    return await runProcess(spec, performance.now() - queuedAt);
  } finally {
    release?.();
  }
}

/**
 * What comes before a plugin process starts, for the one-shot and the PTY runner alike: its
 * input as JSON, a command that exists and is executable, and the wrap (sandbox and limits; a
 * wrap that throws — "require sandbox" — refuses the run with its message).
 */
export function prepareRun(spec: Pick<OneShotSpec, 'plugin' | 'command' | 'args' | 'cwd' | 'input' | 'wrap'>, wrappedAhead?: WrappedCommand): { ok: true; inputText: string; wrapped: WrappedCommand } | { ok: false; message: string } {
  let inputText: string;
  try {
    inputText = JSON.stringify(spec.input ?? {});
  } catch (err) {
    return { ok: false, message: `${spec.plugin} was not run: its input cannot be written as JSON (${(err as Error).message}).` };
  }
  // Checked here rather than left to exec: behind a launcher (sh, prlimit, bwrap) a missing
  // command would come back as that launcher's exit code instead of a clear spawn failure.
  if (spec.command.includes('/')) {
    try {
      accessSync(resolve(spec.cwd, spec.command), fsConstants.X_OK);
    } catch (err) {
      return { ok: false, message: `${spec.plugin}: could not start ${spec.command}: ${(err as Error).message.replace(/, access '.*'$/, '')}` };
    }
  }
  if (wrappedAhead) return { ok: true, inputText, wrapped: wrappedAhead };
  try {
    return { ok: true, inputText, wrapped: spec.wrap ? spec.wrap(spec.command, spec.args) : { command: spec.command, args: spec.args } };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));

async function runProcess(spec: OneShotSpec, queuedMs: number): Promise<OneShotResult> {
  const started = performance.now();
  const cap = spec.maxStdout ?? MAX_STDOUT;
  const grace = spec.killGraceMs ?? KILL_GRACE_MS;
  const base = { queuedMs };
  const refuse = (message: string, sandboxed: boolean): OneShotResult => ({ ok: false, failure: 'spawn', message, stdout: '', stderr: '', exitCode: null, signal: null, durationMs: performance.now() - started, sandboxed, pid: null, ...base });

  const thread = spec.forkThread === false ? null : (spec.forkThread ?? sharedChildStarter());
  const warmth = spec.warm && thread ? warmKeyOf(spec, cap) : null;
  const warmKey = warmth?.key ?? null;
  const spare = warmKey !== null ? await spec.warm!.take(warmKey, spec.timeoutMs) : null;
  const prepared = prepareRun(spec, spare?.wrapped);
  if (!prepared.ok) {
    spare?.dismiss();
    return refuse(prepared.message, false);
  }
  const { inputText, wrapped } = prepared;
  const sandboxed = wrapped.sandboxed === true;
  if (spec.requireSandbox && !sandboxed) {
    if (spare) {
      // Its own end cleans up its containment.
      spare.dismiss();
      return refuse(`${spec.plugin} was not run: a sandbox is required and this call would run unsandboxed.`, false);
    }
    return (async () => {
      await wrapped.finish?.();
      return refuse(`${spec.plugin} was not run: a sandbox is required and this call would run unsandboxed.`, false);
    })();
  }

  const run = new Promise<OneShotResult>((resolve) => {
    let pid: number | null = null;
    let io: ChildIo | null = null;
    let failure: { kind: RunFailure; message: string; limit?: LimitKind } | null = null;
    let timer: NodeJS.Timeout | null = null;
    let killTimer: NodeJS.Timeout | null = null;
    let drainTimer: NodeJS.Timeout | null = null;
    let escalated = false;
    let exited = false;
    let settled = false;

    const killGroup = (signal: NodeJS.Signals) => {
      if (pid === null) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (kind: RunFailure, message: string, limit?: LimitKind) => {
      if (failure) return;
      failure = { kind, message, ...(limit ? { limit } : {}) };
      if (exited) return;
      killGroup('SIGTERM');
      killTimer = setTimeout(() => {
        escalated = true;
        killGroup('SIGKILL');
        wrapped.kill?.();
      }, grace);
    };

    const onEvent = (e: ChildEvent): void => {
      switch (e.type) {
        case 'spawned':
          pid = e.pid;
          // Started after the call already ended (its time ran out while it waited for the fork): never runs on.
          if (settled) {
            killGroup('SIGKILL');
            wrapped.kill?.();
            return;
          }
          spec.onSpawn?.(pid, e.threadId, e.by);
          return;
        case 'failed':
          void finalize(null, null, { kind: 'spawn', message: `${spec.plugin}: could not start ${spec.command}: ${e.message}` }, null);
          return;
        case 'overflow':
          stop('limit', `${spec.plugin} wrote more than ${formatBytes(cap)} to stdout and was stopped; a tool prints one JSON object of at most ${formatBytes(cap)}.`, 'stdout');
          return;
        case 'exit':
          // The plugin's exit ends the call: whatever it left running in its group goes with it,
          // which also closes pipes a backgrounded child kept open, so 'close' follows promptly.
          exited = true;
          // It finished (or was stopped): what follows is cleanup, not the plugin's time.
          if (timer) clearTimeout(timer);
          if (killTimer) clearTimeout(killTimer);
          killGroup('SIGKILL');
          wrapped.kill?.();
          // A process that escaped the group and the containment may hold our pipes open: stop
          // waiting for them after a short drain.
          drainTimer = setTimeout(() => io?.letGo(), EXIT_DRAIN_MS);
          return;
        case 'close':
          void finalize(e.code, e.signal, null, e);
          return;
        case 'lost':
          // Its exit and output can no longer be read (the process was killed): fails closed.
          killGroup('SIGKILL');
          wrapped.kill?.();
          void finalize(null, null, { kind: 'crash', message: `${spec.plugin} was stopped: ${e.message}, which was watching it.` }, null);
          return;
      }
    };

    // The wall clock runs from the request (a wait for a spare still being set up counts): a fork
    // that never comes back cannot hold the call.
    timer = setTimeout(
      () => {
        const message = `${spec.plugin} did not finish within ${formatMs(spec.timeoutMs)} and was stopped.`;
        if (pid !== null) stop('timeout', message);
        else void finalize(null, null, { kind: 'timeout', message }, null);
      },
      Math.max(0, spec.timeoutMs - (performance.now() - started)),
    );
    const request: ChildRequest = { command: wrapped.command, args: wrapped.args, cwd: spec.cwd, env: spec.env, input: inputText, maxStdout: cap, stderrTail: STDERR_TAIL };
    // Started by the host's spawner process (or its fork thread), so the host does not fork
    // (child-io.ts, pty/spawner.ts); on this thread when there is neither.
    const start = (by: ChildStarter | null): void => {
      if (!by) {
        io = startChild(request, onEvent);
        return;
      }
      by.startChild(request, onEvent).then(
        (started) => (io = started),
        (err: unknown) => {
          // Gone before it started anything: the host's next choice (a new spawner, the fork
          // thread) for the default, this thread for a given one or when that is the same again.
          if (err instanceof ForkThreadUnavailable) {
            const next = spec.forkThread === undefined ? sharedChildStarter() : null;
            start(next === by ? null : next);
          } else void finalize(null, null, { kind: 'spawn', message: `${spec.plugin}: could not start ${spec.command}: ${(err as Error).message}` }, null);
        },
      );
    };
    if (spare) {
      // Started ahead for this call (warm-starts.ts): what it did so far is replayed, then the gate opens.
      spare.adopt(onEvent);
      void spare.io.then((started) => (io = started));
      spare.release(inputText);
    } else start(thread);
    // The next call of this shape finds its process started.
    // One spare per tool call (command, arguments, folder, environment: the host gives each tool
    // of a plugin its GATEHOUSE_TOOL), whose sandbox is the newest: a spare per plugin had two
    // tools called in turn let each other's spare go, so that each of their calls started cold
    // and a sandbox for nothing.
    if (warmth && thread) spec.warm!.prime(warmth.key, warmth.call, () => startSpare(spec, thread, cap));

    async function finalize(code: number | null, signal: NodeJS.Signals | null, early: { kind: RunFailure; message: string; limit?: LimitKind } | null, out: { stdout: Uint8Array; stderr: string } | null): Promise<void> {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      // The containment first (a cgroup also holds processes that left the group), then the
      // group itself. An empty cgroup is not enough: a PID namespace's init leaves the cgroup
      // early in its exit and then waits for the namespace to empty, still in our group.
      const report: ContainmentReport = (await wrapped.finish?.()) ?? { processLimitHit: false };
      if (pid !== null) await killGroupUntilGone(pid);
      const durationMs = performance.now() - started;
      const stdout = out ? Buffer.from(out.stdout.buffer, out.stdout.byteOffset, out.stdout.byteLength).toString('utf8') : '';
      const stderrTail = out?.stderr ?? '';
      const common = { stdout, stderr: stderrTail, durationMs, sandboxed, pid, ...base };
      const fail = (kind: RunFailure, message: string, limit?: LimitKind): OneShotResult => ({ ok: false, failure: kind, message, exitCode: code, signal, ...(limit ? { limit } : {}), ...common });
      const r = classify({ early: early ?? failure, code, signal, stdout, stderrTail });
      if (r.ok) {
        resolve({ ok: true, output: r.output, exitCode: 0, ...common });
        return;
      }
      // A refused fork explains most of what follows it (a timeout, a crash, no output).
      if (report.processLimitHit && r.kind !== 'spawn' && r.kind !== 'limit') {
        resolve(fail('limit', `${spec.plugin} reached its process limit (a fork was refused) and was stopped, with every process it started. ${r.message}`, 'processes'));
        return;
      }
      resolve(fail(r.kind, r.message, r.limit));
    }

    function classify(x: { early: { kind: RunFailure; message: string; limit?: LimitKind } | null; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderrTail: string }): { ok: true; output: Record<string, unknown> } | { ok: false; kind: RunFailure; message: string; limit?: LimitKind } {
      const { early: f, code, signal, stdout, stderrTail } = x;
      if (f) {
        const extra = f.kind === 'timeout' && escalated ? ` It ignored SIGTERM and was killed after ${formatMs(grace)}.` : '';
        return { ok: false, kind: f.kind, message: f.message + extra, ...(f.limit ? { limit: f.limit } : {}) };
      }
      // Inside bwrap a signal death comes back as exit code 128 + signal.
      const sig = signal ?? (sandboxed && code !== null && code > 128 && code < 160 ? (SIGNAL_NAMES.get(code - 128) ?? null) : null);
      if (code !== 0 || signal) {
        const tail = stderrTail.trim();
        if (sig === 'SIGXCPU') return { ok: false, kind: 'limit', limit: 'cpu', message: `${spec.plugin} used up its CPU time limit and was stopped.` };
        if (sig === 'SIGXFSZ') return { ok: false, kind: 'limit', limit: 'file_size', message: `${spec.plugin} tried to write a file over its file size limit and was stopped.` };
        // A warm start's gate (warm-starts.ts) and the box's check of its mounts (verify-mounts.ts)
        // say an exec that failed in the shell's words ("gatehouse-gate: 1: exec: …: not found"),
        // where bwrap would say it: the same failure; so is a box the check refused.
        const launch = /^(bwrap|prlimit|gatehouse-launch|gatehouse-gate|gatehouse-box): (?:(?:line )?\d+: )?(.*)$/m.exec(tail);
        if (launch && stdout === '') return { ok: false, kind: 'spawn', message: `${spec.plugin} could not be started${sandboxed ? ' in its sandbox' : ''}: ${launch[2]}` };
        const why = sig ? `was killed by ${sig}` : `exited with code ${code}`;
        return { ok: false, kind: 'crash', message: `${spec.plugin} ${why}${tail ? `: ${tail}` : ' (nothing on stderr)'}` };
      }
      const parsed = parseOutput(spec.plugin, stdout);
      return parsed.ok ? { ok: true, output: parsed.value } : { ok: false, kind: 'bad_output', message: parsed.message };
    }
  });
  // A plugin whose calls fail gets no process started ahead until one succeeds again.
  return warmKey === null ? run : run.then((r) => (spec.warm!.outcome(warmKey, r.ok), r));
}


/**
 * Variables a shell reads before it runs anything (bash's startup file, exported functions, xtrace
 * with a PS4 that runs commands): with them the gate could run a plugin's code before a call
 * released it, so such a call is always started cold.
 */
const RUNS_BEFORE_GATE = /^(BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|BASH_FUNC_.*)$/;

/**
 * A call's warm start (warm-starts.ts): `call` names the tool call (plugin, command, arguments,
 * folder, environment), `key` that and its sandbox as worked out now; null when it must start cold.
 */
function warmKeyOf(spec: OneShotSpec, cap: number): { key: string; call: string } | null {
  if (!spec.wrap?.warmKey || Object.keys(spec.env).some((k) => RUNS_BEFORE_GATE.test(k))) return null;
  try {
    const call = JSON.stringify([spec.plugin, spec.command, spec.args, spec.cwd, spec.env, cap]);
    return { key: JSON.stringify([spec.wrap.warmKey(), call]), call };
  } catch {
    return null;
  }
}

/** Starts a spare for the next call like `spec` by `thread` (the spawner or the fork thread): the same wrap around the gate. */
function startSpare(spec: OneShotSpec, thread: ChildStarter, cap: number): Spare | null {
  let wrapped: WrappedCommand;
  try {
    wrapped = spec.wrap!('/bin/sh', ['-c', GATE_SCRIPT, GATE_NAME, spec.command, ...spec.args]);
  } catch {
    return null;
  }
  if (wrapped.degraded) {
    void wrapped.finish?.();
    return null;
  }
  const spare = new Spare(wrapped);
  spare.io = thread.startChild({ command: wrapped.command, args: wrapped.args, cwd: spec.cwd, env: spec.env, input: null, maxStdout: cap, stderrTail: STDERR_TAIL, ready: GATE_READY }, spare.event).catch((err: unknown) => {
    spare.event({ type: 'failed', message: (err as Error).message });
    return null;
  });
  return spare;
}

/** Exactly one JSON object, or a sentence saying what was printed instead. */
export function parseOutput(plugin: string, stdout: string): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  if (stdout.trim() === '') return { ok: false, message: `${plugin} printed nothing on stdout; a tool must print exactly one JSON object.` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (err) {
    const end = jsonValueEnd(stdout);
    if (end > 0) {
      let first: unknown;
      try {
        first = JSON.parse(stdout.slice(0, end));
      } catch {
        first = undefined;
      }
      if (first !== undefined) {
        const at = Buffer.byteLength(stdout.slice(0, end));
        return { ok: false, message: `${plugin} printed ${kindOf(first)} followed by more output at byte ${at} (${snippet(stdout.slice(end).trimStart())}); a tool must print exactly one JSON object on stdout and nothing else — write logs to stderr.` };
      }
    }
    return { ok: false, message: `${plugin} must print exactly one JSON object on stdout; it printed text that is not JSON (${snippet(stdout)}; ${(err as Error).message}).` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, message: `${plugin} must print a JSON object on stdout; it printed ${kindOf(parsed)}.` };
  }
  return { ok: true, value: parsed as Record<string, unknown> };
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a JSON array';
  if (v === null) return 'JSON null';
  if (typeof v === 'object') return 'a JSON object';
  return `a JSON ${typeof v}`;
}

function snippet(s: string): string {
  const head = s.slice(0, 60).replace(/\s+/g, ' ');
  return `${JSON.stringify(head)}${s.length > 60 ? '…' : ''}`;
}

/** Index just past the first complete JSON object or array at the start of s (after whitespace), or -1. */
function jsonValueEnd(s: string): number {
  let i = 0;
  while (i < s.length && /\s/.test(s[i]!)) i++;
  if (s[i] !== '{' && s[i] !== '[') return -1;
  let depth = 0;
  let inString = false;
  for (; i < s.length; i++) {
    const ch = s[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

