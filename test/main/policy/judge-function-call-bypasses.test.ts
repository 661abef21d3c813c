// Review of 2aeccf7 (a function's body runs where it is called): ways to call a function, or to
// change which body a call runs, that the judge does not follow. Each reads ~/.ssh/id_rsa in bash
// 5.2 (`HOME=… bash -c '<case>'` prints the key) and is allowed at full autonomy at ac2dd0e.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { buildRuleSet, evaluatePolicy, type RuleSet } from '../../../main/policy/rules/engine.js';
import { Autonomy, decideCall } from '../../../main/policy/autonomy.js';
import type { ToolCall } from '../../../main/policy/types.js';

let root: string;
let home: string;
let proj: string;
let rules: RuleSet;

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function judge(command: string): string {
  const c: ToolCall = { id: 'c1', agent: 'review', session: 's1', tool: 'Bash', arguments: { command }, cwd: proj, source: 'hook', receivedAt: 0 };
  const x = extract(c, { home });
  const policy = evaluatePolicy(x, c, { rules });
  return decideCall({ call: c, extraction: x, policy, autonomy: new Autonomy({ level: 'full' }) }).decision;
}

beforeAll(async () => {
  await initExtractor();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gh-review6-')));
  home = join(root, 'home');
  proj = join(home, 'proj');
  put(join(home, '.ssh', 'id_rsa'), 'dummy key');
  put(join(proj, 'a.txt'), 'a\n');
  rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), cliFiles: [join(root, 'cli.js')], caseInsensitive: false }), []);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a function call whose body the judge does not follow with the variables of the call', () => {
  it('control: the plain call is followed (denied)', () => {
    expect(judge('x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; f')).not.toBe('allow');
  });
  it.each([
    // The judge's function table is one Map shared by every copy of the shell (subshellOf copies
    // vars, not functions) and kept when a group that may not run ends: a definition that never
    // reaches the shell replaces the body the later call is judged by.
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; (f() { :; }); f'],
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; true | f() { :; }; f'],
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; if false; then f() { :; }; fi; f'],
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; false && f() { :; }; f'],
    // Called by the shell later: trap runs it at exit / on the signal, with x as it is then.
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; trap f EXIT'],
    // An exported function is a function of the child bash too.
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; export -f f; export x; bash -c f'],
    // bash -c does not expand aliases (expand_aliases is off, and an alias defined on the line
    // being run is not used on that line anyway): f is the function, not `true`.
    ['x=/tmp; f() { cat $x/id_rsa; }; alias f=true; x=~/.ssh; f'],
    // A trap's own text runs at exit, with the values of that moment.
    ["x=/tmp; trap 'cat $x/id_rsa' EXIT; x=~/.ssh"],
  ])('%s is not allowed', (command) => {
    expect(judge(command)).not.toBe('allow');
  });
});
