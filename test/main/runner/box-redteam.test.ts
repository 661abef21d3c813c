// Red-team findings against the box (containment): a contained command (one Gatehouse let through
// without an operator reading it: a grant such as `npm test:*`, an allow rule, full autonomy) runs
// whatever the project's scripts say, so each test here is a script such a command could run, in a
// real bubblewrap box built by boxPlan + boxedCommandLine exactly as the hook answer builds it.
// The box promises that nothing it runs can plant code that runs later outside it, nor run code
// outside it (docs/security-model.md, "Containment").
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { boxedCommandLine, boxPlan } from '../../../main/runner/box.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();
const noBwrap = sandbox.kind === 'bwrap' ? null : `bubblewrap cannot build a sandbox here (${sandbox.reason})`;
const has = (program: string) => spawnSync('/bin/sh', ['-c', `command -v ${program}`]).status === 0;

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A home with a start-up file and a Git project with one commit. */
function fakeHome() {
  const root = tempDir('gatehouse-redteam-box-');
  const home = join(root, 'home');
  const proj = join(home, 'work', 'proj');
  const gatehouse = join(home, '.config', 'gatehouse');
  put(join(home, '.bashrc'), 'export ORIGINAL=1\n');
  put(join(gatehouse, 'operator-token'), 'OPERATOR-SECRET\n');
  put(join(proj, 'README.md'), '# proj\n');
  const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: proj, encoding: 'utf8', env: { ...process.env, HOME: home } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return { root, home, proj, gatehouse, git };
}

const rulesFor = (home: string, gatehouse: string) => builtinRules({ home, gatehouseHome: gatehouse, caseInsensitive: false });

/** Runs `script` as a contained command started in the project, the way Claude Code runs the hook's updatedInput. */
function runBoxed(h: ReturnType<typeof fakeHome>, script: string, env: NodeJS.ProcessEnv = {}) {
  if (sandbox.kind !== 'bwrap') throw new Error('no bwrap');
  const scratch = tempDir('gatehouse-redteam-scratch-');
  const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, h.proj);
  const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, script);
  return spawnSync('/bin/bash', ['-c', line], { cwd: h.proj, env: { ...process.env, HOME: h.home, ...env }, encoding: 'utf8' });
}

describe('red team: a contained command cannot plant code that runs later outside the box', () => {
  it('FINDING: .git/commondir redirects where Git reads its config and hooks, so a contained command plants core.fsmonitor without touching the read-only .git/config or .git/hooks', (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    const h = fakeHome();
    const marker = join(h.root, 'ran-outside-the-box');
    // What `npm test` (granted, contained) could run: a second common folder whose config names a
    // command, objects and refs linked back so the repository keeps working, then commondir.
    const script = [
      'mkdir -p .git/x',
      'ln -s ../objects .git/x/objects',
      'ln -s ../refs .git/x/refs',
      `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "echo pwned > ${marker}; false"\\n' > .git/x/config`,
      'echo x > .git/commondir',
      'echo planted',
    ].join(' && ');
    const r = runBoxed(h, script);
    // The operator's next `git status` in the project, outside the box (or their shell prompt's).
    h.git('status');
    expect(existsSync(marker), `the box let the command plant a Git command: ${r.stdout}${r.stderr}`).toBe(false);
  });
});

describe('red team: a contained command cannot run code outside the box', () => {
  it('FINDING: a same-user tmux server on its default socket (/tmp/tmux-UID, reachable even where the view of the box is read-only: a socket is not a file write) runs a command outside the box', (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    if (!has('tmux')) return ctx.skip('tmux is not installed');
    const h = fakeHome();
    // The operator's tmux, on its default socket folder (/tmp/tmux-UID), under a name of this test's own.
    const name = `gatehouse-redteam-${process.pid}`;
    const start = spawnSync('tmux', ['-L', name, 'new-session', '-d', 'sleep 600'], { encoding: 'utf8' });
    expect(start.status, start.stderr).toBe(0);
    try {
      const bashrc = join(h.home, '.bashrc');
      // Inside the box the home is read-only; through the tmux server the write happens outside.
      const r = runBoxed(h, `echo inside >> ${bashrc}; tmux -L ${name} run-shell 'echo pwned >> ${bashrc}'`);
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(readFileSync(bashrc, 'utf8'), 'a contained command ran code outside the box through the tmux socket').toBe('export ORIGINAL=1\n');
    } finally {
      spawnSync('tmux', ['-L', name, 'kill-server']);
    }
  });
});
