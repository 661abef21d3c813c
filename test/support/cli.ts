// Runs the real, built CLI (bin/gatehouse.js → out/main/cli.js) as a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { tempDir } from './temp.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const cliPath = fileURLToPath(new URL('../../bin/gatehouse.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function childEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // No test may read or write the user's real data folder: the default home points at an
  // empty decoy, so a command that ignored --home would fail its test instead.
  const decoy = join(tempDir('gatehouse-decoy-home-'), 'home');
  return { ...process.env, GATEHOUSE_HOME: decoy, XDG_CONFIG_HOME: decoy, GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1', ...extra };
}

/** The CLI as a child process; `under`: a command line node runs under (e.g. a namespace, small-disk.ts). */
function spawnCli(args: string[], env: NodeJS.ProcessEnv, under: string[]): ChildProcessWithoutNullStreams {
  const [cmd, ...pre] = [...under, process.execPath];
  return spawn(cmd!, [...pre, cliPath, ...args], { cwd: repoRoot, env: childEnv(env) });
}

/** Runs a command to completion, with `input` on its stdin (then closed). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input = '', under: string[] = []): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env, under);
    // A command may exit without reading its input (a usage error): the write then fails with
    // EPIPE, and what the test asserts is the exit and the output, not the write.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** Everything printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the first line of stdout (or stderr) matching; rejects if the process exits first. */
  waitForLine(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts a long-running command (serve); it is killed when the test ends if still running.
 * `under`: a command line node runs under (e.g. a namespace with a small disk, small-disk.ts).
 */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, under: string[] = []): RunningCli {
  const child = spawnCli(args, env, under);
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; stream: 'stdout' | 'stderr'; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = [];
  let done = false;
  const check = () => {
    for (const w of [...waiters]) {
      const lines = (w.stream === 'stdout' ? stdout : stderr).split('\n');
      for (const line of lines.slice(0, -1)) {
        const m = line.match(w.pattern);
        if (m) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(m);
          break;
        }
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    check();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      done = true;
      for (const w of waiters.splice(0)) w.reject(new Error(`gatehouse ${args.join(' ')} exited (${code ?? signal}) before printing ${w.pattern}.\nstdout: ${stdout}\nstderr: ${stderr}`));
      resolve({ code, signal });
    });
  });
  onTestFinished(async () => {
    if (!done) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    child,
    output: () => ({ stdout, stderr }),
    waitForLine(pattern, stream = 'stdout') {
      return new Promise((resolve, reject) => {
        if (done) return reject(new Error(`gatehouse ${args.join(' ')} already exited.\nstdout: ${stdout}\nstderr: ${stderr}`));
        waiters.push({ pattern, stream, resolve, reject });
        check();
      });
    },
    exited,
  };
}

/**
 * A command line as an agent runs its hook: `/bin/sh -c`, with only PATH set, `input` on stdin.
 * `under`: a command line the shell runs under (e.g. bwrap hiding a file).
 */
export function runShell(command: string, input: string, under: string[] = []): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [cmd, ...pre] = [...under, '/bin/sh'];
    const child = spawn(cmd!, [...pre, '-c', command], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
