// A session's transcript in the audit log: its output as `pty.transcript` events of up to
// `transcriptChunkChars` each. Pending output is written `transcriptFlushMs` after its first
// char (or at once when `transcriptPendingMaxChars` pile up), all chunks in the same tick, so
// they share one audit transaction and one fsync: a chatty program costs a few commits a
// second, not one per read. Past `transcriptMaxChars` the transcript stops (one
// `pty.transcript-capped` event says where) and only the last `transcriptTailChars` are kept,
// for `pty.exited`: the start and the end of a flood are on record, its middle is counted but
// not stored.
import type { PtyLimits } from './limits.js';
import { boundaryAtOrAfter, boundaryAtOrBefore, splitText } from './text.js';

export type TranscriptSink = (type: 'pty.transcript' | 'pty.transcript-capped', payload: Record<string, unknown>) => void;

export interface TranscriptSummary {
  /** Every char of output the session produced. */
  totalChars: number;
  /** The chars stored in `pty.transcript` events. */
  recordedChars: number;
  /** The chars counted but not stored (past the cap). */
  droppedChars: number;
  /** The last chars of output when some were dropped, else null (the transcript has them all). */
  tail: string | null;
}

type Limits = Pick<PtyLimits, 'transcriptChunkChars' | 'transcriptFlushMs' | 'transcriptPendingMaxChars' | 'transcriptMaxChars' | 'transcriptTailChars'>;

export class Transcript {
  private pending: string[] = [];
  private pendingChars = 0;
  /** Offset (in the whole output) of the first pending char. */
  private pendingOffset = 0;
  private timer: NodeJS.Timeout | null = null;
  private chunks = 0;
  private recorded = 0;
  private total = 0;
  private capped = false;
  private tail = '';
  private finished = false;

  constructor(
    private readonly id: string,
    private readonly limits: Limits,
    private readonly sink: TranscriptSink,
  ) {}

  write(data: string): void {
    if (this.finished || data.length === 0) return;
    const offset = this.total;
    this.total += data.length;
    if (this.capped) {
      this.keepTail(data);
      return;
    }
    const room = this.limits.transcriptMaxChars - this.recorded - this.pendingChars;
    if (data.length <= room) {
      this.push(data, offset);
    } else {
      const cut = boundaryAtOrBefore(data, room);
      if (cut > 0) this.push(data.slice(0, cut), offset);
      this.flush();
      this.capped = true;
      this.sink('pty.transcript-capped', { id: this.id, recordedChars: this.recorded, atOffset: offset + cut, maxChars: this.limits.transcriptMaxChars });
      this.keepTail(data.slice(cut));
      return;
    }
    if (this.pendingChars >= this.limits.transcriptPendingMaxChars) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.limits.transcriptFlushMs);
  }

  /** Writes everything pending, as chunks appended in this tick (one audit transaction). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pendingChars === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    let offset = this.pendingOffset;
    this.pending = [];
    this.pendingChars = 0;
    for (const data of splitText(text, this.limits.transcriptChunkChars)) {
      this.sink('pty.transcript', { id: this.id, seq: ++this.chunks, offset, data });
      offset += data.length;
      this.recorded += data.length;
    }
  }

  finish(): TranscriptSummary {
    this.flush();
    this.finished = true;
    return { totalChars: this.total, recordedChars: this.recorded, droppedChars: this.total - this.recorded, tail: this.capped ? this.tail : null };
  }

  private push(data: string, offset: number): void {
    if (this.pendingChars === 0) this.pendingOffset = offset;
    this.pending.push(data);
    this.pendingChars += data.length;
  }

  private keepTail(data: string): void {
    const max = this.limits.transcriptTailChars;
    const joined = data.length >= max ? data : this.tail + data;
    this.tail = joined.length > max ? joined.slice(boundaryAtOrAfter(joined, joined.length - max)) : joined;
  }
}
