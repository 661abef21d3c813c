// The console's half of PTY flow control (renderer/src/sync/terminal-attachment.ts):
// what it acknowledges, and when, with a stand-in for xterm.js that parses when told to and the
// real typed client over a transport that records calls.
import type { Terminal } from '@xterm/xterm';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../renderer/src/transport/client.ts';
import type { RawEventListener, Transport } from '../../renderer/src/transport/types.ts';
import { ACK_AT_ONCE_CHARS, TerminalAttachment } from '../../renderer/src/sync/terminal-attachment.ts';

/** Takes writes and runs their callbacks only on parse(), in order, the way xterm.js does within one task. */
class FakeTerminal {
  private queue: (() => void)[] = [];
  readonly written: string[] = [];
  write(data: string | Uint8Array, callback?: () => void): void {
    this.written.push(typeof data === 'string' ? data : new TextDecoder().decode(data));
    this.queue.push(callback ?? (() => {}));
  }
  /** Parses the next `n` writes (all of them by default) in one go. */
  parse(n = this.queue.length): void {
    for (const cb of this.queue.splice(0, n)) cb();
  }
  reset(): void {}
}

function setup() {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const listeners = new Set<RawEventListener>();
  const transport: Transport = {
    shell: 'serve',
    invoke: async (method, params) => {
      calls.push({ method, params: params as Record<string, unknown> });
      if (method === 'terminals.attach') return { ok: true, result: { session: { id: 't1' }, buffer: '', seq: 0, truncated: false } };
      return { ok: true, result: {} };
    },
    onEvent: (l) => (listeners.add(l), () => listeners.delete(l)),
    onState: () => () => {},
    getState: () => 'connected',
    getDetail: () => null,
    start() {},
    close() {},
  };
  const term = new FakeTerminal();
  const states: string[] = [];
  const attachment = new TerminalAttachment(createClient(transport), 't1', term as unknown as Terminal, (s) => states.push(s.kind));
  let seq = 0;
  return {
    term,
    attachment,
    states,
    // As the host sends it: the batch's UTF-8, and its length as a string.
    output: (data: string) => {
      for (const l of listeners) l('terminals.output', { id: 't1', seq: ++seq, chars: data.length, data: new TextEncoder().encode(data) });
    },
    acks: () => calls.filter((c) => c.method === 'terminals.ack').map((c) => c.params.chars),
  };
}

/** Lets queued microtasks (the acknowledgment) and the fake transport's promises run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('terminal attachment: acknowledgments', () => {
  it('acknowledges what xterm.js parsed in one go with one call, once it has parsed it', async () => {
    const t = setup();
    t.attachment.start();
    await settle();
    expect(t.states).toEqual(['attaching', 'live']);

    for (let i = 0; i < 3; i++) t.output('x'.repeat(6_000));
    expect(t.term.written).toHaveLength(3);
    await settle();
    expect(t.acks()).toEqual([]);

    t.term.parse();
    await settle();
    expect(t.acks()).toEqual([18_000]);

    t.output('y'.repeat(100));
    t.output('y'.repeat(200));
    t.term.parse(1);
    await settle();
    t.term.parse(1);
    await settle();
    expect(t.acks()).toEqual([18_000, 100, 200]);
    t.attachment.dispose();
  });

  it('writes the bytes as they came and acknowledges the host\'s count of chars, not of bytes', async () => {
    const t = setup();
    t.attachment.start();
    await settle();
    // 1 + 1 + 2 UTF-16 code units, 2 + 3 + 4 UTF-8 bytes.
    t.output('é✓🙂');
    t.term.parse();
    await settle();
    expect(t.term.written).toEqual(['é✓🙂']);
    expect(t.acks()).toEqual([4]);
    t.attachment.dispose();
  });

  it('acknowledges during a long parse once ACK_AT_ONCE_CHARS (128 K) are parsed, not only when the task ends', async () => {
    const t = setup();
    t.attachment.start();
    await settle();

    // Five batches of 5/8 of the step parsed in one task: the host hears of each 128 K while
    // xterm.js still has the rest queued, so it can resume the program before the console runs dry.
    const batch = (ACK_AT_ONCE_CHARS * 5) / 8;
    for (let i = 0; i < 5; i++) t.output('x'.repeat(batch));
    t.term.parse(2);
    expect(t.acks(), 'sent from the write callback, before the task ends').toEqual([2 * batch]);
    t.term.parse(2);
    expect(t.acks()).toEqual([2 * batch, 2 * batch]);
    t.term.parse(1);
    expect(t.acks(), 'under the step: left for the end of the task').toEqual([2 * batch, 2 * batch]);
    await settle();
    expect(t.acks()).toEqual([2 * batch, 2 * batch, batch]);
    t.attachment.dispose();
  });
});
