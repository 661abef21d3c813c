// Warm starts for one-shot plugin processes (runOneShot): the next call's process, sandbox and
// all, is started while this one runs, and waits at a gate until a call takes it.
//
// Why: starting a sandboxed tool is mostly process creation that has nothing to do with the call
// (the launcher that joins the pids cgroup and sets the limits, bwrap building the namespaces and
// mounts, the PID namespace's init): about 4 ms more than a bare spawn here, more on a busy machine
// (bench/one-shot.ts). An agent calling the same tool again finds it ready; only the tool's own
// exec is left.
//
// What stays the same as a cold start:
// - The tool's code runs only once a call releases it: the gate is `/bin/sh` (inside the box when
//   sandboxed), says on stderr that it waits, reads one line from stdin and execs the tool only if
//   it is "go"; end of input (the host let the spare go, or died) or anything else ends it having
//   run nothing.
// - A spare is taken only by a call whose wrap is the same in every respect: the key is the
//   sandbox's whole command line as the call works it out now (paths resolved now, the secret
//   masks found now), the limits, the command, its arguments, folder and environment. A call
//   after any of that changed (a manifest, a setting, a path that became a link) misses and
//   starts cold; the stale spare is let go. A spare whose process died while it waited is not
//   taken either.
// - And its box is looked at before it is taken: each bind's place in it must show what the
//   call's own box would now (sandbox.ts boxShowsNow: bwrap binds what a path named while it
//   built the box; a folder replaced since, or swapped for a link during the build and back
//   since, would show the other place). So only a spare waiting at its gate is taken; one still
//   being set up is waited for, briefly.
// - A spare that got less containment than planned (its cgroup could not be made) is not kept.
// - The call's clock starts at the call: time a spare waited is nobody's.
// - Each spare has its own pids cgroup, as a cold start has.
// A spare not taken within IDLE_MS is let go, so nothing lingers between an agent's bursts.
import { readFileSync } from 'node:fs';
import type { ChildEvent, ChildIo } from '../pty/child-io.js';
import type { WrappedCommand } from './one-shot.js';
import { killGroupUntilGone } from '../core/kill-group.js';
import { isAlive } from '../core/proc-scan.js';

/** What the gate writes on stderr once it waits (child-io's `ready`: a spare is taken only then). */
export const GATE_READY = 'gatehouse-gate: waiting\n';
/** Says it waits, then runs the tool only after the line "go" (see the top of the file); $0 names it in `ps`. */
export const GATE_SCRIPT = 'echo gatehouse-gate: waiting >&2; IFS= read -r go || exit 125; [ "$go" = go ] || exit 125; exec "$@"';
export const GATE_NAME = 'gatehouse-gate';
const GO = 'go\n';
/** How long a spare waits for a call before it is let go. */
const IDLE_MS = 30_000;
/** How long a call waits for a spare still being set up to reach its gate before it starts cold. */
const READY_WAIT_MS = 2000;
/** How long a host that exits waits, in all, for its spares' cgroups to empty so they can be removed. */
const EXIT_WAIT_MS = 500;

/** A process started ahead of its call, waiting at the gate. */
export class Spare {
  private readonly events: ChildEvent[] = [];
  private listener: ((e: ChildEvent) => void) | null = null;
  private ended = false;
  private finished: Promise<unknown> | null = null;
  private onGone: () => void = () => {};
  /** Settles once a spare no call took has ended and its containment is cleaned up. */
  readonly gone = new Promise<void>((resolve) => (this.onGone = resolve));
  private atGate = false;
  private onChange: () => void = () => {};
  /** Its process (group) id once started. */
  pid: number | null = null;
  io: Promise<ChildIo | null> = Promise.resolve(null);
  /** Which tool call it serves (WarmStarts.prime keeps one sandbox shape per tool call). */
  group = '';

  constructor(readonly wrapped: WrappedCommand) {}

