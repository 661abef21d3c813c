// Resource limits for plugin processes: rlimits (CPU seconds, address space, open files, file
// size, no core dumps) applied by exec'ing through `prlimit`, and a process-count limit.
//
// The process count is the hard part. RLIMIT_NPROC counts every task of the *user*, and the
// kernel does not enforce it at all for root or for a process with CAP_SYS_RESOURCE or
// CAP_SYS_ADMIN — so on a host running as root a fork bomb walks straight through it. Two
// mechanisms that do work:
//  - a pids cgroup (v1 `pids` hierarchy or v2 with the pids controller) that we may create
//    children in: each call gets its own cgroup with pids.max, joined before the plugin's first
//    instruction, so a fork past the limit fails with EAGAIN whoever the user is. The cgroup
//    also lists every process of the call, even ones that left the process group, so we can
//    kill them all afterwards. Used whenever we can create one (typically: running as root).
//  - RLIMIT_NPROC inside the sandbox's own user namespace (non-root bwrap): since Linux 5.14
//    the count is kept per user namespace, so it counts only the sandbox's processes, not the
//    operator's whole desktop session.
// Without either (root without a writable pids cgroup; or unsandboxed and not root) there is no
// process limit, only the wall-clock timeout; `processLimitSupport` says so and doctor warns.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ownCgroupDirs, staleCgroups } from '../core/cgroup-dirs.js';

export interface ResourceLimits {
  /** RLIMIT_CPU soft limit in CPU seconds (SIGXCPU); the hard limit is one second more (SIGKILL). Infinity: none. */
  cpuSecs: number;
  /** RLIMIT_AS: virtual address space per process, bytes. */
  addressSpaceBytes: number;
  /** RLIMIT_NOFILE: open file descriptors per process. */
  openFiles: number;
  /** Processes (and threads) of one call: pids.max of its cgroup, or RLIMIT_NPROC in a user namespace. */
  processes: number;
  /** RLIMIT_FSIZE: the largest file the plugin may write, bytes (SIGXFSZ past it). */
  fileSizeBytes: number;
}

export const DEFAULT_LIMITS: Omit<ResourceLimits, 'cpuSecs'> = {
  addressSpaceBytes: 2 * 1024 ** 3,
  openFiles: 256,
  processes: 256,
  fileSizeBytes: 64 * 1024 ** 2,
};

/** Limits for a call with this wall-clock timeout: CPU = timeout + 1 s, the rest the defaults. */
export function limitsFor(timeoutMs: number, overrides: Partial<ResourceLimits> = {}): ResourceLimits {
  return { cpuSecs: Math.ceil(timeoutMs / 1000) + 1, ...DEFAULT_LIMITS, ...overrides };
}

// --- rlimits -----------------------------------------------------------------------------

const PRLIMIT_CANDIDATES = ['/usr/bin/prlimit', '/bin/prlimit'];
let prlimitPath: string | null | undefined;

/** The prlimit binary (util-linux), or null: then a `sh -c 'ulimit …'` launcher is used. */
export function findPrlimit(): string | null {
  if (prlimitPath === undefined) prlimitPath = process.platform === 'linux' ? (PRLIMIT_CANDIDATES.find((p) => existsSync(p)) ?? null) : null;
  return prlimitPath;
}

type LimitName = 'cpu' | 'as' | 'nofile' | 'nproc' | 'fsize' | 'core';
const PROC_LIMIT_NAMES: Record<string, LimitName> = {
  'Max cpu time': 'cpu',
  'Max address space': 'as',
  'Max open files': 'nofile',
  'Max processes': 'nproc',
  'Max file size': 'fsize',
  'Max core file size': 'core',
};
let hardLimits: Partial<Record<LimitName, number>> | undefined;

