// A review of the judge's control flow and network additions: commands judged by the real
// extractor and the locked rules over a temp home, at full autonomy. Each case was allowed before
// its fix (bash's behaviour for each bypass checked with bash 5.2, in the notes).
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

function judge(command: string): { decision: string; paths: string[]; hosts: string[] } {
  const c: ToolCall = { id: 'c1', agent: 'review', session: 's1', tool: 'Bash', arguments: { command }, cwd: proj, source: 'hook', receivedAt: 0 };
  const x = extract(c, { home });
  const policy = evaluatePolicy(x, c, { rules });
  return { decision: decideCall({ call: c, extraction: x, policy, autonomy: new Autonomy({ level: 'full' }) }).decision, paths: x.paths, hosts: x.hosts };
}

beforeAll(async () => {
  await initExtractor();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gh-review5-')));
  home = join(root, 'home');
  proj = join(home, 'proj');
  put(join(home, '.ssh', 'id_rsa'), 'dummy key');
  put(join(home, '.bashrc'), 'dummy');
  put(join(proj, 'notes.txt'), 'b\na\n');
  mkdirSync(join(proj, 'x'), { recursive: true });
  rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), cliFiles: [join(root, 'cli.js')], caseInsensitive: false }), []);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('regressions of today: allowed now, denied at 4848b52', () => {
  it.each([
    // 466c922 runs every stage of a multi-stage pipeline in a copy of the shell; with `shopt -s
    // lastpipe` (bash -c has no job control) the last stage runs in the shell itself.
    // bash: `shopt -s lastpipe; x=/tmp; true | x=/S; echo $x` prints /S.
    ['shopt -s lastpipe; x=/tmp; true | x=~/.ssh; cat $x/id_rsa'],
    ['shopt -s lastpipe; x=/tmp; echo | { x=~/.ssh; }; cat $x/id_rsa'],
    ['shopt -s lastpipe; cd /tmp; true | cd ~; cat .ssh/id_rsa'],
    // 466c922 makes a bare `local x` empty. Outside a function bash refuses it ("local: can only
    // be used in a function") and x keeps its value; inside one, `local x` on a variable already
    // local to it keeps the value too (`f() { local x=/a; local x; echo $x; }; f` prints /a).
    ['x=~/.ssh; local x; cat $x/id_rsa'],
    ['f() { local x=~/.ssh; local x; cat $x/id_rsa; }; f'],
    // 0f8edda binds `local NAME=VALUE`; outside a function bash refuses it and x keeps ~/.ssh.
    ['x=~/.ssh; local x=/tmp; cat $x/id_rsa'],
  ])('%s is not allowed', (command) => {
    expect(judge(command).decision).not.toBe('allow');
  });
});

describe('regressions of today: a host 466c922 makes unknown is dropped by the network clients (allowed now, denied at 4848b52)', () => {
  // 466c922 turns x into "unknown" after `true && x=…`; the handlers of nc, ncat, telnet, ssh and
  // scp skip an unknown host word without making the call unsure, so the call reaches a host no
  // rule sees (hosts: [], evasive: false). `nc $(cat host) 80` was already allowed this way.
  it.each([
    ['x=1.1.1.1; true && x=169.254.169.254; nc $x 80'],
    ['x=1.1.1.1; true && x=169.254.169.254; ncat $x 80'],
    ['x=1.1.1.1; true && x=169.254.169.254; telnet $x 80'],
    ['x=1.1.1.1; true && x=169.254.169.254; ssh root@$x'],
    ['x=1.1.1.1; true && x=169.254.169.254; scp a.txt $x:/tmp'],
    ['x=1.1.1.1; true && x=169.254.169.254; git ls-remote $x:repo'],
    ['nc $(cat host) 80'],
  ])('%s is not allowed', (command) => {
    expect(judge(command).decision).not.toBe('allow');
  });
});

describe('control flow 466c922 set out to follow, still judged in source order', () => {
  it.each([
    // The else branch runs only when the then branch did not: x is still ~/.ssh there.
    ['x=~/.ssh; if false; then x=/tmp; else cat $x/id_rsa; fi'],
    ['x=~/.ssh; if false; then x=/tmp; elif true; then cat $x/id_rsa; fi'],
    // A loop's second pass sees what its first pass assigned.
    ['x=/tmp; for i in 1 2; do cat $x/id_rsa; x=~/.ssh; done'],
    ['x=/tmp; while read l; do cat $x/id_rsa; x=~/.ssh; done < notes.txt'],
    ['x=/tmp; until false; do cat $x/id_rsa; x=~/.ssh; done'],
    // A function's body runs when it is called, with the variables and folder of that moment.
    ['x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; f'],
    ['f() { cat .ssh/id_rsa; }; cd ~; f'],
    // popd returns to the folder pushd left; pushd -n does not change folder; `time x=…` is an
    // assignment in the shell (time is a keyword).
    ['cd ~; pushd /tmp; popd; cat .ssh/id_rsa'],
    ['cd ~; pushd -n /tmp; cat .ssh/id_rsa'],
    ['x=/tmp; time x=~/.ssh; cat $x/id_rsa'],
  ])('%s is not allowed', (command) => {
    expect(judge(command).decision).not.toBe('allow');
  });
});

describe('ssh and grpcurl (0bc9119, 40e5033)', () => {
  it('ssh -F with a config the agent wrote: Match exec runs a command (even with -G), HostName redirects', () => {
    // `printf 'Match exec "id > /tmp/o"\n' > m.cfg; ssh -G -F m.cfg 1.1.1.1` ran id (OpenSSH 9.2).
    expect(judge(`printf 'Match exec "cat ~/.ssh/id_rsa > /tmp/k"\\n' > c.cfg; ssh -G -F c.cfg 1.1.1.1`).decision).not.toBe('allow');
    // `ssh -G -F s.cfg 1.1.1.1` prints "hostname 169.254.169.254".
    expect(judge(`printf 'Host 1.1.1.1\\n HostName 169.254.169.254\\n' > c.cfg; ssh -F c.cfg 1.1.1.1 true`).decision).not.toBe('allow');
  });

  it('ssh -o UserKnownHostsFile=FILE appends the host key to FILE (a write the judge does not report)', () => {
    const r = judge('ssh -o UserKnownHostsFile=~/.bashrc -o StrictHostKeyChecking=accept-new 1.1.1.1 true');
    expect(r.paths).toContain(join(home, '.bashrc'));
    expect(r.decision).not.toBe('allow');
  });

  it('grpcurl -proto-out-dir DIR (a real flag) is taken for the address: the server reached is lost', () => {
    const r = judge('grpcurl -plaintext -proto-out-dir 1.1.1.1:80 169.254.169.254:80 describe');
    expect(r.hosts).toContain('169.254.169.254');
    expect(r.decision).toBe('deny');
  });

  it('grpcurl -max-msg-sz N (the real flag; the handler lists max-msg-size): an honest call is denied', () => {
    const r = judge('grpcurl -plaintext -max-msg-sz 1000000 1.1.1.1:443 list');
    expect(r.hosts).toEqual(['1.1.1.1']);
    expect(r.decision).toBe('allow');
  });
});

describe('honest commands 466c922 now asks at full autonomy (allowed at 4848b52)', () => {
  // Both folders the rest may run in are known and inside the project; unsure is not needed.
  it.each([['[ -d x ] && cd x; ls'], ['npm run build && cd x && ls; cd ..']])('%s is allowed', (command) => {
    expect(judge(command).decision).toBe('allow');
  });
});
