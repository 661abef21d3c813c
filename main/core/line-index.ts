// Turns string offsets into the 1-based line and column an editor shows. Columns count UTF-16
// code units, as Monaco and the TypeScript compiler do, so a marker lands on the exact character.
// Line breaks are \n, \r\n and a lone \r (what editors and shells treat as one).

export class LineIndex {
  private starts: number[] | null = null;

  constructor(private readonly text: string) {}

  /** 1-based line and column of `offset` (clamped to the text). */
  position(offset: number): { line: number; column: number } {
    const starts = this.lineStarts();
    const at = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - (starts[lo] as number) + 1 };
  }

  /** Offset where 1-based `line` starts. */
  lineStart(line: number): number {
    const starts = this.lineStarts();
    return starts[Math.max(0, Math.min(line - 1, starts.length - 1))] as number;
  }

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    const t = this.text;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (t.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.starts = starts;
    return starts;
  }
}