/** Our own hard limits (from /proc/self/limits): a non-root process cannot raise a limit past them. */
function currentHardLimits(): Partial<Record<LimitName, number>> {
  if (hardLimits) return hardLimits;
  hardLimits = {};
  try {
    for (const line of readFileSync('/proc/self/limits', 'utf8').split('\n')) {
      for (const [label, name] of Object.entries(PROC_LIMIT_NAMES)) {
        if (!line.startsWith(label)) continue;
        const cols = line.slice(label.length).trim().split(/\s+/);
        const hard = cols[1];
        if (hard && hard !== 'unlimited') hardLimits[name] = Number(hard);
      }
    }
  } catch {
    // Not Linux: no clamping; prlimit is not used there anyway.
  }
  return hardLimits;
}

const clamp = (name: LimitName, v: number) => Math.max(0, Math.min(Math.floor(v), currentHardLimits()[name] ?? Infinity));

/**
 * Wraps a command so it execs with the limits set (soft = hard, except CPU where the hard limit
 * is one second later so SIGXCPU comes first). `withNproc` adds RLIMIT_NPROC — only useful in a
 * user namespace of our own (see the file comment); outside one it would count every process of
 * the operator's account and make an ordinary desktop session look like a fork bomb.
 */
export function rlimitWrap(limits: ResourceLimits, withNproc: boolean, command: string, args: string[]): { command: string; args: string[] } {
  const v = clamped(limits);
  const prlimit = findPrlimit();
  if (prlimit) {
    const opts = [`--cpu=${v.cpu}:${v.cpuHard}`, `--as=${v.as}:${v.as}`, `--nofile=${v.nofile}:${v.nofile}`, `--fsize=${v.fsize}:${v.fsize}`, '--core=0:0'];
    if (withNproc) opts.push(`--nproc=${v.nproc}:${v.nproc}`);
    return { command: prlimit, args: [...opts, '--', command, ...args] };
  }
  return { command: '/bin/sh', args: ['-c', `${ulimitScript(limits, withNproc)} && exec "$@"`, 'gatehouse-limits', command, ...args] };
}

/**
 * The same limits as shell commands, for a launcher that is a shell anyway (the cgroup joiner).
 * POSIX sh units: -v in KiB, -f in 512-byte blocks; one limit per ulimit call (dash takes one);
 * the soft CPU limit before the hard one, since a hard limit may not go below the soft one
 * (which starts out unlimited).
 */
export function ulimitScript(limits: ResourceLimits, withNproc: boolean): string {
  const v = clamped(limits);
  return [
    `ulimit -S -t ${v.cpu}`,
    `ulimit -H -t ${v.cpuHard}`,
    `ulimit -v ${v.asKiB}`,
    `ulimit -n ${v.nofile}`,
    `ulimit -f ${v.fsizeBlocks}`,
    'ulimit -c 0',
    // RLIMIT_NPROC has no POSIX letter: bash says -u, dash -p (and refuses -u). Where -u is
    // refused, -p; bash's -p is the read-only pipe size, so a shell that takes neither fails
    // the chain (closed) rather than running without the process limit.
    ...(withNproc ? [`{ ulimit -u ${v.nproc} 2>/dev/null || ulimit -p ${v.nproc}; }`] : []),
  ].join(' && ');
}

/** Each limit as prlimit and ulimit write it; Infinity (no limit, e.g. CPU seconds of a long-lived checker) is "unlimited". */
function clamped(limits: ResourceLimits) {
  const out = (name: LimitName, v: number, scale = 1) => {
    const c = clamp(name, v);
    return Number.isFinite(c) ? Math.floor(c / scale) : 'unlimited';
  };
  return {
    cpu: out('cpu', limits.cpuSecs),
    cpuHard: out('cpu', limits.cpuSecs + 1),
    as: out('as', limits.addressSpaceBytes),
    asKiB: out('as', limits.addressSpaceBytes, 1024),
    nofile: out('nofile', limits.openFiles),
    nproc: out('nproc', limits.processes),
    fsize: out('fsize', limits.fileSizeBytes),
    fsizeBlocks: out('fsize', limits.fileSizeBytes, 512),
  };
}