  /** Where the process's events go: kept until a call adopts it. */
  readonly event = (e: ChildEvent): void => {
    if (e.type === 'spawned') this.pid = e.pid;
    if (e.type === 'ready') this.atGate = true;
    if (e.type === 'failed' || e.type === 'close' || e.type === 'lost') this.ended = true;
    this.onChange();
    if (this.listener) return this.listener(e);
    this.events.push(e);
    // Ended before any call took it: its containment is cleaned up here (a call's finalize does it otherwise).
    if (this.ended) this.finish();
  };

  /**
   * Still able to serve a call: not ended, not exited, and its leader (bwrap, or the launcher)
   * still running as the kernel sees it. A spare killed while it waited (an operator, the OOM
   * killer) is a zombie at once, but its exit comes back from the spawner (or the fork thread) only later: one
   * taken in between was released dead, and its call failed as the plugin "killed by SIGKILL"
   * (a crash, counted against it) though nothing of it had run, instead of starting cold.
   */
  get alive(): boolean {
    return !this.ended && !this.events.some((e) => e.type === 'exit' || e.type === 'overflow') && (this.pid === null || isAlive(this.pid));
  }

  /**
   * Its box shows what the call's own would (sandbox.ts boxShowsNow: a path swapped while bwrap
   * built it and swapped back since). Told only once it waits at its gate, when bwrap has built
   * the box and exec'd the gate: a spare still being set up is waited for, at most `waitMs` (one
   * stuck in its set-up is not taken). An unsandboxed one has no box: it fits while it is alive.
   */
  async fits(waitMs: number): Promise<boolean> {
    if (!this.wrapped.sameBox) return this.alive;
    if (!this.atGate && this.alive) {
      // Still on its way to the spawner (or queued for the fork thread), or bwrap still building
      // its box: it is further along than a cold start would be (which would come after it).
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.onChange = () => {
          if (this.atGate || !this.alive) resolve();
        };
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      this.onChange = () => {};
    }
    if (!this.atGate || !this.alive) return false;
    const gate = this.gate();
    return gate !== null && this.wrapped.sameBox(gate);
  }

