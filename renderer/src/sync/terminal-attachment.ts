// One console watching one PTY session in one xterm.js terminal: attach (the scrollback, then
// live output in seq order, nothing twice), acknowledge what xterm.js has parsed so the host's
// flow control can pause and resume the program, and detach when the pane goes away.
import type { Terminal } from '@xterm/xterm';
import type { EventPayload, TerminalSessionView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import type { GatehouseClient } from '../transport/client.ts';

type Output = EventPayload<'terminals.output'>;

/**
 * Parsed chars acknowledged from the write callback itself, in the middle of xterm.js's parsing
 * task, rather than when the task ends: with hundreds of K queued, xterm.js parses for 12 ms at a
 * stretch, and the host resumes the program below its low-water mark only if it hears of the
 * progress while that queue is still being worked off. In a flood every host batch
 * (PtyLimits.batchMaxChars, 512 K) is acknowledged from its own callback; smaller writes are summed
 * up to this before one call, since every call is a frame the host must read.
 */
export const ACK_AT_ONCE_CHARS = 128 * 1024;

export type AttachState = { kind: 'attaching' } | { kind: 'live'; truncated: boolean } | { kind: 'error'; message: string };

export class TerminalAttachment {
  /** The seq of the last batch written; -1 until attached. */
  private lastSeq = -1;
  private attaching = false;
  /** Output that arrived while the attach call was in flight. */
  private early: Output[] = [];
  private unacked = 0;
  private ackQueued = false;
  private disposed = false;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly client: GatehouseClient,
    private readonly id: string,
    private readonly term: Terminal,
    private readonly onState: (state: AttachState, session?: TerminalSessionView) => void,
  ) {}

  start(): void {
    this.offs.push(
      this.client.onEvent('terminals.output', (e) => this.onOutput(e)),
      // The host forgets a console that disconnected: attach again, from the scrollback.
      this.client.onStateChange((state, previous) => {
        if (state === 'connected' && previous !== 'connected') void this.attach();
      }),
    );
    if (this.client.getState() === 'connected') void this.attach();
    else this.onState({ kind: 'attaching' });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.offs.splice(0)) off();
    if (this.lastSeq >= 0 || this.attaching) this.client.call('terminals.detach', { id: this.id }).catch(() => {});
  }

  private async attach(): Promise<void> {
    if (this.disposed || this.attaching) return;
    this.attaching = true;
    this.early = [];
    this.lastSeq = -1;
    this.unacked = 0;
    this.onState({ kind: 'attaching' });
    try {
      const r = await this.client.call('terminals.attach', { id: this.id });
      if (this.disposed) return;
      this.term.reset();
      if (r.truncated) this.term.write('\x1b[2m[earlier output dropped: the host keeps the last part of a session]\x1b[0m\r\n');
      // The scrollback is not counted by the host's flow control: no acknowledgment for it.
      if (r.buffer) this.term.write(r.buffer);
      this.lastSeq = r.seq;
      this.attaching = false;
      for (const e of this.early.splice(0)) this.write(e);
      this.onState({ kind: 'live', truncated: r.truncated }, r.session);
    } catch (err) {
      this.attaching = false;
      if (!this.disposed) this.onState({ kind: 'error', message: errorMessage(err) });
    }
  }

  private onOutput(e: Output): void {
    if (e.id !== this.id || this.disposed) return;
    if (this.attaching) this.early.push(e);
    else if (this.lastSeq >= 0) this.write(e);
  }

  private write(e: Output): void {
    // Already in the scrollback the attach returned, or a duplicate.
    if (e.seq <= this.lastSeq) return;
    if (e.seq !== this.lastSeq + 1) {
      // A batch went missing (it cannot while attached; a reconnect is handled by its own attach).
      void this.attach();
      return;
    }
    this.lastSeq = e.seq;
    // The host counts in UTF-16 code units (the string it read); the bytes are its UTF-8.
    const chars = e.chars;
    // The callback runs once xterm.js has parsed the data: that is what the host waits for.
    this.term.write(e.data, () => {
      this.unacked += chars;
      if (this.unacked >= ACK_AT_ONCE_CHARS) this.ack();
      else this.queueAck();
    });
  }

  /**
   * What is left under ACK_AT_ONCE_CHARS goes in one acknowledgment per stretch of parsing:
   * xterm.js parses queued writes back to back in one task (up to ~12 ms) and calls their
   * callbacks as it goes, so a microtask sends the sum once that task ends, before the next frame
   * or message. A small write (an echo, a prompt) is acknowledged as soon as it is parsed; a
   * flood costs one call per host batch, not one per small write.
   */
  private queueAck(): void {
    if (this.ackQueued) return;
    this.ackQueued = true;
    queueMicrotask(() => {
      this.ackQueued = false;
      this.ack();
    });
  }

  private ack(): void {
    if (this.disposed || this.unacked === 0) return;
    const chars = this.unacked;
    this.unacked = 0;
    this.client.call('terminals.ack', { id: this.id, chars }).catch(() => {
      // A lost ack belongs to a connection that is gone; the next attach starts the count over.
    });
  }
}
