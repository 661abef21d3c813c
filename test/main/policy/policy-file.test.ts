// policy.yaml: problems with file/line/column, examples checked at load, and the store that
// watches the real file and never empties or weakens the policy when the file breaks.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { PolicyStore, type PolicyState } from '../../../main/policy/rules/store.js';
import type { Extraction, ToolCall } from '../../../main/policy/types.js';
import { tempDir } from '../../support/temp.js';
import { call, HOME, load, x } from '../../fixtures/policy/helpers.js';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/policy/${name}`, import.meta.url), 'utf8');

describe('loading policy.yaml', () => {
  it('loads the documented example file without problems', () => {
    const r = load(fixture('example-policy.yaml'));
    expect(r.problems).toEqual([]);
    expect(r.broken).toBe(false);
    expect(r.rules.map((rule) => rule.name)).toEqual(['protect-prod-config', 'ask-before-deploy', 'allow-work-tree', 'no-paste-sites', 'log-tmp-writes']);
    expect(r.rules[0]).toMatchObject({ source: 'user', locked: false, priority: 10, severity: 'high', decision: 'deny', origin: 'policy.yaml:6' });
    expect(r.examples.every((e) => e.ok)).toBe(true);
    expect(r.examples.length).toBeGreaterThan(5);
  });

  it('reports unknown fields, bad types, bad globs and bad CIDRs with line and column', () => {
    const r = load(fixture('bad-fields.yaml'));
    const got = r.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    expect(got).toEqual([
      '3:5 rule "typo": unknown field "paths" (did you mean block_paths?)',
      '6:15 rule "bad-types": field "priority": Invalid input: expected int, received number',
      '7:15 rule "bad-types": field "decision": Invalid option: expected one of "deny"|"ask"|"allow"|"log"',
      '8:14 rule "bad-types": field "enabled": Invalid input: expected boolean, received string',
      '11:29 rule "bad-glob": field "block_paths[1]": "src/[abc" is not a valid glob: Missing closing: "]" - use "\\\\]" to match literal characters',
      '14:33 rule "bad-cidr": field "block_hosts[1]": "10.0.0.0/33" is not a valid CIDR (like 10.0.0.0/8 or fc00::/7)',
      '16:5 rule 5: missing required field "name"',
      '18:14 rule "no-actions": field "actions": needs at least one action',
    ]);
    expect(r.rejected.map((j) => j.name)).toEqual(['typo', 'bad-types', 'bad-glob', 'bad-cidr', null, 'no-actions']);
    // The good rule in the same file still loads, and the file is not "broken".
    expect(r.rules.map((rule) => rule.name)).toEqual(['fine']);
    expect(r.broken).toBe(false);
  });

  it('YAML syntax errors and a wrong top level make the file broken, with positions', () => {
    const syntax = load('rules:\n  - name: a\n    actions: [write\n');
    expect(syntax.broken).toBe(true);
    expect(syntax.problems[0]).toMatchObject({ file: 'policy.yaml', line: 4, column: 1 }); // where the parser gave up
    expect(syntax.problems[0]?.message).toMatch(/^YAML: /);
    const typoTop = load('rule:\n  - { name: a, actions: [read] }\n');
    expect(typoTop).toMatchObject({ broken: true, problems: [{ line: 1, column: 1, message: expect.stringContaining('unknown top-level field "rule"') }] });
    expect(load('rules: 5\n')).toMatchObject({ broken: true, problems: [{ line: 1, column: 8 }] });
    expect(load('- a\n- b\n').broken).toBe(true);
    expect(load('version: 2\nrules: []\n')).toMatchObject({ broken: true, problems: [{ line: 1, column: 10 }] });
    expect(load('rules:\n  - { name: a, actions: [read] }\n  - { name: a, actions: [write] }\n').problems[0]?.message).toContain('already defined at line 2');
    expect(load('rules:\n  - { name: e, actions: [read], block_except: ["/tmp/**"] }\n').problems[0]?.message).toContain('block_except needs block_paths');
    // An empty file is an empty policy, not a broken one.
    expect(load('')).toMatchObject({ broken: false, problems: [], rules: [] });
  });

  it('a rule whose example fails is rejected, the failing example named; the rest loads', () => {
    const r = load(fixture('failing-example.yaml'));
    expect(r.rules.map((rule) => rule.name)).toEqual(['good']);
    expect(r.rejected.map((j) => j.name)).toEqual(['too-narrow', 'too-wide']);
    expect(r.problems).toEqual([
      expect.objectContaining({ line: 9, column: 11, rule: 'too-narrow', example: '"write ~/work/prod/sub/app.yaml"', message: expect.stringContaining('example "write ~/work/prod/sub/app.yaml" should match but does not; the rule is rejected') }),
      expect.objectContaining({ line: 17, column: 11, rule: 'too-wide', example: '{ op: read, path: ~/work/prod/a }', message: expect.stringContaining('should not match but does (path /home/alice/work/prod/a matches ~/work/**)') }),
    ]);
    const failed = r.examples.filter((e) => !e.ok).map((e) => `${e.rule}: ${e.example}`);
    expect(failed).toEqual(['too-narrow: "write ~/work/prod/sub/app.yaml"', 'too-wide: { op: read, path: ~/work/prod/a }']);
  });

  it('examples with a command go through the injected extractor; without one they are problems', () => {
    const yaml = 'rules:\n  - name: no-rm-tmp\n    actions: [delete]\n    block_paths: ["/tmp/keep/**"]\n    examples:\n      match: [{ command: "rm -rf /tmp/keep/a" }]\n      not_match: [{ command: "rm -rf /tmp/other" }]\n';
    const seen: ToolCall[] = [];
    const extract = (c: ToolCall): Extraction => {
      seen.push(c);
      const target = String((c.arguments as { command: string }).command).split(' ').pop()!;
      return x('delete', [target]);
    };
    const withExtractor = load(yaml, { extract });
    expect(withExtractor.problems).toEqual([]);
    expect(seen.map((c) => [c.tool, c.arguments])).toEqual([
      ['Bash', { command: 'rm -rf /tmp/keep/a' }],
      ['Bash', { command: 'rm -rf /tmp/other' }],
    ]);
    const without = load(yaml);
    expect(without.rules).toEqual([]);
    expect(without.problems[0]).toMatchObject({ line: 6, column: 15, message: expect.stringContaining('need the extractor') });
  });

  it('malformed examples are problems with positions', () => {
    const r = load('rules:\n  - name: r\n    actions: [write]\n    examples:\n      match: ["scribble ~/x", { op: write, path: relative/x }, { op: write, path: ~/x, colour: red }]\n');
    expect(r.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '5:15 rule "r": example "scribble ~/x": starts with an operation (read, write, delete, copy, move, execute, network), not "scribble"',
      '5:31 rule "r": example { op: write, path: relative/x }: path "relative/x" must start with / or ~',
      '5:64 rule "r": example { op: write, path: ~/x, colour: red }: unknown field "colour" (use op, path, host, command, tool, arguments, evasive)',
    ]);
  });
});

describe('PolicyStore with a real file and the real watcher', () => {
  const good = 'rules:\n  - { name: deny-prod, actions: [write], block_paths: ["~/prod/**"], decision: deny }\n';
  const prodWrite = x('write', [`${HOME}/prod/app.yaml`]);

  async function started(text: string | null) {
    const dir = tempDir('gatehouse-policy-');
    const file = join(dir, 'policy.yaml');
    if (text !== null) writeFileSync(file, text);
    const store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false });
    await store.start();
    onTestFinished(() => store.close());
    const changes: PolicyState[] = [];
    store.onChange((s) => changes.push(s));
    const nextChange = () => new Promise<PolicyState>((res) => {
      const off = store.onChange((s) => {
        off();
        res(s);
      });
    });
    return { dir, file, store, changes, nextChange };
  }

  it('reloads on change, and a broken file keeps the last good policy with the error exposed', async () => {
    const t = await started(good);
    expect(t.store.error).toBeNull();
    expect(t.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });

    let next = t.nextChange();
    writeFileSync(t.file, 'rules:\n  - { name: deny-prod, actions: [write], block_paths: ["~/prod/**"]\n');
    let state = await next;
    expect(state.error).toMatch(/has errors, so the last good policy stays active: line 3/);
    expect(state.problems[0]).toMatchObject({ file: t.file, line: 3 });
    // Still enforced.
    expect(t.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });
    expect(t.store.rules.byName.has('deny-prod')).toBe(true);

    next = t.nextChange();
    writeFileSync(t.file, `${good}  - { name: ask-stage, actions: [write], block_paths: ["~/stage/**"], decision: ask }\n`);
    state = await next;
    expect(state.error).toBeNull();
    expect(t.store.evaluate(x('write', [`${HOME}/stage/a`]), call()).decision).toBe('ask');
  });

  it('two saves in quick succession end with the last one active', async () => {
    const t = await started(good);
    const settled = new Promise<PolicyState>((res) => t.store.onChange((s) => s.rules.byName.has('quick-second') && res(s)));
    writeFileSync(t.file, 'rules:\n  - { name: quick-first, actions: [write] }\n');
    writeFileSync(t.file, 'rules:\n  - { name: quick-second, actions: [write], block_paths: ["~/q/**"] }\n');
    const state = await settled;
    expect(state.error).toBeNull();
    expect(state.rules.byName.has('quick-first')).toBe(false);
    expect(t.store.evaluate(x('write', [`${HOME}/q/a`]), call()).decider).toMatchObject({ rule: 'quick-second' });
  });

  it('a rule rejected by an edit keeps its last good version', async () => {
    const t = await started(good);
    const next = t.nextChange();
    writeFileSync(t.file, 'rules:\n  - { name: deny-prod, actions: [write], block_paths: ["~/prod/[oops"], decision: deny }\n');
    const state = await next;
    expect(state.error).toMatch(/1 rule was rejected \(deny-prod kept its last good version\)/);
    expect(t.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });
  });

  it('a removed file keeps the policy and says so; a missing file at start is an empty policy', async () => {
    const t = await started(good);
    const next = t.nextChange();
    rmSync(t.file);
    const state = await next;
    expect(state.error).toMatch(/was removed; the last loaded policy stays active/);
    expect(t.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });

    const empty = await started(null);
    expect(empty.store.error).toBeNull();
    expect(empty.store.rules.rules.every((r) => r.rule.source === 'builtin')).toBe(true);
    const appeared = empty.nextChange();
    writeFileSync(empty.file, good);
    await appeared;
    expect(empty.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });
  });

  it('a writer caught between truncating and writing: the empty read drops no rule, and the complete text loads over the last good policy', async () => {
    // The fault: a writer (an editor, a deploy, a test) truncates policy.yaml and is held before it
    // writes, so the watcher reads an empty file. Only the clock is fake; the file and the kernel's
    // watch events are real.
    const t = await started(good);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    onTestFinished(() => timers.mockRestore());
    const turn = () => new Promise<void>((res) => setImmediate(res));
    const write = async (text: string) => {
      const seen = timers.mock.calls.length;
      writeFileSync(t.file, text);
      while (timers.mock.calls.length === seen) await turn(); // the watcher saw it
    };
    const advance = async (ms: number) => {
      for (let left = ms; left > 0; left -= 25) {
        vi.advanceTimersByTime(Math.min(25, left));
        await turn();
      }
    };

    await write('');
    await advance(900); // the writer is held for most of a second
    expect(t.changes).toEqual([]);
    expect(t.store.evaluate(prodWrite, call()).decider).toMatchObject({ rule: 'deny-prod' });

    await write(`${good}  - { name: ask-stage, actions: [write], block_paths: ["~/stage/**"], decision: ask }\n`);
    let waited = 0;
    while (t.changes.length === 0 && waited < 5000) {
      await advance(25);
      waited += 25;
    }
    expect(t.changes.length).toBeGreaterThan(0);
    expect(t.changes.every((s) => s.rules.byName.has('deny-prod'))).toBe(true);
    expect(t.store.rules.byName.has('ask-stage')).toBe(true);
    expect(t.store.error).toBeNull();

    // A file that stays empty is what the operator meant: after a second the user rules are gone.
    const before = t.changes.length;
    await advance(1000); // the verification read after the load
    await write('');
    await advance(500);
    expect(t.changes.length).toBe(before);
    expect(t.store.rules.byName.has('deny-prod')).toBe(true);
    await advance(1000);
    expect(t.changes.length).toBe(before + 1);
    expect(t.store.rules.rules.every((r) => r.rule.source === 'builtin')).toBe(true);
  });

  it('counts hits and hands out frozen snapshots, reused until the policy or the counts change', async () => {
    let now = 0;
    const dir = tempDir('gatehouse-policy-');
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, good);
    const store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false, watch: false, now: () => now });
    await store.start();
    const a = store.snapshots();
    expect(store.snapshots()).toBe(a);
    store.evaluate(prodWrite, call());
    store.evaluate(prodWrite, call());
    expect(store.hitCount('deny-prod')).toBe(2);
    expect(store.snapshots()).toBe(a); // within the refresh interval
    now = 5000;
    const b = store.snapshots();
    expect(b).not.toBe(a);
    expect(b.find((s) => s.name === 'deny-prod')?.hit_count).toBe(2);
    expect(Object.isFrozen(b)).toBe(true);
    await store.close();
  });
});