/** Whether the kernel enforces RLIMIT_NPROC for processes we start (not root, no CAP_SYS_RESOURCE/ADMIN). */
export function nprocEnforced(): boolean {
  if (process.getuid?.() === 0) return false;
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const eff = /^CapEff:\s*([0-9a-f]+)/m.exec(status)?.[1];
    if (eff) {
      const caps = BigInt(`0x${eff}`);
      const CAP_SYS_ADMIN = 21n;
      const CAP_SYS_RESOURCE = 24n;
      if ((caps >> CAP_SYS_ADMIN) & 1n || (caps >> CAP_SYS_RESOURCE) & 1n) return false;
    }
  } catch {
    // Not Linux.
  }
  return true;
}

// --- pids cgroup --------------------------------------------------------------------------

export type PidsCgroupSupport = { available: true; base: string; version: 1 | 2 } | { available: false; reason: string };

let cgroupSupport: PidsCgroupSupport | undefined;
let cgroupSeq = 0;

/** Finds a pids cgroup we may create children in (cached). GATEHOUSE_NO_CGROUP=1 turns it off. */
export function detectPidsCgroup(opts: { refresh?: boolean; env?: NodeJS.ProcessEnv } = {}): PidsCgroupSupport {
  if (cgroupSupport && !opts.refresh) return cgroupSupport;
  cgroupSupport = probePidsCgroup(opts.env ?? process.env);
  return cgroupSupport;
}

