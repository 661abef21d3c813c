// Canonical JSON (RFC 8785, JCS) of an audit payload: the form the hash chain covers.
//
// Plain data (null, booleans, finite numbers, strings, arrays, plain objects) is written here
// with loops; that is the whole of what the host appends, and it is ~5x faster than the
// `canonicalize` package, whose cost dominated audit append (see bench/audit-append.ts).
// Anything else (an object with toJSON, such as a Date) is handed to `canonicalize` itself.
// test/main/core/canonical-json.test.ts checks that both give the same text for any JSON value.
//
// RFC 8785 in short: object keys sorted by UTF-16 code units (Array#sort's default order),
// no whitespace, strings and numbers exactly as ECMAScript's JSON.stringify writes them.
import canonicalize from 'canonicalize';

export function canonicalJson(value: unknown): string {
  const s = write(value === undefined ? null : value);
  if (s === undefined) throw new Error('value cannot be represented as JSON');
  return s;
}

/** What JSON.stringify escapes in a string: quote, backslash, controls, and (lone) surrogates. */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's job
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function writeString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

/** UTF-16 code unit order, as RFC 8785 asks; the same order as Array#sort's default, faster. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** undefined means "no value here" (undefined, a function, a symbol), as in JSON.stringify. */
function write(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return writeString(v);
    case 'number':
      if (!Number.isFinite(v)) throw new Error(`${v} cannot be represented in canonical JSON`);
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      throw new Error('a BigInt cannot be represented in canonical JSON');
    case 'object':
      return v === null ? 'null' : writeObject(v);
    default:
      return undefined;
  }
}

function writeObject(v: object): string {
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    const s = canonicalize(v);
    if (s === undefined) throw new Error('value cannot be represented as JSON');
    return s;
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ',';
      out += write(v[i]) ?? 'null';
    }
    return out + ']';
  }
  const keys = Object.keys(v);
  if (keys.length > 1) keys.sort(byCodeUnits);
  let out = '{';
  for (const k of keys) {
    const s = write((v as Record<string, unknown>)[k]);
    if (s === undefined) continue;
    if (out.length > 1) out += ',';
    out += writeString(k) + ':' + s;
  }
  return out + '}';
}
