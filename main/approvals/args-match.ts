// What an approval or a grant is bound to: the exact arguments, as the SHA-256 of their canonical
// JSON (RFC 8785, the same form the audit chain covers), or an operator's glob over that JSON.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import { OperationError } from '../core/operation-error.js';

export function canonicalArgs(args: unknown): string {
  return canonicalJson(args ?? null);
}

export function hashCanonical(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex');
}

/** SHA-256 (hex) of the canonical JSON of a call's arguments; `null` arguments hash as `null`. */
export function argsHash(args: unknown): string {
  return hashCanonical(canonicalArgs(args));
}

export const MAX_PATTERN_LENGTH = 4096;

/**
 * A glob over the canonical JSON of the arguments, e.g. `{"path":"/home/u/work/*"}`.
 * Only `*` (any run of characters) and `?` (one character) are special, and neither matches an
 * unescaped `"`: a wildcard stays inside one JSON string or value, so `{"command":"ls *"}` can
 * never match arguments with an extra key or a second string. Not picomatch: JSON's braces,
 * brackets and slashes are glob syntax there. Security: letting `*` cross a `"` would let a
 * session grant for one argument allow calls that add arbitrary other arguments.
 */
export function compileArgumentPattern(pattern: string): (canonical: string) => boolean {
  if (typeof pattern !== 'string' || pattern.trim() === '') {
    throw new OperationError('invalid', 'The argument pattern is empty; leave it out to grant only these exact arguments.');
  }
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new OperationError('invalid', `The argument pattern is ${pattern.length} characters long; at most ${MAX_PATTERN_LENGTH} are allowed.`);
  }
  let src = '^';
  for (const ch of pattern) {
    if (ch === '*') src += '(?:[^"\\\\]|\\\\.)*';
    else if (ch === '?') src += '(?:[^"\\\\]|\\\\.)';
    else src += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  const re = new RegExp(src + '$', 'su');
  return (canonical) => re.test(canonical);
}
