// The chain hashes canonical JSON (RFC 8785). The store writes it with its own fast serializer;
// the `canonicalize` package is the reference it must agree with on every JSON value.
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../main/core/canonical-json.js';

/** The same value with every object's keys in another order. */
function reorder(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) return v.map((x, i) => reorder(x, seed + i));
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    const shuffled = entries.map((e, i) => [((i + 1) * 7919 + seed) % 101, e] as const).sort((a, b) => a[0] - b[0]).map(([, e]) => e);
    const out: Record<string, unknown> = {};
    for (const [k, x] of shuffled) Object.defineProperty(out, k, { value: reorder(x, seed + 1), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

describe('canonicalJson', () => {
  it('agrees with the canonicalize package on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(canonicalize(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees on strings that need escaping: quotes, backslashes, controls, lone and paired surrogates', () => {
    const strings = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '😀', 'é'));
    fc.assert(
      fc.property(fc.dictionary(strings, strings), fc.array(strings), (obj, arr) => {
        expect(canonicalJson(obj)).toBe(canonicalize(obj));
        expect(canonicalJson(arr)).toBe(canonicalize(arr));
      }),
      { numRuns: 1000 },
    );
  });

  it('does not depend on key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (v, seed) => {
        expect(canonicalJson(reorder(v, seed))).toBe(canonicalJson(v));
      }),
      { numRuns: 500 },
    );
  });

  it('parses back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts keys by UTF-16 code units and writes numbers the ECMAScript way', () => {
    expect(canonicalJson({ b: 1, a: 2, A: 3, é: 4, '😀': 5, '\ufb33': 6, '10': 7, '9': 8 })).toBe('{"10":7,"9":8,"A":3,"a":2,"b":1,"é":4,"😀":5,"דּ":6}');
    expect(canonicalJson([1e21, 1e-7, -0, 0.1 + 0.2, 333333333.3333333])).toBe('[1e+21,1e-7,0,0.30000000000000004,333333333.3333333]');
  });

  it('leaves out undefined members like JSON, and turns them into null in arrays', () => {
    expect(canonicalJson({ a: undefined, b: 1, f: () => 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined, () => 1])).toBe('[null,null]');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('hands values with toJSON (dates) to canonicalize', () => {
    const d = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));
    expect(canonicalJson({ at: d })).toBe('{"at":"2025-01-02T03:04:05.000Z"}');
    expect(canonicalJson({ at: d })).toBe(canonicalize({ at: d }));
  });

  it('refuses what JSON cannot represent', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow();
    expect(() => canonicalJson([10n])).toThrow(/BigInt/);
    expect(() => canonicalJson(() => 1)).toThrow(/cannot be represented/);
  });
});
