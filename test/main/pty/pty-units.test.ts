// The PTY layer's small parts on their own: text boundaries, the scrollback, the transcript's
// batching and cap, the flow-control state machine, and typing paced on the echo. (test/main/pty/pty.test.ts runs them together
// with real PTYs.)
import fc from 'fast-check';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { FlowControl } from '../../../main/pty/flow-control.js';
import { DEFAULT_PTY_LIMITS } from '../../../main/pty/limits.js';
import { Scrollback } from '../../../main/pty/scrollback.js';
import { boundaryAtOrAfter, boundaryAtOrBefore, splitText, Utf8Stream } from '../../../main/pty/text.js';
import { Transcript } from '../../../main/pty/transcript.js';
import { EchoPacedTyping, type TypedPiece } from '../../../main/pty/typing.js';

const splitsPair = (s: string, i: number) => i > 0 && i < s.length && s.charCodeAt(i) >= 0xdc00 && s.charCodeAt(i) <= 0xdfff;


/** Vitest's fake timers for the test that calls this, real ones again after it. */
function fakeTimersForThisTest(): void {
  vi.useFakeTimers();
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

describe('text boundaries', () => {
  it('never cuts a surrogate pair', () => {
    const s = 'a😀b😀😀c';
    for (let i = 0; i <= s.length; i++) {
      expect(splitsPair(s, boundaryAtOrAfter(s, i))).toBe(false);
      expect(splitsPair(s, boundaryAtOrBefore(s, i))).toBe(false);
    }
  });

  it('splits text into pieces that join back and hold whole characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1, max: 40 }), (s, max) => {
        const pieces = splitText(s, max);
        expect(pieces.join('')).toBe(s);
        for (const p of pieces) {
          expect(p.length).toBeLessThanOrEqual(Math.max(max, 2));
          expect(p.length === 0 || !splitsPair(p, 0)).toBe(true);
          const last = p.charCodeAt(p.length - 1);
          expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
        }
      }),
    );
  });

  it('decodes UTF-8 split at every byte the same as whole (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 50 }), (s, cuts) => {
        const bytes = Buffer.from(s, 'utf8');
        const d = new Utf8Stream();
        let out = '';
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const n = cuts[i % cuts.length]!;
          out += d.write(bytes.subarray(at, at + n));
          at += n;
        }
        out += d.end();
        expect(out).toBe(s);
      }),
    );
  });
});

describe('scrollback', () => {
  it('keeps the last chars, starting on a line, never inside a character', () => {
    const sb = new Scrollback(50);
    for (let i = 0; i < 30; i++) sb.append(`line ${i} 😀\n`);
    const text = sb.text();
    expect(text.length).toBeLessThanOrEqual(50);
    expect(text.endsWith('line 29 😀\n')).toBe(true);
    expect(text).toMatch(/^line \d+ /);
    expect(sb.dropped + text.length).toBe(Array.from({ length: 30 }, (_, i) => `line ${i} 😀\n`).join('').length);
  });

  it('cuts inside a long line when there is no newline near, but not inside a pair', () => {
    const sb = new Scrollback(11);
    sb.append('😀'.repeat(20));
    const text = sb.text();
    expect(text.length).toBe(10);
    expect(splitsPair(text, 0)).toBe(false);
  });

  it('shrinks when the session ends', () => {
    const sb = new Scrollback(1000);
    sb.append('x'.repeat(900));
    sb.shrink(100);
    expect(sb.length).toBe(100);
    sb.append('y'.repeat(50));
    expect(sb.text()).toBe('x'.repeat(50) + 'y'.repeat(50));
  });
});

describe('transcript', () => {
  const limits = { transcriptChunkChars: 10, transcriptFlushMs: 60_000, transcriptPendingMaxChars: 25, transcriptMaxChars: 100, transcriptTailChars: 8 };
  const recorder = (l = limits) => {
    const events: { type: string; payload: Record<string, unknown> }[] = [];
    const t = new Transcript('pty-0000000001', l, (type, payload) => events.push({ type, payload }));
    onTestFinished(() => void t.finish());
    return { t, events };
  };

  it('holds output until enough is pending, then writes it in chunks with offsets', () => {
    const { t, events } = recorder();
    t.write('abcdefgh');
    t.write('ijklmnop');
    expect(events).toEqual([]);
    t.write('qrstuvwxyz');
    expect(events.map((e) => e.payload)).toEqual([
      { id: 'pty-0000000001', seq: 1, offset: 0, data: 'abcdefghij' },
      { id: 'pty-0000000001', seq: 2, offset: 10, data: 'klmnopqrst' },
      { id: 'pty-0000000001', seq: 3, offset: 20, data: 'uvwxyz' },
    ]);
    t.write('1');
    expect(t.finish()).toEqual({ totalChars: 27, recordedChars: 27, droppedChars: 0, tail: null });
    expect(events.at(-1)?.payload).toEqual({ id: 'pty-0000000001', seq: 4, offset: 26, data: '1' });
  });

  it('stops at the cap, says so once, and keeps the tail', () => {
    const { t, events } = recorder();
    const all = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')}-`);
    for (const piece of all) t.write(piece);
    const summary = t.finish();
    const chunks = events.filter((e) => e.type === 'pty.transcript');
    expect(chunks.map((e) => e.payload.data).join('')).toBe(all.join('').slice(0, 100));
    expect(events.filter((e) => e.type === 'pty.transcript-capped')).toEqual([{ type: 'pty.transcript-capped', payload: { id: 'pty-0000000001', recordedChars: 100, atOffset: 100, maxChars: 100 } }]);
    expect(summary).toEqual({ totalChars: 120, recordedChars: 100, droppedChars: 20, tail: '7-38-39-' });
  });

  it('counts what it drops past the cap', () => {
    const { t, events } = recorder();
    t.write('a'.repeat(95));
    t.write('bbbbbbbbbb');
    t.write('cccc');
    const summary = t.finish();
    expect(summary).toEqual({ totalChars: 109, recordedChars: 100, droppedChars: 9, tail: 'bbbbcccc' });
    expect(events.filter((e) => e.type === 'pty.transcript').reduce((n, e) => n + (e.payload.data as string).length, 0)).toBe(100);
  });

  it('uses the real defaults: rows of 16 KiB, 8 MiB per session', () => {
    expect(DEFAULT_PTY_LIMITS.transcriptChunkChars).toBe(16 * 1024);
    expect(DEFAULT_PTY_LIMITS.transcriptMaxChars).toBe(8 * 1024 * 1024);
  });
});

