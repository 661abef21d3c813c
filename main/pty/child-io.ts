// A one-shot plugin process's pipes: starts it, writes its input and closes stdin, collects
// stdout up to a cap and the tail of stderr, and reports what happens as events. The runner
// (one-shot.ts) decides everything else (timeouts, kills, the result) from these events.
//
// Why apart from the runner: starting a process forks the process that starts it, and a fork of
// the whole host blocked every agent and console (measured here: 7 ms for a bare Node, 20-25 ms at
// a host-sized heap, and far more on a busy machine), and even on another thread stalls the loop
// at its next page fault. So the host has these processes started by its small spawner process
// (main/pty/spawner.ts), or, without one, on its fork thread (main/pty/fork-thread.ts), where the
// pipes then live too (main/pty/spawn-service.ts serves both); the runner falls back to calling
// this on its own thread when neither is available. One implementation everywhere.
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { threadId } from 'node:worker_threads';
import { lowerTool } from './tool-priority.js';

export interface ChildRequest {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /**
   * Written to stdin, which is then closed. Null: stdin stays open until ChildIo.release (a warm
   * start, main/runner/warm-starts.ts: the process waits at its gate for what release writes).
   */
  input: string | null;
  /** Stdout bytes kept; past them the child is reported (once) and nothing more is kept. */
  maxStdout: number;
  /** How many characters of stderr's end are kept. */
  stderrTail: number;
  /**
   * What a held process writes first on stderr once it waits for its release (the warm start's
   * gate): reported as a `ready` event and not kept in the stderr tail.
   */
  ready?: string;
  /**
   * Started on this terminal instead of pipes (a terminal's program, node-pty-spawn.ts): its
   * stdin, stdout and stderr are the terminal's slave `path`, `stty` (a command) sets the terminal
   * up first, and `setsid` (util-linux's, with -c) gives the program a session of its own with the
   * terminal as its controlling terminal, as forkpty does. Not a process group leader here, setsid
   * does not fork: the pid reported is the program's. Input, output and the exit status go through
   * the terminal, so `close` carries no output.
   */
  tty?: { path: string; setsid: string; stty: string[] };
}

export type ChildEvent =
  /**
   * Started: its pid, which is also its process group and session (it is detached); the process
   * (its pid: the host's or the spawner's) and the thread in it that forked it.
   */
  | { type: 'spawned'; pid: number; threadId: number; by: number }
  /** Never started (ENOENT, EACCES, bad arguments); nothing else follows. */
  | { type: 'failed'; message: string }
  /** A held process wrote ChildRequest.ready: it waits for its release. */
  | { type: 'ready' }
  /** Stdout passed maxStdout: what came before is kept, the rest dropped. */
  | { type: 'overflow' }
  /** The process exited; its pipes may still be open (something it left running holds them). */
  | { type: 'exit' }
  /** Exited and its pipes closed (or were let go): the last event. */
  | { type: 'close'; code: number | null; signal: NodeJS.Signals | null; stdout: Uint8Array; stderr: string }
  /** The thread running it is gone: its exit can no longer be seen (it was killed). The last event. */
  | { type: 'lost'; message: string };

export interface ChildIo {
  /** Stops waiting for pipes held open by processes that escaped (close follows). */
  letGo(): void;
  /** Writes `input` to a held process's stdin (ChildRequest.input null) and closes it; once. */
  release(input: string): void;
}

