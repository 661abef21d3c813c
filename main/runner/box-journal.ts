// Finishing the Git check of a contained command that was killed before it could (box.ts, the
// journal in GIT_CHECK_SCRIPT). The check writes down what the Git folders held before the box
// started and removes that note when it is done; an agent's SIGKILL (Claude Code sends one to the
// whole process tree 1.5 s after its TERM) can end it half-way, and what the command planted
// would then wait for the next contained command. Gatehouse does not wait: it looks for notes
// whose owner is gone and runs the check file with --recover, which finishes them (the check
// claims each note by renaming it, so this and an agent's next command never both do one).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTime } from '../core/proc-scan.js';

export interface BoxJournalDeps {
  /** The folder of the check file and its notes (GATEHOUSE_HOME/box). */
  dir: string;
  /** The installed check file, or undefined when it cannot be written (then there are no notes). */
  checkFile: () => string | undefined;
  /** What the finished check said (its stderr), for the audit log. */
  record: (said: string, exitCode: number | null) => void;
  log?: (msg: string, err?: unknown) => void;
  /** How long one finishing run may take before it is ended (default 60 s). */
  timeoutMs?: number;
  /** How often the folder is looked at (default 1 s). */
  intervalMs?: number;
  platform?: NodeJS.Platform;
}

const NOTE = /^pending-(\d+)-(\d+)-/;
/** How long one finishing run may take. */
const FINISH_TIMEOUT_MS = 60_000;
/** How long a note that could not be finished waits before it is tried again. */
const STUCK_RETRY_MS = 60_000;

export class BoxJournals {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<boolean> | null = null;

  constructor(private readonly deps: BoxJournalDeps) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.deps.intervalMs ?? 1000);
    this.timer.unref();
    void this.sweep();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Notes in the folder whose owner is no longer running. */
  orphans(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.deps.dir);
    } catch {
      return [];
    }
    return names.filter((name) => {
      const m = NOTE.exec(name);
      return m !== null && !this.alive(Number(m[1]), m[2]!);
    });
  }

  /**
   * Notes a finishing run left in place (it could not claim them: a folder it cannot write), by
   * name, with when they may be tried again: not every second, each attempt in the audit log.
   */
  private readonly stuck = new Map<string, number>();

  /** Finishes every orphaned note (one run at a time); true when there was one. */
  sweep(): Promise<boolean> {
    if (this.running) return this.running;
    const now = Date.now();
    const due = this.orphans().filter((n) => (this.stuck.get(n) ?? 0) <= now);
    if (!due.length) return Promise.resolve(false);
    const file = this.deps.checkFile();
    if (!file) return Promise.resolve(false);
    this.running = this.finish(file)
      .then((done) => {
        const left = new Set(this.orphans());
        for (const n of due) if (left.has(n)) this.stuck.set(n, Date.now() + STUCK_RETRY_MS);
        for (const n of this.stuck.keys()) if (!left.has(n)) this.stuck.delete(n);
        return done;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private finish(file: string): Promise<boolean> {
    return new Promise((done) => {
      // cwd: the check changes into the folders it looks at by their absolute paths. A process
      // group of its own, ended whole if it runs past its time: one that hung (a FIFO another
      // box swapped in where Git opens a file) would hold every later sweep; the note it claimed
      // then has a dead owner and is tried again.
      const child = spawn('/bin/sh', [file, '--recover'], { cwd: this.deps.dir, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      let said = '';
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }, this.deps.timeoutMs ?? FINISH_TIMEOUT_MS);
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => (said.length < 64 * 1024 ? (said += d) : undefined));
      child.on('error', (err) => {
        clearTimeout(timer);
        this.deps.log?.('finishing the check of a stopped contained command failed to start', err);
        done(true);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (late) said += `${said ? '\n' : ''}gatehouse: finishing the check of a stopped contained command took longer than ${(this.deps.timeoutMs ?? FINISH_TIMEOUT_MS) / 1000} s and was ended; it is tried again.`;
        if (said.trim() || code !== 0) this.deps.record(said.trim(), code);
        done(true);
      });
    });
  }

  private alive(pid: number, start: string): boolean {
    if ((this.deps.platform ?? process.platform) === 'linux' && start !== '0') return startTime(pid) === start;
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
}

/** The folder the check file and its notes live in. */
export const boxFolder = (gatehouseHome: string) => join(gatehouseHome, 'box');
