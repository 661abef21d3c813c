// `under` decides which folders a sandbox binds whole and which are too wide (a home, a secrets
// folder): its fast path for absolute paths in normal form must answer as path.relative does.
import { isAbsolute, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { under } from '../../../main/runner/sandbox.js';

const byRelative = (child: string, parent: string) => {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

describe('under', () => {
  it('answers as path.relative does, for paths in normal form or not, names like `..a` included', () => {
    const segs = ['a', 'b', '..', '.', '', '..a', 'a..', '.a', 'ab', 'a b', 'é'];
    let seed = 1;
    const next = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    const path = () => {
      let p = next(6) === 0 ? '' : '/';
      const n = next(5);
      for (let i = 0; i < n; i++) p += (i ? '/' : '') + segs[next(segs.length)];
      if (next(8) === 0) p += '/';
      return p || '/';
    };
    const differ: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const child = path();
      const parent = path();
      if (under(child, parent) !== byRelative(child, parent)) differ.push(`${child} in ${parent}`);
    }
    expect(differ).toEqual([]);
  });

  it('a folder is under itself and the root; a sibling sharing a prefix is not', () => {
    expect(under('/home/u', '/home/u')).toBe(true);
    expect(under('/home/u/x', '/')).toBe(true);
    expect(under('/home/user', '/home/u')).toBe(false);
    expect(under('/home/u/..data', '/home/u')).toBe(false);
    expect(under('/home/u/a/../../v', '/home/u')).toBe(false);
  });
});
