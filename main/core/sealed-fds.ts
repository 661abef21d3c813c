// File descriptors of the host that no process it starts may inherit: its terminals' masters, and
// what it inherited itself from whoever started it.
//
// Why: node-pty opens each terminal's master without close-on-exec (forkpty cannot set it, and
// node-pty does not set it afterwards), and Node has no fcntl to set it. So every process the
// host started while a terminal was open inherited that terminal's master: a plugin, sandboxed or
// not (bubblewrap passes open descriptors through), a checker, an upstream MCP server, another
// terminal's program. Holding a terminal's master is typing into it and reading it: a plugin
// could run commands in an operator's shell, outside every box. The same goes for a descriptor
// the host was started with (a launcher's pipe or socket, a Node IPC channel to a supervisor):
// whatever is at the other end is no plugin's to reach.
//
// How, without fcntl: a child's stdio entries are dup2'd onto the descriptor of the same number in
// the child before it execs. So every spawn gets /dev/null at the number of each sealed descriptor
// its stdio does not already use (an entry it does use replaces the master anyway). This is done
// at the one point every child_process spawn goes through (ChildProcess.prototype.spawn: spawn,
// fork, exec, execFile) and in the synchronous forms.
//
// Threads: descriptors belong to the whole process, and a thread of the host that spawns (the
// fork thread, when the host has no spawner process) has its own child_process. So the list
// lives in shared memory that such a thread attaches to (attachSealed), and a lock is held from
// the moment a terminal is opened until its descriptors are on the list (withSealLock), and from
// reading the list until a spawn has forked: no thread's child can be forked between a master
// coming to exist and its being sealed, nor with a list read before that.
import childProcess, { ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

/** More than any host holds (two per open terminal, and what it inherited); sealing one more fails closed. */
const CAPACITY = 65_536;
/** Int32 slots: [0] the lock (0 free, 1 held), [1] how many are sealed, then the descriptors. */
const LOCK = 0;
const COUNT = 1;
const FIRST = 2;

let shared = new Int32Array(new SharedArrayBuffer(4 * (FIRST + CAPACITY)));
/** How deep this thread is in withSealLock (the lock is not re-entrant across threads, only here). */
let depth = 0;
let devNull: number | null = null;
let installed = false;

/** Linux's O_CLOEXEC as /proc/self/fdinfo shows it (octal flags); not in fs.constants. */
const O_CLOEXEC = 0o2000000;

/**
 * Runs `fn` holding the lock on the sealed list, shared by every thread of the process: a thread
 * that opens a descriptor to seal holds it until the descriptor is sealed, a spawn holds it until
 * it has forked. Re-entrant on the same thread.
 */
export function withSealLock<T>(fn: () => T): T {
  if (depth > 0) {
    depth++;
    try {
      return fn();
    } finally {
      depth--;
    }
  }
  while (Atomics.compareExchange(shared, LOCK, 0, 1) !== 0) Atomics.wait(shared, LOCK, 1);
  depth = 1;
  try {
    return fn();
  } finally {
    depth = 0;
    Atomics.store(shared, LOCK, 0);
    Atomics.notify(shared, LOCK, 1);
  }
}

/** No process started from now on inherits `fd` (until unseal). Throws when the list is full: the caller fails closed. */
export function sealFd(fd: number): void {
  if (!Number.isInteger(fd) || fd < 3) return;
  install();
  withSealLock(() => {
    const n = Atomics.load(shared, COUNT);
    for (let i = 0; i < n; i++) if (shared[FIRST + i] === fd) return;
    if (n >= CAPACITY) throw new Error(`cannot seal descriptor ${fd}: ${CAPACITY} are sealed already (close some terminals)`);
    shared[FIRST + n] = fd;
    Atomics.store(shared, COUNT, n + 1);
  });
}

/** `fd` is closed (or no longer a master): nothing to hide at its number any more. */
export function unsealFd(fd: number): void {
  withSealLock(() => {
    const n = Atomics.load(shared, COUNT);
    for (let i = 0; i < n; i++) {
      if (shared[FIRST + i] !== fd) continue;
      shared[FIRST + i] = shared[FIRST + n - 1]!;
      Atomics.store(shared, COUNT, n - 1);
      return;
    }
  });
}

/** The descriptors sealed now, ascending. */
export function sealedFds(): number[] {
  return withSealLock(() => Array.from(shared.subarray(FIRST, FIRST + Atomics.load(shared, COUNT)))).sort((a, b) => a - b);
}

/**
 * Seals every descriptor above stdio that this process holds open without close-on-exec: what it
 * was started with (Linux, which shows each descriptor's flags in /proc). Called once the host
 * starts (create-host.ts); what it opens itself afterwards is close-on-exec, or sealed where
 * opened (terminals). Returns what it sealed.
 */
export function sealInherited(): number[] {
  install();
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    } catch {
      // Closed meanwhile (the directory's own descriptor, for one).
      continue;
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    if (!flags || (parseInt(flags[1]!, 8) & O_CLOEXEC) !== 0) continue;
    sealFd(fd);
    found.push(fd);
  }
  return found;
}

