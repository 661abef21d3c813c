// Splits a byte stream into lines, counting while reading: a line longer than the cap is
// reported as soon as the cap is passed, without buffering the rest of it. Splitting happens on
// the byte 0x0A, which never occurs inside a multi-byte UTF-8 sequence, so each line decodes on
// its own.

export const MAX_LINE_BYTES = 1 << 20;

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;

  constructor(
    private readonly cap: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (bytes: number) => void,
  ) {}

  /** Ignore everything from now on (the process is being replaced). */
  stop(): void {
    this.stopped = true;
    this.pending = [];
    this.pendingBytes = 0;
  }

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1 && !this.stopped) {
      const len = nl - start;
      let line: string;
      if (this.pendingBytes === 0) {
        if (len > this.cap) return this.overflow(len);
        line = chunk.toString('utf8', start, nl);
      } else {
        const total = this.pendingBytes + len;
        if (total > this.cap) return this.overflow(total);
        this.pending.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.pending, total).toString('utf8');
        this.pending = [];
        this.pendingBytes = 0;
      }
      this.onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (this.stopped || start >= chunk.length) return;
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.cap) return this.overflow(this.pendingBytes);
    this.pending.push(start === 0 ? chunk : chunk.subarray(start));
  }

  private overflow(bytes: number): void {
    this.stop();
    this.onOverflow(bytes);
  }
}
