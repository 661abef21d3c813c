// Where /bin/sh is bash (Fedora, Arch, RHEL) and the box runs as a user, SHELLOPTS=xtrace with a
// PS4 holding a command substitution, from the agent's environment, ran that command on the first
// line of the box's check of its mounts (verify-mounts.ts), in a box about to be refused: bash
// applies them as it starts, before any line of the check can undo them. So the box starts its
// shell without them (and without BASHOPTS, BASH_ENV, ENV), whatever the agent's shell exported.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boxedCommandLine, boxPlan } from '../../../main/runner/box.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();

describe('the box starts its shell without what makes a shell run code as it starts', () => {
  it('SHELLOPTS, BASHOPTS, PS4, BASH_ENV and ENV from the agent do not reach the box; the rest of its environment does', (ctx) => {
    if (sandbox.kind !== 'bwrap') return ctx.skip(`bubblewrap cannot build a sandbox here (${sandbox.reason})`);
    const dir = tempDir('gatehouse-box-env-');
    const plan = boxPlan({ home: '/nonexistent-home', rules: [], tmpDirs: [] }, dir);
    const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'env', '/bin/sh');
    const r = spawnSync('/bin/sh', ['-c', line], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', SHELLOPTS: 'xtrace', BASHOPTS: 'nocasematch', PS4: `$(touch ${join(dir, 'ran')})`, BASH_ENV: '/dev/null', ENV: '/dev/null', KEEP_ME: 'yes' } });
    expect(r.status, r.stderr).toBe(0);
    const names = r.stdout.split('\n').map((l) => l.split('=')[0]);
    for (const v of ['SHELLOPTS', 'BASHOPTS', 'PS4', 'BASH_ENV', 'ENV']) expect(names).not.toContain(v);
    expect(names).toContain('KEEP_ME');
  });
});
