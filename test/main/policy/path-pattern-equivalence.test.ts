// A rule's path globs are tested in one alternation of picomatch's regexes (rules/paths.ts,
// anyOf), not by picomatch's own matcher for a list. They must answer alike for every path, or a
// rule would match a different set of calls: checked here over generated globs and paths, with
// the variants the rule compiles (home, real bases, tree roots), case-sensitive and not.
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { compilePathPattern, globProblem, globVariants } from '../../../main/policy/rules/paths.js';

const HOME = '/home/ann';
const segment = fc.constantFrom('.ssh', 'id_rsa', '*', '**', '*.pem', '.env', 'a(b', '[x]', '{a,b}', 'x?', 'work', '.config', 'vivaldi*', '@(a|b)', 'proc', '1', 'environ', '.git', 'hooks', 'a\\*b', '!x', 'C');
const glob = fc.tuple(fc.constantFrom('~/', '/', '', '**/', '/proc/'), fc.array(segment, { minLength: 1, maxLength: 4 })).map(([lead, segs]) => lead + segs.join('/'));
const path = fc.tuple(fc.constantFrom(HOME, '/', '/proc', '/tmp', `${HOME}/work`), fc.array(segment, { minLength: 0, maxLength: 5 }), fc.constantFrom('', '/')).map(([base, segs, tail]) => (base === '/' ? '/' : base + '/') + segs.join('/') + tail);

describe('rule path globs: the combined test answers as picomatch does', () => {
  it('for generated globs and paths, in both cases', () => {
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 4 }), fc.array(path, { minLength: 1, maxLength: 8 }), fc.boolean(), (globs, paths, caseInsensitive) => {
        const valid = globs.filter((g) => globProblem(g) === null);
        if (valid.length === 0) return;
        const ctx = { home: HOME, caseInsensitive, resolveSymlinks: false };
        const pattern = compilePathPattern(valid, ctx);
        const reference = valid.map((g) => ({ glob: g, test: picomatch(globVariants(g, ctx), { dot: true, nocase: caseInsensitive, strictBrackets: true }) }));
        for (const p of paths) {
          const trimmed = p.length > 1 && p.endsWith('/') ? p.replace(/\/+$/, '') || '/' : p;
          const want = reference.find((r) => r.test(trimmed))?.glob ?? null;
          expect(pattern.match(p), `${p} against ${JSON.stringify(valid)}`).toBe(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('for every built-in rule, on paths built from its own globs', () => {
    const ctx = { home: HOME, caseInsensitive: false, resolveSymlinks: false };
    const rules = builtinRules({ ...ctx, gatehouseHome: `${HOME}/.config/gatehouse` });
    expect(rules.filter((r) => r.block_paths.length > 0).length).toBeGreaterThan(5);
    for (const rule of rules) {
      if (rule.block_paths.length === 0) continue;
      const pattern = compilePathPattern(rule.block_paths, ctx);
      const reference = picomatch(rule.block_paths.flatMap((g) => globVariants(g, ctx)), { dot: true, strictBrackets: true });
      const samples = rule.block_paths.flatMap((g) => {
        const lit = g.replace(/^~/, HOME).replace(/\*\*/g, 'x/y').replace(/\*/g, 'z').replace(/[?]/g, 'q');
        return [lit, `${lit}/inner`, `${lit}.bak`, `/tmp/${lit.split('/').pop()}`, '/', `${HOME}/work/a.ts`];
      });
      for (const p of samples) expect(pattern.match(p) !== null, `${rule.name}: ${p}`).toBe(reference(p));
    }
  });
});
