// extract() with the judge's resilience around it: what an agent sends decides how much work the
// analysis does, so no call may stall the host or break the extraction of the calls after it.
//
//  - A shell command over MAX_COMMAND_LENGTH is not parsed: the call is judged as one Gatehouse
//    cannot see through (evasive, every operation, the absolute paths found by a plain scan), so a
//    rule asks or denies, never allows.
//  - Small calls (the common case) are judged on the calling thread, where the analysis under the
//    limits is linear and ends in well under a millisecond; no thread hop is paid for them. One
//    that passes the calling thread's short deadline is judged again in the worker.
//  - Larger calls go to a worker thread with a deadline: an overrun terminates the worker (the next
//    large call gets a new one) and denies that call only.
//  - Any failure denies that call only ("extraction failed: …"); after a tree-sitter failure the
//    next call gets a fresh parser (shell-grammar.ts discards the old one, loadGrammar builds anew).
import { homedir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { entryFile } from '../../core/entry-file.js';
import { OPERATIONS, type Extraction, type ToolCall } from '../types.js';
import { withExtractionDeadline } from './collector.js';
import { extract, type ExtractOptions } from './extract.js';
import type { WorkerJob, WorkerMessage } from './extract-worker.js';
import { DEFAULT_EXTRACT_DEADLINE_MS, IN_PROCESS_DEADLINE_MS, IN_PROCESS_MAX_LENGTH, MAX_COMMAND_LENGTH } from './limits.js';
import { normalisePath } from './paths.js';
import { grammarReady, loadGrammar } from './shell-grammar.js';
import { COMMAND_KEYS, toolSpec } from './tools.js';

export interface GuardOptions extends ExtractOptions {
  /** How long a worker may take for one call (default DEFAULT_EXTRACT_DEADLINE_MS). */
  deadlineMs?: number;
  /** Calls up to this many characters are judged on the calling thread (default IN_PROCESS_MAX_LENGTH). */
  inProcessMaxLength?: number;
  /** The cooperative deadline of an extraction on the calling thread (default IN_PROCESS_DEADLINE_MS). */
  inProcessDeadlineMs?: number;
}

/** Why extraction did not produce an answer; the pipeline denies the call with this message. */
export class ExtractionFailed extends Error {
  override name = 'ExtractionFailed';
}

/** Most absolute paths the plain scan of an unparsed command reports (enough for rules to match). */
const MAX_SCANNED_PATHS = 256;
/** Deepest argument nesting the size measure walks (as extract's own host walk). */
const MAX_MEASURE_DEPTH = 32;

export class GuardedExtractor {
  private readonly opts: ExtractOptions;
  private readonly inProcessMax: number;
  private readonly inProcessDeadlineMs: number;
  private readonly pool: WorkerLane;

  constructor(opts: GuardOptions = {}) {
    const { deadlineMs, inProcessMaxLength, inProcessDeadlineMs, ...rest } = opts;
    this.opts = rest;
    this.inProcessMax = inProcessMaxLength ?? IN_PROCESS_MAX_LENGTH;
    this.inProcessDeadlineMs = inProcessDeadlineMs ?? IN_PROCESS_DEADLINE_MS;
    this.pool = new WorkerLane(deadlineMs ?? DEFAULT_EXTRACT_DEADLINE_MS);
  }

  /** The deadline for calls judged in the worker, in ms (tests shorten it). */
  get deadlineMs(): number {
    return this.pool.deadlineMs;
  }
  set deadlineMs(ms: number) {
    if (!Number.isFinite(ms) || ms <= 0) throw new Error(`deadlineMs must be a positive number of milliseconds, not ${ms}`);
    this.pool.deadlineMs = ms;
  }

  /**
   * What the call would touch. Synchronous for small calls once the grammar is loaded (so the
   * decision stays in microseconds); a promise otherwise. Rejects/throws ExtractionFailed.
   */
  extract(call: ToolCall): Extraction | Promise<Extraction> {
    const command = commandOf(call);
    if (command !== null && command.length > MAX_COMMAND_LENGTH) {
      const spec = toolSpec(call.tool);
      if (spec.shell || spec.ops.includes('execute')) return unparsed(command, this.opts.home ?? homedir());
    }
    if (argumentsLength(call.arguments, this.inProcessMax) > this.inProcessMax) return this.pool.run(call, this.opts);
    if (!grammarReady()) return loadGrammar().then(() => this.inProcess(call), (err: unknown) => Promise.reject(failed(err)));
    return this.inProcess(call);
  }

  /** Stops the worker, if one runs. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private inProcess(call: ToolCall): Extraction | Promise<Extraction> {
    try {
      return withExtractionDeadline(this.inProcessDeadlineMs, () => extract(call, this.opts));
    } catch (err) {
      // A small call past the calling thread's deadline was, far more often, a thread preempted on
      // a busy machine than a costly call (the analysis is linear under its limits): the worker
      // judges it again under its own deadline, which still denies a call that is really slow.
      // Denying here turned load into denials of ordinary calls ("extraction took longer than 250 ms").
      if (isDeadline(err)) return this.pool.run(call, this.opts);
      // A parser failure discarded the parser: start loading the next one now, so that the next
      // call finds it ready (a failure to load is reported by that call).
      if (!grammarReady()) loadGrammar().catch(() => undefined);
      throw failed(err);
    }
  }
}

function isDeadline(err: unknown): err is Error {
  return err instanceof Error && err.message.startsWith('extraction took longer than');
}

function failed(err: unknown): ExtractionFailed {
  // The cooperative deadline on the calling thread already says what happened.
  if (isDeadline(err)) return new ExtractionFailed(err.message);
  const msg = err instanceof Error ? (err instanceof RangeError ? `${err.message} (the command nests too deeply)` : err.message) : String(err);
  return new ExtractionFailed(`extraction failed: ${msg}`);
}

/** The command a call carries, as extract() finds it (string, or argv joined). */
function commandOf(call: ToolCall): string | null {
  const args = call.arguments ?? {};
  for (const k of COMMAND_KEYS) {
    const v = args[k];
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) return (v as string[]).join(' ');
  }
  return null;
}

/**
 * Characters in the call's arguments (strings, keys and one per other value), counted only until
 * `limit` is passed: measuring must itself stay cheap for a huge call.
 */
export function argumentsLength(v: unknown, limit: number): number {
  let n = 0;
  const walk = (x: unknown, depth: number): void => {
    if (n > limit) return;
    if (typeof x === 'string') {
      n += x.length;
      return;
    }
    n += 1;
    if (!x || typeof x !== 'object') return;
    // Deeper than extract walks: count it as large, so it goes where a deadline applies.
    if (depth > MAX_MEASURE_DEPTH) {
      n = limit + 1;
      return;
    }
    if (Array.isArray(x)) {
      for (const e of x) {
        walk(e, depth + 1);
        if (n > limit) return;
      }
      return;
    }
    for (const k in x as Record<string, unknown>) {
      n += k.length;
      walk((x as Record<string, unknown>)[k], depth + 1);
      if (n > limit) return;
    }
  };
  walk(v, 0);
  return n;
}

/**
 * A command too long to parse: every operation, the absolute and home-relative paths a plain
 * scan finds (so a rule protecting one of them still denies), and the reason.
 */
function unparsed(command: string, home: string): Extraction {
  const paths: string[] = [];
  const seen = new Set<string>();
  const re = /(?:^|[\s;|&<>()'"=`])((?:~|\$HOME|\$\{HOME\})?\/[^\s;|&<>()'"`]*)/g;
  for (let m = re.exec(command); m && paths.length < MAX_SCANNED_PATHS; m = re.exec(command)) {
    const raw = (m[1] as string).replace(/^\$\{HOME\}/, '$HOME').slice(0, 4096);
    const p = normalisePath(raw, '/', home);
    if (p && !seen.has(p)) {
      seen.add(p);
      paths.push(p);
    }
  }
  const reason = `the command is ${command.length} characters long, over the ${MAX_COMMAND_LENGTH / 1024} KiB Gatehouse parses, so it was not analysed`;
  return { operations: [...OPERATIONS], paths, hosts: [], command, content: '', evasive: true, evasiveReasons: [reason] };
}

// ---- the worker ----------------------------------------------------------------------------------

interface Pending {
  job: WorkerJob;
  resolve: (x: Extraction) => void;
  reject: (e: Error) => void;
}

/** How long a new worker may take to load the grammar before the call waiting for it is denied. */
const WORKER_STARTUP_MS = 10_000;

/**
 * One worker thread, one call at a time, each with a deadline that starts when the worker has the
 * call (a new worker first loads the grammar, under a start-up limit of its own); replaced after an
 * overrun, a crash or a failed start. A worker that cannot start fails one call per attempt.
 */
class WorkerLane {
  private worker: Worker | null = null;
  private ready = false;
  private startTimer: NodeJS.Timeout | null = null;
  private current: (Pending & { timer: NodeJS.Timeout }) | null = null;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  constructor(public deadlineMs: number) {}

  run(call: ToolCall, opts: ExtractOptions): Promise<Extraction> {
    if (this.closed) return Promise.reject(new ExtractionFailed('extraction failed: the extractor is closed'));
    return new Promise<Extraction>((resolve, reject) => {
      this.queue.push({ job: { id: this.nextId++, call, opts }, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.closed || this.current || this.queue.length === 0) return;
    if (!this.worker) {
      try {
        this.spawn();
      } catch (err) {
        (this.queue.shift() as Pending).reject(failed(err));
        this.pump();
        return;
      }
    }
    // A new worker says when its grammar is loaded; that message pumps again.
    if (!this.ready || !this.worker) return;
    const next = this.queue.shift() as Pending;
    const ms = this.deadlineMs;
    const timer = setTimeout(() => this.fail(new ExtractionFailed(`extraction took longer than ${ms} ms`)), ms);
    this.current = { ...next, timer };
    this.worker.postMessage(next.job);
  }

  private spawn(): void {
    const w = new Worker(workerFile());
    this.worker = w;
    this.ready = false;
    this.startTimer = setTimeout(() => this.fail(new ExtractionFailed(`extraction failed: the extraction worker did not start within ${WORKER_STARTUP_MS / 1000} s`)), WORKER_STARTUP_MS);
    w.on('message', (m: WorkerMessage) => {
      if (w !== this.worker) return;
      if ('ready' in m) {
        this.ready = true;
        if (this.startTimer) clearTimeout(this.startTimer);
        this.startTimer = null;
        this.pump();
        return;
      }
      const cur = this.current;
      if (!cur || cur.job.id !== m.id) return;
      clearTimeout(cur.timer);
      this.current = null;
      if (m.ok) cur.resolve(m.extraction);
      else cur.reject(new ExtractionFailed(`extraction failed: ${m.message}`));
      this.pump();
    });
    w.on('error', (err) => {
      if (w === this.worker) this.fail(failed(err));
    });
    w.on('exit', (code) => {
      if (w === this.worker) this.fail(new ExtractionFailed(`extraction failed: the extraction worker stopped (exit code ${code})`));
    });
    // The host may exit while a worker idles; a waiting call keeps the process alive by its timer.
    // After the listeners: adding a 'message' listener refs the worker's port again, and a
    // process whose lane was never closed (a CLI command, the bench) then never exited.
    w.unref();
  }

  /** Fails the call in the worker (or, during start-up, the one waiting for it) and throws the worker away. */
  private fail(err: Error): void {
    const w = this.worker;
    this.worker = null;
    this.ready = false;
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = null;
    if (w) void w.terminate();
    const cur = this.current;
    this.current = null;
    if (cur) {
      clearTimeout(cur.timer);
      cur.reject(err);
    } else this.queue.shift()?.reject(err);
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    const closedErr = () => new ExtractionFailed('extraction failed: the extractor is closed');
    for (const p of this.queue.splice(0)) p.reject(closedErr());
    const w = this.worker;
    this.worker = null;
    if (this.startTimer) clearTimeout(this.startTimer);
    this.startTimer = null;
    if (this.current) {
      clearTimeout(this.current.timer);
      this.current.reject(closedErr());
      this.current = null;
    }
    if (w) await w.terminate();
  }
}

// ---- where the worker's code is ---------------------------------------------------------------

/** The worker's file: out/main/extract-worker.cjs, or bundled from the sources (main/core/entry-file.ts). */
function workerFile(): string {
  return entryFile({ name: 'extract-worker', ext: '.cjs', callerUrl: import.meta.url, what: 'the extraction worker', packagesExternal: true });
}
