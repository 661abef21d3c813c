// The screen an adapter reads: a real terminal model (@xterm/headless) fed the same output
// batches the console's xterm gets, so cursor moves, clears and redraws look to the adapter as
// they look to the operator, rather than a regex over raw bytes.
import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;

export interface ScreenSnapshot {
  cols: number;
  rows: number;
  /** The visible rows, trailing blanks trimmed. */
  lines: string[];
  cursor: { row: number; col: number };
}

export class Screen {
  private readonly term: InstanceType<typeof Terminal>;
  private pending = 0;
  private waiters: (() => void)[] = [];
  /** When the last output batch was written (ms since the epoch, the host's clock). */
  lastChange: number;

  constructor(cols: number, rows: number, now: () => number = Date.now) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 200 });
    this.now = now;
    this.lastChange = now();
  }

  private readonly now: () => number;

  write(data: string): void {
    this.pending++;
    this.lastChange = this.now();
    this.term.write(data, () => {
      this.pending--;
      if (this.pending === 0) for (const w of this.waiters.splice(0)) w();
    });
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
  }

  /** Resolves when every batch written so far is parsed (xterm parses asynchronously). */
  settled(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  snapshot(): ScreenSnapshot {
    const b = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return { cols: this.term.cols, rows: this.term.rows, lines, cursor: { row: b.cursorY, col: b.cursorX } };
  }

  /** The visible text, one line per row, trailing blank rows dropped. */
  text(): string {
    const lines = this.snapshot().lines;
    while (lines.length && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  dispose(): void {
    this.term.dispose();
  }
}
