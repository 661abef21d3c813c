// Property tests for the wire side of the checker protocol: line splitting under any chunking
// (pipes deliver bytes, not lines), the 1 MiB cap counted while reading, and the reading of
// evaluate results, which must never throw whatever a checker sends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../../main/checkers/line-splitter.js';
import { parseEvaluateResult, SEVERITIES, ACTIONS } from '../../../main/core/checker-protocol.js';

/** Cuts a buffer at the given (sorted, deduplicated) offsets. */
function chunk(buf: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...at, buf.length]) {
    if (c > prev) out.push(buf.subarray(prev, c));
    prev = c;
  }
  return out;
}

const lineText = fc.string({ unit: fc.oneof(fc.constantFrom('a', '{', '"', ' ', 'é', '€', '😀', '\r'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })) }).filter((s) => !s.includes('\n'));

describe('line splitter', () => {
  it('yields the same lines however the bytes are chunked, multi-byte characters included', () => {
    fc.assert(
      fc.property(fc.array(lineText, { maxLength: 20 }), fc.array(fc.nat(), { maxLength: 30 }), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        const got: string[] = [];
        const s = new LineSplitter(1 << 20, (l) => got.push(l), () => {
          throw new Error('no overflow expected');
        });
        for (const c of chunk(bytes, cuts)) s.push(c);
        expect(got).toEqual(lines);
      }),
    );
  });

  it('overflows exactly when a line is longer than the cap, counting bytes while reading', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 30 }), fc.array(fc.nat(), { maxLength: 20 }), (lengths, cap, cuts) => {
        const lines = lengths.map((n, i) => String.fromCharCode(97 + (i % 26)).repeat(n));
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        const got: string[] = [];
        let overflow: number | null = null;
        const s = new LineSplitter(cap, (l) => got.push(l), (n) => (overflow = n));
        for (const c of chunk(bytes, cuts)) s.push(c);
        const firstLong = lines.findIndex((l) => l.length > cap);
        if (firstLong === -1) {
          expect(overflow).toBeNull();
          expect(got).toEqual(lines);
        } else {
          expect(overflow).toBeGreaterThan(cap);
          expect(got).toEqual(lines.slice(0, firstLong));
        }
      }),
    );
  });

  it('does not buffer a line past the cap while it is still arriving', () => {
    let overflow = 0;
    const s = new LineSplitter(1000, () => {}, (n) => (overflow = n));
    for (let i = 0; i < 10 && overflow === 0; i++) s.push(Buffer.alloc(300, 0x61));
    expect(overflow).toBe(1200);
  });
});

describe('reading evaluate results', () => {
  it('never throws, and only null or an object with a rule name can be anything but malformed', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = parseEvaluateResult(v);
        if (v === null) expect(r.kind).toBe('allow');
        else if (typeof v !== 'object' || Array.isArray(v)) expect(r.kind).toBe('malformed');
        else if (r.kind === 'block') {
          expect(typeof (v as Record<string, unknown>).rule_name).toBe('string');
          expect(SEVERITIES).toContain(r.result.severity);
          expect(ACTIONS).toContain(r.result.action);
          expect(r.result.message).not.toBe('');
        }
      }),
    );
  });

  it('any block with a rule name and a string message blocks, whatever its severity and action', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''), fc.jsonValue(), fc.jsonValue(), fc.string(), (rule, severity, action, message) => {
        const r = parseEvaluateResult({ rule_name: rule, severity, action, message });
        expect(r.kind).toBe('block');
        if (r.kind !== 'block') return;
        expect(r.result.severity).toBe((SEVERITIES as readonly unknown[]).includes(severity) ? severity : 'high');
        expect(r.result.action).toBe((ACTIONS as readonly unknown[]).includes(action) ? action : 'block');
      }),
    );
  });
});