  /** The gate shell's pid, among its process's first descendants; null before it is exec'd or when /proc cannot tell. */
  private gate(): number | null {
    let level = this.pid === null ? [] : [this.pid];
    for (let depth = 0; depth < 4 && level.length > 0; depth++) {
      const next: number[] = [];
      for (const p of level) {
        try {
          if (readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[3] === GATE_NAME) return p;
          next.push(...readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
        } catch {
          // Gone, or not readable: not the gate.
        }
      }
      level = next;
    }
    return null;
  }

  /** A call takes it: the events so far are replayed to `listener` at once, then the call writes its input. */
  adopt(listener: (e: ChildEvent) => void): void {
    this.listener = listener;
    for (const e of this.events.splice(0)) listener(e);
  }

  /** Opens the gate with the call's input. */
  release(input: string): void {
    void this.io.then((io) => io?.release(GO + input));
  }

  /** Lets it go unused: its stdin closes, the gate ends having run nothing. */
  dismiss(): void {
    void this.io.then((io) => io?.release(''));
    // A process that never reaches its gate (stuck in its sandbox's set-up) still goes, with its group.
    if (this.alive) this.killGroup();
    this.wrapped.kill?.();
  }

  /**
   * The host is exiting (its 'exit' event): kills it and removes its cgroup now, there being no
   * loop turn left for its close event. Not one a call took: that is the call's.
   */
  finishNow(timeoutMs: number): void {
    if (this.listener) return;
    this.killGroup();
    this.wrapped.finishNow?.(timeoutMs);
  }

  private killGroup(): void {
    if (this.pid === null) return;
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  private finish(): void {
    // Its cgroup first, then its group, as a call's end does: a PID namespace's init leaves the
    // cgroup early in its exit and then waits for the namespace to empty, still in the group.
    const pid = this.pid;
    this.finished ??= Promise.resolve(this.wrapped.finish?.())
      .catch(() => {})
      .then(() => (pid === null ? true : killGroupUntilGone(pid)))
      .then(() => this.onGone());
  }
}

/** The spares waiting, one per key. */
export class WarmStarts {
  private readonly spares = new Map<string, { spare: Spare; timer: NodeJS.Timeout }>();
  /** Keys whose last call failed: none is started ahead for them (a crashing or hanging tool would only waste them). */
  private readonly failing = new Set<string>();
  /** Spares let go whose end (and cgroup's removal) has not come back yet. */
  private readonly ending = new Set<Spare>();
  private closed = false;
  private hooked = false;

  constructor(private readonly opts: { idleMs?: number; readyMs?: number } = {}) {}

  /**
   * A host that exits with spares waiting (a spare keeps nothing running, so it may exit by
   * itself) or let go but not yet ended (it did not wait for close): their processes go with it,
   * but their cgroups were left for the next start's sweep (limits.ts cleanStale). Removed here,
   * on the way out.
   */
  private readonly onExit = (): void => {
    const end = performance.now() + EXIT_WAIT_MS;
    for (const s of [...this.spares.values()].map((x) => x.spare).concat([...this.ending])) s.finishNow(Math.max(0, end - performance.now()));
  };

  /**
   * The spare for `key`, if one waits and can still serve (Spare.fits, waiting at most READY_WAIT_MS
   * and never past half the call's `timeoutMs`); one that cannot is let go.
   */
  async take(key: string, timeoutMs = Infinity): Promise<Spare | null> {
    const s = this.spares.get(key);
    if (!s) return null;
    this.spares.delete(key);
    clearTimeout(s.timer);
    if (await s.spare.fits(Math.min(this.opts.readyMs ?? READY_WAIT_MS, timeoutMs / 2))) return s.spare;
    this.letGo(s.spare);
    return null;
  }

  /**
   * Starts a spare for `key` (start() may return null: none can be made now) unless one waits.
   * Spares of other keys in the same group (a tool call: its command, arguments, folder and
   * environment) are let go: only the newest sandbox of a call is kept.
   */
  prime(key: string, group: string, start: () => Spare | null): void {
    if (this.closed || this.spares.has(key) || this.failing.has(key)) return;
    for (const [k, s] of this.spares) if (s.spare.group === group) this.drop(k);
    const spare = start();
    if (!spare) return;
    if (!this.hooked) {
      this.hooked = true;
      process.on('exit', this.onExit);
    }
    spare.group = group;
    const timer = setTimeout(() => this.drop(key), this.opts.idleMs ?? IDLE_MS);
    // A spare keeps nothing running: the host may exit while it waits.
    timer.unref();
    this.spares.set(key, { spare, timer });
  }

  /** How a call of `key` ended: after a failure its spare is let go and none is started until a call succeeds. */
  outcome(key: string, ok: boolean): void {
    if (ok) {
      this.failing.delete(key);
      return;
    }
    // Bounded: a key is a call's whole shape, and shapes change.
    if (this.failing.size >= 256) this.failing.clear();
    this.failing.add(key);
    this.drop(key);
  }

  /** The process group ids of the spares waiting (null: not started yet). */
  pids(): Array<number | null> {
    return [...this.spares.values()].map((s) => s.spare.pid);
  }

  /**
   * Lets every spare go; none is started after this. Resolves once they have ended and their
   * cgroups are removed (at most `waitMs`: a host that exits right after leaves none behind).
   */
  async close(waitMs = 2000): Promise<void> {
    this.closed = true;
    const gone = [...this.spares.values()].map((s) => s.spare.gone);
    for (const k of [...this.spares.keys()]) this.drop(k);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(gone), new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    // What did not end in time is still removed if the host exits now.
    if (this.ending.size === 0 && this.hooked) {
      this.hooked = false;
      process.off('exit', this.onExit);
    }
  }

  private drop(key: string): void {
    const s = this.spares.get(key);
    if (!s) return;
    this.spares.delete(key);
    clearTimeout(s.timer);
    this.letGo(s.spare);
  }

  private letGo(spare: Spare): void {
    this.ending.add(spare);
    void spare.gone.then(() => this.ending.delete(spare));
    spare.dismiss();
  }
}
