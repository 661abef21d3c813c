// The bwrap sandbox, tried by a real plugin (fixtures/hostile/probe.mjs) that attempts reads,
// writes and connections and reports each outcome. Each confinement test first shows the same
// attempt succeeding unsandboxed, so it cannot pass by accident. Skipped, with the reason
// printed, only where bubblewrap is missing or cannot work.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, type TestContext } from 'vitest';
import { runOneShot, scrubEnv, type OneShotResult, type WrapFn } from '../../../main/runner/one-shot.js';
import { sandboxPlan } from '../../../main/runner/sandbox-plan.js';
import { anchorPermissions, bwrapArgs, detectSandbox, expandPath, interpreterDirs, profileFromManifest, reviewedDirCover, sandboxWrap, unsandboxedWrap, type SandboxDetection, type SandboxProfile } from '../../../main/runner/sandbox.js';
import type { PluginManifest } from '../../../main/registry/types.js';
import { rlimitWrap, ulimitScript } from '../../../main/runner/limits.js';
import { liveInGroup } from '../../support/processes.js';
import { tempDir } from '../../support/temp.js';

const HOSTILE = fileURLToPath(new URL('../../fixtures/hostile/', import.meta.url));
const sandbox = detectSandbox();
const bwrapMissing = sandbox.kind === 'bwrap' ? null : `bubblewrap is not usable here: ${sandbox.reason}`;

function needBwrap(ctx: TestContext): void {
  if (bwrapMissing === null) return;
  console.warn(`skipped "${ctx.task.name}": ${bwrapMissing}`);
  ctx.skip(bwrapMissing);
}

type Op = { op: 'read' | 'list'; path: string } | { op: 'write'; path: string; data?: string } | { op: 'connect'; host: string; port: number } | { op: 'env' | 'limits' | 'pids' };
interface OpResult {
  ok: boolean;
  error?: string;
  data?: string;
  entries?: string[];
  body?: string;
  env?: Record<string, string>;
}

function profile(p: Partial<SandboxProfile> = {}): SandboxProfile {
  return { pluginDir: HOSTILE, read: [], write: [], hosts: [], ...p };
}

async function probe(wrap: WrapFn | undefined, ops: Op[], timeoutMs = 10_000): Promise<{ r: OneShotResult; results: OpResult[] }> {
  const r = await runOneShot({ plugin: 'probe', command: join(HOSTILE, 'probe.mjs'), args: [], cwd: HOSTILE, input: { ops }, timeoutMs, env: scrubEnv(process.env, []), ...(wrap ? { wrap } : {}) });
  if (!r.ok) throw new Error(`probe failed: ${r.failure}: ${r.message}`);
  expect(liveInGroup(r.pid!)).toEqual([]);
  return { r, results: (r.output.results as OpResult[]) ?? [] };
}

const inSandbox = (p: Partial<SandboxProfile> = {}, timeoutMs = 10_000) => sandboxWrap(profile(p), { timeoutMs });
const outside = () => unsandboxedWrap();

/** A file in the real ~/.ssh, removed (with ~/.ssh if we made it) when the test ends. */
function sshCanary(): { path: string; secret: string } {
  const ssh = join(homedir(), '.ssh');
  const made = !existsSync(ssh);
  if (made) mkdirSync(ssh, { mode: 0o700 });
  const path = join(ssh, `gatehouse-test-canary-${randomBytes(6).toString('hex')}`);
  const secret = `canary ${randomBytes(8).toString('hex')}`;
  writeFileSync(path, secret, { mode: 0o600 });
  onTestFinished(() => {
    rmSync(path, { force: true });
    if (made) rmdirSync(ssh);
  });
  return { path, secret };
}