function probePidsCgroup(env: NodeJS.ProcessEnv): PidsCgroupSupport {
  if (process.platform !== 'linux') return { available: false, reason: `cgroups are Linux-only (this is ${process.platform})` };
  if (env.GATEHOUSE_NO_CGROUP === '1') return { available: false, reason: 'GATEHOUSE_NO_CGROUP=1 is set' };
  const candidates = ownCgroupDirs('pids');
  if (candidates.length === 0) return { available: false, reason: 'no pids cgroup hierarchy is mounted' };
  const reasons: string[] = [];
  for (const c of candidates) {
    const probe = join(c.base, `gatehouse-probe-${process.pid}`);
    try {
      if (c.version === 2) enableV2Pids(c.base);
      mkdirSync(probe);
    } catch (err) {
      reasons.push(`cannot create a cgroup in ${c.base} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      continue;
    }
    try {
      writeFileSync(join(probe, 'pids.max'), '8');
      // Joining needs write access to cgroup.procs of the common ancestor too: try it for real.
      const r = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"', join(probe, 'cgroup.procs')], { stdio: 'ignore' });
      if (r.status !== 0) throw new Error('a process could not join it');
      cleanStale(c.base);
      return { available: true, base: c.base, version: c.version };
    } catch (err) {
      reasons.push(`cannot use a cgroup in ${c.base} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    } finally {
      try {
        rmdirSync(probe);
      } catch {
        // The probe's process has exited; a failed rmdir leaves an empty cgroup, harmless.
      }
    }
  }
  return { available: false, reason: reasons.join('; ') };
}

function enableV2Pids(base: string): void {
  const ctl = join(base, 'cgroup.subtree_control');
  if (readFileSync(ctl, 'utf8').split(/\s+/).includes('pids')) return;
  // Fails (EBUSY) when our cgroup holds processes and is not the root: then no v2 pids here.
  writeFileSync(ctl, '+pids');
}

/** Removes cgroups left by a host that died (its pid is gone), killing what is still in them. */
function cleanStale(base: string): void {
  for (const dir of staleCgroups(base, /^gatehouse-(?:probe-)?(\d+)(?:-\d+)?$/)) {
    const cg = new PidsCgroup(dir);
    cg.killAll();
    cg.tryRemove();
  }
}

/** How many empty cgroups are kept made ahead of the calls that will use them. */
export const SPARE_CGROUPS = 2;

/** A spare: its folder, and the process limit written into it (null: none yet). */
interface Spare {
  dir: string;
  max: number | null;
}

/**
 * Empty cgroups made ahead of need, with the last call's process limit already written, off the
 * event loop (libuv's thread pool). Making a cgroup and writing its pids.max both wait for the
 * kernel's cgroup lock, which every cgroup change on the machine takes too (the launchers joining
 * their cgroups, the removals): under 40 agents' load a CPU profile of the host (npm run soak)
 * found 2.3 s of its event loop per minute in this mkdirSync, one per contained call (~27 µs each
 * when measured alone), and with the mkdir made ahead, 1.7 s in the write of pids.max. Each cgroup
 * is used once, as a fresh one was: nothing of one call's counts (pids.events) carries over.
 */
export class CgroupSpares {
  private readonly ready: Spare[] = [];
  /** Folders being made (their mkdir and pids.max are on the thread pool). */
  private readonly making = new Set<string>();
  private closed = false;
  /** The limit the spares are made with: the last one asked for. */
  private max: number | null = null;

  constructor(
    private readonly base: string,
    private readonly keep = SPARE_CGROUPS,
  ) {
    // A host that exits leaves none of its cgroups behind: its spares, and any call's whose
    // removal had not run when it exited (one was left after every CI run, of a host stopped in
    // the middle of a call). One still holding a process, or being made then, is swept as stale
    // by the next host.
    process.once('exit', () => {
      this.close();
      this.removeOwn();
    });
  }

  /**
   * A new empty cgroup's folder allowing at most `max` processes: a spare when one is ready (its
   * limit written again only if it was made with another), else made here. Throws what mkdir or
   * the write throws (a folder made then is removed).
   */
  take(max: number): string {
    const limit = Math.max(1, Math.floor(max));
    this.max = limit;
    const spare = this.ready.shift();
    const dir = spare?.dir ?? this.name();
    try {
      if (!spare) mkdirSync(dir);
      if (spare?.max !== limit) writeFileSync(join(dir, 'pids.max'), String(limit));
    } catch (err) {
      try {
        rmdirSync(dir);
      } catch {
        // Not made, or the next host's sweep removes it (named for this process).
      }
      throw err;
    } finally {
      this.refill();
    }
    return dir;
  }

  /** Resolves once no spare is being made (for tests). */
  async settled(): Promise<string[]> {
    while (this.making.size > 0) await new Promise((r) => setImmediate(r));
    return this.ready.map((s) => s.dir);
  }

  /** Every folder this keeps, ready or being made: not a call's (for tests that look for cgroups left behind). */
  folders(): string[] {
    return [...this.ready.map((s) => s.dir), ...this.making];
  }

  /** Removes the spares not taken; none are made after. */
  close(): void {
    this.closed = true;
    for (const { dir } of this.ready.splice(0)) {
      try {
        rmdirSync(dir);
      } catch {
        // Gone already; or the next host's sweep removes it (named for this process).
      }
    }
  }

  private name(): string {
    return join(this.base, `${ownPrefix()}${++cgroupSeq}`);
  }

  /** Removes every empty cgroup this process made under the base (rmdir refuses one holding a process). */
  private removeOwn(): void {
    let names: string[];
    try {
      names = readdirSync(this.base);
    } catch {
      return;
    }
    const own = ownPrefix();
    for (const n of names) {
      if (!n.startsWith(own)) continue;
      try {
        rmdirSync(join(this.base, n));
      } catch {
        // Still holds a process (the next host's sweep removes it once that is gone).
      }
    }
  }

  private refill(): void {
    while (!this.closed && this.ready.length + this.making.size < this.keep) {
      const dir = this.name();
      const max = this.max;
      this.making.add(dir);
      mkdir(dir)
        .then(() => (max === null ? null : writeFile(join(dir, 'pids.max'), String(max)).then(() => max)))
        .then(
          (written) => {
            this.making.delete(dir);
            if (!this.closed) return void this.ready.push({ dir, max: written });
            void rmdir(dir).catch(() => {});
          },
          // take() makes its own then, and says why if that fails too.
          () => {
            this.making.delete(dir);
            void rmdir(dir).catch(() => {});
          },
        );
    }
  }
}

/** How every cgroup this process makes is named: gatehouse-<pid>-<n> (the next host's sweep reads the pid). */
function ownPrefix(): string {
  return `gatehouse-${process.pid}-`;
}

const sparesByBase = new Map<string, CgroupSpares>();

/** The spares kept under `base`, if any were made (for tests). */
export function cgroupSparesOf(base: string): CgroupSpares | undefined {
  return sparesByBase.get(base);
}

/** One call's pids cgroup. */
export class PidsCgroup {
  constructor(readonly dir: string) {}

  /** A fresh cgroup under `base` allowing at most `max` processes (made ahead of time where it could be: see CgroupSpares). */
  static create(base: string, max: number): PidsCgroup {
    let spares = sparesByBase.get(base);
    if (!spares) sparesByBase.set(base, (spares = new CgroupSpares(base)));
    return new PidsCgroup(spares.take(max));
  }

  /**
   * The launcher: a shell that moves itself into the cgroup, then execs the command, so the
   * plugin's very first instruction already runs inside it (joining after spawn would race
   * with a plugin that forks at once). `setup` (ulimit commands) runs in the same shell, which
   * saves a separate prlimit exec. Exit 125 with a "gatehouse-launch:" line if either fails.
   */
  joinWrap(command: string, args: string[], setup = ''): { command: string; args: string[] } {
    const join_ = 'echo $$ > "$0" 2>/dev/null || { echo "gatehouse-launch: could not join the process-limit cgroup $0" >&2; exit 125; }';
    const limits = setup ? `; { ${setup}; } || { echo "gatehouse-launch: could not set the resource limits" >&2; exit 125; }` : '';
    return { command: '/bin/sh', args: ['-c', `${join_}${limits}; exec "$@"`, join(this.dir, 'cgroup.procs'), command, ...args] };
  }

  procs(): number[] {
    try {
      return readFileSync(join(this.dir, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  }

  /** Whether a fork was refused because the call reached pids.max. */
  limitHit(): boolean {
    try {
      const m = /^max (\d+)/m.exec(readFileSync(join(this.dir, 'pids.events'), 'utf8'));
      return m !== null && Number(m[1]) > 0;
    } catch {
      return false;
    }
  }

  /** SIGKILL everything in the cgroup once (cgroup.kill where the kernel has it). */
  killAll(): void {
    try {
      writeFileSync(join(this.dir, 'cgroup.kill'), '1');
      return;
    } catch {
      // v1, or a kernel before 5.14: signal each member.
    }
    for (const pid of this.procs()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }

  /**
   * Kills until the cgroup is empty, then removes it. A fork bomb at pids.max refills freed slots
   * between passes, so this loops; each pass kills every member, so it converges quickly.
   */
  async drain(timeoutMs = 2000): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      this.killAll();
      if (this.procs().length === 0 && (await this.remove())) return true;
      if (performance.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /**
   * drain() for a process that is exiting (no loop turn is left to wait in): kills until the
   * cgroup is empty and removes it, blocking at most `timeoutMs`.
   */
  drainNow(timeoutMs: number): boolean {
    const deadline = performance.now() + timeoutMs;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      this.killAll();
      if (this.procs().length === 0 && this.tryRemove()) return true;
      if (performance.now() > deadline) return false;
      Atomics.wait(pause, 0, 0, 2);
    }
  }

  /**
   * tryRemove off the event loop (libuv's thread pool). Removing a cgroup can wait in the kernel
   * for an RCU grace period, which grows with the machine's load: traced (strace -T) in a host
   * making plugin calls on a loaded machine, the rmdir took 0.12 ms at p50, 11 ms at p90 and 23 ms
   * at p99, against at most 0.2 ms at p99 for its mkdir, openat and statx. Synchronous, that was
   * the host's loop stalled at the end of plugin calls, at the worst time: under load. (Measured
   * alone on an idle machine it takes 0.01-0.06 ms, which is why an earlier attempt was undone.)
   */
  private async remove(): Promise<boolean> {
    try {
      await rmdir(this.dir);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  tryRemove(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }
}
