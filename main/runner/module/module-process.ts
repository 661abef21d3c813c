// The host side of one module plugin: a long-lived Node child (module-child.ts) per plugin,
// started inside the bubblewrap sandbox and limits (its own network namespace, no home, the
// plugin folder read-only, nothing writable but a private /tmp) and, inside it, Node's
// permission model (reads only of the plugin folder and its compiled bundle; no child
// processes, no worker threads). A trusted module (manifest and operator both say so) runs
// with limits only, as other trusted plugins do.
//
// Every way a module can misbehave ends in a named failure and a dead process group:
//  - load-timeout: the top level did not finish (an endless loop, a promise never settled);
//  - timeout: a call did not answer in time (the whole child is killed: a busy loop blocks it);
//  - log-flood: more log lines or bytes in one call than the cap;
//  - crash: the child exited; the next call starts a fresh one.
import type { ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { containWrap, type SandboxDetection } from '../sandbox.js';
import type { WrappedCommand } from '../one-shot.js';
import { ConcurrencyLimiter } from '../concurrency.js';
import { killGroupUntilGone } from '../../core/kill-group.js';
import { moduleChildFile } from './child-file.js';
import { spawnJsChild } from '../js-child.js';
import type { RuntimeHost, ShippedPaths } from '../../core/node-runtime.js';
import { compileModule } from './compile.js';
import { moduleFetch, type FetchContext } from './module-fetch.js';
import { ModuleExportError, validateExports, type ModulePlugin } from './module-exports.js';
import { lineReader, type ChildToHost, type HostToChild } from './protocol.js';
import { CLASSIFICATIONS, type Classification } from '../../policy/autonomy.js';

export type ModuleFailure = 'load-timeout' | 'load-error' | 'invalid-exports' | 'timeout' | 'crash' | 'log-flood' | 'not-handled' | 'error' | 'protocol';

export class ModuleLoadError extends Error {
  override name = 'ModuleLoadError';
  constructor(
    readonly failure: ModuleFailure,
    message: string,
    /** Each problem of the exports, when failure is invalid-exports. */
    readonly problems: string[] = [message],
  ) {
    super(message);
  }
}

export interface ModuleLogLine {
  level: string;
  message: string;
}

export type ModuleCallResult =
  | { ok: true; output: unknown; logs: ModuleLogLine[]; droppedLogs: number; durationMs: number; taint?: Classification }
  | { ok: false; failure: ModuleFailure; error: string; logs: ModuleLogLine[]; droppedLogs: number; durationMs: number; taint?: Classification };

export interface ModuleProcessOptions {
  pluginDir: string;
  /** Where the compiled bundle is kept (private to the host). */
  cacheDir: string;
  detection: SandboxDetection;
  /** Effective trust (see effectiveTrust): trusted runs without the sandbox. */
  trusted?: boolean;
  /** How long the module's top level may take (default 5 s). */
  loadTimeoutMs?: number;
  /** Calls running at once; more wait (default 4). */
  concurrency?: number;
  /** Log lines kept per call (default 200); more than `maxLogLines * 10` or 1 MiB in one call is a flood. */
  maxLogLines?: number;
  /** V8 heap cap of the child, MiB (default 256). */
  heapMb?: number;
  home?: string;
  /** "typescript" forces the compiler an installed Gatehouse uses when esbuild (a development dependency) is absent. */
  compiler?: 'auto' | 'typescript';
  /** For fetch: everything but the plugin's own fields, which come from its manifest. */
  fetch: Omit<FetchContext, 'plugin' | 'declaredEndpoints' | 'actor'>;
  /** Stand-in for Electron's process.versions and PATH (tests); default: this process's. */
  runtime?: RuntimeHost;
}

interface Running {
  resolve(r: ModuleCallResult): void;
  tool: string;
  callId: string | null;
  actor: string;
  logs: ModuleLogLine[];
  dropped: number;
  logBytes: number;
  started: number;
  timer: NodeJS.Timeout;
  /** The highest level the call escalated its taint to (context.escalateTaint). */
  taint?: Classification;
}

const FLOOD_BYTES = 1024 * 1024;

export class ModuleProcess {
  private child: ChildProcess | null = null;
  private wrapped: WrappedCommand | null = null;
  private exited: Promise<void> | null = null;
  private loading: Promise<ModulePlugin> | null = null;
  private plugin: ModulePlugin | null = null;
  private bundle: string | null = null;
  private readonly running = new Map<number, Running>();
  private readonly setAside: Running[] = [];
  private readonly limiter: ConcurrencyLimiter;
  private nextId = 1;
  private stderr = '';
  private closed = false;
  private killReason: { failure: ModuleFailure; message: string } | null = null;

  constructor(private readonly opts: ModuleProcessOptions) {
    this.limiter = new ConcurrencyLimiter({ limit: opts.concurrency ?? 4 });
  }

  get sandboxed(): boolean {
    return !this.opts.trusted && this.opts.detection.kind === 'bwrap';
  }

  /** The host pid of the process group leader (bwrap or node), null when none runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Compiles, starts the child and validates what it exports. */
  load(): Promise<ModulePlugin> {
    if (this.closed) return Promise.reject(new ModuleLoadError('crash', 'the module runner is shut down'));
    this.loading ??= this.start().catch((err: unknown) => {
      this.loading = null;
      throw err;
    });
    return this.loading;
  }

  private async start(): Promise<ModulePlugin> {
    const dir = realpathSync(this.opts.pluginDir);
    if (!this.bundle) {
      try {
        this.bundle = (await compileModule(dir, this.opts.cacheDir, this.opts.compiler ? { compiler: this.opts.compiler } : {})).file;
      } catch (err) {
        throw new ModuleLoadError('load-error', (err as Error).message);
      }
    }
    const bundle = this.bundle;
    const built = moduleChildFile();
    const nodeArgs = ({ file: childFile }: ShippedPaths) => {
      const args = [`--max-old-space-size=${this.opts.heapMb ?? 256}`, '--disable-warning=ExperimentalWarning'];
      // Node's permission model inside the sandbox: reads of the plugin folder and the two files
      // it needs, no child processes, no workers, no writes. Defence in depth behind bwrap, and the
      // only file barrier where bwrap is missing.
      if (!this.opts.trusted) args.push('--experimental-permission', `--allow-fs-read=${dir}`, `--allow-fs-read=${childFile}`, `--allow-fs-read=${dirname(bundle)}`);
      return args;
    };
    const wrap = ({ file: childFile }: ShippedPaths) => {
      const sandbox = this.sandboxed && this.opts.detection.kind === 'bwrap' ? { detection: this.opts.detection, profile: { pluginDir: dir, read: [dirname(childFile), dirname(bundle)], write: [], hosts: [], readOnlyRoot: true } } : null;
      return containWrap(sandbox, { timeoutMs: 30_000, limits: { cpuSecs: Infinity, addressSpaceBytes: Infinity }, ...(this.opts.home ? { home: this.opts.home } : {}) });
    };
    this.stderr = '';
    this.killReason = null;
    const logCap = (this.opts.maxLogLines ?? 200) * 10;
    let started: ReturnType<typeof spawnJsChild>;
    try {
      started = spawnJsChild({
        what: `the module plugin in ${dir}`,
        file: built,
        nodeArgs,
        wrap,
        options: { stdio: ['pipe', 'pipe', 'pipe'], env: { GATEHOUSE_MODULE_BUNDLE: bundle, GATEHOUSE_MODULE_LOG_CAP: String(logCap), PATH: '/usr/bin:/bin' }, cwd: dir, detached: true },
        ...(this.opts.runtime ? { runtime: this.opts.runtime } : {}),
      });
    } catch (err) {
      throw new ModuleLoadError('load-error', (err as Error).message);
    }
    const { child, wrapped: w } = started;
    this.wrapped = w;
    this.child = child;
    this.exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString('utf8')).slice(-2000);
    });
    child.stdin!.on('error', () => undefined);
    const loadTimeout = this.opts.loadTimeoutMs ?? 5000;
    const loaded = new Promise<ModulePlugin>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill({ failure: 'load-timeout', message: `the module's top level did not finish within ${loadTimeout} ms (an endless loop or a promise that never settles); it was stopped` });
      }, loadTimeout);
      let loadLogs = 0;
      child.stdout!.on(
        'data',
        lineReader(
          (line) => {
            let m: ChildToHost;
            try {
              m = JSON.parse(line) as ChildToHost;
            } catch {
              return;
            }
            if (m.t === 'loaded') {
              clearTimeout(timer);
              try {
                const p = validateExports(m.exports);
                this.plugin = p;
                resolve(p);
              } catch (err) {
                reject(new ModuleLoadError('invalid-exports', (err as Error).message, err instanceof ModuleExportError ? err.problems : [(err as Error).message]));
                this.kill({ failure: 'invalid-exports', message: (err as Error).message });
              }
            } else if (m.t === 'load-error') {
              clearTimeout(timer);
              reject(new ModuleLoadError('load-error', m.error));
              this.kill({ failure: 'load-error', message: m.error });
            } else if ((m.t === 'log' || m.t === 'log-flood') && m.id === null) {
              if (m.t === 'log-flood' || ++loadLogs > logCap) this.kill({ failure: 'log-flood', message: `the module logged more than ${logCap} lines while loading; it was stopped` });
            } else this.onMessage(m);
          },
          () => this.kill({ failure: 'protocol', message: 'the module sent a line longer than the protocol allows; it was stopped' }),
        ),
      );
      child.once('error', (err) => reject(new ModuleLoadError('crash', `the module process could not start: ${err.message}`)));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        const why = this.killReason ?? { failure: 'crash' as const, message: `the module process ended (${signal ? `signal ${signal}` : `exit code ${code}`})${this.stderr.trim() ? `: ${this.stderr.trim().slice(-300)}` : ''}` };
        this.child = null;
        this.loading = null;
        // A failure is reported only once nothing of the child is left: bwrap's own processes
        // and the namespace's init die a moment after the group leader.
        // The calls of this child are taken now: a call made meanwhile goes to a fresh child.
        const wrapped = w;
        const calls = [...this.running.values(), ...this.setAside.splice(0)];
        this.running.clear();
        this.exited = killGroupUntilGone(child.pid!).then(async () => void (await wrapped.finish?.()));
        void this.exited.then(() => failCalls(calls, why, reject));
      });
    });
    return loaded;
  }

  private send(m: HostToChild): void {
    if (this.child?.stdin?.writable) this.child.stdin.write(`${JSON.stringify(m)}\n`);
  }

  private onMessage(m: ChildToHost): void {
    if (m.t === 'result') {
      const r = this.running.get(m.id);
      if (!r) return;
      this.running.delete(m.id);
      clearTimeout(r.timer);
      const durationMs = performance.now() - r.started;
      const taint = r.taint ? { taint: r.taint } : {};
      if (!m.ok) return r.resolve({ ok: false, failure: 'error', error: m.error, logs: r.logs, droppedLogs: r.dropped, durationMs, ...taint });
      if (!m.handled) return r.resolve({ ok: false, failure: 'not-handled', error: `the module's executor returned null for ${r.tool}: it does not handle that tool`, logs: r.logs, droppedLogs: r.dropped, durationMs, ...taint });
      return r.resolve({ ok: true, output: m.value, logs: r.logs, droppedLogs: r.dropped, durationMs, ...taint });
    }
    if (m.t === 'taint') {
      // Checked here too: the child is the plugin's code and may send anything. Only ever raised.
      const r = m.id === null ? undefined : this.running.get(m.id);
      const level = m.level as Classification;
      if (r && (CLASSIFICATIONS as readonly string[]).includes(level) && (!r.taint || CLASSIFICATIONS.indexOf(level) > CLASSIFICATIONS.indexOf(r.taint))) r.taint = level;
      return;
    }
    if (m.t === 'log') {
      const r = m.id === null ? undefined : this.running.get(m.id);
      if (!r) return;
      r.logBytes += m.message.length;
      if (r.logs.length < (this.opts.maxLogLines ?? 200)) r.logs.push({ level: String(m.level).slice(0, 10), message: m.message.slice(0, 2000) });
      else r.dropped++;
      if (r.dropped > (this.opts.maxLogLines ?? 200) * 10 || r.logBytes > FLOOD_BYTES) {
        this.kill({ failure: 'log-flood', message: `${r.tool} flooded context.log (${r.logs.length + r.dropped} lines, ${r.logBytes} bytes in one call); the module was stopped` });
      }
      return;
    }
    if (m.t === 'log-flood') {
      const r = m.id === null ? undefined : this.running.get(m.id);
      const why = { failure: 'log-flood' as const, message: `${r?.tool ?? 'the module'} flooded context.log (more than ${m.lines - 1} lines or ${FLOOD_BYTES} bytes in one call); the module was stopped` };
      // Its result may already be on its way and must not count as a success: the call is set
      // aside and fails with the others once the child is gone.
      if (r && m.id !== null) {
        this.running.delete(m.id);
        this.setAside.push(r);
      }
      return this.kill(why);
    }
    if (m.t === 'fetch') {
      const r = m.id === null ? undefined : this.running.get(m.id);
      const p = this.plugin;
      if (!p) return this.send({ t: 'fetch-reply', fid: m.fid, ok: false, error: 'fetch is not available while the module loads' });
      const ctx: FetchContext = { ...this.opts.fetch, plugin: p.manifest.name, declaredEndpoints: p.manifest.declaredEndpoints, actor: r?.actor ?? 'plugin' };
      void moduleFetch(ctx, { callId: r?.callId ?? null, tool: r?.tool ?? '' }, m.url, m.init).then((reply) => this.send({ t: 'fetch-reply', fid: m.fid, ...reply }));
    }
  }

  /** Runs one tool (by the name the module knows). */
  async call(tool: string, input: unknown, o: { timeoutMs: number; callId?: string; actor?: string }): Promise<ModuleCallResult> {
    const started = performance.now();
    let plugin: ModulePlugin;
    try {
      plugin = await this.load();
    } catch (err) {
      const e = err as ModuleLoadError;
      return { ok: false, failure: e.failure ?? 'load-error', error: e.message, logs: [], droppedLogs: 0, durationMs: performance.now() - started };
    }
    if (!plugin.tools.some((t) => t.name === tool)) return { ok: false, failure: 'not-handled', error: `${plugin.manifest.name} defines no tool ${JSON.stringify(tool)}`, logs: [], droppedLogs: 0, durationMs: 0 };
    return this.limiter.run('module', async () => {
      await this.load().catch(() => undefined);
      const id = this.nextId++;
      return new Promise<ModuleCallResult>((resolve) => {
        const r: Running = {
          resolve,
          tool,
          callId: o.callId ?? null,
          actor: o.actor ?? 'plugin',
          logs: [],
          dropped: 0,
          logBytes: 0,
          started: performance.now(),
          timer: setTimeout(() => this.kill({ failure: 'timeout', message: `${tool} did not answer within ${o.timeoutMs} ms; the module was stopped (a fresh one starts with the next call)` }), o.timeoutMs),
        };
        if (!this.child) {
          clearTimeout(r.timer);
          return resolve({ ok: false, failure: 'crash', error: 'the module process is not running', logs: [], droppedLogs: 0, durationMs: 0 });
        }
        this.running.set(id, r);
        this.send({ t: 'call', id, name: tool, input });
      });
    });
  }

  private kill(reason: { failure: ModuleFailure; message: string }): void {
    this.killReason ??= reason;
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      this.child?.kill('SIGKILL');
    }
    this.wrapped?.kill?.();
  }

  /** Stops the child and waits until its process group is gone. */
  async close(): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (child) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      this.kill({ failure: 'crash', message: 'the module runner was shut down' });
      await gone;
    }
    await this.exited;
  }
}

function failCalls(calls: Running[], why: { failure: ModuleFailure; message: string }, reject: (e: Error) => void): void {
  reject(new ModuleLoadError(why.failure, why.message));
  for (const r of calls) {
    clearTimeout(r.timer);
    r.resolve({ ok: false, failure: why.failure === 'load-timeout' ? 'crash' : why.failure, error: why.message, logs: r.logs, droppedLogs: r.dropped, durationMs: performance.now() - r.started });
  }
}