export function startChild(req: ChildRequest, emit: (e: ChildEvent) => void): ChildIo {
  if (req.tty) return startOnTerminal(req, req.tty, emit);
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(req.command, req.args, { cwd: req.cwd, env: req.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  } catch (err) {
    emit({ type: 'failed', message: (err as Error).message });
    return { letGo: () => {}, release: () => {} };
  }
  const pid = child.pid ?? null;
  let exited = false;
  if (pid !== null) {
    // Into the tools' cpu group, or its session (detached) weighs what the thread that started it
    // does (tool-priority.ts). Before it is reported, so that whoever hears of it finds it there.
    lowerTool(pid, () => exited);
    emit({ type: 'spawned', pid, threadId, by: process.pid });
  }
  const chunks: Buffer[] = [];
  let stdoutBytes = 0;
  let overflowed = false;
  const stderrDecoder = new StringDecoder('utf8');
  let stderrTail = '';
  let ended = false;
  child.stdout.on('data', (c: Buffer) => {
    if (overflowed) return;
    stdoutBytes += c.length;
    if (stdoutBytes > req.maxStdout) {
      overflowed = true;
      emit({ type: 'overflow' });
      return;
    }
    chunks.push(c);
  });
  // The ready line, while it may still come: what stderr began with so far.
  let awaitingReady = req.ready ? '' : null;
  // Only the tail is kept, so a plugin flooding stderr costs no memory.
  child.stderr.on('data', (c: Buffer) => {
    let text = stderrDecoder.write(c);
    if (awaitingReady !== null) {
      const ready = req.ready!;
      const begun = awaitingReady + text;
      if (begun.length < ready.length && ready.startsWith(begun)) {
        awaitingReady = begun;
        return;
      }
      awaitingReady = null;
      if (begun.startsWith(ready)) {
        text = begun.slice(ready.length);
        emit({ type: 'ready' });
      } else text = begun;
    }
    stderrTail = (stderrTail + text).slice(-req.stderrTail);
  });
  // A plugin that exits (or closes stdin) before reading it is not an error of ours: EPIPE.
  child.stdin.on('error', () => {});
  child.on('error', (err) => {
    // After a successful spawn, 'error' only reports a failed kill(); exit and close still come.
    if (pid !== null || ended) return;
    // Never started: no 'exit' will come.
    ended = true;
    emit({ type: 'failed', message: err.message });
  });
  let released = false;
  const release = (input: string) => {
    if (released) return;
    released = true;
    child.stdin.end(input);
  };
  if (req.input !== null) release(req.input);
  child.on('exit', () => {
    exited = true;
    emit({ type: 'exit' });
  });
  child.on('close', (code, signal) => {
    if (ended) return;
    ended = true;
    stderrTail = ((awaitingReady ?? '') + stderrTail + stderrDecoder.end()).slice(-req.stderrTail);
    emit({ type: 'close', code, signal, stdout: Buffer.concat(chunks), stderr: stderrTail });
  });
  return {
    letGo: () => {
      child.stdout.destroy();
      child.stderr.destroy();
    },
    release,
  };
}

/** A terminal's program (ChildRequest.tty): set the terminal up, then start the program on it. */
function startOnTerminal(req: ChildRequest, tty: NonNullable<ChildRequest['tty']>, emit: (e: ChildEvent) => void): ChildIo {
  const none: ChildIo = { letGo: () => {}, release: () => {} };
  let fd: number;
  try {
    // Opened here (close-on-exec, as every file libuv opens): the program gets it only as its stdio.
    fd = openSync(tty.path, constants.O_RDWR | constants.O_NOCTTY);
  } catch (err) {
    emit({ type: 'failed', message: `could not open the terminal ${tty.path}: ${(err as Error).message}` });
    return none;
  }
  const run = () => {
    let child: ChildProcess;
    try {
      child = spawn(tty.setsid, ['-c', req.command, ...req.args], { cwd: req.cwd, env: req.env, stdio: [fd, fd, fd] });
    } catch (err) {
      closeSync(fd);
      emit({ type: 'failed', message: (err as Error).message });
      return;
    }
    closeSync(fd);
    const pid = child.pid ?? null;
    let ended = false;
    child.on('error', (err) => {
      if (pid !== null || ended) return;
      ended = true;
      emit({ type: 'failed', message: err.message });
    });
    if (pid === null) return;
    let exited = false;
    // Into the tools' cpu group, or its session lowered once setsid has given it one (tool-priority.ts).
    lowerTool(pid, () => exited);
    emit({ type: 'spawned', pid, threadId, by: process.pid });
    child.on('exit', () => {
      exited = true;
      emit({ type: 'exit' });
    });
    child.on('close', (code, signal) => {
      if (ended) return;
      ended = true;
      emit({ type: 'close', code, signal, stdout: new Uint8Array(0), stderr: '' });
    });
  };
  if (tty.stty.length === 0) {
    run();
    return none;
  }
  // The terminal's modes before the program can read or write: stty on it, then the program.
  let setUp: ChildProcess;
  try {
    setUp = spawn(tty.stty[0]!, tty.stty.slice(1), { stdio: [fd, 'ignore', 'ignore'] });
  } catch {
    run();
    return none;
  }
  let ran = false;
  const then = () => {
    if (ran) return;
    ran = true;
    run();
  };
  // A terminal whose modes could not be set still works (with the kernel's defaults).
  setUp.on('error', then);
  setUp.on('close', then);
  return none;
}