/** The shared list, for a thread of this process that spawns: it passes it to attachSealed. */
export function sealedListForThread(): SharedArrayBuffer {
  install();
  return shared.buffer as SharedArrayBuffer;
}

/** On a thread the host started (the fork thread): its spawns read the host's list, under the host's lock. */
export function attachSealed(buffer: SharedArrayBuffer): void {
  shared = new Int32Array(buffer);
  install();
}

/**
 * `stdio` as an array, with /dev/null at the number of every sealed descriptor that it does not
 * already give the child. The caller holds the lock until the spawn has forked.
 */
function sealStdio(stdio: StdioOptions | undefined): StdioOptions | undefined {
  const n = Atomics.load(shared, COUNT);
  if (n === 0) return stdio;
  const base = stdio ?? 'pipe';
  const out: unknown[] = typeof base === 'string' ? [base, base, base] : [...base];
  // Node reads an empty entry below 3 as 'pipe': the three always have one.
  for (let i = 0; i < 3; i++) out[i] ??= 'pipe';
  const nul = nullFd();
  for (let i = 0; i < n; i++) {
    const fd = shared[FIRST + i]!;
    // 'ignore' above stdio sets nothing up at that number: the child would get the host's.
    if (fd < 3 || (fd < out.length && out[fd] != null && out[fd] !== 'ignore')) continue;
    for (let j = out.length; j < fd; j++) out[j] = 'ignore';
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

/** Wraps this thread's child_process once (see the top of the file). */
function install(): void {
  if (installed) return;
  installed = true;
  const proto = ChildProcess.prototype as unknown as { spawn(options: Options): unknown };
  const spawn = proto.spawn;
  proto.spawn = function (this: ChildProcess, options: Options) {
    return withSealLock(() => spawn.call(this, options ? sealOptions(options) : options));
  };
  // spawnSync, execFileSync (file, [args], [options]) and execSync (command, [options]) call
  // Node's internal spawnSync, not the exported one: each is wrapped. They hold the lock until the
  // child has ended (they fork and wait in one call): another thread's spawn waits that long.
  const cp = childProcess as unknown as Record<'spawnSync' | 'execFileSync' | 'execSync', (...a: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execFileSync'] as const) {
    const real = cp[name];
    cp[name] = (file: unknown, args?: unknown, options?: unknown) => withSealLock(() => (Array.isArray(args) || args == null ? real(file, args ?? [], sealOptions(options)) : real(file, [], sealOptions(args))));
  }
  const execSync = cp.execSync;
  cp.execSync = (command: unknown, options?: unknown) => withSealLock(() => execSync(command, sealOptions(options)));
  // ESM importers of node:child_process see the wrapped functions too.
  syncBuiltinESMExports();
  process.once('exit', () => {
    if (devNull !== null) closeSync(devNull);
  });
}

function sealOptions(options: unknown): Options {
  const o = (options ?? {}) as Options;
  if (Atomics.load(shared, COUNT) === 0) return o;
  return { ...o, stdio: sealStdio(o.stdio) };
}