describe('flow control', () => {
  const make = () => {
    const calls: string[] = [];
    const fc = new FlowControl(100, 10, () => calls.push('pause'), () => calls.push('resume'));
    return { fc, calls };
  };

  it('runs free with nobody watching', () => {
    const { fc: f, calls } = make();
    f.sent(1_000_000);
    expect(calls).toEqual([]);
  });

  it('pauses above the high-water mark, resumes below the low one', () => {
    const { fc: f, calls } = make();
    f.watch('a');
    f.sent(100);
    expect(calls).toEqual([]);
    f.sent(1);
    expect(calls).toEqual(['pause']);
    f.sent(500);
    f.ack('a', 591);
    expect(calls).toEqual(['pause']);
    f.ack('a', 1);
    expect(calls).toEqual(['pause', 'resume']);
    expect(f.isPaused).toBe(false);
  });

  it('follows the console furthest behind; one that leaves stops counting', () => {
    const { fc: f, calls } = make();
    f.watch('fast');
    f.watch('slow');
    f.sent(150);
    f.ack('fast', 150);
    expect(f.isPaused).toBe(true);
    expect(f.behind()).toBe(150);
    f.unwatch('slow');
    expect(calls).toEqual(['pause', 'resume']);
    // Acknowledgments from a console that is not watching are ignored.
    f.ack('slow', 1000);
    expect(f.unackedOf('slow')).toBeUndefined();
  });

  it('a new watcher starts at zero; draining resumes for good', () => {
    const { fc: f, calls } = make();
    f.watch('a');
    f.sent(200);
    f.watch('b');
    expect(f.unackedOf('b')).toBe(0);
    f.drain();
    expect(calls).toEqual(['pause', 'resume']);
    f.sent(10_000);
    expect(calls).toEqual(['pause', 'resume']);
  });
});

describe('typing paced on the echo', () => {
  const pieces: TypedPiece[] = [
    { text: 'abc\x04', echo: 'abc' },
    { text: 'de\n', echo: 'de\n' },
    { text: '\x04', echo: '' },
  ];
  function typing(opts: { paused?: () => boolean } = {}) {
    const written: string[] = [];
    let done = 0;
    const t = new EchoPacedTyping(pieces, { write: (s) => written.push(s), readingPaused: opts.paused ?? (() => false), waitMs: 1000, onDone: () => done++ });
    return { t, written, done: () => done };
  }

  it('writes a piece once the echo of the ones before was read, whatever output comes around it', () => {
    const { t, written, done } = typing();
    t.start();
    expect(written).toEqual(['abc\x04']);
    // The program's own words, then the echo split across reads.
    t.read('hello, a');
    t.read('b');
    expect(written).toEqual(['abc\x04']);
    t.read('c');
    expect(written).toEqual(['abc\x04', 'de\n']);
    // \n echoes as \r\n; the Ctrl-D that ends the input goes once it is read.
    t.read('de\r');
    expect(written).toHaveLength(2);
    t.read('\nmore');
    expect(written).toEqual(['abc\x04', 'de\n', '\x04']);
    expect(done()).toBe(1);
  });

  it('writes the rest at once when reading brings no echo, but not while reading is paused', () => {
    fakeTimersForThisTest();
    let paused = true;
    const { t, written, done } = typing({ paused: () => paused });
    t.start();
    // Paused for the consoles: no echo can be read, so its absence says nothing.
    vi.advanceTimersByTime(10_000);
    expect(written).toEqual(['abc\x04']);
    paused = false;
    // Some echo is progress: the wait starts over.
    t.read('a');
    vi.advanceTimersByTime(1000);
    expect(written).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    vi.runOnlyPendingTimers();
    expect(written).toEqual(['abc\x04', 'de\n\x04']);
    expect(done()).toBe(1);
  });

  it('a terminal that echoes none of the first piece (raw mode, -echo before any input) gets the rest soon, not after the full wait', () => {
    fakeTimersForThisTest();
    const { t, written, done } = typing();
    t.start();
    t.read('hello> ');
    vi.advanceTimersByTime(249);
    expect(written).toEqual(['abc\x04']);
    vi.advanceTimersByTime(1);
    vi.runOnlyPendingTimers();
    expect(written).toEqual(['abc\x04', 'de\n\x04']);
    expect(done()).toBe(1);
  });

  it('some echo of the first piece: the short wait does not apply', () => {
    fakeTimersForThisTest();
    const { t, written } = typing();
    t.start();
    t.read('a');
    vi.advanceTimersByTime(900);
    expect(written).toEqual(['abc\x04']);
  });

  it('stops writing once stopped (the program ended)', () => {
    const { t, written, done } = typing();
    t.start();
    t.stop();
    t.read('abc');
    expect(written).toEqual(['abc\x04']);
    expect(done()).toBe(1);
  });
});
