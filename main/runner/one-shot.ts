// The one-shot runner: the WraithRun tool.toml contract. Spawn the command in the plugin folder,
// write the arguments as one JSON object to stdin and close it, read exactly one JSON object
// (at most 1 MiB, counted while reading) from stdout, bounded by a wall-clock timeout.
//
// Containment: the process leads its own process group, and the whole group is killed on
// timeout, on output overflow, and after exit, so a child the plugin backgrounded does not
// outlive the call.
import { spawn } from 'node:child_process';

export const MAX_STDOUT = 1 << 20;
export const STDERR_TAIL = 500;
export const KILL_GRACE_MS = 500;

/** Variables a plugin gets by default; the manifest's permissions.env adds to these. */
export const BASE_ENV_ALLOWLIST = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'];

export type RunFailure = 'timeout' | 'crash' | 'bad_output' | 'limit' | 'spawn';

export interface OneShotSpec {
  /** Plugin name, for error messages. */
  plugin: string;
  command: string;
  args: string[];
  cwd: string;
  input: unknown;
  timeoutMs: number;
  env: Record<string, string>;
  maxStdout?: number;
  /** Wraps the command (the sandbox); identity when absent. */
  wrap?: (command: string, args: string[]) => { command: string; args: string[] };
}

export type OneShotResult =
  | { ok: true; output: Record<string, unknown>; stdout: string; stderr: string; exitCode: number; durationMs: number }
  | { ok: false; failure: RunFailure; message: string; stdout: string; stderr: string; exitCode: number | null; signal: string | null; durationMs: number };

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

export function runOneShot(spec: OneShotSpec): Promise<OneShotResult> {
  const started = performance.now();
  const cap = spec.maxStdout ?? MAX_STDOUT;
  const { command, args } = spec.wrap ? spec.wrap(spec.command, spec.args) : { command: spec.command, args: spec.args };
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ ok: false, failure: 'spawn', message: `${spec.plugin}: could not start ${spec.command}: ${(err as Error).message}`, stdout: '', stderr: '', exitCode: null, signal: null, durationMs: performance.now() - started });
      return;
    }
    const pid = child.pid;
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrTail = '';
    let failure: { kind: RunFailure; message: string } | null = null;
    let killTimer: NodeJS.Timeout | null = null;

    const killGroup = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    };
    const stop = (kind: RunFailure, message: string) => {
      if (failure) return;
      failure = { kind, message };
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    };

    const timer = setTimeout(() => stop('timeout', `${spec.plugin} timed out after ${spec.timeoutMs} ms and was stopped.`), spec.timeoutMs);

    child.stdout.on('data', (c: Buffer) => {
      if (failure) return;
      stdoutBytes += c.length;
      if (stdoutBytes > cap) {
        stop('limit', `${spec.plugin} wrote more than ${cap} bytes to stdout and was stopped.`);
        return;
      }
      chunks.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      stderrTail = (stderrTail + c.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A plugin that exits (or closes stdin) before reading it is not an error of ours.
    child.stdin.on('error', () => {});
    child.on('error', (err) => stop('spawn', `${spec.plugin}: could not start ${spec.command}: ${err.message}`));
    child.stdin.end(JSON.stringify(spec.input ?? {}));

    // The plugin's exit ends the call: whatever it left running in its group goes with it,
    // which also closes pipes a backgrounded child kept open, so 'close' follows promptly.
    child.on('exit', () => killGroup('SIGKILL'));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      const durationMs = performance.now() - started;
      const stdout = Buffer.concat(chunks).toString('utf8');
      const f = failure as { kind: RunFailure; message: string } | null;
      if (f) {
        resolve({ ok: false, failure: f.kind, message: f.message, stdout, stderr: stderrTail, exitCode: code, signal, durationMs });
        return;
      }
      if (code !== 0) {
        const why = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        resolve({ ok: false, failure: 'crash', message: `${spec.plugin} ${why}${stderrTail ? `: ${stderrTail.trim()}` : ''}`, stdout, stderr: stderrTail, exitCode: code, signal, durationMs });
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(stdout);
      } catch {
        resolve({ ok: false, failure: 'bad_output', message: `${spec.plugin} must print exactly one JSON object on stdout; it printed ${describe(stdout)}.`, stdout, stderr: stderrTail, exitCode: code, signal, durationMs });
        return;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        resolve({ ok: false, failure: 'bad_output', message: `${spec.plugin} must print a JSON object on stdout; it printed ${Array.isArray(parsed) ? 'an array' : typeof parsed}.`, stdout, stderr: stderrTail, exitCode: code, signal, durationMs });
        return;
      }
      resolve({ ok: true, output: parsed as Record<string, unknown>, stdout, stderr: stderrTail, exitCode: 0, durationMs });
    });
  });
}

function describe(stdout: string): string {
  if (stdout.trim() === '') return 'nothing';
  const head = stdout.slice(0, 60).replace(/\s+/g, ' ');
  return `text that is not JSON ("${head}${stdout.length > 60 ? '…' : ''}")`;
}
