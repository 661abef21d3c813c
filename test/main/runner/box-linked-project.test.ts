// Review of fe00cf8: a project reached through a (relative) link — ~/work -> ../data, the cwd an
// agent reports being /…/home/work/proj — ran in the box at 3f8a534 (bwrap follows the link for
// the bind's source and its target alike); now the box's own check compares the mount list's real
// path with the plan's path as given, refuses every contained command (126), and says a folder was
// replaced by a link while the box was built, which nobody did.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { boxPlan, boxedCommandLine } from '../../../main/runner/box.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';

const sandbox = detectSandbox();

it('a contained command in a project reached through a link runs', (ctx) => {
  if (sandbox.kind !== 'bwrap') return ctx.skip('no bwrap');
  // Outside /tmp: a project under a temp folder is writable through it either way.
  const root = realpathSync(mkdtempSync(join(process.env.HOME && process.env.HOME !== '/' ? process.env.HOME : '/var/tmp', 'gh-linked-')));
  const home = join(root, 'home');
  mkdirSync(join(root, 'data', 'proj'), { recursive: true });
  mkdirSync(home);
  symlinkSync('../data', join(home, 'work'));
  const plan = boxPlan({ home, rules: [], tmpDirs: [] }, join(home, 'work', 'proj'));
  const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'touch made && echo ran');
  const r = spawnSync('/bin/bash', ['-c', line], { cwd: '/', encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe('ran\n');
});
