// An MCP stdio transport over a child process we spawn ourselves, for upstream MCP servers.
//
// The SDK's StdioClientTransport cannot be used for plugins: it spawns through cross-spawn with
// no process group (a server's children would outlive it), merges HOME, USER, SHELL and LOGNAME
// into the environment (the scrubbed one must stay scrubbed), and has no hook for the sandbox
// wrap. This one speaks the same wire format (one JSON-RPC message per line, validated with the
// SDK's own schema) over a process started like every other plugin process:
//   - through the plan's wrap (bwrap, rlimits, pids cgroup), with the scrubbed environment;
//   - detached: it leads its own process group and session, so one signal reaches everything
//     it started, and it has no controlling terminal;
//   - its group is killed as soon as the leader exits, and close() resolves only when nothing
//     of the group (or the wrap's cgroup) is left alive.
// Whatever the server writes is bounded: a line over the cap, or a line that is not a JSON-RPC
// message, ends the connection (failure `limit` / `bad_output`) instead of being guessed at —
// MCP forbids anything but protocol messages on a stdio server's stdout.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter } from '../checkers/line-splitter.js';
import { killGroupUntilGone } from '../core/kill-group.js';
import type { WrapFn, WrappedCommand } from '../runner/one-shot.js';
import { formatBytes } from '../../shared/format.js';

/** The longest line (one JSON-RPC message) an upstream server may write. */
export const MAX_MESSAGE_BYTES = 4 << 20;
export const STDERR_TAIL_CHARS = 2000;
/** After stdin is closed, how long the server may take to exit before SIGTERM (and again before SIGKILL). */
export const DEFAULT_CLOSE_GRACE_MS = 1000;
const GROUP_GONE_WAIT_MS = 2000;

export type TransportFailureKind = 'spawn' | 'crash' | 'bad_output' | 'limit';

export interface ProcessTransportOptions {
  /** The plugin's name, used in every message. */
  name: string;
  /** Absolute path of the command. */
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The sandbox plan's wrap: bwrap, limits. Throwing refuses the start (failure `spawn`). */
  wrap?: WrapFn;
  maxMessageBytes?: number;
  closeGraceMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** The process (and process group) id, once started. */
  pid: number | null = null;
  sandboxed = false;
  /** Why the connection ended when nobody asked it to; null while running or after close(). */
  failure: { kind: TransportFailureKind; message: string } | null = null;

  private child: ChildProcessWithoutNullStreams | null = null;
  private wrapped: WrappedCommand | null = null;
  private readonly splitter: LineSplitter;
  private stderr = '';
  private started = false;
  private exited = false;
  private closing = false;
  private closedNotified = false;
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private goneResolve!: () => void;
  private readonly gonePromise: Promise<void>;
  private closeStarted: Promise<void> | null = null;

  constructor(private readonly opts: ProcessTransportOptions) {
    this.gonePromise = new Promise((r) => (this.goneResolve = r));
    const cap = opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.splitter = new LineSplitter(
      cap,
      (line) => this.onLine(line),
      (bytes) => this.fail('limit', `${opts.name} wrote a message over the ${formatBytes(cap)} cap (${formatBytes(bytes)} read before giving up) and was stopped.`),
    );
  }

