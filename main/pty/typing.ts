// The host typing a program's input into its terminal (a `pty = true` tool's arguments), one
// piece at a time, each once the terminal has echoed the pieces before it and the session has
// read that echo.
//
// Why not all at once: in canonical mode the line discipline echoes what it takes in, but only
// into the room the master side has left (about 17 KB here) when the host is late reading it.
// Past that it keeps at most 4 KB of echo pending, overwriting the oldest, and writes what is
// pending at the start of the program's next write() — in the middle of the program's own
// output. On a loaded machine a 48 KB input typed at once came back with its echo cut short
// and the tool's last JSON line broken by pieces of echo (pty-tool.test.ts: 2 runs of 40 under
// two CPU burners; a reader that starts late breaks the echo every time). Paced on the echo, at
// most one piece's echo (under 4 KB) is ever in the kernel, nothing is overwritten, and all of
// it has been read before the last piece lets the program see the end of its input, so none
// can land in what the program prints after.
//
// A terminal that does not echo (the program turned echo off, or set raw mode) would stall the
// pacing: when no echo has come for `waitMs` of reading, the rest is written at once, as it
// was before pacing (with no echo there is nothing to interleave).

/** A piece as written, and what the terminal echoes of it ('' for a lone Ctrl-D). */
export interface TypedPiece {
  text: string;
  echo: string;
}

export interface TypingDeps {
  write: (text: string) => void;
  /** Reading is paused for the consoles (flow control): no echo can be read, so none is missed. */
  readingPaused: () => boolean;
  /** How long reading may bring no echo before the rest is written unpaced. */
  waitMs: number;
  /** All pieces are written, or typing stopped. */
  onDone: () => void;
}

/** How long reading may bring no echo at all of the first piece before the terminal is taken not to echo. */
const FIRST_ECHO_WAIT_MS = 250;

export class EchoPacedTyping {
  private next = 0;
  /** The echo still expected of what was written, and how much of it was read. */
  private pending = '';
  private matched = 0;
  /** Echo chars read in all: the stall check compares it across a wait. */
  private progress = 0;
  private timer: NodeJS.Timeout | null = null;
  private firstTimer: NodeJS.Timeout | null = null;
  private done = false;

  constructor(
    private readonly pieces: readonly TypedPiece[],
    private readonly deps: TypingDeps,
  ) {}

  start(): void {
    this.writeReady();
    if (!this.done) this.watchStall();
  }

  /**
   * Output read from the terminal. The echo comes in order but may be preceded or followed by
   * the program's own output (and each \n echoes as \r\n): it is matched as a subsequence, so
   * anything else is skipped, and a program char that happens to match only lets the next piece
   * go a little early.
   */
  read(text: string): void {
    if (this.done || this.matched >= this.pending.length) return;
    const before = this.matched;
    for (let i = 0; i < text.length && this.matched < this.pending.length; i++) {
      if (text.charCodeAt(i) === this.pending.charCodeAt(this.matched)) this.matched++;
    }
    this.progress += this.matched - before;
    if (this.matched >= this.pending.length) this.writeReady();
  }

  /** The program ended, or the session let go: nothing more is written. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer) clearInterval(this.timer);
    if (this.firstTimer) clearTimeout(this.firstTimer);
    this.timer = this.firstTimer = null;
    this.deps.onDone();
  }

  /** Writes the next pieces whose turn it is: all those after an echo fully read, up to one with echo left to read. */
  private writeReady(): void {
    while (!this.done && this.matched >= this.pending.length) {
      const piece = this.pieces[this.next++];
      if (!piece) {
        this.stop();
        return;
      }
      this.pending = piece.echo;
      this.matched = 0;
      if (!this.writeText(piece.text)) return;
    }
  }

  private writeText(text: string): boolean {
    try {
      this.deps.write(text);
      return true;
    } catch {
      // The terminal is gone: what the program printed says why.
      this.stop();
      return false;
    }
  }

  private watchStall(): void {
    let atLastCheck = this.progress;
    const check = () => {
      if (this.progress !== atLastCheck || this.deps.readingPaused()) {
        atLastCheck = this.progress;
        return;
      }
      // After a stall of the loop (a loaded machine) the timers run before the reads that waited
      // it out: the echo may be there, unread. A turn of the loop's I/O comes before an immediate.
      const seen = this.progress;
      setImmediate(() => {
        if (this.done || this.progress !== seen) {
          atLastCheck = this.progress;
          return;
        }
        // No echo: the terminal does not echo (any more), or the program has not read for a while.
        const rest = this.pieces.slice(this.next).map((p) => p.text).join('');
        this.next = this.pieces.length;
        if (rest) this.writeText(rest);
        this.stop();
      });
    };
    this.timer = setInterval(check, this.deps.waitMs);
    this.timer.unref();
    // The first piece is shorter than the line discipline's input buffer, which is empty, so it is
    // echoed as it arrives whether or not the program reads yet: none at all soon after means
    // the terminal does not echo (a program that set raw mode or -echo before its input came),
    // and waiting the full waitMs (meant for a program slow to read the pieces after) would only
    // delay such a tool's every call.
    this.firstTimer = setTimeout(() => {
      if (this.progress === 0 && this.matched === 0) check();
    }, Math.min(FIRST_ECHO_WAIT_MS, this.deps.waitMs));
    this.firstTimer.unref();
  }
}
