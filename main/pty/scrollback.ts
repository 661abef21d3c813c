// The output a session keeps so that a console can detach and re-attach without losing any:
// the last `limit` chars, as the chunks they arrived in (appending is O(1); joining happens
// only on attach).
import { boundaryAtOrAfter } from './text.js';

/** How far past the cut trimming looks for a line start, so a re-attached screen starts clean. */
const LINE_SEARCH = 4096;

export class Scrollback {
  private chunks: string[] = [];
  private head = 0;
  private size = 0;
  /** Chars dropped from the front so far. */
  dropped = 0;

  constructor(private limit: number) {}

  get length(): number {
    return this.size;
  }

  append(data: string): void {
    if (data.length === 0) return;
    this.chunks.push(data);
    this.size += data.length;
    if (this.size > this.limit) this.trim();
  }

  /** Keeps at most `limit` chars from now on (a finished session keeps less). */
  shrink(limit: number): void {
    this.limit = Math.min(this.limit, limit);
    if (this.size > this.limit) this.trim();
  }

  text(): string {
    if (this.head > 0) this.compact();
    if (this.chunks.length > 1) this.chunks = [this.chunks.join('')];
    return this.chunks[0] ?? '';
  }

  private trim(): void {
    // Whole chunks first.
    while (this.head < this.chunks.length - 1 && this.size - this.chunks[this.head]!.length >= this.limit) {
      const c = this.chunks[this.head++]!;
      this.size -= c.length;
      this.dropped += c.length;
    }
    if (this.size > this.limit) {
      // Then part of the oldest chunk: cut after a newline when one is near (a screen that starts
      // mid-line, or mid escape sequence, is noise), and never inside a character.
      const first = this.chunks[this.head]!;
      let cut = this.size - this.limit;
      const nl = first.indexOf('\n', cut);
      if (nl >= 0 && nl - cut < LINE_SEARCH) cut = nl + 1;
      cut = boundaryAtOrAfter(first, cut);
      this.chunks[this.head] = first.slice(cut);
      this.size -= cut;
      this.dropped += cut;
    }
    if (this.head > 1024) this.compact();
  }

  private compact(): void {
    this.chunks = this.chunks.slice(this.head);
    this.head = 0;
  }
}