  /** The last characters the server wrote to stderr (its diagnostics). */
  stderrTail(): string {
    return this.stderr;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error(`${this.opts.name}: transport already started`);
    this.started = true;
    const { name, command, args, cwd, env } = this.opts;
    // Checked here rather than left to exec: behind a launcher (prlimit, bwrap) a missing
    // command would come back as the launcher's exit code, not as a clear sentence.
    try {
      accessSync(command, fsConstants.X_OK);
    } catch (err) {
      throw this.refuse(`${name} could not be started: ${(err as Error).message.replace(/, access '.*'$/, '')}.`);
    }
    let wrapped: WrappedCommand;
    try {
      wrapped = this.opts.wrap ? this.opts.wrap(command, args) : { command, args };
    } catch (err) {
      throw this.refuse((err as Error).message);
    }
    this.wrapped = wrapped;
    this.sandboxed = wrapped.sandboxed === true;
    let child: ChildProcessWithoutNullStreams;
    try {
      // detached: a new session and process group (see the file comment). Must stay.
      child = spawn(wrapped.command, wrapped.args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      throw this.refuse(`${name} could not be started: ${(err as Error).message}.`);
    }
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        this.pid = child.pid ?? null;
        resolve();
      });
      child.once('error', (err) => {
        if (this.pid !== null) return;
        this.exited = true;
        reject(this.refuse(`${name} could not be started: ${err.message}.`));
      });
    });
    child.on('error', (err) => this.opts.log?.(`mcp ${name}: process error`, err));
    // A server that stops reading makes our writes fail with EPIPE; its exit reports the rest.
    child.stdin.on('error', () => {});
    child.stdout.on('error', () => {});
    child.stderr.on('error', () => {});
    child.stdout.on('data', (chunk: Buffer) => this.splitter.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    // The leader's exit takes its group with it: a backgrounded child would otherwise keep our
    // pipes open (and 'close' would never come) or simply outlive the server.
    child.on('exit', (code, signal) => {
      this.exited = true;
      this.exitCode = code;
      this.exitSignal = signal;
      this.killGroup('SIGKILL');
      this.wrapped?.kill?.();
    });
    child.on('close', () => {
      this.exited = true;
      this.splitter.stop();
      if (!this.closing && !this.failure) this.failure = { kind: 'crash', message: this.describeExit() };
      this.notifyClosed();
      void this.cleanup();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.exited || this.closing || this.failure) throw new Error(`${this.opts.name} is not connected${this.failure ? `: ${this.failure.message}` : ''}`);
    const line = `${JSON.stringify(message)}\n`;
    if (child.stdin.write(line)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        child.stdin.off('drain', done);
        child.off('close', done);
        resolve();
      };
      child.stdin.once('drain', done);
      child.once('close', done);
    });
  }

  /**
   * Shuts the server down the way MCP's stdio transport says: close its stdin, wait for it to
   * exit, SIGTERM after a grace, SIGKILL after another. Resolves once the process, its group and
   * the wrap's containment are gone.
   */
  close(): Promise<void> {
    this.closeStarted ??= this.closeNow();
    return this.closeStarted;
  }

  /** Resolves once the process has exited and nothing of its group or containment is left. */
  gone(): Promise<void> {
    return this.gonePromise;
  }

  /** A sentence for how the process ended: exit code or signal, and its last stderr lines. */
  describeExit(): string {
    const all = this.stderr.trim();
    // The last 500 characters, from a line start when that cuts a line.
    const tail = all.length <= 500 ? all : all.slice(-500).replace(/^[^\n]*\n/, '');
    const how = this.exitSignal ? `was killed by ${this.exitSignal}` : this.exitCode !== null ? `exited with code ${this.exitCode}` : 'closed its output';
    return `${this.opts.name} ${how}${tail ? `: ${tail}` : ' (nothing on stderr)'}`;
  }

  private async closeNow(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child || this.exited) {
      if (!child) this.finishWithoutProcess();
      this.notifyClosed();
      await this.gonePromise;
      return;
    }
    try {
      child.stdin.end();
    } catch {
      // Already closed.
    }
    const grace = this.opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS;
    this.timers.push(
      setTimeout(() => {
        this.killGroup('SIGTERM');
        this.timers.push(
          setTimeout(() => {
            this.killGroup('SIGKILL');
            this.wrapped?.kill?.();
          }, grace),
        );
      }, grace),
    );
    await this.gonePromise;
  }

  private onLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.fail('bad_output', `${this.opts.name} wrote a line that is not JSON (${preview(line)}) and was stopped; an MCP server may write only JSON-RPC messages to stdout.`);
      return;
    }
    const msg = JSONRPCMessageSchema.safeParse(parsed);
    if (!msg.success) {
      this.fail('bad_output', `${this.opts.name} wrote JSON that is not a JSON-RPC message (${preview(line)}) and was stopped.`);
      return;
    }
    try {
      this.onmessage?.(msg.data);
    } catch (err) {
      this.onerror?.(err as Error);
    }
  }

  /** The server broke the protocol: stop it (its exit then closes the connection). */
  private fail(kind: TransportFailureKind, message: string): void {
    if (this.failure || this.closing) return;
    this.failure = { kind, message };
    this.splitter.stop();
    this.onerror?.(new Error(message));
    this.killGroup('SIGKILL');
    this.wrapped?.kill?.();
  }

  private refuse(message: string): Error {
    this.failure = { kind: 'spawn', message };
    this.exited = true;
    this.finishWithoutProcess();
    return new Error(message);
  }

  private finishWithoutProcess(): void {
    void (this.wrapped?.finish?.() ?? Promise.resolve()).catch(() => undefined).then(() => this.goneResolve());
  }

  private notifyClosed(): void {
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onclose?.();
  }

  private async cleanup(): Promise<void> {
    for (const t of this.timers.splice(0)) clearTimeout(t);
    try {
      // The containment first (a cgroup also holds processes that left the group), then the
      // group itself: a PID namespace's init may still be in the group after leaving the cgroup.
      await this.wrapped?.finish?.();
    } catch (err) {
      this.opts.log?.(`mcp ${this.opts.name}: containment cleanup failed`, err);
    }
    if (this.pid !== null) await waitGroupGone(this.pid, (m) => this.opts.log?.(`mcp ${this.opts.name}: ${m}`));
    this.goneResolve();
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (this.pid === null) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // The group is already gone.
    }
  }
}

/** Kills the group until no live member is left; says so when one outlives the wait (a process in uninterruptible sleep). */
async function waitGroupGone(pgid: number, log: (msg: string) => void): Promise<void> {
  if (!(await killGroupUntilGone(pgid, GROUP_GONE_WAIT_MS))) log(`process group ${pgid} still has members ${GROUP_GONE_WAIT_MS} ms after SIGKILL`);
}

function preview(line: string): string {
  const head = line.slice(0, 60).replace(/\s+/g, ' ');
  return JSON.stringify(head + (line.length > 60 ? '…' : ''));
}

