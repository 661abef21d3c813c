// Shortcuts in rule matching must answer exactly as the plain match, or a rule would match a
// different set of calls. A rule's path globs are tested in one alternation of picomatch's regexes
// (rules/paths.ts, anyOf), not by picomatch's own matcher for a list: checked over generated globs
// and paths, with the variants the rule compiles (home, real bases, tree roots), case-sensitive
// and not. And a rule set answers "no rule's paths reach this path" once per path (engine.ts,
// untouched): checked against matching every rule, over generated extractions.
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { compilePathPattern, globProblem, globVariants } from '../../../main/policy/rules/paths.js';
import { buildRuleSet, compileBuiltinRules, parsePolicyText } from '../../../main/policy/rules/index.js';
import { matchRule, opMask } from '../../../main/policy/rules/compile.js';
import { OPERATIONS } from '../../../main/policy/types.js';

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

describe('the rule set\'s "untouched" shortcut answers as matching every rule', () => {
  it('for generated extractions over the built-in rules and a user policy, the same matches with and without it', () => {
    const ctx = { home: HOME, caseInsensitive: false, resolveSymlinks: false };
    const user = parsePolicyText(
      'rules:\n  - { name: allow-work, actions: [read, write], block_paths: ["~/work/**"], block_except: ["~/work/**/*.key"], decision: allow }\n  - { name: ask-deploy, actions: [execute, delete], block_paths: ["~/work/deploy/**", "/proc/*/environ"], decision: ask }\n  - { name: log-tmp, actions: [write], block_paths: ["/tmp/**"], decision: log }\n',
      'policy.yaml',
      ctx,
    );
    expect(user.problems).toEqual([]);
    const set = buildRuleSet(compileBuiltinRules({ ...ctx, gatehouseHome: `${HOME}/.config/gatehouse` }), user.compiled);
    const place = fc.constantFrom(HOME, `${HOME}/work`, `${HOME}/work/deploy`, `${HOME}/.ssh`, `${HOME}/.config`, `${HOME}/.config/gatehouse`, '/tmp', '/proc/1', '/etc', '/');
    const extraction = fc.record({
      operations: fc.subarray([...OPERATIONS], { minLength: 1 }),
      paths: fc.array(fc.tuple(place, fc.array(segment, { maxLength: 3 })).map(([b, s]) => (s.length ? (b === '/' ? '' : b) + '/' + s.join('/') : b)), { maxLength: 4 }),
      recursive: fc.boolean(),
    });
    fc.assert(
      fc.property(extraction, ({ operations, paths, recursive }) => {
        const x = { operations, paths, hosts: [], command: '', content: '', evasive: false, evasiveReasons: [], ...(recursive ? { recursive: paths } : {}) };
        const mask = opMask(x.operations);
        const plain = set.rules.map((r) => matchRule(r, x, mask, { call: null }));
        const fast = set.rules.map((r) => matchRule(r, x, mask, { call: null, untouched: set.untouched }));
        expect(fast).toEqual(plain);
      }),
      { numRuns: 500 },
    );
  });
});
