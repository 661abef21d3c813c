// A bubblewrap box checks its own mounts before its command starts (runner/verify-mounts.ts): bwrap
// follows links when it binds a folder, so a folder swapped for a link between Gatehouse's plan and
// bwrap's mounts would show some other place writable. The plugin sandbox (the shell tool's, a
// tool's) runs the same check as the contained-command box (containment.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox, profileFromManifest, sandboxWrap, writableMounts } from '../../../main/runner/sandbox.js';
import { mountinfoPath, verifiedArgv } from '../../../main/runner/verify-mounts.js';
import { tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();
const noBwrap = sandbox.kind === 'bwrap' ? null : `bubblewrap cannot build a sandbox here (${sandbox.reason})`;
if (noBwrap) console.log(`verify-mounts: the runs in a real sandbox are skipped: ${noBwrap}`);

describe('the check of a box\'s mounts', () => {
  it('reads the writable places off a bwrap command line, and writes paths as the mount list does', () => {
    expect(writableMounts(['--tmpfs', '/tmp', '--ro-bind', '/usr', '/usr', '--bind-try', '/w', '/w', '--tmpfs', '/h', '--remount-ro', '/h', '--dev-bind', '/dev', '/dev', '--', '--bind', '/x', '/x'])).toEqual(['/tmp', '/w', '/dev']);
    expect(mountinfoPath('/a b\\c\td')).toBe('/a\\040b\\134c\\011d');
  });

  it('a plugin sandbox whose write grant was swapped for a link to its parent after the plan does not run; as planned it does', (ctx) => {
    if (sandbox.kind !== 'bwrap') return ctx.skip(noBwrap!);
    const root = tempDir('gatehouse-verify-');
    const data = join(root, 'outer', 'data');
    const plugin = join(root, 'plugin');
    mkdirSync(data, { recursive: true });
    mkdirSync(plugin);
    writeFileSync(join(root, 'outer', 'keep.txt'), 'untouched\n');
    const profile = profileFromManifest({ permissions: { read: [], write: [data], hosts: [], env: [] } }, plugin);
    const run = () => {
      const w = sandboxWrap(profile, { detection: sandbox, timeoutMs: 10_000 })('/bin/sh', ['-c', `echo changed > ${join(root, 'outer', 'keep.txt')}; echo ran`]);
      return (swap?: () => void) => {
        swap?.();
        return spawnSync(w.command, w.args, { encoding: 'utf8' });
      };
    };
    const honest = run()();
    expect(honest.stdout).toBe('ran\n');
    expect(readFileSync(join(root, 'outer', 'keep.txt'), 'utf8')).toBe('untouched\n');
    const swapped = run()(() => {
      renameSync(data, `${data}.away`);
      symlinkSync('..', data);
    });
    expect(swapped.status).toBe(126);
    expect(swapped.stdout).toBe('');
    expect(swapped.stderr).toContain(`gatehouse-box: not run: the box is not as planned at ( ${data})`);
    expect(readFileSync(join(root, 'outer', 'keep.txt'), 'utf8')).toBe('untouched\n');
  });

  // /bin/sh is dash on Debian, which resets IFS and imports no functions; elsewhere it is bash,
  // which does both. Run the check under bash, over this process's own mounts, allowing nothing
  // writable: it must refuse whatever the environment brings.
  it('reads the mount list as the kernel writes it under bash too, whatever the environment brings (an exported IFS, a function named read)', () => {
    const argv = verifiedArgv([], ['/bin/true']);
    const script = argv[2]!;
    for (const env of [{}, { IFS: 'x' }, { 'BASH_FUNC_read%%': '() { return 1; }' }]) {
      const r = spawnSync('/bin/bash', ['--norc', '--posix', '-c', script, ...argv.slice(3)], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', ...env } });
      expect(r.status, `${JSON.stringify(env)}: ${r.stderr}`).toBe(126);
      expect(r.stderr).toMatch(/gatehouse-box: not run: the box is not as planned at \( \//);
    }
  });
});
