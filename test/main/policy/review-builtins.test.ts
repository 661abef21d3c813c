// Hostile-review findings against the shell judge's builtins, shell options and file options:
// commands the locked rules must deny at full autonomy (credentials, shell start-up files,
// persistence, Gatehouse's own CLI), judged by the real extractor over a real temp home.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { buildRuleSet, evaluatePolicy, type RuleSet } from '../../../main/policy/rules/engine.js';
import { Autonomy, decideCall, type FinalDecision } from '../../../main/policy/autonomy.js';
import type { Extraction, ToolCall } from '../../../main/policy/types.js';

let root: string;
let home: string;
let proj: string;
let cli: string;
let rules: RuleSet;

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function judge(command: string, level = 'full'): FinalDecision & { x: Extraction } {
  const c: ToolCall = { id: 'c1', agent: 'review', session: 's1', tool: 'Bash', arguments: { command }, cwd: proj, source: 'hook', receivedAt: 0 };
  const x = extract(c, { home });
  const policy = evaluatePolicy(x, c, { rules });
  return { ...decideCall({ call: c, extraction: x, policy, autonomy: new Autonomy({ level }) }), x };
}

beforeAll(async () => {
  await initExtractor();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gh-review-builtins-')));
  home = join(root, 'home');
  proj = join(home, 'proj');
  cli = join(root, 'install', 'bin', 'gatehouse.js');
  put(cli, '// cli\n');
  put(join(home, '.ssh', 'id_rsa'), 'dummy key');
  put(join(home, '.aws', 'credentials'), 'dummy');
  put(join(home, '.bashrc'), 'dummy');
  put(join(proj, 'notes.txt'), 'b\na\n');
  put(join(proj, 'scripts', 'build.sh'), '#!/bin/sh\n');
  rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), cliFiles: [cli], caseInsensitive: false }), []);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fill = (cmd: string) => cmd.replaceAll('{CLI}', cli).replaceAll('{PROJ}', proj);

describe('review: glob options, builtins that assign variables, file options, hashed commands', () => {
  it.each([
    // A. glob options
    ['shopt -s dotglob; cat ~/*/id_rsa', 'builtin.credentials.ssh'],
    ['GLOBIGNORE=x; cat ~/*/id_rsa', 'builtin.credentials.ssh'],
    ['shopt -s nocaseglob; cat ~/.SS[H]/ID_RS[A]', 'builtin.credentials.ssh'],
    ['shopt -s dotglob globstar; cat ~/**/credentials', 'builtin.credentials.cloud'],
    ["bash -O dotglob -c 'cat ~/*/id_rsa'", 'builtin.credentials.ssh'],
    ['(shopt -s dotglob); cat ~/*/id_rsa', 'builtin.credentials.ssh'],
    // B. builtins that assign
    ['x=/tmp; printf -v x %s ~/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; read x <<< "$HOME/.ssh"; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; declare x=$HOME/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; export x=$HOME/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; typeset x=~/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; readonly x=~/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; builtin declare x=~/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/tmp; x[0]=~/.ssh; cat $x/id_rsa', 'builtin.credentials.ssh'],
    ['x=/../tmp; unset x; cat ~/.ssh$x/id_rsa', 'builtin.credentials.ssh'],
    ["sh -c 'shift; cat $1/id_rsa' _ /tmp ~/.ssh", 'builtin.credentials.ssh'],
    ["sh -c 'set -- ~/.ssh; cat $1/id_rsa' _ /tmp", 'builtin.credentials.ssh'],
    // C. file arguments
    ['date -f ~/.ssh/id_rsa', 'builtin.credentials.ssh'],
    ['env --chdir=$HOME/.ssh cat id_rsa', 'builtin.credentials.ssh'],
    ['ps eww', 'builtin.proc-secrets'],
    // D. output files of options
    ['less -o ~/.bashrc notes.txt', 'builtin.shell-startup'],
    ['less -O~/.bashrc notes.txt', 'builtin.shell-startup'],
    ['less --log-file=$HOME/.bashrc notes.txt', 'builtin.shell-startup'],
    ['strace -o ~/.bashrc true', 'builtin.shell-startup'],
    ['/usr/bin/time -o ~/.bashrc true', 'builtin.shell-startup'],
    ['/usr/bin/time -a --output=$HOME/.bashrc true', 'builtin.shell-startup'],
    ['valgrind --log-file=$HOME/.bashrc true', 'builtin.shell-startup'],
    ['ln -t ~/.local/bin {PROJ}/scripts/build.sh', 'builtin.persistence'],
    ['ln --target-directory=$HOME/.local/bin {PROJ}/scripts/build.sh', 'builtin.persistence'],
    // E. Gatehouse's CLI by hashing
    ['BASH_CMDS[ls]={CLI}; ls url', 'builtin.gatehouse-cli'],
    ['hash -p{CLI} ls; ls url', 'builtin.gatehouse-cli'],
    ['hash -dp {CLI} ls; ls url', 'builtin.gatehouse-cli'],
    ['hash -p {CLI} ls; ls url', 'builtin.gatehouse-cli'],
  ])('FINDING: %s is denied at full autonomy (%s)', (cmd, rule) => {
    expect(judge(fill(cmd))).toMatchObject({ decision: 'deny', decider: { rule } });
    expect(judge(fill(cmd), 'supervised')).toMatchObject({ decision: 'deny' });
  });

  it.each([
    'x=/tmp; mapfile -t x; cat $x/id_rsa',
    // Outside a function bash refuses `local` (x stays /tmp), inside one it assigns: either.
    'x=/tmp; local x=$HOME/.ssh; cat $x/id_rsa',
    'x=/tmp; readarray x; cat $x/id_rsa',
    'x=/tmp; getopts opts x; cat $x/id_rsa',
    'x=/tmp; declare -n x=HOME; cat $x/.ssh/id_rsa',
    'x=/tmp; declare -n r=x; r=~/.ssh; cat $x/id_rsa',
    'x=/tmp; declare -i x; x=~/.ssh; cat $x/id_rsa',
    'x=/tmp; for x in ~/.ssh; do cat $x/id_rsa; done',
    'arr=(~/.ssh); cat $arr/id_rsa',
    'cat $HOME/.ssh$nothing/id_rsa',
    "mapfile -C 'cat ~/.ssh/id_rsa' -c 1 x < notes.txt",
    "strace -o '|sh' true",
  ])('%s: a value the judge cannot know is unsure, not the old one', (cmd) => {
    expect(['ask', 'deny']).toContain(judge(cmd).decision);
    expect(judge(cmd).x.evasive || judge(cmd).decision === 'deny').toBe(true);
  });

  it.each([
    'ls', 'cat notes.txt', 'declare -a arr=(a b)', 'read -r line < notes.txt; echo "$line"',
    `printf -v now '%s' "$(date)"; echo "$now"`, 'less notes.txt', 'time make', 'ln -s a b', 'ps aux', 'ps -ef',
    'shopt -s extglob', 'set -o pipefail', 'set -euo pipefail; ls', 'export PATH="$PATH:/usr/local/bin"; ls',
    `x=notes.txt; printf -v y '%s' "$x"; cat "$y"`, 'shopt -s globstar; ls **/*.sh', 'read a b <<< "notes.txt x"; cat $a',
    'date -u +%s', 'date -r notes.txt', 'unset CDPATH; ls', 'local_dir=scripts; declare -r dir=$local_dir; ls $dir',
  ])('%s stays allowed at full autonomy', (cmd) => {
    expect(judge(cmd).decision).toBe('allow');
  });
});
