// File descriptors of the host that no process it starts may inherit: its terminals' masters, and
// what it inherited itself from whoever started it.
//
// Why: node-pty opens each terminal's master without close-on-exec (forkpty cannot set it, and
// node-pty does not set it afterwards), and Node has no fcntl to set it. So every process the
// host started while a terminal was open inherited that terminal's master: a plugin, sandboxed or
// not (bubblewrap passes open descriptors through), a checker, an upstream MCP server, another
// terminal's program. Holding a terminal's master is typing into it and reading it: a plugin
// could run commands in an operator's shell, outside every box. The same goes for a descriptor
// the host was started with (a launcher's pipe or socket) and for those the desktop app's
// Chromium opens without close-on-exec as it runs (its IPC sockets among them; Chromium closes
// them in its own children, Node's child_process does not): whatever is at the other end is no
// plugin's to reach. So on Linux every spawn also reads which descriptors are open at that moment
// (/proc/self/fd) and covers all of them; the list below is what /proc cannot give (other
// platforms) or what must be covered before a spawn on another thread could see it (a master
// opened and sealed under the lock).
//
// How, without fcntl: a child's stdio entries are dup2'd onto the descriptor of the same number in
// the child before it execs. So every spawn gets /dev/null at the number of each sealed descriptor
// its stdio does not already use (an entry it does use replaces the master anyway). This is done
// at the one point every child_process spawn goes through (ChildProcess.prototype.spawn: spawn,
// fork, exec, execFile) and in the synchronous forms.
//
// Threads: descriptors belong to the whole process, and a thread of the host that spawns (the
// fork thread, when the host has no spawner process) has its own child_process. So the list
// lives in shared memory that such a thread attaches to (attachSealed), under a readers-writer
// lock: a thread that opens a descriptor to seal holds it alone until the descriptor is on the
// list (withSealLock), and every spawn shares it from reading the list until it has forked
// (a synchronous spawn until its child ended). So no thread's child is forked between a master
// coming to exist and its being sealed, nor with a list read before that, and spawns on two
// threads do not wait for each other.
//
// Each number is counted (sealed twice, unsealed twice): node-pty closes a master before it
// reports the close, so a new terminal can get the same number and seal it before the old one
// unseals it; a plain set would then drop the live master from the list.
import childProcess, { ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { threadId } from 'node:worker_threads';

/** More than any host holds (two per open terminal, and what it inherited); sealing one more fails closed. */
const CAPACITY = 32_768;
/**
 * Int32 slots: [0] the lock (0 free, n > 0 that many spawns share it, -(t + 1) thread t holds it
 * alone), [1] writers waiting (spawns do not start while one does), [2] how many numbers are
 * sealed, then pairs of (number, count).
 */
const LOCK = 0;
const WRITERS = 1;
const COUNT = 2;
const FIRST = 3;
/**
 * How long a thread waits for the lock before it fails (a spawn or a terminal's start fails with
 * a reason) rather than hang: a thread that died holding it never lets go. Longer than any
 * synchronous child the host runs while holding it.
 */
const LOCK_WAIT_MS = 120_000;

let shared = new Int32Array(new SharedArrayBuffer(4 * (FIRST + 2 * CAPACITY)));
/** This thread's hold: how deep, and whether alone (the lock is re-entrant on the thread that holds it). */
let depth = 0;
let alone = false;
let devNull: number | null = null;
let installed = false;

/**
 * Runs `fn` holding the lock on the sealed list alone: for opening a descriptor and sealing it
 * (no thread forks in between). Re-entrant on the same thread.
 */
export function withSealLock<T>(fn: () => T): T {
  return held(true, fn);
}

/** Runs `fn` sharing the lock with other spawns: from reading the list until the fork. */
function withSpawnLock<T>(fn: () => T): T {
  return held(false, fn);
}

function held<T>(exclusive: boolean, fn: () => T): T {
  if (depth > 0) {
    if (exclusive && !alone) throw new Error('sealed descriptors: a spawn cannot seal a descriptor while it forks');
    depth++;
    try {
      return fn();
    } finally {
      depth--;
    }
  }
  if (exclusive) lockAlone();
  else lockShared();
  depth = 1;
  alone = exclusive;
  try {
    return fn();
  } finally {
    depth = 0;
    if (exclusive) Atomics.store(shared, LOCK, 0);
    else Atomics.sub(shared, LOCK, 1);
    Atomics.notify(shared, LOCK);
  }
}

function lockAlone(): void {
  const deadline = performance.now() + LOCK_WAIT_MS;
  Atomics.add(shared, WRITERS, 1);
  try {
    for (;;) {
      const v = Atomics.compareExchange(shared, LOCK, 0, -(threadId + 1));
      if (v === 0) return;
      waitFor(v, deadline);
    }
  } finally {
    Atomics.sub(shared, WRITERS, 1);
    Atomics.notify(shared, LOCK);
  }
}

function lockShared(): void {
  const deadline = performance.now() + LOCK_WAIT_MS;
  for (;;) {
    const v = Atomics.load(shared, LOCK);
    // A waiting writer goes first: a busy host spawns all the time, and a terminal must still open.
    if (v >= 0 && Atomics.load(shared, WRITERS) === 0 && Atomics.compareExchange(shared, LOCK, v, v + 1) === v) return;
    waitFor(v, deadline);
  }
}

function waitFor(seen: number, deadline: number): void {
  const left = deadline - performance.now();
  if (left <= 0) {
    const holder = seen < 0 ? `thread ${-seen - 1}` : `${seen} spawn(s)`;
    throw new Error(`sealed descriptors: the lock was not released in ${LOCK_WAIT_MS / 1000} s (held by ${holder}); nothing was started`);
  }
  // Woken by every release (and by a writer that stops waiting); a short wait also covers a
  // writer that started waiting after this thread looked.
  Atomics.wait(shared, LOCK, seen, Math.min(left, 50));
}

/**
 * A thread of this process is gone (the fork thread died): if it held the lock alone, it is
 * released, so the host's spawns do not wait out LOCK_WAIT_MS and fail.
 */
export function releaseSealLockOf(deadThreadId: number): void {
  if (Atomics.compareExchange(shared, LOCK, -(deadThreadId + 1), 0) === -(deadThreadId + 1)) Atomics.notify(shared, LOCK);
}

/** No process started from now on inherits `fd` (until unsealed as often). Throws when the list is full: the caller fails closed. */
export function sealFd(fd: number): void {
  if (!Number.isInteger(fd) || fd < 3) return;
  install();
  withSealLock(() => {
    const n = Atomics.load(shared, COUNT);
    for (let i = 0; i < n; i++) {
      if (shared[FIRST + 2 * i] !== fd) continue;
      shared[FIRST + 2 * i + 1]!++;
      return;
    }
    if (n >= CAPACITY) throw new Error(`cannot seal descriptor ${fd}: ${CAPACITY} are sealed already (close some terminals)`);
    shared[FIRST + 2 * n] = fd;
    shared[FIRST + 2 * n + 1] = 1;
    Atomics.store(shared, COUNT, n + 1);
  });
}

/** `fd` is closed (or no longer a master): once unsealed as often as it was sealed, nothing is hidden at its number. */
export function unsealFd(fd: number): void {
  withSealLock(() => {
    const n = Atomics.load(shared, COUNT);
    for (let i = 0; i < n; i++) {
      if (shared[FIRST + 2 * i] !== fd) continue;
      if (--shared[FIRST + 2 * i + 1]! > 0) return;
      shared[FIRST + 2 * i] = shared[FIRST + 2 * (n - 1)]!;
      shared[FIRST + 2 * i + 1] = shared[FIRST + 2 * (n - 1) + 1]!;
      Atomics.store(shared, COUNT, n - 1);
      return;
    }
  });
}

/** Closes `fd` and unseals it, with no spawn in between: one that forked after the unseal and before the close would inherit it. */
export function closeSealed(fd: number): void {
  withSealLock(() => {
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
    unsealFd(fd);
  });
}

/** The descriptors sealed now, ascending. */
export function sealedFds(): number[] {
  return withSpawnLock(() => {
    const out: number[] = [];
    for (let i = 0, n = Atomics.load(shared, COUNT); i < n; i++) out.push(shared[FIRST + 2 * i]!);
    return out.sort((a, b) => a - b);
  });
}

/**
 * Linux: every descriptor above stdio open now. Read at each spawn, under the lock: what this
 * process inherited, and what Chromium (the desktop app) opened since. All of them, not only those
 * without close-on-exec: reading one descriptor's flags (/proc/self/fdinfo) costs about 15 µs, 3 ms
 * a spawn for a host with 200 open, where listing the numbers costs 20–60 µs in all; a
 * close-on-exec descriptor is closed in the child anyway, and /dev/null in its place harms
 * nothing. A thread of Chromium's could still open one between this read and the fork; only a
 * close in the child could rule that out, which Node's spawn does not offer.
 */
function openNow(): number[] {
  if (process.platform !== 'linux') return [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    // The listing's own descriptor is among them, closed by now: /dev/null at its number is harmless too.
    const fd = Number(name);
    if (Number.isInteger(fd) && fd >= 3) found.push(fd);
  }
  return found;
}

/**
 * From now on no process this thread spawns inherits a descriptor of the host's: called by
 * createHost before it starts anything (sealing a descriptor, or starting the fork thread, does it
 * too).
 */
export function guardSpawns(): void {
  install();
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
 * `stdio` as an array, with /dev/null at the number of every sealed or open descriptor that it
 * does not already give the child. The caller holds the lock until the spawn has forked.
 */
function sealStdio(stdio: StdioOptions | undefined): StdioOptions | undefined {
  const fds = openNow();
  for (let i = 0, n = Atomics.load(shared, COUNT); i < n; i++) fds.push(shared[FIRST + 2 * i]!);
  if (fds.length === 0) return stdio;
  // Node reads any falsy stdio as 'pipe'.
  const base = stdio || 'pipe';
  const out: unknown[] = typeof base === 'string' ? [base, base, base] : [...base];
  // Node reads an empty entry below 3 as 'pipe': the three always have one.
  for (let i = 0; i < 3; i++) out[i] ??= 'pipe';
  const nul = nullFd();
  for (const fd of fds) {
    // 'ignore' above stdio sets nothing up at that number, and 'inherit' is the host's own
    // descriptor there: either way the child would get the master.
    if (fd < 3 || (fd < out.length && out[fd] != null && out[fd] !== 'ignore' && out[fd] !== 'inherit')) continue;
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
    return withSpawnLock(() => spawn.call(this, options ? sealOptions(options) : options));
  };
  // spawnSync, execFileSync (file, [args], [options]) and execSync (command, [options]) call
  // Node's internal spawnSync, not the exported one: each is wrapped. They share the lock until the
  // child has ended (they fork and wait in one call): a terminal opened on another thread waits that long.
  const cp = childProcess as unknown as Record<'spawnSync' | 'execFileSync' | 'execSync', (...a: unknown[]) => unknown>;
  for (const name of ['spawnSync', 'execFileSync'] as const) {
    const real = cp[name];
    cp[name] = (file: unknown, args?: unknown, options?: unknown) => withSpawnLock(() => (Array.isArray(args) || args == null ? real(file, args ?? [], sealOptions(options)) : real(file, [], sealOptions(args))));
  }
  const execSync = cp.execSync;
  cp.execSync = (command: unknown, options?: unknown) => withSpawnLock(() => execSync(command, sealOptions(options)));
  // ESM importers of node:child_process see the wrapped functions too.
  syncBuiltinESMExports();
  process.once('exit', () => {
    if (devNull !== null) closeSync(devNull);
  });
}

function sealOptions(options: unknown): Options {
  const o = (options ?? {}) as Options;
  const stdio = sealStdio(o.stdio);
  return stdio === o.stdio ? o : { ...o, stdio };
}
