// File descriptors of the host that no process it starts may inherit: its terminals' masters.
//
// Why: node-pty opens each terminal's master without close-on-exec (forkpty cannot set it, and
// node-pty does not set it afterwards), and Node has no fcntl to set it. So every process the
// host started while a terminal was open inherited that terminal's master: a plugin, sandboxed or
// not (bubblewrap passes open descriptors through), a checker, an upstream MCP server, another
// terminal's program. Holding a terminal's master is typing into it and reading it: a plugin
// could run commands in an operator's shell, outside every box.
//
// How, without fcntl: a child's stdio entries are dup2'd onto the descriptor of the same number in
// the child before it execs. So every spawn gets /dev/null at the number of each sealed descriptor
// its stdio does not already use (an entry it does use replaces the master anyway). This is done
// at the one point every child_process spawn goes through (ChildProcess.prototype.spawn: spawn,
// fork, exec, execFile) and in the synchronous forms, installed when the first descriptor is
// sealed, before the master exists outside node-pty. Terminals' own programs are started with
// the same stdio (main/pty/node-pty-spawn.ts), not by forkpty. A thread of the host that spawns
// itself (the fork thread) is given the list with each request (sealStdio's `extra`).
import childProcess, { ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const sealed = new Set<number>();
let devNull: number | null = null;
let installed = false;

/** No process started from now on inherits `fd` (until unseal). */
export function sealFd(fd: number): void {
  if (!Number.isInteger(fd) || fd < 3) return;
  install();
  sealed.add(fd);
}

/** `fd` is closed (or no longer a master): nothing to hide at its number any more. */
export function unsealFd(fd: number): void {
  sealed.delete(fd);
}

/** The descriptors sealed now, ascending. */
export function sealedFds(): number[] {
  return [...sealed].sort((a, b) => a - b);
}

/**
 * `stdio` as an array, with /dev/null at the number of every sealed descriptor (and of `extra`,
 * another thread's list) that it does not already give the child.
 */
export function sealStdio(stdio: StdioOptions | undefined, extra: readonly number[] = []): StdioOptions | undefined {
  const fds = extra.length > 0 ? [...new Set([...sealed, ...extra])] : [...sealed];
  if (fds.length === 0) return stdio;
  const base = stdio ?? 'pipe';
  const out: unknown[] = typeof base === 'string' ? [base, base, base] : [...base];
  // Node reads an empty entry below 3 as 'pipe': the three always have one.
  for (let i = 0; i < 3; i++) out[i] ??= 'pipe';
  const nul = nullFd();
  for (const fd of fds) {
    if (fd < 3 || (fd < out.length && out[fd] != null)) continue;
    for (let i = out.length; i < fd; i++) out[i] = 'ignore';
    out[fd] = nul;
  }
  for (let i = 3; i < out.length; i++) out[i] ??= 'ignore';
  return out as StdioOptions;
}

function nullFd(): number {
  // Opened close-on-exec (libuv opens every file so): it reaches a child only where dup2'd.
  devNull ??= openSync('/dev/null', 'r+');
  return devNull;
}

type Options = { stdio?: StdioOptions } & Record<string, unknown>;

/** Wraps child_process once, for the whole process (see the top of the file). */
function install(): void {
  if (installed) return;
  installed = true;
  const proto = ChildProcess.prototype as unknown as { spawn(options: Options): unknown };
  const spawn = proto.spawn;
  proto.spawn = function (this: ChildProcess, options: Options) {
    return spawn.call(this, sealed.size > 0 && options ? { ...options, stdio: sealStdio(options.stdio) } : options);
  };
  // spawnSync, execFileSync (file, [args], [options]) and execSync (command, [options]) call
  // Node's internal spawnSync, not the exported one: each is wrapped.
  const cp = childProcess as unknown as Record<'spawnSync' | 'execFileSync' | 'execSync', (...a: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execFileSync'] as const) {
    const real = cp[name];
    cp[name] = (file: unknown, args?: unknown, options?: unknown) => (Array.isArray(args) || args == null ? real(file, args ?? [], sealOptions(options)) : real(file, [], sealOptions(args)));
  }
  const execSync = cp.execSync;
  cp.execSync = (command: unknown, options?: unknown) => execSync(command, sealOptions(options));
  // ESM importers of node:child_process see the wrapped functions too.
  syncBuiltinESMExports();
  process.once('exit', () => {
    if (devNull !== null) closeSync(devNull);
  });
}

function sealOptions(options: unknown): unknown {
  if (sealed.size === 0) return options;
  const o = (options ?? {}) as Options;
  return { ...o, stdio: sealStdio(o.stdio) };
}