/** A folder outside /tmp (the sandbox's /tmp is private, which would hide a /tmp folder anyway). */
function varTmpDir(): string {
  const dir = mkdtempSync('/var/tmp/gatehouse-test-');
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('sandbox detection', () => {
  it('finds a working bwrap, or says why not', () => {
    if (sandbox.kind === 'bwrap') {
      expect(sandbox.version).toMatch(/^\d+\.\d+/);
      expect(existsSync(sandbox.path)).toBe(true);
    } else {
      expect(sandbox.reason.length).toBeGreaterThan(10);
    }
  });

  it('reports a missing binary, and GATEHOUSE_BWRAP=none, as no sandbox with a reason', () => {
    try {
      const missing = detectSandbox({ refresh: true, env: { ...process.env, GATEHOUSE_BWRAP: '/nonexistent/bwrap' } });
      expect(missing).toEqual({ kind: 'none', reason: 'GATEHOUSE_BWRAP points at /nonexistent/bwrap, which does not exist' });
      const off = detectSandbox({ refresh: true, env: { ...process.env, GATEHOUSE_BWRAP: 'none' } });
      expect(off).toEqual({ kind: 'none', reason: 'GATEHOUSE_BWRAP=none turns the sandbox off' });
    } finally {
      detectSandbox({ refresh: true });
    }
  });

  it('reports a bwrap that cannot create a sandbox (here: a fake one that always fails)', () => {
    const dir = tempDir();
    const fake = join(dir, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 9.9.9"; exit 0; }\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    try {
      const d = detectSandbox({ refresh: true, env: { ...process.env, GATEHOUSE_BWRAP: fake } });
      expect(d.kind).toBe('none');
      if (d.kind === 'none') expect(d.reason).toMatch(/^bubblewrap 9\.9\.9 is installed but cannot create a sandbox here \(bwrap: No permissions to create new namespace\)/);
    } finally {
      detectSandbox({ refresh: true });
    }
  });
});

describe('a sandboxed plugin', () => {
  it('cannot read ~/.ssh or folders outside its declared paths; can read what it declares', async (ctx) => {
    needBwrap(ctx);
    const canary = sshCanary();
    const secretDir = varTmpDir();
    writeFileSync(join(secretDir, 'secret.txt'), 'not for plugins');
    const declared = varTmpDir();
    writeFileSync(join(declared, 'data.txt'), 'declared data');
    const ops: Op[] = [
      { op: 'read', path: canary.path },
      { op: 'list', path: join(homedir(), '.ssh') },
      { op: 'read', path: join(secretDir, 'secret.txt') },
      { op: 'read', path: join(declared, 'data.txt') },
    ];
    // Unsandboxed, every read works: the test can tell confinement from a broken probe.
    const free = await probe(outside(), ops);
    expect(free.results.map((x) => x.ok)).toEqual([true, true, true, true]);
    expect(free.results[0]!.data).toBe(canary.secret);

    const { r, results } = await probe(inSandbox({ read: [declared] }), ops);
    expect(r.sandboxed).toBe(true);
    expect(results[0]).toEqual({ ok: false, error: 'ENOENT' });
    expect(results[1]).toEqual({ ok: false, error: 'ENOENT' });
    expect(results[2]).toEqual({ ok: false, error: 'ENOENT' });
    expect(results[3]).toEqual({ ok: true, data: 'declared data' });
  });

  it('sees an empty home, no host secrets in /etc, and only the allow-listed environment', async (ctx) => {
    needBwrap(ctx);
    const { results } = await probe(inSandbox(), [{ op: 'list', path: homedir() }, { op: 'read', path: '/etc/shadow' }, { op: 'env' }, { op: 'read', path: '/etc/passwd' }]);
    // The home exists only as the mount point of interpreter folders (e.g. ~/.pyenv), never whole.
    const entries = results[0]!.ok ? results[0]!.entries! : [];
    expect(entries).not.toContain('.ssh');
    expect(entries).not.toContain('.bash_history');
    // Shadowed by /dev/null (which a nodev bind may also refuse to open): nothing comes out.
    expect(results[1]!.data ?? '').toBe('');
    // bwrap sets PWD for --chdir; nothing else is added to the scrubbed environment.
    expect(Object.keys(results[2]!.env!).filter((k) => k !== 'PWD').sort()).toEqual(Object.keys(scrubEnv(process.env, [])).sort());
    expect(results[3]!.ok).toBe(true);
  });

  it('writes only where it declared: declared folder yes, private /tmp yes (not visible outside), elsewhere no', async (ctx) => {
    needBwrap(ctx);
    const writable = tempDir();
    const readable = varTmpDir();
    const undeclared = varTmpDir();
    const privateTmp = `/tmp/gatehouse-private-${randomBytes(6).toString('hex')}`;
    onTestFinished(() => rmSync(privateTmp, { force: true }));
    const ops: Op[] = [
      { op: 'write', path: join(writable, 'out.txt'), data: 'written inside' },
      { op: 'write', path: privateTmp, data: 'tmp inside' },
      { op: 'read', path: privateTmp },
      { op: 'write', path: join(undeclared, 'x.txt') },
      { op: 'write', path: join(readable, 'x.txt') },
      { op: 'write', path: join(HOSTILE, 'written-by-probe.txt') },
      { op: 'write', path: join(homedir(), '.ssh', 'authorized_keys_gatehouse_test') },
    ];
    const { results } = await probe(inSandbox({ write: [writable], read: [readable] }), ops);
    expect(results[0]).toEqual({ ok: true });
    expect(readFileSync(join(writable, 'out.txt'), 'utf8')).toBe('written inside');
    expect(results[1]).toEqual({ ok: true });
    expect(results[2]).toEqual({ ok: true, data: 'tmp inside' });
    expect(existsSync(privateTmp), 'the private /tmp leaked to the host').toBe(false);
    expect(results[3]).toEqual({ ok: false, error: 'ENOENT' });
    expect(existsSync(join(undeclared, 'x.txt'))).toBe(false);
    expect(results[4]).toEqual({ ok: false, error: 'EROFS' });
    expect(results[5]).toEqual({ ok: false, error: 'EROFS' });
    expect(existsSync(join(HOSTILE, 'written-by-probe.txt'))).toBe(false);
    expect(results[6]!.ok).toBe(false);
    expect(existsSync(join(homedir(), '.ssh', 'authorized_keys_gatehouse_test'))).toBe(false);
  });

  it('cannot open a network connection without declared hosts, and can with them', async (ctx) => {
    needBwrap(ctx);
    const server = createServer((_req, res) => res.end('hello from the host'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(async () => {
      server.close();
      await once(server, 'close');
    });
    const port = (server.address() as AddressInfo).port;
    const ops: Op[] = [{ op: 'connect', host: '127.0.0.1', port }];

    const free = await probe(outside(), ops);
    expect(free.results[0]).toEqual({ ok: true, status: 200, body: 'hello from the host' });
    // Its own network namespace: a loopback of its own, where nothing listens.
    const closed = await probe(inSandbox(), ops);
    expect(closed.results[0]).toEqual({ ok: false, error: 'ECONNREFUSED' });
    // Any declared host opens the network (bwrap cannot filter per host; docs/sandbox.md).
    const open = await probe(inSandbox({ hosts: ['127.0.0.1'] }), ops);
    expect(open.results[0]).toEqual({ ok: true, status: 200, body: 'hello from the host' });
  });

  it('runs in its own PID namespace', async (ctx) => {
    needBwrap(ctx);
    const { results } = await probe(inSandbox(), [{ op: 'pids' }]);
    const pids = results[0]!.entries!.map(Number);
    // bwrap's init, the limits launcher exec'd into node: a handful, never the host's.
    expect(pids.length).toBeLessThanOrEqual(4);
    expect(Math.max(...pids)).toBeLessThan(10);
  });

  it('runs under the rlimits', async (ctx) => {
    needBwrap(ctx);
    const { results } = await probe(sandboxWrap(profile(), { timeoutMs: 7000, limits: { openFiles: 100 } }), [{ op: 'limits' }]);
    const limits = results[0]!.data!;
    const row = (label: string) => new RegExp(`^${label}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits)?.slice(1, 3);
    expect(row('Max cpu time')).toEqual(['8', '9']);
    expect(row('Max open files')).toEqual(['100', '100']);
    expect(row('Max address space')).toEqual([String(2 * 1024 ** 3), String(2 * 1024 ** 3)]);
    expect(row('Max file size')).toEqual([String(64 * 1024 ** 2), String(64 * 1024 ** 2)]);
    expect(row('Max core file size')).toEqual(['0', '0']);
  });

  it('runs a Python plugin (its interpreter folder is bound read-only)', async (ctx) => {
    needBwrap(ctx);
    const dir = tempDir();
    writeFileSync(join(dir, 'tool.py'), '#!/usr/bin/env python3\nimport json, sys\nargs = json.load(sys.stdin)\njson.dump({"py": sys.version_info[0], "got": args}, sys.stdout)\n');
    chmodSync(join(dir, 'tool.py'), 0o755);
    const r = await runOneShot({ plugin: 'py', command: join(dir, 'tool.py'), args: [], cwd: dir, input: { a: 1 }, timeoutMs: 20_000, env: scrubEnv(process.env, []), wrap: sandboxWrap(profile({ pluginDir: dir }), { timeoutMs: 20_000 }) });
    expect(r.ok, r.ok ? '' : r.message).toBe(true);
    if (r.ok) expect(r.output).toEqual({ py: 3, got: { a: 1 } });
    expect(r.sandboxed).toBe(true);
  });
});

describe('rlimits', () => {
  const row = (limits: string, label: string) => new RegExp(`^${label}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits)?.slice(1, 3);
  const want = { cpuSecs: 4, addressSpaceBytes: 1 << 30, openFiles: 128, processes: 100, fileSizeBytes: 1 << 20 };
  const check = (limits: string) => {
    expect(row(limits, 'Max cpu time')).toEqual(['4', '5']);
    expect(row(limits, 'Max address space')).toEqual([String(1 << 30), String(1 << 30)]);
    expect(row(limits, 'Max open files')).toEqual(['128', '128']);
    expect(row(limits, 'Max file size')).toEqual([String(1 << 20), String(1 << 20)]);
    expect(row(limits, 'Max core file size')).toEqual(['0', '0']);
  };

  it('prlimit sets them all, soft = hard except CPU', () => {
    const w = rlimitWrap(want, true, '/bin/cat', ['/proc/self/limits']);
    const out = spawnSync(w.command, w.args, { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    check(out.stdout);
    expect(row(out.stdout, 'Max processes')).toEqual(['100', '100']);
  });

  it('the sh launcher (used with the cgroup, and where prlimit is missing) sets the same', () => {
    const out = spawnSync('/bin/sh', ['-c', `${ulimitScript(want, false)} && exec cat /proc/self/limits`], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    check(out.stdout);
  });

  it('the sh launcher sets the process limit too, whichever shell /bin/sh is (dash spells it -p, bash -u)', () => {
    const out = spawnSync('/bin/sh', ['-c', `${ulimitScript(want, true)} && exec cat /proc/self/limits`], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    check(out.stdout);
    expect(row(out.stdout, 'Max processes')).toEqual(['100', '100']);
  });
});

describe('sandbox plans from manifests', () => {
  const manifest = (p: Partial<PluginManifest> = {}): PluginManifest =>
    ({ name: 'probe', kind: 'tool', timeoutSecs: 10, sandbox: 'strict', permissions: { read: [], write: [], hosts: [], env: [] }, ...p }) as PluginManifest;
  const none: SandboxDetection = { kind: 'none', reason: 'bubblewrap (bwrap) is not installed' };
  const planRun = (wrap: WrapFn) => runOneShot({ plugin: 'probe', command: join(HOSTILE, 'probe.mjs'), args: [], cwd: HOSTILE, input: { ops: [] }, timeoutMs: 10_000, env: scrubEnv(process.env, []), wrap });

  it('without a sandbox: runs unsandboxed, says so, and still applies limits', async () => {
    const plan = sandboxPlan(none, manifest(), HOSTILE);
    expect(plan.sandboxed).toBe(false);
    expect(plan.warning).toBe('probe runs unsandboxed: there is no sandbox on this machine: bubblewrap (bwrap) is not installed. It can read and write whatever your account can.');
    const r = await planRun(plan.wrap);
    expect(r.ok).toBe(true);
    expect(r.sandboxed).toBe(false);
  });

  it('requireSandbox refuses to run unsandboxed, with a sentence saying what to do', async () => {
    const plan = sandboxPlan(none, manifest(), HOSTILE, { requireSandbox: true });
    const r = await planRun(plan.wrap);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failure).toBe('spawn');
      expect(r.pid).toBeNull();
      expect(r.message).toBe('probe was not run: the policy requires a sandbox, but there is no sandbox on this machine: bubblewrap (bwrap) is not installed. Install bubblewrap or turn off "require sandbox".');
    }
    // The runner's own switch refuses an unsandboxed wrap too.
    const direct = await runOneShot({ plugin: 'probe', command: join(HOSTILE, 'probe.mjs'), args: [], cwd: HOSTILE, input: {}, timeoutMs: 5000, env: {}, wrap: unsandboxedWrap(), requireSandbox: true });
    expect(direct.ok).toBe(false);
    if (!direct.ok) expect(direct.message).toBe('probe was not run: a sandbox is required and this call would run unsandboxed.');
  });

  it('sandbox = "none" is honoured only for a trusted plugin, and never under requireSandbox', async (ctx) => {
    needBwrap(ctx);
    const m = manifest({ sandbox: 'none' });
    expect(sandboxPlan(sandbox, m, HOSTILE).sandboxed).toBe(true);
    const trusted = sandboxPlan(sandbox, m, HOSTILE, { trusted: true });
    expect(trusted.sandboxed).toBe(false);
    expect(trusted.warning).toMatch(/^probe runs unsandboxed: its manifest says sandbox = "none" and an operator marked it trusted\./);
    expect((await planRun(trusted.wrap)).sandboxed).toBe(false);
    const refused = await planRun(sandboxPlan(sandbox, m, HOSTILE, { trusted: true, requireSandbox: true }).wrap);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toMatch(/^probe was not run: the policy requires a sandbox, but its manifest says sandbox = "none".*Remove sandbox = "none" from its manifest/);
    const strict = await planRun(sandboxPlan(sandbox, manifest(), HOSTILE).wrap);
    expect(strict.ok && strict.sandboxed).toBe(true);
  });

  it('expands ~ and relative permission paths', () => {
    const p = profileFromManifest(manifest({ permissions: { read: ['~/notes', 'data', '/srv/x'], write: ['~', './out'], hosts: ['example.com'], env: [] } }), '/plugins/probe', { home: '/home/op' });
    expect(p).toEqual({ pluginDir: '/plugins/probe', read: ['/home/op/notes', '/plugins/probe/data', '/srv/x'], write: ['/home/op', '/plugins/probe/out'], hosts: ['example.com'] });
    expect(expandPath('~', '/p', '/h')).toBe('/h');
  });

  it('from a verified copy, a permission path inside the reviewed folder is the copy\'s however it is written', () => {
    const m = manifest({ permissions: { read: ['data', '/proj/plugins/probe/data2', '~/plugins/probe/d3', '/srv/x', '../probe-data'], write: ['/proj/plugins/probe'], hosts: [], env: [] } });
    const copy = '/gh/run-cache/abc';
    const p = profileFromManifest(m, copy, { home: '/home/op', reviewedDir: '/proj/plugins/probe' });
    expect(p.read).toEqual([`${copy}/data`, `${copy}/data2`, '/home/op/plugins/probe/d3', '/srv/x', '/gh/run-cache/probe-data']);
    expect(p.write).toEqual([copy]);
    expect(p.reviewedDir).toBe('/proj/plugins/probe');
    // ~ paths inside it too, and nothing to hide for a test run (the folder itself).
    expect(profileFromManifest(m, copy, { home: '/proj', reviewedDir: '/proj/plugins/probe' }).read[2]).toBe(`${copy}/d3`);
    expect(profileFromManifest(m, '/proj/plugins/probe', { reviewedDir: '/proj/plugins/probe' })).not.toHaveProperty('reviewedDir');
  });

  it('anchors relative permission paths that leave the folder to it, and keeps the ones inside relative to it', () => {
    const m = manifest({ permissions: { read: ['data', '../probe/data2', '..', '.', '~/x', '/abs'], write: ['./out/'], hosts: [], env: [] } });
    expect(anchorPermissions(m, '/proj/plugins/probe').permissions).toMatchObject({ read: ['data', 'data2', '/proj/plugins', '.', '~/x', '/abs'], write: ['out'] });
  });

  it('finds every place a bind would show the reviewed folder, and the binds that would be it', () => {
    const root = tempDir();
    const original = join(root, 'proj', '.gatehouse', 'plugins', 'x');
    mkdirSync(original, { recursive: true });
    // A project reached through a link, a granted folder made a link to the original, another to a folder in it.
    symlinkSync(join(root, 'proj'), join(root, 'proj-link'));
    symlinkSync(original, join(root, 'cache'));
    mkdirSync(join(original, 'sub'));
    symlinkSync(join(original, 'sub'), join(root, 'sub-link'));
    mkdirSync(join(root, 'other'));
    const cover = reviewedDirCover(original, [], [join(root, 'proj'), join(root, 'proj-link'), join(root, 'cache'), join(root, 'sub-link'), join(root, 'other'), join(root, 'gone')]);
    expect(cover.hide.sort()).toEqual([original, join(root, 'proj-link', '.gatehouse', 'plugins', 'x')].sort());
    expect([...cover.refuse].sort()).toEqual([join(root, 'cache'), join(root, 'sub-link')].sort());
    // One of the sandbox's own binds in it (a PATH entry) is made, and hidden.
    expect(reviewedDirCover(original, [join(root, 'sub-link')], [])).toEqual({ hide: [join(root, 'sub-link')], refuse: new Set() });
    // The original reached by a link on its own path is hidden at that path and at its real one.
    const viaLink = join(root, 'proj-link', '.gatehouse', 'plugins', 'x');
    expect(reviewedDirCover(viaLink, [], [join(root, 'proj')]).hide).toEqual([original]);
    expect(reviewedDirCover(viaLink, [], [join(root, 'proj-link')]).hide).toEqual([viaLink]);
  });

  it('binds interpreter install folders under the home, never the home or a secrets folder', () => {
    const home = tempDir();
    for (const d of ['.pyenv/shims', '.pyenv/bin', '.local/bin', '.ssh/bin', '.cargo/bin', 'bin']) mkdirSync(join(home, d), { recursive: true });
    const PATH = [join(home, '.pyenv/shims'), join(home, '.pyenv/bin'), join(home, '.local/bin'), join(home, '.ssh/bin'), join(home, '.cargo/bin'), home, join(home, 'bin'), '/usr/bin', '/nonexistent/bin', '.', '', 'relative/bin'].join(':');
    const dirs = interpreterDirs({ PATH }, home, '/usr/bin/node');
    expect(dirs).toEqual([join(home, '.cargo'), join(home, '.local/bin'), join(home, '.pyenv'), join(home, 'bin')]);
  });

  it('passes --unshare-net only without declared hosts, and never --new-session', (ctx) => {
    needBwrap(ctx);
    if (sandbox.kind !== 'bwrap') return;
    const closed = bwrapArgs(profile(), sandbox);
    const open = bwrapArgs(profile({ hosts: ['api.example.com'] }), sandbox);
    expect(closed).toContain('--unshare-net');
    expect(open).not.toContain('--unshare-net');
    for (const a of [closed, open]) {
      expect(a).not.toContain('--new-session');
      for (const flag of ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts']) expect(a).toContain(flag);
      expect(a.join(' ')).toContain('--cap-drop ALL');
      expect(a.join(' ')).toContain(`--ro-bind ${HOSTILE} ${HOSTILE}`);
      expect(a.join(' ')).toContain(`--chdir ${HOSTILE}`);
    }
  });
});
