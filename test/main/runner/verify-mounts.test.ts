// A bubblewrap box checks its own mounts before its command starts (runner/verify-mounts.ts): bwrap
// follows links when it binds a folder, so a folder swapped for a link between Gatehouse's plan and
// bwrap's mounts would show some other place writable. The plugin sandbox (the shell tool's, a
// tool's) runs the same check as the contained-command box (containment.test.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox, profileFromManifest, sandboxWrap, writableMounts } from '../../../main/runner/sandbox.js';
import { parseMountinfo } from '../../../main/core/mountinfo.js';
import { bindIdentity, devName, HostMountTable, MOUNTS_MAX_AGE_MS, mountinfoPath, verifiedArgv } from '../../../main/runner/verify-mounts.js';
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

describe("the host's mount list, kept between contained calls", () => {
  it('is read once while it is young and names each path\'s own device, and read again once it is MOUNTS_MAX_AGE_MS old', () => {
    const root = realpathSync(tempDir('gatehouse-mounts-'));
    let reads = 0;
    let clock = 0;
    // The real list, counted; the clock is the only fake.
    const table = new HostMountTable(
      () => {
        reads++;
        return readFileSync('/proc/self/mountinfo', 'utf8');
      },
      () => clock,
    );
    const fresh = bindIdentity(root, parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')));
    expect(fresh?.dev).toBe(devName(statSync(root).dev));
    expect(table.identities([root])).toEqual([fresh]);
    clock += MOUNTS_MAX_AGE_MS - 1;
    expect(table.identities([root, '/'])).toEqual([fresh, bindIdentity('/', parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')))]);
    expect(reads).toBe(1);
    clock += 1;
    expect(table.identities([root])).toEqual([fresh]);
    expect(reads).toBe(2);
  });

  it('a file system mounted on a granted folder since the list was read: the next box binds it and runs, within the kept list\'s age', (ctx) => {
    if (sandbox.kind !== 'bwrap') return ctx.skip(noBwrap!);
    if (process.getuid?.() !== 0) return ctx.skip('mounting a tmpfs needs root');
    const root = tempDir('gatehouse-mounts-');
    const data = join(root, 'data');
    const plugin = join(root, 'plugin');
    mkdirSync(data);
    mkdirSync(plugin);
    const profile = profileFromManifest({ permissions: { read: [], write: [data], hosts: [], env: [] } }, plugin);
    const run = () => {
      const w = sandboxWrap(profile, { detection: sandbox, timeoutMs: 10_000 })('/bin/sh', ['-c', `echo here > ${join(data, 'note')}; echo ran`]);
      return spawnSync(w.command, w.args, { encoding: 'utf8' });
    };
    expect(run().stdout).toBe('ran\n');
    const mounted = spawnSync('mount', ['-t', 'tmpfs', 'gatehouse-test', data], { encoding: 'utf8' });
    if (mounted.status !== 0) return ctx.skip(`mount -t tmpfs failed here: ${mounted.stderr.trim()}`);
    try {
      // Planned with the list read before the mount: its device for the folder is the disk's, the
      // folder's own is the tmpfs's, so the list is read again; else the box (which shows the
      // tmpfs) would be refused as not planned.
      const r = run();
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('ran\n');
      expect(readFileSync(join(data, 'note'), 'utf8')).toBe('here\n');
    } finally {
      spawnSync('umount', [data]);
    }
    // And back on the disk (the note went with the tmpfs): read again, runs, writes there.
    expect(run().stdout).toBe('ran\n');
    expect(readFileSync(join(data, 'note'), 'utf8')).toBe('here\n');
  });
});
