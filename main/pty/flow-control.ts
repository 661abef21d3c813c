// Flow control for one session, VS Code's scheme: every watching console acknowledges the
// chars it has written to its xterm.js (in the write callback, i.e. once parsed). Reading from
// the PTY pauses when the console furthest behind has more than `high` chars unacknowledged and
// resumes once every watching console is below `low`. A paused PTY blocks the program on its
// next write, so a flood like `yes` costs neither host memory nor a console that can no longer
// be reached, and Ctrl-C is never queued behind megabytes of output.
//
// Why the slowest console (the max), not a sum or the fastest: output goes to every console,
// so the slowest one decides how much is in flight for someone. Only consoles that attached
// count; one that switched away detaches, and one that disconnects is dropped, so a console
// that stopped watching never holds a program paused.

export class FlowControl {
  private readonly unacked = new Map<string, number>();
  private paused = false;
  /** Set once the program has exited: what it left in the buffers is read regardless of consoles. */
  private draining = false;

  constructor(
    private readonly high: number,
    private readonly low: number,
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  get isPaused(): boolean {
    return this.paused;
  }

  get watchers(): number {
    return this.unacked.size;
  }

  isWatching(key: string): boolean {
    return this.unacked.has(key);
  }

  /** A console attached: it has the scrollback, and owes acknowledgments only for what comes next. */
  watch(key: string): void {
    this.unacked.set(key, 0);
    this.update();
  }

  unwatch(key: string): void {
    if (this.unacked.delete(key)) this.update();
  }

  /** `chars` of output were read; every watching console will be sent them. */
  sent(chars: number): void {
    if (this.unacked.size === 0) return;
    for (const [key, n] of this.unacked) this.unacked.set(key, n + chars);
    this.update();
  }

  ack(key: string, chars: number): void {
    const n = this.unacked.get(key);
    if (n === undefined) return;
    this.unacked.set(key, Math.max(0, n - chars));
    this.update();
  }

  /** The unacknowledged chars of the console furthest behind. */
  behind(): number {
    let max = 0;
    for (const n of this.unacked.values()) if (n > max) max = n;
    return max;
  }

  unackedOf(key: string): number | undefined {
    return this.unacked.get(key);
  }

  drain(): void {
    this.draining = true;
    this.update();
  }

  private update(): void {
    const behind = this.behind();
    if (!this.paused && !this.draining && behind > this.high) {
      this.paused = true;
      this.pause();
    } else if (this.paused && (this.draining || behind < this.low)) {
      this.paused = false;
      this.resume();
    }
  }
}
