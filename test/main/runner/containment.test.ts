// Containment (issue #24): a Bash command Gatehouse lets through without an operator reading it
// (full autonomy, a grant) runs in the box. Here: what the box hides and keeps read-only, a
// hostile script run in a real bubblewrap box, and the real host answering Claude Code's hook
// with the boxed command (and not boxing what it should not). The real Claude Code CLI runs a
// contained call in test/main/agents/claude-code-e2e.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedCliFiles, installedCodeFiles } from '../../../main/core/install-files.js';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import type { ToolCall } from '../../../main/policy/types.js';
import { boxedCommandLine, boxPlan, bwrapBoxArgs, installBoxCheck, namedPlaces, seatbeltProfile, shellQuote, type BoxProgram } from '../../../main/runner/box.js';
import { installScope } from '../../../main/runner/box-scope.js';
import { Containment } from '../../../main/runner/containment.js';
import { isAlive, listProcesses, type ProcInfo } from '../../../main/core/proc-scan.js';
import { BoxJournals } from '../../../main/runner/box-journal.js';
import { detectSandbox, type SandboxDetection } from '../../../main/runner/sandbox.js';
import { cliPath } from '../../support/cli.js';
import { http, untilLogged, wsConnect, WsClient } from '../../support/net.js';
import { smallDiskCommand } from '../../support/small-disk.js';
import { sharedTempDir, tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();
const noBwrap = sandbox.kind === 'bwrap' ? null : `bubblewrap cannot build a sandbox here (${sandbox.reason})`;
if (noBwrap) console.log(`containment: the runs in a real box are skipped: ${noBwrap}`);

/** A test that runs a real box goes on only where bubblewrap can build one; elsewhere it is skipped, saying why. */
function needsBwrap(ctx: { skip(note?: string): never }, s: SandboxDetection): asserts s is Extract<SandboxDetection, { kind: 'bwrap' }> {
  if (s.kind !== 'bwrap') ctx.skip(noBwrap ?? s.reason);
}

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A home with credentials, start-up files and a project with secrets by name. */
function fakeHome(dir: () => string = () => tempDir('gatehouse-box-')) {
  const root = dir();
  const home = join(root, 'home');
  const proj = join(home, 'work', 'proj');
  const gatehouse = join(home, '.config', 'gatehouse');
  put(join(home, '.ssh', 'id_rsa'), 'SSH-SECRET\n');
  put(join(home, '.aws', 'credentials'), 'AWS-SECRET\n');
  put(join(home, '.netrc'), 'NETRC-SECRET\n');
  put(join(home, '.docker', 'config.json'), '{"auths":"DOCKER-SECRET"}\n');
  put(join(home, '.config', 'chromium', 'Default', 'Cookies'), 'COOKIE-SECRET\n');
  put(join(home, '.config', 'gh', 'hosts.yml'), 'GH-SECRET\n');
  put(join(home, '.bashrc'), 'export ORIGINAL=1\n');
  put(join(gatehouse, 'operator-token'), 'OPERATOR-SECRET\n');
  put(join(proj, '.env'), 'API_KEY=ENV-SECRET\n');
  put(join(proj, '.env.example'), 'API_KEY=\n');
  put(join(proj, 'certs', 'server.pem'), 'PEM-SECRET\n');
  put(join(proj, 'deploy', 'id_ed25519'), 'DEPLOY-KEY-SECRET\n');
  put(join(proj, 'src', 'id_utils.py'), 'print("fine")\n');
  put(join(proj, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  put(join(proj, '.git', 'config'), '[core]\n');
  put(join(proj, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n');
  put(join(proj, '.claude', 'settings.json'), '{}\n');
  // A virtualenv called .env is a folder, not a secret file: left alone.
  put(join(proj, 'tools', '.env', 'bin', 'activate'), '# venv\n');
  return { root, home, proj, gatehouse };
}

const rulesFor = (home: string, gatehouse: string) => builtinRules({ home, gatehouseHome: gatehouse, pluginDirs: [join(gatehouse, 'plugins')], caseInsensitive: false });

describe('the box: what it hides and what it keeps read-only', () => {
  it('masks what the locked read rules protect and secrets by name in the project; keeps persistence and supervision read-only; leaves the project and temp writable', () => {
    const h = fakeHome();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, join(h.proj, 'src'));
    expect(plan.writable).toEqual(expect.arrayContaining([h.proj, '/tmp']));
    expect(plan.maskedDirs).toEqual(expect.arrayContaining([join(h.home, '.ssh'), join(h.home, '.aws'), join(h.home, '.config', 'chromium'), h.gatehouse]));
    expect(plan.maskedFiles).toEqual(expect.arrayContaining([join(h.home, '.netrc'), join(h.home, '.docker', 'config.json'), join(h.home, '.config', 'gh', 'hosts.yml'), join(h.proj, '.env'), join(h.proj, 'certs', 'server.pem'), join(h.proj, 'deploy', 'id_ed25519')]));
    expect(plan.maskedFiles).not.toContain(join(h.proj, '.env.example'));
    expect(plan.maskedFiles).not.toContain(join(h.proj, 'src', 'id_utils.py'));
    expect(plan.maskedDirs).not.toContain(join(h.proj, 'tools', '.env'));
    expect(plan.readOnly).toEqual(expect.arrayContaining([join(h.proj, '.git', 'hooks'), join(h.proj, '.git', 'config'), join(h.proj, '.claude', 'settings.json')]));
    // The project is found from a folder inside it (its repository), and the command starts where it was.
    expect(plan.cwd).toBe(join(h.proj, 'src'));
  });

  it("keeps Claude Code's subagents, skills and slash commands in the project read-only (their frontmatter adds hooks, their `!` lines run commands)", () => {
    const h = fakeHome();
    for (const f of ['agents/helper.md', 'skills/deploy/SKILL.md', 'commands/ship.md']) put(join(h.proj, '.claude', f), '---\nname: x\n---\n');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, h.proj);
    expect(plan.readOnly).toEqual(expect.arrayContaining(['agents', 'skills', 'commands'].map((d) => join(h.proj, '.claude', d))));
    expect(plan.writable).toContain(h.proj);
  });

  it('a rule set naming one more secret pattern hides that file too, and the first set again does not (name matchers are compiled once per set of patterns)', () => {
    const h = fakeHome();
    put(join(h.proj, 'notes.vaultx'), 'VAULT-SECRET\n');
    const base = rulesFor(h.home, h.gatehouse);
    const readRule = base.find((r) => r.enabled && r.decision === 'deny' && r.actions.includes('read') && r.block_paths.some((g) => g.startsWith('**/')))!;
    const more = [...base, { ...readRule, id: 'test-vaultx', block_paths: ['**/*.vaultx'], block_except: [] }];
    const secret = join(h.proj, 'notes.vaultx');
    expect(namedPlaces(h.proj, base).secret).not.toContain(secret);
    expect(namedPlaces(h.proj, more).secret).toContain(secret);
    expect(namedPlaces(h.proj, base).secret).not.toContain(secret);
    expect(namedPlaces(h.proj, base).secret).toContain(join(h.proj, '.env'));
  });

  // A review ran an agent's code in the host this way: a project that installed Gatehouse itself
  // (npm i -D gatehouse, npx gatehouse serve) had its node_modules writable in the box, and the
  // host loads packages from there (the extraction worker, each time it starts).
  it("keeps what a project's own Gatehouse installation runs read-only: its files and the node_modules its bundles load from", async (ctx) => {
    const h = fakeHome();
    const install = join(h.proj, 'node_modules', 'gatehouse');
    const dep = join(h.proj, 'node_modules', 'picomatch', 'index.js');
    put(join(install, 'bin', 'gatehouse.js'), '#!/usr/bin/env node\n');
    put(join(install, 'out', 'main', 'extract-worker.cjs'), 'require("picomatch")\n');
    put(dep, 'module.exports = () => true;\n');
    const rules = builtinRules({ home: h.home, gatehouseHome: h.gatehouse, caseInsensitive: false, cliFiles: installedCliFiles(), installFiles: installedCodeFiles(install) });
    const plan = boxPlan({ home: h.home, rules, tmpDirs: ['/tmp'] }, h.proj);
    expect(plan.writable).toContain(h.proj);
    expect(plan.readOnly).toContain(join(h.proj, 'node_modules'));
    needsBwrap(ctx, sandbox);
    const r = spawnSync('/bin/bash', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, `echo 'process.exit(1)' >> ${dep}; echo x > src/made.txt`)], { cwd: h.proj, env: { ...process.env, HOME: h.home }, encoding: 'utf8' });
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(dep, 'utf8')).toBe('module.exports = () => true;\n');
    // The rest of the project stays writable.
    expect(readFileSync(join(h.proj, 'src', 'made.txt'), 'utf8')).toBe('x\n');
  });

  // A review planted .husky/pre-commit with an allowed, contained command; the next `git commit` ran it.
  it("keeps the folder a repository's Git config runs hooks from (core.hooksPath: husky's .husky/_ and the scripts it runs) read-only", (ctx) => {
    const h = fakeHome();
    spawnSync('git', ['-C', h.proj, 'config', '--file', join(h.proj, '.git', 'config'), 'core.hooksPath', '.husky/_']);
    put(join(h.proj, '.husky', '_', 'h'), '#!/bin/sh\n');
    put(join(h.proj, '.husky', 'pre-commit'), 'npm test\n');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, h.proj);
    expect(plan.readOnly).toEqual(expect.arrayContaining([join(h.proj, '.husky', '_'), join(h.proj, '.husky')]));
    needsBwrap(ctx, sandbox);
    const r = spawnSync('/bin/bash', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, "printf '#!/bin/sh\\nid\\n' > .husky/pre-commit; echo x > src/made.txt")], { cwd: h.proj, env: { ...process.env, HOME: h.home }, encoding: 'utf8' });
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(h.proj, '.husky', 'pre-commit'), 'utf8')).toBe('npm test\n');
    expect(readFileSync(join(h.proj, 'src', 'made.txt'), 'utf8')).toBe('x\n');
  });

  it('never makes the home writable: a command started in the home gets only the temp folders', () => {
    const h = fakeHome();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, h.home);
    expect(plan.writable).toEqual(['/tmp']);
    expect(plan.notes.join(' ')).toMatch(/is the home or holds it/);
  });

  it('runs a hostile script with its output and exit status unchanged, while credentials, secrets, the data folder, other processes and everything outside the project stay out of reach', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    // The box's temp folder: not /tmp, where this fake home itself lives (a real home is not in a temp folder).
    const scratch = tempDir('gatehouse-box-scratch-');
    // A process outside the box with a secret in its environment (the host, the agent).
    const outside = spawn('sleep', ['60'], { env: { ...process.env, OUTSIDE_SECRET: 'ENVIRON-SECRET' }, stdio: 'ignore' });
    try {
      // A hard link made before the box: it is the same file, so masking by path cannot hide it
      // (the judge recognises it, see policy tests); the box does not claim to.
      const script = [
        'echo start',
        'cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc ~/.docker/config.json ~/.config/chromium/Default/Cookies ~/.config/gh/hosts.yml',
        `cat ${h.gatehouse}/operator-token; ls -A ${h.gatehouse}`,
        'cat .env certs/server.pem deploy/id_ed25519',
        `cat /proc/${outside.pid}/environ`,
        'echo pwned >> ~/.bashrc',
        'mkdir -p ~/.config/autostart && echo x > ~/.config/autostart/x.desktop',
        'echo pwned >> .git/hooks/pre-commit',
        'echo "[core] fsmonitor = evil" >> .git/config',
        'echo made > built.txt',
        `echo scratch > ${scratch}/x && echo tmp-ok`,
        'cat .env.example',
        'echo "GATEHOUSE_TOKEN=${GATEHOUSE_TOKEN:-unset}"',
        'echo end',
        'exit 7',
      ].join('\n');
      put(join(h.proj, 'steal.sh'), script + '\n');
      const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, h.proj);
      const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'sh ./steal.sh');
      // As Claude Code runs a Bash command: the text through the user's shell.
      const r = spawnSync('/bin/bash', ['-c', line], { cwd: h.proj, env: { ...process.env, HOME: h.home, GATEHOUSE_TOKEN: 'TOKEN-SECRET' }, encoding: 'utf8' });
      const all = r.stdout + r.stderr;
      expect(r.status, all).toBe(7);
      expect(r.stdout).toMatch(/^start\n/);
      expect(r.stdout).toMatch(/\nend\n$/);
      expect(all).not.toMatch(/SECRET/);
      expect(r.stdout).toContain('GATEHOUSE_TOKEN=unset');
      expect(r.stdout).toContain('tmp-ok');
      expect(r.stdout).toContain('API_KEY=\n');
      expect(readFileSync(join(h.home, '.bashrc'), 'utf8')).toBe('export ORIGINAL=1\n');
      expect(() => readFileSync(join(h.home, '.config', 'autostart', 'x.desktop'))).toThrow();
      expect(() => readFileSync(join(h.proj, '.git', 'hooks', 'pre-commit'))).toThrow();
      expect(readFileSync(join(h.proj, '.git', 'config'), 'utf8')).toBe('[core]\n');
      expect(readFileSync(join(h.proj, 'built.txt'), 'utf8')).toBe('made\n');
      // Files are untouched outside the box too.
      expect(readFileSync(join(h.home, '.ssh', 'id_rsa'), 'utf8')).toBe('SSH-SECRET\n');
    } finally {
      outside.kill();
    }
  });

  it("masks other programs' control sockets: a same-user tmux server (its socket under the writable /tmp) cannot be told to run a command outside the box", (ctx) => {
    needsBwrap(ctx, sandbox);
    if (spawnSync('/bin/sh', ['-c', 'command -v tmux']).status !== 0) return ctx.skip('tmux is not installed: the same-user socket case needs a real tmux server');
    const h = fakeHome();
    // The operator's tmux on its default socket folder (/tmp/tmux-UID), under a name of this test's own.
    const name = `gatehouse-box-${process.pid}`;
    const started = spawnSync('tmux', ['-L', name, 'new-session', '-d', 'sleep 600'], { encoding: 'utf8' });
    expect(started.status, started.stderr).toBe(0);
    try {
      const bashrc = join(h.home, '.bashrc');
      const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, h.proj);
      expect(plan.maskedDirs).toContain(`/tmp/tmux-${process.getuid!()}`);
      // Inside the box the home is read-only; through the tmux server the write would happen outside.
      const script = `echo inside >> ${bashrc}; tmux -L ${name} run-shell 'echo pwned >> ${bashrc}'; echo "TMUX=\${TMUX:-unset} DISPLAY=\${DISPLAY:-unset}"`;
      const r = spawnSync('/bin/bash', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, script)], { cwd: h.proj, env: { ...process.env, HOME: h.home, TMUX: `/tmp/tmux-${process.getuid!()}/${name},1,0`, DISPLAY: ':0' }, encoding: 'utf8' });
      expect(r.stderr).toMatch(/Read-only file system/);
      // tmux finds an empty, read-only folder where its socket was ("unsafe permissions"): no server to reach.
      expect(r.stderr).toMatch(/tmux-\d+ has unsafe permissions|no server running|error connecting/);
      expect(r.stdout).toContain('TMUX=unset DISPLAY=unset');
      expect(readFileSync(bashrc, 'utf8'), 'a contained command ran code outside the box through the tmux socket').toBe('export ORIGINAL=1\n');
      // The server itself is untouched: still there for the operator.
      expect(spawnSync('tmux', ['-L', name, 'has-session']).status).toBe(0);
    } finally {
      spawnSync('tmux', ['-L', name, 'kill-server']);
    }
  });

  it('keeps a contained command from sockets in the abstract namespace (an X server\'s @/tmp/.X11-unix/X0 has no path to mask) where Landlock can scope them; without the scope it connects', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const scope = await installScope(tempDir('gatehouse-scope-'));
    if (!scope.ok) return ctx.skip(`no Landlock scope here: ${scope.reason}`);
    // A listener of the user's session on an abstract name, as an X server has.
    const name = `gatehouse-test-x11-${process.pid}`;
    const server = createServer((c) => c.end('welcome\n'));
    await new Promise<void>((done) => server.listen(`\0${name}`, done));
    try {
      const h = fakeHome();
      const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, h.proj);
      const probe = `${shellQuote(process.execPath)} -e ${shellQuote(`require('net').connect('\\0${name}').on('data', (d) => console.log(String(d).trim())).on('error', (e) => console.log(e.code))`)}`;
      const boxed = async (box: BoxProgram) => {
        const child = spawn('/bin/bash', ['-c', boxedCommandLine(box, plan, probe)], { cwd: h.proj, env: { ...process.env, HOME: h.home } });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        await new Promise((done) => child.on('close', done));
        return out;
      };
      expect(await boxed({ kind: 'bwrap', path: sandbox.path }), 'the box alone must reach the socket, or this test proves nothing').toBe('welcome\n');
      expect(await boxed({ kind: 'bwrap', path: sandbox.path, scope: scope.path })).toBe('EPERM\n');
    } finally {
      server.close();
    }
  });

  it('where the kernel cannot scope them (Landlock before ABI 6), the box runs as before and says these sockets stay reachable', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    const box = join(h.gatehouse, 'box');
    const built = await installScope(box);
    if (!built.ok) return ctx.skip(`no Landlock scope here: ${built.reason}`);
    // The fault, which this kernel cannot give: the helper as an older kernel answers it (its ruleset refused).
    writeFileSync(built.path, '#!/bin/sh\necho "gatehouse: the box could not be scoped (Landlock: Argument list too long); the command was not run" >&2\nexit 126\n');
    const containment = new Containment({ home: h.home, gatehouseHome: h.gatehouse, pluginDirs: () => [], when: () => ['full'], detect: () => sandbox });
    await containment.ready();
    expect(containment.status()).toMatchObject({
      available: true,
      scoped: false,
      detail: expect.stringContaining("Sockets in the abstract namespace (an X server, a session bus) stay reachable: this kernel's Landlock cannot scope them (Argument list too long)"),
    });
    const call: ToolCall = { id: 'c1', agent: 'claude-code', session: 's1', tool: 'Bash', arguments: { command: 'echo inside' }, cwd: h.proj, source: 'hook', receivedAt: Date.now() };
    const verdict = await containment.decide(call, { kind: 'autonomy', level: 'full' });
    expect(verdict).toMatchObject({ contained: true });
    const line = (verdict as { command: string }).command;
    expect(line).not.toContain(built.path);
    expect(spawnSync('/bin/bash', ['-c', line], { cwd: h.proj, env: { ...process.env, HOME: h.home }, encoding: 'utf8' }).stdout).toBe('inside\n');
  });

  it('finds out which box this machine has without holding the event loop (the first time in a data folder it also builds the Landlock helper)', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    const containment = new Containment({ home: h.home, gatehouseHome: h.gatehouse, pluginDirs: () => [], when: () => ['full'], detect: () => sandbox });
    expect(containment.status(), 'not known before the probe').toBeUndefined();
    // Two bubblewrap runs at least, and the helper's build where there is a compiler: a timer
    // keeps firing meanwhile. Run synchronously (spawnSync, as it was), it never fired at all.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 2);
    try {
      await containment.ready();
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(2);
    expect(containment.status()).toMatchObject({ available: true, box: 'bwrap' });
  });

  it('a probe that fails (its data folder cannot be written) denies the call that asked, and the next call tries again', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    // The fault: a file where the box's folder (its check and Landlock helper) goes.
    const boxDir = join(h.gatehouse, 'box');
    writeFileSync(boxDir, 'not a folder\n');
    const containment = new Containment({ home: h.home, gatehouseHome: h.gatehouse, pluginDirs: () => [], when: () => ['full'], detect: () => sandbox });
    const call: ToolCall = { id: 'c1', agent: 'claude-code', session: 's1', tool: 'Bash', arguments: { command: 'echo inside' }, cwd: h.proj, source: 'hook', receivedAt: Date.now() };
    await expect(containment.decide(call, { kind: 'autonomy', level: 'full' })).rejects.toThrow();
    rmSync(boxDir);
    await expect(containment.decide(call, { kind: 'autonomy', level: 'full' })).resolves.toMatchObject({ contained: true });
  });

  // The agent's shell runs the box after Gatehouse answered; bwrap follows links on the host for a
  // bind's source and inside for its target. A concurrent command from the folder above (allowed
  // at full autonomy) swapped the project for `proj -> ..` in between, and the box had the whole
  // home writable: a review wrote ~/.bashrc from it.
  it('refuses to run when the box came out writable where the plan did not say (the project swapped for a link to its parent after the plan), and names the place', (ctx) => {
    needsBwrap(ctx, sandbox);
    // A project with nothing read-only inside it (no .git): every bind of the plan exists again
    // under the link's target, so bwrap builds the box without complaint.
    const root = tempDir('gatehouse-box-swap-');
    const h = { home: join(root, 'home'), proj: join(root, 'home', 'work', 'proj'), gatehouse: join(root, 'home', '.config', 'gatehouse') };
    put(join(h.home, '.bashrc'), 'export ORIGINAL=1\n');
    put(join(h.proj, 'src', 'index.ts'), 'export {};\n');
    mkdirSync(h.gatehouse, { recursive: true });
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [] }, h.proj);
    expect(plan.readOnly.filter((p) => p.startsWith(h.proj))).toEqual([]);
    const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, `echo PWNED >> ${shellQuote(join(h.home, '.bashrc'))}; echo ran`);
    const run = () => spawnSync('/bin/bash', ['-c', line], { cwd: '/', env: { ...process.env, HOME: h.home }, encoding: 'utf8' });
    // As planned: the command runs (and cannot write the home: read-only there).
    const honest = run();
    expect(honest.stdout).toBe('ran\n');
    expect(readFileSync(join(h.home, '.bashrc'), 'utf8')).toBe('export ORIGINAL=1\n');
    renameSync(h.proj, `${h.proj}.away`);
    symlinkSync('..', h.proj);
    const swapped = run();
    expect(swapped.status, swapped.stderr).toBe(126);
    expect(swapped.stdout).toBe('');
    expect(swapped.stderr).toContain(`gatehouse-box: not run: the box is not as planned at ( ${h.home})`);
    expect(readFileSync(join(h.home, '.bashrc'), 'utf8')).toBe('export ORIGINAL=1\n');
  });

  it('documents its one blind spot: a hard link made beforehand is the same file (the judge, not the box, recognises it)', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    linkSync(join(h.home, '.ssh', 'id_rsa'), join(h.proj, 'notes.bak'));
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: ['/tmp'] }, h.proj);
    const r = spawnSync('/bin/bash', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'cat notes.bak')], { cwd: h.proj, encoding: 'utf8' });
    expect(r.stdout).toBe('SSH-SECRET\n');
  });

  it('writes the same box as a Seatbelt profile for macOS: writes only in the writable folders, read-only and masked places denied', (ctx) => {
    const plan = { cwd: '/Users/u/proj', writable: ['/Users/u/proj', '/tmp'], readOnly: ['/Users/u/proj/.git/hooks'], pinned: [], gitDirs: ['/Users/u/proj/.git'], maskedDirs: ['/Users/u/.ssh', '/Users/u/Library/Application Support/Gatehouse'], maskedFiles: ['/Users/u/proj/.env', '/Users/u/.netrc'], notes: [], settings: { dirs: [], names: [] } };
    const profile = seatbeltProfile(plan);
    expect(profile.split('\n')[0]).toBe('(version 1)');
    expect(profile).toContain('(allow default)');
    expect(profile).toMatch(/\(deny file-write\* \(require-not \(require-any \(subpath "\/Users\/u\/proj"\) \(subpath "\/tmp"\) \(subpath "\/private\/tmp"\)/);
    expect(profile).toContain('(deny file-write* (subpath "/Users/u/proj/.git/hooks"))');
    // The agents' settings, missing ones too: a rule by path stops a program left running after the check as well.
    const withSettings = seatbeltProfile({ ...plan, settings: { dirs: ['/Users/u/proj/sub', '/Users/u/proj'], names: ['.claude/settings.json', '.github/hooks'] } });
    expect(withSettings).toContain('(deny file-write* (subpath "/Users/u/proj/.git/hooks") (subpath "/Users/u/proj/sub/.claude/settings.json") (subpath "/Users/u/proj/sub/.github/hooks") (subpath "/Users/u/proj/.claude/settings.json") (subpath "/Users/u/proj/.github/hooks"))');
    // Under /tmp, by the path Seatbelt sees too (/tmp is a link to /private/tmp there).
    expect(seatbeltProfile({ ...plan, settings: { dirs: ['/tmp/p'], names: ['.claude/settings.json'] } })).toContain('(subpath "/tmp/p/.claude/settings.json") (subpath "/private/tmp/p/.claude/settings.json")');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/Users/u/.ssh") (subpath "/Users/u/Library/Application Support/Gatehouse") (literal "/Users/u/proj/.env") (literal "/Users/u/.netrc"))');
    const line = boxedCommandLine({ kind: 'seatbelt', path: '/usr/bin/sandbox-exec' }, plan, 'npm test', '/bin/bash');
    // The same check around it as around bubblewrap (see "the Git files that move configuration").
    expect(line).toMatch(/^\/bin\/sh -c '.*' gatehouse-box '' 1 \/Users\/u\/proj\/\.git '' '' \/usr\/bin\/sandbox-exec -p '\(version 1\)\n/s);
    expect(line.endsWith(" /bin/bash -c 'npm test'")).toBe(true);
    if (process.platform !== 'darwin') return ctx.skip('sandbox-exec runs only on macOS; the profile text is checked above');
    const r = spawnSync('/bin/bash', ['-c', boxedCommandLine({ kind: 'seatbelt', path: '/usr/bin/sandbox-exec' }, { ...plan, writable: ['/tmp'] }, 'echo ok')], { encoding: 'utf8' });
    expect(r.stdout).toBe('ok\n');
  });
});

// 60 s, not the suite's 20: several of these make the check slow with 20,000 new files (twice, with
// the fault shown first), and on a virtual disk where creating a file takes ~1 ms (seen on CI's
// machine) that alone is 20-40 s of a test's time, however fast Gatehouse's own part is.
describe('the box: the Git files that move configuration (created inside, removed after)', { timeout: 60_000 }, () => {
  /** Git as the user runs it outside the box: their home, no system config. */
  const gitEnv = (home: string) => ({ ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
  function git(cwd: string, home: string, ...args: string[]) {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, env: gitEnv(home), encoding: 'utf8' });
    expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r.stdout;
  }
  /** A real repository with one commit, in a fake home; `marker` is what the planted fsmonitor writes. */
  function realRepo(dir: (h: ReturnType<typeof fakeHome>) => string = (h) => join(h.home, 'work', 'real')) {
    const h = fakeHome();
    const repo = dir(h);
    mkdirSync(repo, { recursive: true });
    git(repo, h.home, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README'), 'hello\n');
    git(repo, h.home, 'add', 'README');
    git(repo, h.home, 'commit', '-qm', 'first');
    return { h, repo, marker: join(h.root, 'MARKER') };
  }
  /**
   * The attack: a folder of the command's own with a copy of the repository and a config whose
   * core.fsmonitor is a script, and `.git/commondir` naming it. Git outside reads its config
   * (and runs the script) at the next `git status`.
   */
  const plant = (marker: string) =>
    [
      'mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/',
      `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %s/evil/mon.sh\\n' "$PWD" > evil/config`,
      `printf '#!/bin/sh\\necho ran > %s\\n' ${shellQuote(marker)} > evil/mon.sh && chmod +x evil/mon.sh`,
      'echo ../evil > .git/commondir && echo planted',
    ].join('\n');
  const run = (line: string, cwd: string, home: string) => spawnSync('sh', ['-c', line], { cwd, env: gitEnv(home), encoding: 'utf8' });
  /**
   * The fault, in the same box with no check around it: the command prints `said`, and Git run
   * outside afterwards (`git status`) runs what it planted, or the test proves nothing.
   */
  const faultWithoutCheck = (w: { h: ReturnType<typeof fakeHome>; repo: string; marker: string }, command: (marker: string) => string, said: string) => {
    if (sandbox.kind !== 'bwrap') throw new Error('called only where bwrap runs');
    const plan = boxPlan({ home: w.h.home, rules: rulesFor(w.h.home, w.h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, w.repo);
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', command(w.marker)], { cwd: w.repo, env: gitEnv(w.h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe(said);
    git(w.repo, w.h.home, 'status', '--porcelain');
    expect(existsSync(w.marker), 'the attack must work without the check, or this test proves nothing').toBe(true);
  };
  const gatehouseLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('gatehouse:'));
  /**
   * A repository with one empty commit at `root/NAME`, added to `repo` as a submodule at each of
   * `paths` and committed (checked out, their git folders under .git/modules).
   */
  function addSubmodules(h: ReturnType<typeof fakeHome>, repo: string, paths: string[], name = 'up') {
    const up = join(h.root, name);
    mkdirSync(up);
    git(up, h.home, 'init', '-q', '-b', 'main');
    git(up, h.home, 'commit', '-q', '--allow-empty', '-m', name);
    for (const s of paths) git(repo, h.home, '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', up, s);
    git(repo, h.home, 'commit', '-qm', 'submodules');
  }

  it('a planted .git/commondir is removed after the box exits (stderr names it, status non-zero), so `git status` outside does not run its fsmonitor; without the check it does', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const scratch = tempDir('gatehouse-box-scratch-');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, repo);
    expect(plan.gitDirs).toEqual([join(repo, '.git')]);
    expect(plan.pinned).toContain(join(repo, '.git'));

    // The fault, with the same box and no check around it: Git outside runs the planted script.
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', plant(marker)], { cwd: repo, env: gitEnv(h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('planted\n');
    git(repo, h.home, 'status', '--porcelain');
    expect(readFileSync(marker, 'utf8'), 'the attack must work without the check, or this test proves nothing').toBe('ran\n');
    spawnSync('rm', ['-rf', join(repo, '.git', 'commondir'), join(repo, 'evil'), marker]);

    // The command line Gatehouse answers with.
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, plant(marker)), repo, h.home);
    expect(r.stdout).toBe('planted\n');
    expect(r.status, 'the command exited 0, but a file it made was removed').toBe(1);
    const said = gatehouseLines(r.stderr);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`^gatehouse: removed ${join(repo, '.git', 'commondir').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: created in a Git folder by the contained command`));
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
    expect(git(repo, h.home, 'status', '--porcelain')).toBe('?? evil/\n');
    expect(existsSync(marker), 'git status outside the box ran the planted fsmonitor').toBe(false);
  });

  it('leaves what existed alone, keeps a failing status, and removes links (not what they point to), odd names and a hundred entries; .git cannot be renamed away', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const scratch = tempDir('gatehouse-box-scratch-');
    const gitDir = join(repo, '.git');
    // Before the box: a commondir (naming the folder itself) and a linked worktree, whose git
    // folder has one too.
    writeFileSync(join(gitDir, 'commondir'), '.\n');
    git(repo, h.home, 'worktree', 'add', '-q', join(h.home, 'work', 'wt'));
    const outsideFile = join(h.home, 'keep.txt');
    const outsideDir = join(h.home, 'keepdir');
    put(outsideFile, 'keep\n');
    put(join(outsideDir, 'inner.txt'), 'keep\n');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, repo);
    expect(plan.readOnly).toEqual(expect.arrayContaining([join(gitDir, 'commondir'), join(gitDir, 'worktrees', 'wt', 'commondir')]));
    expect(plan.gitDirs).toEqual(expect.arrayContaining([gitDir, join(gitDir, 'worktrees', 'wt')]));
    const inner = [
      'exec 2>/dev/null',
      'echo ../evil > .git/commondir',
      'echo ../evil > .git/worktrees/wt/commondir',
      'mv .git .git-old; mv .git/worktrees .git/wt-old; mv .git/worktrees/wt .git/worktrees/wt-old',
      `ln -s ${shellQuote(outsideFile)} .git/config.worktree`,
      `ln -s ${shellQuote(outsideDir)} .git/worktrees/lnk`,
      'echo "[core] fsmonitor = x" > .git/worktrees/wt/config.worktree',
      `mkdir -p .git/modules/"$(printf 'a\\nb c')"/hooks && echo '[core] fsmonitor = x' > .git/modules/"$(printf 'a\\nb c')"/config`,
      `mkdir ".git/worktrees/-rf $(printf '\\033[31m')*" ".git/worktrees/$(printf 'x\\ny')"`,
      'i=0; while [ $i -lt 100 ]; do mkdir .git/worktrees/n$i; echo x > .git/worktrees/n$i/commondir; i=$((i + 1)); done',
      'echo done',
      'exit 3',
    ].join('\n');
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, inner), repo, h.home);
    expect(r.stdout).toBe('done\n');
    expect(r.status, 'the command\'s own failing status is kept').toBe(3);
    // One line, no control characters from the names in it: config.worktree, lnk, modules, the
    // two odd names and the 100 (the first five named).
    expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^gatehouse: removed \/.* and 101 more: created in a Git folder/);
    expect([...r.stderr.trimEnd()].filter((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)).toEqual([]);
    expect(readFileSync(join(gitDir, 'commondir'), 'utf8')).toBe('.\n');
    expect(readFileSync(join(gitDir, 'worktrees', 'wt', 'commondir'), 'utf8')).toMatch(/^\.\.\/\.\.\n?$/);
    expect(existsSync(join(repo, '.git-old')) || existsSync(join(gitDir, 'wt-old')) || existsSync(join(gitDir, 'worktrees', 'wt-old'))).toBe(false);
    for (const gone of ['config.worktree', 'modules', 'worktrees/lnk', 'worktrees/wt/config.worktree', 'worktrees/n0', 'worktrees/n99']) {
      expect(() => lstatSync(join(gitDir, gone)), gone).toThrow();
    }
    expect(readFileSync(outsideFile, 'utf8')).toBe('keep\n');
    expect(readFileSync(join(outsideDir, 'inner.txt'), 'utf8')).toBe('keep\n');
    // Git outside: the repository and its worktree work, and nothing planted runs.
    expect(git(repo, h.home, 'worktree', 'list', '--porcelain')).toContain(`worktree ${join(h.home, 'work', 'wt')}\n`);
    git(join(h.home, 'work', 'wt'), h.home, 'status', '--porcelain');
    expect(existsSync(marker)).toBe(false);
  });

  it('a .git the command made read-only once it had planted a commondir, or made a repository at the top of the project (a user, not root: root writes anyway), does not keep the check from removing or setting aside; without that Git outside runs the fsmonitor or hook named', (ctx) => {
    needsBwrap(ctx, sandbox);
    const root = process.getuid?.() === 0;
    if (root && spawnSync('setpriv', ['--version']).status !== 0) return ctx.skip('running as root, with no setpriv to run as a user');
    /** `argv` as a user: this one, or nobody (65534) when this is root. */
    const asUser = (argv: string[]) => (root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--', ...argv] : argv);
    const world = () => {
      const w = realRepo();
      if (root) expect(spawnSync('chown', ['-R', '65534:65534', w.h.root]).status).toBe(0);
      return w;
    };
    const userGit = (w: { h: ReturnType<typeof fakeHome>; repo: string }, ...args: string[]) => {
      const argv = asUser(['git', ...args]);
      const r = spawnSync(argv[0]!, argv.slice(1), { cwd: w.repo, env: gitEnv(w.h.home), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const attack = (marker: string) => `${plant(marker)}\nchmod a-w .git`;
    const boxed = (w: { h: ReturnType<typeof fakeHome>; repo: string; marker: string }, command = attack(w.marker)) => {
      const box = join(w.h.gatehouse, 'box');
      const checkFile = installBoxCheck(box);
      if (root) expect(spawnSync('chown', ['-R', '65534:65534', box]).status).toBe(0);
      const plan = boxPlan({ home: w.h.home, rules: rulesFor(w.h.home, w.h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, w.repo);
      const argv = asUser(['sh', '-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, command, undefined, checkFile)]);
      return spawnSync(argv[0]!, argv.slice(1), { cwd: w.repo, env: gitEnv(w.h.home), encoding: 'utf8' });
    };
    const w = world();
    const r = boxed(w);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    userGit(w, 'status', '--porcelain');
    expect(existsSync(w.marker), 'git status outside the box ran the fsmonitor of the config commondir named').toBe(false);
    expect(existsSync(join(w.repo, '.git', 'commondir'))).toBe(false);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: removed \/.*\/\.git\/commondir: created in a Git folder/)]);

    // The same for a repository the command makes at the top of a project that had none: its
    // hooks are set aside though the command made its .git read-only (then at the latest when the
    // user makes it writable again to commit, the hook would run).
    const h = fakeHome();
    const proj = join(h.home, 'work', 'plain');
    mkdirSync(proj, { recursive: true });
    const fresh = { h, repo: proj, marker: join(h.root, 'MARKER') };
    if (root) expect(spawnSync('chown', ['-R', '65534:65534', h.root]).status).toBe(0);
    const made = boxed(fresh, `git init -q && printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(fresh.marker)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && chmod a-w .git && echo made`);
    expect(made.stdout, made.stderr).toBe('made\n');
    const chmod = asUser(['chmod', 'u+w', join(proj, '.git')]);
    expect(spawnSync(chmod[0]!, chmod.slice(1)).status).toBe(0);
    userGit(fresh, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'next');
    expect(existsSync(fresh.marker), 'git commit outside the box ran the hook of the new repository').toBe(false);
    expect(gatehouseLines(made.stderr)).toEqual([expect.stringMatching(/^gatehouse: set aside: a Git repository the contained command made at the top of the project/)]);
  });

  it('a linked worktree (.git is a file): the file stays as it is, its git folder (writable here) keeps its commondir and loses a config.worktree it gained', (ctx) => {
    needsBwrap(ctx, sandbox);
    const scratch = tempDir('gatehouse-box-scratch-');
    // The main repository in a temp folder (writable in the box), the worktree in the home.
    const { h, repo, marker } = realRepo(() => join(scratch, 'main'));
    const wt = join(h.home, 'work', 'wt');
    git(repo, h.home, 'worktree', 'add', '-q', wt);
    const wtGit = join(repo, '.git', 'worktrees', 'wt');
    const pointer = readFileSync(join(wt, '.git'), 'utf8');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, wt);
    expect(plan.readOnly).toEqual(expect.arrayContaining([join(wt, '.git'), join(wtGit, 'commondir')]));
    expect(plan.gitDirs).toEqual([wtGit]);
    const inner = [
      'exec 2>/dev/null',
      `echo 'gitdir: ${scratch}/evil' > .git; mv .git .git-old; rm -f .git`,
      `echo ../evil > ${shellQuote(wtGit)}/commondir`,
      `echo '[core] fsmonitor = x' > ${shellQuote(wtGit)}/config.worktree`,
    ].join('\n');
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, inner), wt, h.home);
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringContaining(`removed ${join(wtGit, 'config.worktree')}:`)]);
    expect(readFileSync(join(wt, '.git'), 'utf8')).toBe(pointer);
    expect(readFileSync(join(wtGit, 'commondir'), 'utf8')).toMatch(/^\.\.\/\.\.\n?$/);
    expect(existsSync(join(wtGit, 'config.worktree'))).toBe(false);
    git(wt, h.home, 'status', '--porcelain');
    expect(existsSync(marker)).toBe(false);
  });

  it('a project with no Git folder gets the check for a repository made at its top; with no project to write (only temp folders), the box alone', () => {
    const dir = tempDir('gatehouse-box-plain-');
    put(join(dir, 'src', 'a.js'), 'x\n');
    const plan = boxPlan({ home: '/nonexistent-home', rules: [], tmpDirs: [] }, dir);
    expect(plan.writable).toEqual([dir]);
    expect(plan.gitDirs).toEqual([]);
    expect(plan.top).toBe(dir);
    // The command runs after the box's own check of its mounts (BOX_VERIFY_SCRIPT): the shell, the command, the places it may write.
    expect(boxedCommandLine({ kind: 'bwrap', path: '/usr/bin/bwrap' }, plan, 'true', '/bin/sh')).toMatch(new RegExp(`^/bin/sh -c '.*' gatehouse-box ${dir} 0 ${dir}// '' /usr/bin/bwrap .* -- /bin/sh -c '.*' gatehouse-box - '.*' '.*' 3 ${dir} /dev /proc /bin/sh -c true$`, 's'));
    const home = tempDir('gatehouse-box-home-');
    const inHome = boxPlan({ home, rules: [], tmpDirs: [] }, home);
    expect(inHome.top).toBeUndefined();
    expect(boxedCommandLine({ kind: 'bwrap', path: '/usr/bin/bwrap' }, inHome, 'true', '/bin/sh')).toMatch(/^\/usr\/bin\/bwrap .* -- \/bin\/sh -c '.*' gatehouse-box - '.*' '.*' 2 \/dev \/proc \/bin\/sh -c true$/s);
  });

  it('a repository the command makes at the top of a project that had none gets its configuration and hooks set aside after the box exits, so `git status` and `git commit` outside run neither; without the check they do', (ctx) => {
    needsBwrap(ctx, sandbox);
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q';
    /** The attack: `git init` with a core.fsmonitor in its config and a pre-commit hook, both writing the marker. */
    const attack = (marker: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
        'git init -q && git config core.fsmonitor "$PWD/mon.sh" && cp mon.sh .git/hooks/pre-commit',
        `echo hi > a.txt && git add a.txt && ${commit} --no-verify -m first && echo made`,
      ].join('\n');
    const world = () => {
      const h = fakeHome();
      const proj = join(h.home, 'work', 'plain');
      mkdirSync(proj, { recursive: true });
      return { h, proj, marker: join(h.root, 'MARKER'), scratch: tempDir('gatehouse-box-scratch-') };
    };

    // The fault, with the same box and no check around it.
    const b = world();
    const barePlan = boxPlan({ home: b.h.home, rules: rulesFor(b.h.home, b.h.gatehouse), tmpDirs: [b.scratch] }, b.proj);
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(barePlan), '--', '/bin/sh', '-c', attack(b.marker)], { cwd: b.proj, env: gitEnv(b.h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('made\n');
    git(b.proj, b.h.home, 'status', '--porcelain');
    expect(existsSync(b.marker), 'the attack must work without the check, or this test proves nothing').toBe(true);

    // The command line Gatehouse answers with.
    const { h, proj, marker, scratch } = world();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, proj);
    expect(plan.gitDirs).toEqual([]);
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker)), proj, h.home);
    expect(r.stdout, r.stderr).toBe('made\n');
    expect(r.status, 'the command exited 0, but what it made was set aside').toBe(1);
    const said = gatehouseLines(r.stderr);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`gatehouse: set aside: a Git repository the contained command made at the top of the project, the configuration and hooks of ${join(proj, '.git', 'config')} ${join(proj, '.git', 'hooks')}`);
    // Set aside, not lost: the repository, its commit and what the command configured are there to look at.
    expect(readFileSync(join(proj, '.git', 'config.gatehouse-held'), 'utf8')).toContain('fsmonitor');
    expect(existsSync(join(proj, '.git', 'hooks.gatehouse-held', 'pre-commit'))).toBe(true);
    expect(readFileSync(join(proj, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(git(proj, h.home, 'log', '-1', '--format=%s')).toBe('first\n');
    git(proj, h.home, 'status', '--porcelain');
    writeFileSync(join(proj, 'b.txt'), 'more\n');
    git(proj, h.home, 'add', 'b.txt');
    git(proj, h.home, 'commit', '-qm', 'second');
    expect(existsSync(marker), 'Git outside the box ran what the contained command configured').toBe(false);

    // What `git init` writes, a commit and a remote: kept as they are, and nothing said.
    const p = world();
    const plainPlan = boxPlan({ home: p.h.home, rules: rulesFor(p.h.home, p.h.gatehouse), tmpDirs: [p.scratch] }, p.proj);
    const plain = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plainPlan, `git init -q && git remote add origin https://example.com/x.git && echo hi > a.txt && git add a.txt && ${commit} -m first && echo made`), p.proj, p.h.home);
    expect(plain.stdout, plain.stderr).toBe('made\n');
    expect(plain.status).toBe(0);
    expect(gatehouseLines(plain.stderr)).toEqual([]);
    expect(git(p.proj, p.h.home, 'remote', 'get-url', 'origin')).toBe('https://example.com/x.git\n');
    expect(existsSync(join(p.proj, '.git', 'config.gatehouse-held'))).toBe(false);

    // A `.git` file naming a Git folder elsewhere (the temp folder, writable in the box) is removed.
    const w = world();
    const filePlan = boxPlan({ home: w.h.home, rules: rulesFor(w.h.home, w.h.gatehouse), tmpDirs: [w.scratch] }, w.proj);
    const elsewhere = join(w.scratch, 'evil.git');
    const r2 = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, filePlan, `git init -q --bare ${shellQuote(elsewhere)} && echo "gitdir: ${elsewhere}" > .git && echo made`), w.proj, w.h.home);
    expect(r2.stdout, r2.stderr).toBe('made\n');
    expect(r2.status).toBe(1);
    expect(gatehouseLines(r2.stderr)[0]).toContain(`${join(w.proj, '.git')} (not a folder: a link or a file naming a Git folder elsewhere) removed`);
    expect(existsSync(join(w.proj, '.git'))).toBe(false);
  });

  it('the check is installed in the data folder under its content hash, written again when changed, and named by the command line', () => {
    const dir = join(tempDir('gatehouse-box-install-'), 'box');
    const file = installBoxCheck(dir);
    expect(file).toMatch(/\/box-check-[0-9a-f]{16}\.sh$/);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^if \[ "\$1" = --recover \]; then /);
    writeFileSync(file, 'echo tampered\n');
    expect(installBoxCheck(dir)).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const plan = boxPlan({ home: '/nonexistent-home', rules: [], tmpDirs: [] }, tempDir('gatehouse-box-plain-'));
    const line = boxedCommandLine({ kind: 'bwrap', path: '/usr/bin/bwrap' }, plan, 'true', '/bin/sh', file);
    expect(line.startsWith(`/bin/sh ${file} ${plan.top} 0 ${plan.top}// '' /usr/bin/bwrap `)).toBe(true);
    expect(line.length).toBeLessThan(text.length);
  });

  it("the check's own programs come from a fixed PATH: an ls the command put in a project folder on the agent's PATH is not run outside the box, and the command still gets the agent's PATH", (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    // A submodule, so that the check lists its path's .git with ls before the box.
    git(repo, h.home, 'init', '-q', 'old');
    git(join(repo, 'old'), h.home, 'commit', '-q', '--allow-empty', '-m', 'old');
    git(repo, h.home, 'add', 'old');
    git(repo, h.home, 'commit', '-qm', 'with old');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const line = (command: string) => boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, command, undefined, installBoxCheck(join(h.gatehouse, 'box')));
    const agentPath = `${join(repo, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`;
    const asAgent = (command: string) => spawnSync('sh', ['-c', line(command)], { cwd: repo, env: { ...gitEnv(h.home), PATH: agentPath }, encoding: 'utf8' });
    const planted = asAgent(`mkdir -p bin && printf '#!/bin/sh\\necho ran >> %s\\nexec /bin/ls "$@"\\n' ${shellQuote(marker)} > bin/ls && chmod +x bin/ls && echo planted`);
    expect(planted.stdout, planted.stderr).toBe('planted\n');
    const next = asAgent('echo "$PATH"');
    expect(next.stdout).toBe(`${agentPath}\n`);
    expect(next.status, next.stderr).toBe(0);
    expect(existsSync(marker), 'the check ran the ls the command planted, outside the box').toBe(false);
  });

  it('a normal contained `git commit` works, and says nothing', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    const scratch = tempDir('gatehouse-box-scratch-');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, repo);
    const inner = "echo more >> README && git add README && git -c user.name=t -c user.email=t@example.com commit -qm 'in the box' && git log -1 --format=%s";
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, inner), repo, h.home);
    expect(r.stdout, r.stderr).toBe('in the box\n');
    expect(r.status).toBe(0);
    expect(gatehouseLines(r.stderr)).toEqual([]);
    expect(git(repo, h.home, 'log', '-1', '--format=%s')).toBe('in the box\n');
    expect(git(repo, h.home, 'status', '--porcelain')).toBe('');
  });

  it('a repository the command adds inside the project (git init sub; git add sub) is taken out of the index after the box exits, so `git status` outside does not run its fsmonitor; without the check it does; an existing submodule bumped and other staged files stay', (ctx) => {
    needsBwrap(ctx, sandbox);
    const commit = "git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m";
    /**
     * The attack: a new repository in the work tree whose config names a script as its
     * core.fsmonitor, added to the parent's index as a gitlink. Git outside, on `git status`,
     * runs `git status` in it, and so the script. One more under a name with a newline.
     */
    const attack = (marker: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
        `for d in sub "$(printf 'odd\\nname')"; do git init -q "$d" && (cd "$d" && ${commit} s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add "$d" 2>/dev/null; done`,
        `echo more >> README && git add README && (cd old && ${commit} bump) && git add old && echo added`,
        // A lock left on the index, so that changing it fails (Git outside still reads it).
        ': > .git/index.lock',
      ].join('\n');
    /** A repository with a submodule-like nested repository `old` committed as a gitlink before the box. */
    const withOld = () => {
      const r = realRepo();
      git(join(r.repo), r.h.home, 'init', '-q', 'old');
      git(join(r.repo, 'old'), r.h.home, 'commit', '-q', '--allow-empty', '-m', 'old');
      git(r.repo, r.h.home, 'add', 'old');
      git(r.repo, r.h.home, 'commit', '-qm', 'with old');
      return r;
    };
    const gitlinks = (repo: string, home: string) =>
      git(repo, home, 'ls-files', '-s')
        .split('\n')
        .filter((l) => l.startsWith('160000 '))
        .map((l) => l.split('\t')[1]);

    // The fault, with the same box and no check around it: Git outside runs the new repository's fsmonitor.
    const bareWorld = withOld();
    const bareScratch = tempDir('gatehouse-box-scratch-');
    const barePlan = boxPlan({ home: bareWorld.h.home, rules: rulesFor(bareWorld.h.home, bareWorld.h.gatehouse), tmpDirs: [bareScratch] }, bareWorld.repo);
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(barePlan), '--', '/bin/sh', '-c', attack(bareWorld.marker)], { cwd: bareWorld.repo, env: gitEnv(bareWorld.h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('added\n');
    git(bareWorld.repo, bareWorld.h.home, 'status', '--porcelain');
    expect(existsSync(bareWorld.marker), 'the attack must work without the check, or this test proves nothing').toBe(true);

    // The command line Gatehouse answers with.
    const { h, repo, marker } = withOld();
    const scratch = tempDir('gatehouse-box-scratch-');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, repo);
    expect(plan.gitDirs).toEqual(expect.arrayContaining([join(repo, '.git'), join(repo, 'old', '.git')]));
    const oldBefore = git(repo, h.home, 'ls-files', '-s', 'old');
    // As the host answers: the check from its file in the data folder.
    const checkFile = installBoxCheck(join(h.gatehouse, 'box'));
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker), undefined, checkFile), repo, h.home);
    expect(r.stdout, r.stderr).toBe('added\n');
    expect(r.status, 'the command exited 0, but what it added to the index was taken out').toBe(1);
    const said = gatehouseLines(r.stderr);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^gatehouse: took out of Git's index "odd\\nname" sub: repositories the contained command added inside the project/);
    // Only the new gitlinks went: the bumped one and the staged README are the command's.
    expect(gitlinks(repo, h.home)).toEqual(['old']);
    expect(git(repo, h.home, 'ls-files', '-s', 'old')).not.toBe(oldBefore);
    expect(git(repo, h.home, 'diff', '--cached', '--name-only')).toBe('README\nold\n');
    // Their files are left, as untracked folders Git does not go into; the lock the command left is gone.
    expect(existsSync(join(repo, 'sub', '.git', 'config'))).toBe(true);
    expect(existsSync(join(repo, '.git', 'index.lock'))).toBe(false);
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  });

  it('a submodule path the command gives a repository of its own (the empty folder of one not checked out; the folder of one checked out, renamed away) loses that .git after the box exits, so `git status` outside does not run its fsmonitor; without the check it does; a checked-out submodule bumped stays', (ctx) => {
    needsBwrap(ctx, sandbox);
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m';
    /**
     * Three submodules of a repository outside: `cold` not checked out (a gitlink and an empty
     * folder, as after a clone without --recurse-submodules), `warm` and `keep` checked out (their
     * .git a file naming .git/modules/NAME, read-only in the box).
     */
    const world = () => {
      const r = realRepo();
      addSubmodules(r.h, r.repo, ['cold', 'warm', 'keep']);
      git(r.repo, r.h.home, 'submodule', '-q', 'deinit', '-f', 'cold');
      rmSync(join(r.repo, '.git', 'modules', 'cold'), { recursive: true });
      return r;
    };
    /**
     * The attack: the gitlinks stay as they are (nothing new in the index), but the folders they
     * name now hold repositories whose config names a script as core.fsmonitor; Git outside, on
     * `git status`, runs `git status` in each, and so the script.
     */
    const attack = (marker: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
        'rm -rf cold && mv warm warm-old',
        `for d in cold warm; do git init -q "$d" && (cd "$d" && ${commit} s && git config core.fsmonitor "$OLDPWD/mon.sh"); done`,
        `(cd keep && ${commit} bump) && git add keep && echo planted`,
      ].join('\n');

    // The fault, with the same box and no check around it.
    const bareWorld = world();
    const barePlan = boxPlan({ home: bareWorld.h.home, rules: rulesFor(bareWorld.h.home, bareWorld.h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, bareWorld.repo);
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(barePlan), '--', '/bin/sh', '-c', attack(bareWorld.marker)], { cwd: bareWorld.repo, env: gitEnv(bareWorld.h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('planted\n');
    git(bareWorld.repo, bareWorld.h.home, 'status', '--porcelain');
    expect(readFileSync(bareWorld.marker, 'utf8'), 'the attack must work without the check, or this test proves nothing').toBe('ran\nran\n');

    // The command line Gatehouse answers with.
    const { h, repo, marker } = world();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const keepGit = readFileSync(join(repo, 'keep', '.git'), 'utf8');
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker)), repo, h.home);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toHaveLength(1);
    expect(gatehouseLines(r.stderr)[0]).toContain(`gatehouse: removed ${join(repo, 'cold', '.git')} ${join(repo, 'warm', '.git')}: created in a Git folder by the contained command`);
    for (const s of ['cold', 'warm']) expect(() => lstatSync(join(repo, s, '.git')), s).toThrow();
    // The index is as the command left it (the bump staged), the renamed folder and the bumped submodule too.
    expect(git(repo, h.home, 'diff', '--cached', '--name-only')).toBe('keep\n');
    expect(readFileSync(join(repo, 'keep', '.git'), 'utf8')).toBe(keepGit);
    expect(existsSync(join(repo, 'warm-old', '.git'))).toBe(true);
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the fsmonitor of a repository the command put at a submodule path').toBe(false);
  });

  it('a contained `git pull` that brings a new submodule (not checked out: an empty folder) keeps its gitlink and says nothing; a repository the next command makes in that folder loses its .git, and a new gitlink behind a link is taken out', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    // Upstream: a clone of the repository that gains a submodule `lib`.
    const up = join(h.root, 'clone');
    git(h.root, h.home, 'clone', '-q', repo, up);
    addSubmodules(h, up, ['lib'], 'sub');
    git(repo, h.home, 'remote', 'add', 'up', up);
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const line = (command: string) => boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, command, undefined, installBoxCheck(join(h.gatehouse, 'box')));

    const pull = run(line('git pull -q --no-rebase up main && echo pulled'), repo, h.home);
    expect(pull.stdout, pull.stderr).toBe('pulled\n');
    expect(pull.status).toBe(0);
    expect(gatehouseLines(pull.stderr)).toEqual([]);
    expect(git(repo, h.home, 'ls-files', '-s', 'lib')).toMatch(/^160000 /);
    expect(readdirSync(join(repo, 'lib'))).toEqual([]);

    // The next command makes a repository of its own in that folder: its .git goes (the folder
    // had none before), so `git status` outside does not run its fsmonitor.
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m';
    const plantInLib = [
      `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
      `git init -q lib && (cd lib && ${commit} s && git config core.fsmonitor "$OLDPWD/mon.sh") && echo planted`,
    ].join('\n');
    const r = run(line(plantInLib), repo, h.home);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringContaining(`gatehouse: removed ${join(repo, 'lib', '.git')}: created in a Git folder`)]);
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the fsmonitor of a repository the command put at the new submodule').toBe(false);

    // A new gitlink whose path is a link to a repository (Git may not go in; the check does not
    // look through it) is taken out, as is one whose folder holds a .git.
    const viaLink = [
      'git init -q real && (cd real && ' + commit + ' s) && ln -s real linked',
      'git update-index --add --cacheinfo "160000,$(git -C real rev-parse HEAD),linked" && echo staged',
    ].join('\n');
    const l = run(line(viaLink), repo, h.home);
    expect(l.stdout, l.stderr).toBe('staged\n');
    expect(l.status).toBe(1);
    expect(gatehouseLines(l.stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index linked: /)]);
    expect(git(repo, h.home, 'ls-files', '-s', 'linked')).toBe('');
    expect(git(repo, h.home, 'ls-files', '-s', 'lib')).toMatch(/^160000 /);
  });

  it('a project larger than the walk budget: the git folder of a checked-out submodule (.git/modules/NAME) is still found, pinned and its config read-only, so a core.fsmonitor cannot be planted in it; with that config writable, the check alone does not see it changed and `git status` outside runs it', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    addSubmodules(h, repo, ['lib']);
    // A work tree with more entries than the walk may read (a real project has more than 20,000):
    // breadth first, these were read before .git/modules/lib, and the walk stopped first.
    for (let i = 0; i < 30; i++) for (let j = 0; j < 5; j++) put(join(repo, `d${i}`, `f${j}`), 'x\n');
    const walkBudget = 80;
    const modConfig = join(repo, '.git', 'modules', 'lib', 'config');
    const attack = (m: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(m)} > mon.sh && chmod +x mon.sh`,
        'git -C lib config core.fsmonitor "$PWD/mon.sh" && echo planted',
      ].join('\n');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')], walkBudget }, repo);
    expect(plan.notes.join(' ')).toMatch(/the project walk stopped after 80 entries/);
    expect(plan.gitDirs).toContain(join(repo, '.git', 'modules', 'lib'));
    expect(plan.readOnly).toContain(modConfig);

    // The fault: the same plan with that config writable (what the walk that stopped before it
    // left), the check around it. The check sees only that the config exists, not what it says.
    const open = { ...plan, readOnly: plan.readOnly.filter((p) => p !== modConfig) };
    const bare = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, open, attack(marker), undefined, installBoxCheck(join(h.gatehouse, 'box'))), repo, h.home);
    expect(bare.stdout, bare.stderr).toBe('planted\n');
    expect(gatehouseLines(bare.stderr)).toEqual([]);
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'the attack must work without the read-only config, or this test proves nothing').toBe(true);
    git(repo, h.home, '-C', 'lib', 'config', '--unset', 'core.fsmonitor');
    rmSync(marker);

    // The command line Gatehouse answers with: Git cannot write the config.
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker), undefined, installBoxCheck(join(h.gatehouse, 'box'))), repo, h.home);
    expect(r.stdout, r.stderr).toBe('');
    expect(r.status).not.toBe(0);
    expect(readFileSync(modConfig, 'utf8')).not.toContain('fsmonitor');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran an fsmonitor planted in a submodule the walk did not reach').toBe(false);
  });

  it("a checked-out submodule's .git file the box could write (one the walk did not reach, so not read-only) rewritten in place to name a repository of the command's own is removed after the box exits, though its inode is the same; without that `git status` outside runs that repository's fsmonitor", (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    addSubmodules(h, repo, ['lib']);
    const pointer = join(repo, 'lib', '.git');
    const was = readFileSync(pointer, 'utf8');
    // `>` truncates and writes the same file: the inode the check noted before stays.
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m';
    const attack = [
      `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
      `git init -q evil && (cd evil && ${commit} s && git config core.fsmonitor "$OLDPWD/mon.sh")`,
      `printf 'gitdir: ../evil/.git\\n' > lib/.git && echo planted`,
    ].join('\n');
    const line = (plan: ReturnType<typeof boxPlan>) => boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack, undefined, installBoxCheck(join(h.gatehouse, 'box')));
    const planned = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    expect(planned.readOnly).toContain(pointer);
    const plan = { ...planned, readOnly: planned.readOnly.filter((p) => p !== pointer) };

    // The fault: the same box, with no check around it.
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', attack], { cwd: repo, env: gitEnv(h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('planted\n');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'the attack must work without the check, or this test proves nothing').toBe(true);
    rmSync(marker);
    rmSync(join(repo, 'evil'), { recursive: true });
    writeFileSync(pointer, was);

    const r = run(line(plan), repo, h.home);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringContaining(`gatehouse: removed ${pointer}: created in a Git folder`)]);
    expect(() => lstatSync(pointer)).toThrow();
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the fsmonitor of a repository a submodule .git file was rewritten to name').toBe(false);
    // Written again with the same text, it stays, and nothing is said.
    writeFileSync(pointer, was);
    const same = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'cat lib/.git > t && cat t > lib/.git && echo same', undefined, installBoxCheck(join(h.gatehouse, 'box'))), repo, h.home);
    expect(same.stdout, same.stderr).toBe('same\n');
    expect(same.status).toBe(0);
    expect(gatehouseLines(same.stderr)).toEqual([]);
    expect(readFileSync(pointer, 'utf8')).toBe(was);
  });

  it('a new gitlink whose path is longer, as an absolute path, than the system takes (Git goes there by its path inside the work tree) is taken out: the check looks at it as Git does, so a .git there is not taken for none; without that `git status` outside runs the fsmonitor of the repository it names', (ctx) => {
    needsBwrap(ctx, sandbox);
    const w = realRepo();
    const commit = 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m';
    // A folder whose absolute path is 4,093 characters: a test of it (4,093 + /.git) fails with
    // ENAMETOOLONG, as if nothing were there, while Git, in the work tree, opens lib…/.git.
    const attack = (m: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(m)} > mon.sh && chmod +x mon.sh`,
        `git init -q evil && (cd evil && ${commit} s && git config core.fsmonitor "$OLDPWD/mon.sh")`,
        'seg=$(printf %0200d 0 | tr 0 a) n=$((4093 - ${#PWD} - 1)) p=',
        'while [ $((${#p} + 201)) -le $n ]; do p="$p$seg/"; done',
        'p="$p$(printf "%0$((n - ${#p}))d" 0 | tr 0 b)"',
        `mkdir -p "$p" && printf 'gitdir: %s/evil/.git\\n' "$PWD" > "$p/.git"`,
        'git update-index --add --cacheinfo "160000,$(git -C evil rev-parse HEAD),$p" && echo planted',
      ].join('\n');
    // The temp folders' own clean-up removes by absolute path, which is too long there.
    const deep = (repo: string) => ctx.onTestFinished(() => void spawnSync('rm', ['-rf', '--', 'a'.repeat(200)], { cwd: repo }));
    deep(w.repo);
    faultWithoutCheck(w, attack, 'planted\n');

    const { h, repo, marker } = realRepo();
    deep(repo);
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker), undefined, installBoxCheck(join(h.gatehouse, 'box'))), repo, h.home);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index a{200}\//)]);
    expect(git(repo, h.home, 'ls-files', '-s').split('\n').filter((l) => l.startsWith('160000 '))).toEqual([]);
    // An untracked folder that deep is more than `git status` lists (it stops with "Invalid
    // path"): it goes into no repository there either way.
    spawnSync('git', ['status', '--porcelain'], { cwd: repo, env: gitEnv(h.home) });
    expect(existsSync(marker), 'git status outside the box ran the fsmonitor of a repository at a gitlink path too long for the check').toBe(false);
  });

  it('a git folder under .git/modules made after the box was planned (a file tool may make one: its HEAD is an ordinary file; the plan is reused for 2 s) is checked too: a config and hooks the command gives it are removed, so `git submodule update` outside does not run them; without the check it does', (ctx) => {
    needsBwrap(ctx, sandbox);
    // The command makes a repository's objects and refs, a config with a core.fsmonitor and a
    // post-checkout hook in that folder, and a submodule `lib` (a gitlink at a plain folder, which
    // stays) named so in .gitmodules; `git submodule update --init` outside takes the git folder
    // there as the submodule's and checks it out with them.
    const attack = (m: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(m)} > mon.sh && chmod +x mon.sh`,
        'git init -q -b main src && (cd src && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s)',
        'cp -r src/.git/objects src/.git/refs .git/modules/lib/ && rm -rf src',
        `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = %s/mon.sh\\n' "$PWD" > .git/modules/lib/config`,
        'mkdir -p .git/modules/lib/hooks && cp mon.sh .git/modules/lib/hooks/post-checkout',
        `printf '[submodule "lib"]\\n\\tpath = lib\\n\\turl = ./nowhere\\n' > .gitmodules && mkdir lib`,
        'git update-index --add --cacheinfo "160000,$(git --git-dir=.git/modules/lib rev-parse HEAD),lib" && echo planted',
      ].join('\n');
    const world = () => {
      const w = realRepo();
      const plan = boxPlan({ home: w.h.home, rules: rulesFor(w.h.home, w.h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, w.repo);
      // After the plan: the file tool's write (allowed: not a config, hooks or commondir).
      put(join(w.repo, '.git', 'modules', 'lib', 'HEAD'), 'ref: refs/heads/main\n');
      return { ...w, plan };
    };

    // The fault, in the same box with no check around it.
    const b = world();
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(b.plan), '--', '/bin/sh', '-c', attack(b.marker)], { cwd: b.repo, env: gitEnv(b.h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('planted\n');
    git(b.repo, b.h.home, 'submodule', '-q', 'update', '--init');
    expect(existsSync(b.marker), 'the attack must work without the check, or this test proves nothing').toBe(true);

    const { h, repo, marker, plan } = world();
    expect(plan.gitDirs).not.toContain(join(repo, '.git', 'modules', 'lib'));
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack(marker), undefined, installBoxCheck(join(h.gatehouse, 'box'))), repo, h.home);
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    const mod = join(repo, '.git', 'modules', 'lib');
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringContaining(`gatehouse: removed ${join(mod, 'config')} ${join(mod, 'hooks')}: created in a Git folder`)]);
    spawnSync('git', ['submodule', '-q', 'update', '--init'], { cwd: repo, env: gitEnv(h.home) });
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git submodule update outside ran the fsmonitor or hook the command gave a git folder made after the plan').toBe(false);
  });

  it('no lock on the index keeps a new gitlink in: not one an earlier command left (there before the box) and this one took away and put back, nor a folder in its place; without the check `git status` runs its fsmonitor, lock or not', (ctx) => {
    needsBwrap(ctx, sandbox);
    const add = (marker: string, name: string) =>
      [
        `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
        `git init -q ${name} && (cd ${name} && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add ${name} 2>/dev/null`,
      ].join('\n');
    const putBack = (marker: string) => ['rm -f .git/index.lock', add(marker, 'sub'), ': > .git/index.lock && echo staged'].join('\n');
    const lockFolder = (marker: string) => [add(marker, 'sub2'), 'mkdir -p .git/index.lock/x && echo staged'].join('\n');

    // The fault, with the same box and no check around it: Git outside reads the index past its lock.
    faultWithoutCheck(realRepo(), lockFolder, 'staged\n');

    // The command lines Gatehouse answers with: a first command leaves a lock and nothing else
    // (nothing to take out, so it stays), the next two add repositories behind a lock.
    const { h, repo, marker } = realRepo();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const line = (command: string) => boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, command);
    const first = run(line(': > .git/index.lock'), repo, h.home);
    expect(first.status, first.stderr).toBe(0);
    expect(existsSync(join(repo, '.git', 'index.lock'))).toBe(true);
    for (const attack of [putBack(marker), lockFolder(marker)]) {
      const r = run(line(attack), repo, h.home);
      expect(r.stdout, r.stderr).toBe('staged\n');
      expect(r.status).toBe(1);
      expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index sub2?: repositories/)]);
      expect(() => lstatSync(join(repo, '.git', 'index.lock'))).toThrow();
    }
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  });

  it("the check does not write through an index the command made a link: another repository's index (read-only in the box) stays as it was", (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    // Another repository of the user's, outside the project, with a submodule in its index.
    const other = join(h.home, 'other');
    mkdirSync(other);
    git(other, h.home, 'init', '-q', '-b', 'main');
    git(other, h.home, 'init', '-q', 'o');
    git(join(other, 'o'), h.home, 'commit', '-q', '--allow-empty', '-m', 'o');
    git(other, h.home, 'add', 'o');
    const otherIndex = readFileSync(join(other, '.git', 'index'));
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    expect(plan.writable).not.toContain(other);
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, `rm .git/index && ln -s ${shellQuote(join(other, '.git', 'index'))} .git/index && echo linked`), repo, h.home);
    expect(r.stdout, r.stderr).toBe('linked\n');
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index o: /)]);
    expect(readFileSync(join(other, '.git', 'index')).equals(otherIndex), 'the check wrote outside the box').toBe(true);
    expect(lstatSync(join(repo, '.git', 'index')).isFile()).toBe(true);
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
  });

  it('a FIFO the command put where Git opens a file (a split index\'s shared index) does not hold the check: it is removed, and the check ends', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const attack = [
      `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
      'git init -q sub && (cd sub && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh")',
      'git update-index --split-index && git add sub 2>/dev/null && for f in .git/sharedindex.*; do rm -f "$f" && mkfifo "$f"; done && echo fifo',
    ].join('\n');
    // The check ignores TERM while it runs: only a KILL would end one that hangs.
    const r = spawnSync('sh', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack)], { cwd: repo, env: gitEnv(h.home), encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
    expect(r.signal, 'the check hung on the FIFO').toBeNull();
    expect(r.stdout, r.stderr).toBe('fifo\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: removed \/.*\/\.git\/sharedindex\.[0-9a-f]+ .*: created in a Git folder/)]);
    // Git outside cannot read the index without it (and so goes into no submodule).
    const status = spawnSync('git', ['status', '--porcelain'], { cwd: repo, env: gitEnv(h.home), encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
    expect(status.signal).toBeNull();
    expect(existsSync(marker)).toBe(false);
  });

  it('a .git file too large for Git to read (sparse: no disk) at a gitlink path does not hold the check for hours while the new repository it added stays in the index: Git reads no .git file over 1 MiB, and the check reads none either', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const attack = [
      `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
      'git init -q sub && (cd sub && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add sub 2>/dev/null',
      // A gitlink needs no repository: one at zz, and there a .git file of 8 TiB.
      'git update-index --add --cacheinfo "160000,$(git -C sub rev-parse HEAD),zz" && mkdir zz && truncate -s 8T zz/.git && echo planted',
    ].join('\n');
    // Reading 8 TiB takes hours: only a KILL (to the whole group: the check and its cksum) would end a check that does.
    const child = spawn('sh', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack)], { cwd: repo, env: gitEnv(h.home), detached: true });
    const r = { stdout: '', stderr: '', status: null as number | null, signal: null as NodeJS.Signals | null };
    child.stdout.on('data', (d: Buffer) => (r.stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (r.stderr += d.toString()));
    const guard = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    await new Promise<void>((done) => child.on('close', (code, sig) => ((r.status = code), (r.signal = sig), done())));
    clearTimeout(guard);
    expect(r.signal, 'the check read the whole .git file').toBeNull();
    expect(r.stdout, r.stderr).toBe('planted\n');
    expect(r.status).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index sub zz:/)]);
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  });

  /** Adds a repository with a core.fsmonitor as a submodule, then makes the check slow: 20,000 files in .git/modules. */
  const slowAttack = (marker: string) =>
    [
      `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
      'git init -q sub && (cd sub && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add sub 2>/dev/null',
      'mkdir -p .git/modules/junk && (cd .git/modules/junk && seq 1 20000 | xargs touch) && echo staged',
    ].join('\n');
  /** The process at or below `pid` whose program is `name` (proc-scan's reading of /proc). */
  const findBelow = (pid: string, name: string): ProcInfo | null => {
    const children = new Map<number, ProcInfo[]>();
    for (const p of listProcesses()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
    const walk = (at: number): ProcInfo | null => {
      for (const k of children.get(at) ?? []) {
        if (k.comm === name) return k;
        const deeper = walk(k.pid);
        if (deeper) return deeper;
      }
      return null;
    };
    return walk(Number(pid));
  };
  const below = (pid: string, name: string): string | null => {
    const hit = findBelow(pid, name);
    return hit ? String(hit.pid) : null;
  };
  /** The process, at or below `pid`, that has an `rm` child. */
  const rmParent = (pid: string): string | null => {
    const rm = findBelow(pid, 'rm');
    return rm ? String(rm.ppid) : null;
  };
  /**
   * Runs `line` as an agent's shell does (in a process group of its own) and, once the check after
   * the box is busy (its shell has an `rm` child, removing the folder in .git/modules: the box is
   * gone by then), cuts in: a TERM to that shell, or a KILL to the whole group, as Claude Code
   * sends 1.5 s after its TERM to the command and everything it started.
   */
  async function cutDuringCheck(line: string, cwd: string, home: string, signal: 'SIGTERM' | 'SIGKILL') {
    const child = spawn('sh', ['-c', line], { cwd, env: gitEnv(home), detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('close', (code, sig) => done({ code, signal: sig })));
    let sent = false;
    while (child.exitCode === null && child.signalCode === null) {
      const p = rmParent(String(child.pid));
      if (p) {
        if (signal === 'SIGTERM') process.kill(Number(p), 'SIGTERM');
        else process.kill(-child.pid!, 'SIGKILL');
        sent = true;
        break;
      }
      await new Promise((go) => setImmediate(go));
    }
    const end = await closed;
    expect(sent, `the ${signal} must reach the check while it runs, or this test proves nothing`).toBe(true);
    return { stdout, stderr, end };
  }

  it('a TERM that reaches the shell while the check runs after the box (made slow by a folder of 20,000 files in .git/modules) does not stop it: the new gitlink is still taken out', async (ctx) => {
    needsBwrap(ctx, sandbox);
    // The fault, with the same box and no check around it.
    faultWithoutCheck(realRepo(), slowAttack, 'staged\n');

    const { h, repo, marker } = realRepo();
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const { stdout, stderr, end } = await cutDuringCheck(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, slowAttack(marker)), repo, h.home, 'SIGTERM');
    expect(stdout).toBe('staged\n');
    expect(end, stderr).toEqual({ code: 1, signal: null });
    expect(gatehouseLines(stderr)).toEqual([expect.stringMatching(/^gatehouse: took out of Git's index sub:/), expect.stringMatching(/^gatehouse: removed .*\/\.git\/modules: created in a Git folder/)]);
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  });

  /** The attack cut off by a KILL while the check ran: what it leaves, and the box folder with its note. */
  async function killedDuringCheck() {
    if (sandbox.kind !== 'bwrap') throw new Error('called only where bwrap runs');
    const { h, repo, marker } = realRepo();
    const box = join(h.gatehouse, 'box');
    const checkFile = installBoxCheck(box);
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const { stdout, end } = await cutDuringCheck(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, slowAttack(marker), undefined, checkFile), repo, h.home, 'SIGKILL');
    expect(stdout).toBe('staged\n');
    expect(end.signal).toBe('SIGKILL');
    // The fault: the check was cut off before it took the gitlink out, and Git outside would run
    // the new repository's fsmonitor. The note of what was there before is left.
    expect(git(repo, h.home, 'ls-files', '-s')).toContain('160000 ');
    expect(readdirSync(box).filter((n) => n.startsWith('pending-'))).toHaveLength(1);
    return { h, repo, marker, box, checkFile, plan };
  }
  /** After the note is finished: the gitlink out, .git/modules moved aside, no note left, and `git status` outside runs nothing. */
  function finished(w: Awaited<ReturnType<typeof killedDuringCheck>>) {
    expect(git(w.repo, w.h.home, 'ls-files', '-s')).not.toContain('160000 ');
    expect(existsSync(join(w.repo, '.git', 'modules'))).toBe(false);
    const held = readdirSync(join(w.box, 'held'));
    expect(held).toHaveLength(1);
    expect(readdirSync(join(w.box, 'held', held[0]!))).toEqual(['1-modules']);
    expect(readdirSync(w.box).filter((n) => n.startsWith('pending-'))).toEqual([]);
    git(w.repo, w.h.home, 'status', '--porcelain');
    expect(existsSync(w.marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  }

  it("a KILL to the whole command while the check runs (Claude Code's, 1.5 s after its TERM) leaves a note that the next contained command finishes before its own scan: the new gitlink is taken out and what was not yet removed is moved aside, not deleted", async (ctx) => {
    needsBwrap(ctx, sandbox);
    const w = await killedDuringCheck();
    const next = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, w.plan, 'echo next', undefined, w.checkFile), w.repo, w.h.home);
    expect(next.stdout).toBe('next\n');
    expect(next.status, 'the next command exits with its own status').toBe(0);
    expect(gatehouseLines(next.stderr)).toEqual([
      expect.stringMatching(/^gatehouse: took out of Git's index sub: repositories an earlier contained command \(stopped before the check after it was done\) added/),
      expect.stringMatching(new RegExp(`^gatehouse: moved into ${w.box.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/held/\\d+-\\d+-r1 .*/\\.git/modules: created in a Git folder by an earlier contained command`)),
    ]);
    finished(w);
  });

  it('a note that cannot be finished (its folder will not let it be claimed) is tried again a minute later, not every second', async (ctx) => {
    const box = tempDir('gatehouse-box-notes-');
    const checkFile = installBoxCheck(box);
    const note = join(box, `pending-${spawnSync('true').pid}-1-run`);
    writeFileSync(note, "top= G= B=// D=// fresh=\nok=1\n");
    // The fault: a rename of the note fails (root is not held back by permissions: an immutable file).
    const lock = process.getuid?.() === 0 ? spawnSync('chattr', ['+i', note], { encoding: 'utf8' }) : spawnSync('chmod', ['555', box], { encoding: 'utf8' });
    if (lock.status !== 0) return ctx.skip(`the note cannot be made unmovable here: ${(lock.stderr || lock.error?.message || '').trim()}`);
    try {
      let runs = 0;
      const journals = new BoxJournals({ dir: box, checkFile: () => (runs++, checkFile), record: () => {} });
      expect(await journals.sweep()).toBe(true);
      expect(existsSync(note), 'the fault: the note could not be claimed').toBe(true);
      expect(await journals.sweep()).toBe(false);
      expect(runs).toBe(1);
    } finally {
      if (process.getuid?.() === 0) spawnSync('chattr', ['-i', note]);
      else spawnSync('chmod', ['755', box]);
    }
  });

  it('a finishing run that hangs is ended at its time limit (its whole process group) and said so, so later sweeps are not held', async () => {
    const box = tempDir('gatehouse-box-notes-');
    writeFileSync(join(box, `pending-${spawnSync('true').pid}-1-run`), "top= G= B=// D=// fresh=\nok=1\n");
    // The fault: a check that never ends (it waits to open a FIFO nobody writes), with a child of its own.
    const fifo = join(box, 'never');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const hangs = join(box, 'hangs.sh');
    writeFileSync(hangs, `cat ${shellQuote(fifo)} & echo $! > ${shellQuote(join(box, 'child'))}; wait\n`);
    const said: string[] = [];
    const journals = new BoxJournals({ dir: box, checkFile: () => hangs, record: (text) => said.push(text), timeoutMs: 300 });
    expect(await journals.sweep()).toBe(true);
    expect(said).toEqual(['gatehouse: finishing the check of a stopped contained command took longer than 0.3 s and was ended; it is tried again.']);
    const child = Number(readFileSync(join(box, 'child'), 'utf8'));
    // SIGKILL to the group is delivered asynchronously: the sweep returns once the run itself is gone,
    // its child a moment later (CI caught it in that moment).
    await expect.poll(() => isAlive(child), { timeout: 5000, message: 'a process the hung run started is still running' }).toBe(false);
  });

  it('no note, no box: where the note cannot be written (its disk full) the command is not run, and the error says where and what to do', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const box = join(h.gatehouse, 'box');
    const checkFile = installBoxCheck(box);
    const saved = join(h.root, 'check.sh');
    writeFileSync(saved, readFileSync(checkFile));
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, repo);
    const line = boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, `echo ran > ${shellQuote(marker)}`, undefined, checkFile);
    // The fault: the box folder on a small disk of its own, full.
    const disk = smallDiskCommand(box, '128k');
    if ('why' in disk) return ctx.skip(disk.why);
    const fill = 'cp "$0" "$1" && { head -c 1048576 /dev/zero > "$2"; true; } 2>/dev/null && exec sh -c "$3"';
    const r = spawnSync(disk.argv[0]!, [...disk.argv.slice(1), 'sh', '-c', fill, saved, checkFile, join(box, 'fill'), line], { cwd: repo, env: gitEnv(h.home), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    expect(gatehouseLines(r.stderr)).toEqual([`gatehouse: the command was not run: the note the check keeps while it runs could not be written in ${box} (is the disk full?). Free some space there and run it again.`]);
    expect(existsSync(marker), 'the command ran with no note to finish its check').toBe(false);
  });

  it('Gatehouse itself finishes such a note without waiting for another command; a note whose owner still runs is left alone, one whose pid now names another process is not', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const w = await killedDuringCheck();
    const said: string[] = [];
    const journals = new BoxJournals({ dir: w.box, checkFile: () => w.checkFile, record: (text) => said.push(text) });
    expect(await journals.sweep()).toBe(true);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^gatehouse: took out of Git's index sub: repositories an earlier contained command/);
    finished(w);

    // A command still running: its note stays.
    const fifo = join(tempDir('gatehouse-box-fifo-'), 'go');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const plan = boxPlan({ home: w.h.home, rules: rulesFor(w.h.home, w.h.gatehouse), tmpDirs: [dirname(fifo)] }, w.repo);
    const running = spawn('sh', ['-c', boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, `read x < ${shellQuote(fifo)}; echo "$x"`, undefined, w.checkFile)], { cwd: w.repo, env: gitEnv(w.h.home) });
    let out = '';
    running.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const ended = new Promise((done) => running.on('close', done));
    while (!readdirSync(w.box).some((n) => n.startsWith('pending-'))) await new Promise((go) => setImmediate(go));
    expect(journals.orphans()).toEqual([]);
    expect(await journals.sweep()).toBe(false);
    writeFileSync(fifo, 'done\n');
    await ended;
    expect(out).toBe('done\n');
    expect(readdirSync(w.box).filter((n) => n.startsWith('pending-'))).toEqual([]);

    // This process's pid with another start time: a process that ended, its pid given again.
    const stale = join(w.box, `pending-${process.pid}-1-run`);
    writeFileSync(stale, 'top= G= B=// D=// fresh=\nok=1\n');
    expect(journals.orphans()).toEqual([`pending-${process.pid}-1-run`]);
    expect(await journals.sweep()).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(said).toHaveLength(1);
  });

  /**
   * The box folder with its installed check, FIFOs named `names` in a temp folder the box can
   * see, and the boxed command line of a command in `proj` with that check.
   */
  function boxWithFifos(h: ReturnType<typeof fakeHome>, proj: string, names: string[]) {
    if (sandbox.kind !== 'bwrap') throw new Error('called only where bwrap runs');
    const box = join(h.gatehouse, 'box');
    const checkFile = installBoxCheck(box);
    const fifos = tempDir('gatehouse-box-fifo-');
    for (const f of names) expect(spawnSync('mkfifo', [join(fifos, f)]).status).toBe(0);
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [fifos] }, proj);
    const line = (command: string) => boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, command, undefined, checkFile);
    return { box, checkFile, fifos, line };
  }

  /**
   * Starts `line` as an agent's shell does (in a process group of its own), with its output
   * gathered; `ended` when it closes; a KILL to its group, should the test end before it does.
   */
  function started(line: string, cwd: string, home: string, ctx: { onTestFinished: (fn: () => void) => void }) {
    const child = spawn('sh', ['-c', line], { cwd, env: gitEnv(home), detached: true });
    ctx.onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    });
    const got = { stdout: '', stderr: '' };
    child.stdout.on('data', (d: Buffer) => (got.stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (got.stderr += d.toString()));
    const ended = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const said = async (text: string) => {
      while (!got.stdout.includes(text)) {
        if (child.exitCode !== null) throw new Error(`ended before it said ${text}: ${got.stderr}`);
        await new Promise((go) => setImmediate(go));
      }
    };
    return { got, ended, said };
  }

  it('two commands at once: one started while another’s box has staged a new repository (and made a .git/modules) takes those for what was there before; after the first check undoes them, the second makes them again, and its check undoes them too; without that `git status` outside runs its fsmonitor', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const { box, fifos, line } = boxWithFifos(h, repo, ['a', 'b']);
    const first = started(
      line(
        [
          `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
          'git init -q sub && (cd sub && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add sub 2>/dev/null',
          'mkdir -p .git/modules/evil && cp .git/HEAD .git/modules/evil/ && echo staged',
          `read x < ${shellQuote(join(fifos, 'a'))}`,
        ].join('\n'),
      ),
      repo,
      h.home,
      ctx,
    );
    await first.said('staged\n');
    // The second starts (its check's scan before sees the new gitlink), and waits in its box.
    const second = started(line(`echo waiting; read x < ${shellQuote(join(fifos, 'b'))}; git add sub 2>/dev/null; mkdir -p .git/modules/evil && cp .git/HEAD .git/modules/evil/ && echo again`), repo, h.home, ctx);
    await second.said('waiting\n');
    writeFileSync(join(fifos, 'a'), 'go\n');
    expect(await first.ended, first.got.stderr).toBe(1);
    const undone = [expect.stringMatching(/^gatehouse: took out of Git's index sub:/), expect.stringMatching(/^gatehouse: removed \/.*\/\.git\/modules: created in a Git folder/)];
    expect(gatehouseLines(first.got.stderr)).toEqual(undone);
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
    expect(existsSync(join(repo, '.git', 'modules'))).toBe(false);
    writeFileSync(join(fifos, 'b'), 'go\n');
    await second.ended;
    expect(second.got.stdout).toBe('waiting\nagain\n');
    expect(git(repo, h.home, 'ls-files', '-s'), second.got.stderr).not.toContain('160000 ');
    expect(gatehouseLines(second.got.stderr)).toEqual(undone);
    expect(existsSync(join(repo, '.git', 'modules'))).toBe(false);
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
    expect(readdirSync(box).filter((n) => n.startsWith('pending-'))).toEqual([]);
  });

  /**
   * What a test suite or build script run in the box could leave an agent's next session: a
   * Claude Code settings file with hooks at the top, a subagent in the command's folder, a Copilot
   * hook folder, and a link to a settings folder the command filled in the temp folders. Each
   * line prints nothing; the last says done.
   */
  const plantSettings = (scratch: string) =>
    [
      `mkdir -p ../.claude && printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}' > ../.claude/settings.local.json`,
      "mkdir -p .claude/agents && printf -- '---\\nname: x\\n---\\n' > .claude/agents/x.md",
      "mkdir -p ../.github/hooks && echo '{}' > ../.github/hooks/h.json",
      `mkdir -p ${shellQuote(join(scratch, 'gem'))} && echo '{}' > ${shellQuote(join(scratch, 'gem', 'settings.json'))} && ln -s ${shellQuote(join(scratch, 'gem'))} ../.gemini`,
      'echo notes > ../.claude/notes.txt && echo out > built.txt && echo done',
    ].join('\n');

  it("agent settings a contained command creates in the project (a .claude/settings.local.json with hooks, a subagent, a Copilot hook folder, a link to a settings folder elsewhere) are removed after the box exits, and said so; what else it wrote stays; without the check they stay for the agent's next session", (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    put(join(repo, '.claude', 'settings.json'), '{}\n');
    const sub = join(repo, 'sub');
    mkdirSync(sub);
    const scratch = tempDir('gatehouse-box-scratch-');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [scratch] }, sub);
    expect(plan.settings.dirs).toEqual([sub, repo]);
    expect(plan.settings.names).toEqual(expect.arrayContaining(['.claude/settings.json', '.claude/settings.local.json', '.claude/agents', '.github/hooks', '.gemini/settings.json', 'opencode.json', '.gatehouse/plugins']));
    expect(plan.settings.names.filter((n) => n.startsWith('.git/') || /[*?[{]/.test(n))).toEqual([]);
    const planted = [join(repo, '.claude', 'settings.local.json'), join(sub, '.claude', 'agents'), join(repo, '.github', 'hooks'), join(repo, '.gemini')];

    // The fault, in the same box with no check around it: all of it is there afterwards.
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', plantSettings(scratch)], { cwd: sub, env: gitEnv(h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('done\n');
    for (const p of planted) expect(existsSync(p), `${p}: the attack must work without the check, or this test proves nothing`).toBe(true);
    for (const p of [...planted, join(repo, '.claude', 'notes.txt'), join(sub, 'built.txt'), join(sub, '.claude'), join(repo, '.github'), join(scratch, 'gem')]) rmSync(p, { recursive: true, force: true });

    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, plantSettings(scratch)), sub, h.home);
    expect(r.stdout, r.stderr).toBe('done\n');
    expect(r.status, 'the command exited 0, but what it made was removed').toBe(1);
    const said = gatehouseLines(r.stderr);
    expect(said, r.stderr).toHaveLength(1);
    expect(said[0]).toMatch(/^gatehouse: removed .*: agent settings the contained command created in the project\. An agent started there would take hooks/);
    for (const p of planted) {
      expect(existsSync(p) || lstatSync(p, { throwIfNoEntry: false }) !== undefined, `${p} is still there`).toBe(false);
      expect(said[0]).toContain(` ${p}`);
    }
    // The link is removed, not what it named; what else the command wrote stays, and the settings that were there.
    expect(readFileSync(join(scratch, 'gem', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(repo, '.claude', 'notes.txt'), 'utf8')).toBe('notes\n');
    expect(readFileSync(join(sub, 'built.txt'), 'utf8')).toBe('out\n');
    expect(existsSync(join(sub, '.claude'))).toBe(true);
    expect(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');

    // Nothing planted: nothing said, the status the command's.
    const quiet = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'echo hi > ../.claude/notes.txt; exit 3'), sub, h.home);
    expect(gatehouseLines(quiet.stderr), quiet.stderr).toEqual([]);
    expect(quiet.status).toBe(3);
  });

  it('settings that were there are not passed off by renaming a folder on the way and making it again with new ones: the check knows them by what they are (their inode), not only by path', (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    const sub = join(repo, 'sub');
    put(join(repo, '.claude', 'settings.json'), '{}\n');
    put(join(sub, '.claude', 'agents', 'a.md'), 'mine\n');
    const plan = boxPlan({ home: h.home, rules: rulesFor(h.home, h.gatehouse), tmpDirs: [tempDir('gatehouse-box-scratch-')] }, sub);
    const evil = '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch /tmp/pwned"}]}]}}';
    // The read-only file and folder go with their renamed folders; new ones are made in their place.
    const attack = [
      `mv ../.claude ../.c-old && mkdir ../.claude && printf '%s' '${evil}' > ../.claude/settings.json`,
      `cd .. && mv sub sub.old && mkdir -p sub/.claude/agents && echo evil > sub/.claude/agents/a.md && echo done`,
    ].join(' && ');
    const replaced = [join(repo, '.claude', 'settings.json'), join(sub, '.claude', 'agents')];

    // The fault, in the same box with no check around it: the new ones stand where the old ones were.
    const bare = spawnSync(sandbox.path, [...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', attack], { cwd: sub, env: gitEnv(h.home), encoding: 'utf8' });
    expect(bare.stdout, bare.stderr).toBe('done\n');
    expect(readFileSync(replaced[0]!, 'utf8'), 'the attack must work in the box, or this test proves nothing').toBe(evil);
    rmSync(join(repo, '.claude'), { recursive: true });
    renameSync(join(repo, '.c-old'), join(repo, '.claude'));
    rmSync(sub, { recursive: true });
    renameSync(join(repo, 'sub.old'), sub);

    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, attack), sub, h.home);
    expect(r.stdout, r.stderr).toBe('done\n');
    expect(r.status).toBe(1);
    const said = gatehouseLines(r.stderr);
    expect(said, r.stderr).toHaveLength(1);
    expect(said[0]).toMatch(/^gatehouse: removed .*: agent settings that were there are not what they were after the contained command ran/);
    for (const p of replaced) {
      expect(existsSync(p), `${p} is still there`).toBe(false);
      expect(said[0]).toContain(` ${p}`);
    }
    // What was there is where the command moved it, untouched.
    expect(readFileSync(join(repo, '.c-old', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(repo, 'sub.old', '.claude', 'agents', 'a.md'), 'utf8')).toBe('mine\n');

    // The same settings, not replaced: nothing said.
    rmSync(join(repo, '.claude'), { recursive: true });
    renameSync(join(repo, '.c-old'), join(repo, '.claude'));
    rmSync(sub, { recursive: true });
    renameSync(join(repo, 'sub.old'), sub);
    const quiet = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, plan, 'cat ../.claude/settings.json'), sub, h.home);
    expect(quiet.stdout).toBe('{}\n');
    expect(gatehouseLines(quiet.stderr), quiet.stderr).toEqual([]);
    expect(quiet.status).toBe(0);
  });

  it('the settings are checked at the project’s top however deep the command starts; a dangling link at a settings name deeper in makes the box refuse, naming it (not bound, the command could make what it names)', (ctx) => {
    const { h, repo } = realRepo();
    const deep = join(repo, ...Array.from({ length: 70 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    const rules = rulesFor(h.home, h.gatehouse);
    const plan = boxPlan({ home: h.home, rules, tmpDirs: [] }, deep);
    expect(plan.settings.dirs).toHaveLength(64);
    expect(plan.settings.dirs[0]).toBe(deep);
    expect(plan.settings.dirs.at(-1)).toBe(repo);
    expect(plan.notes.join('\n')).toContain('agent settings are checked in the nearest 63 and the top only');

    const pkg = join(repo, 'pkg');
    mkdirSync(join(pkg, '.claude'), { recursive: true });
    const link = join(pkg, '.claude', 'settings.json');
    symlinkSync(join(repo, 'made-later.json'), link);
    const withLink = boxPlan({ home: h.home, rules, tmpDirs: [] }, repo);
    expect(withLink.readOnly).toContain(link);
    needsBwrap(ctx, sandbox);
    const r = run(boxedCommandLine({ kind: 'bwrap', path: sandbox.path }, withLink, `echo '{"hooks":{}}' > made-later.json; echo ran`), repo, h.home);
    expect(r.stdout).toBe('');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(link);
    expect(existsSync(join(repo, 'made-later.json'))).toBe(false);
  });

  it('settings that were there and changed while the command ran (the same file written over, as another box with its own bind could; or an edit of yours) are set aside into the data folder, not deleted, and said so', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    const settings = join(repo, '.claude', 'settings.json');
    const mine = '{"permissions": {"allow": ["Bash(npm test)"]}}\n';
    put(settings, mine);
    const { box, fifos, line } = boxWithFifos(h, repo, ['a']);
    const cmd = started(line(`echo waiting; read x < ${shellQuote(join(fifos, 'a'))}; echo done`), repo, h.home, ctx);
    await cmd.said('waiting\n');
    // Written in place: the same inode, size and modification time, other content (only its hash tells).
    const before = statSync(settings);
    const evil = '{"hooks": {"SessionStart": []}}'.padEnd(mine.length - 1) + '\n';
    writeFileSync(settings, evil);
    utimesSync(settings, before.atimeMs / 1000, before.mtimeMs / 1000);
    const after = statSync(settings);
    // ls shows times to the second at most.
    expect([after.ino, after.size, Math.floor(after.mtimeMs / 1000)]).toEqual([before.ino, before.size, Math.floor(before.mtimeMs / 1000)]);
    writeFileSync(join(fifos, 'a'), 'go\n');
    expect(await cmd.ended, cmd.got.stderr).toBe(1);
    const said = gatehouseLines(cmd.got.stderr);
    expect(said, cmd.got.stderr).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`^gatehouse: moved into ${box.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/held/\\S+ ${settings.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: agent settings that were there are not what they were`));
    expect(existsSync(settings)).toBe(false);
    // Nothing lost: the changed file is in the held folder, as it was.
    const held = join(box, 'held');
    const kept = readdirSync(held, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(kept.map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))).toEqual([evil]);
  });

  it('a settings file that is a link is read through it: its target changed meanwhile is set aside too; a folder on the way renamed away and not made again sets nothing else aside', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    const sub = join(repo, 'sub');
    put(join(repo, '.claude', 'settings.json'), '{}\n');
    put(join(sub, '.claude', 'settings.json'), '{}\n');
    const target = join(repo, 'shared.json');
    writeFileSync(target, '{"permissions": {}}\n');
    // Relative: bubblewrap makes its binds in a new root, where an absolute link to the project would
    // lead elsewhere (it then refuses the box, as for a dangling one).
    symlinkSync(join('..', 'shared.json'), join(repo, '.claude', 'settings.local.json'));
    // Started in sub: its settings are among those checked.
    const { box, fifos, line } = boxWithFifos(h, sub, ['a']);
    const cmd = started(line(`echo waiting; read x < ${shellQuote(join(fifos, 'a'))}; cd .. && mv sub sub.old && echo done`), sub, h.home, ctx);
    await cmd.said('waiting\n');
    writeFileSync(target, '{"hooks": {}, "x": 0}\n'.slice(0, 20) + '\n');
    writeFileSync(join(fifos, 'a'), 'go\n');
    expect(await cmd.ended, cmd.got.stderr).toBe(1);
    expect(cmd.got.stdout).toBe('waiting\ndone\n');
    const said = gatehouseLines(cmd.got.stderr);
    expect(said, cmd.got.stderr).toHaveLength(1);
    expect(said[0]).toContain(`${join(repo, '.claude', 'settings.local.json')}: agent settings that were there are not what they were`);
    expect(said[0]).toMatch(new RegExp(`^gatehouse: moved into ${box.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/held/`));
    // The rest stays: the top's settings, and the renamed folder's where the command put them.
    expect(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(readFileSync(join(repo, 'sub.old', '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
  });

  it("two commands at once: a settings file one command's box made, there when the second's check looked before its box, does not count as there before for the second: after the first check removes it, the second makes it again, and its check removes it too", async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    const { box, fifos, line } = boxWithFifos(h, repo, ['a', 'b']);
    const settings = join(repo, '.claude', 'settings.local.json');
    const make = `mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.local.json`;
    const first = started(line(`${make} && echo made; read x < ${shellQuote(join(fifos, 'a'))}`), repo, h.home, ctx);
    await first.said('made\n');
    const second = started(line(`echo waiting; read x < ${shellQuote(join(fifos, 'b'))}; ${make} && echo again`), repo, h.home, ctx);
    await second.said('waiting\n');
    writeFileSync(join(fifos, 'a'), 'go\n');
    expect(await first.ended, first.got.stderr).toBe(1);
    const removed = [expect.stringMatching(new RegExp(`^gatehouse: removed ${settings.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: agent settings`))];
    expect(gatehouseLines(first.got.stderr)).toEqual(removed);
    expect(existsSync(settings)).toBe(false);
    writeFileSync(join(fifos, 'b'), 'go\n');
    expect(await second.ended, second.got.stderr).toBe(1);
    expect(second.got.stdout).toBe('waiting\nagain\n');
    expect(gatehouseLines(second.got.stderr)).toEqual(removed);
    expect(existsSync(settings)).toBe(false);
    expect(readdirSync(box).filter((n) => n.startsWith('pending-'))).toEqual([]);
  });

  /**
   * Runs `command` boxed (`line`), holds the check still (SIGSTOP) at its first `rm` while the
   * accomplice `swapper`, on the word in FIFO `a`, puts a link in place, then lets it go: what
   * the check said.
   */
  async function swappedWhileRemoving(command: string, cwd: string, home: string, fifos: string, swapper: ReturnType<typeof started>): Promise<string> {
    const child = spawn('sh', ['-c', command], { cwd, env: gitEnv(home) });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise((done) => child.on('close', done));
    let rm = below(String(child.pid), 'rm');
    while (!rm) {
      expect(child.exitCode, stderr).toBeNull();
      await new Promise((go) => setImmediate(go));
      rm = below(String(child.pid), 'rm');
    }
    process.kill(Number(rm), 'SIGSTOP');
    writeFileSync(join(fifos, 'a'), 'go\n');
    await swapper.said('swapped\n');
    process.kill(Number(rm), 'SIGCONT');
    await closed;
    return stderr;
  }

  it('a command started while Gatehouse finishes a killed command’s note (the note claimed, the gitlink not yet out) takes the gitlink for what was there before; it stages it again after, and its check must still take it out', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo, marker } = realRepo();
    const { box, checkFile, fifos, line } = boxWithFifos(h, repo, ['b']);
    // The killed command: a new repository staged, and an index.lock folder of 20,000 files the
    // check clears before it takes the gitlink out (its rm takes a while); KILLed while it does.
    const killed = await cutDuringCheck(
      line(
        [
          `printf '#!/bin/sh\\necho ran >> %s\\n' ${shellQuote(marker)} > mon.sh && chmod +x mon.sh`,
          'git init -q sub && (cd sub && git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m s && git config core.fsmonitor "$OLDPWD/mon.sh") && git add sub 2>/dev/null',
          'mkdir .git/index.lock && (cd .git/index.lock && seq 1 20000 | xargs touch) && echo staged',
        ].join('\n'),
      ),
      repo,
      h.home,
      'SIGKILL',
    );
    expect(killed.stdout).toBe('staged\n');
    expect(git(repo, h.home, 'ls-files', '-s')).toContain('160000 ');
    // Gatehouse finishes the note (as BoxJournals does), held still while it clears the lock.
    const recovery = spawn('/bin/sh', [checkFile, '--recover'], { cwd: box, detached: true, stdio: 'ignore' });
    ctx.onTestFinished(() => {
      if (recovery.exitCode === null && recovery.signalCode === null) process.kill(-recovery.pid!, 'SIGKILL');
    });
    const recovered = new Promise((done) => recovery.on('close', done));
    let rm = below(String(recovery.pid), 'rm');
    while (!rm) {
      expect(recovery.exitCode).toBeNull();
      await new Promise((go) => setImmediate(go));
      rm = below(String(recovery.pid), 'rm');
    }
    process.kill(Number(rm), 'SIGSTOP');
    expect(readdirSync(box).filter((n) => n.startsWith('pending-'))).toEqual([expect.stringMatching(/^pending-\d+-\d+-r1$/)]);
    expect(git(repo, h.home, 'ls-files', '-s')).toContain('160000 ');
    // The next command starts now (its scan sees the gitlink), and waits in its box.
    const next = started(line(`echo waiting; read x < ${shellQuote(join(fifos, 'b'))}; git add sub 2>/dev/null; echo again`), repo, h.home, ctx);
    await next.said('waiting\n');
    process.kill(Number(rm), 'SIGCONT');
    await recovered;
    expect(git(repo, h.home, 'ls-files', '-s')).not.toContain('160000 ');
    writeFileSync(join(fifos, 'b'), 'go\n');
    await next.ended;
    expect(next.got.stdout).toBe('waiting\nagain\n');
    expect(git(repo, h.home, 'ls-files', '-s'), next.got.stderr).not.toContain('160000 ');
    git(repo, h.home, 'status', '--porcelain');
    expect(existsSync(marker), 'git status outside the box ran the new repository’s fsmonitor').toBe(false);
  });

  it.for([
    ['a repository of the user’s elsewhere', 'victim'],
    ['the project itself (cold/.git would be its .git)', 'self'],
  ] as const)('a link put on the way while the check runs (by another command still in its box) to %s does not lead its removal there: that repository keeps its .git', async ([, to], ctx) => {
    needsBwrap(ctx, sandbox);
    const { h, repo } = realRepo();
    // Two submodules not checked out: their gitlinks, and empty folders.
    addSubmodules(h, repo, ['a', 'cold']);
    for (const s of ['a', 'cold']) git(repo, h.home, 'submodule', '-q', 'deinit', '-f', s);
    // A repository of the user's outside the project, which the box cannot write.
    const victim = to === 'self' ? repo : join(h.home, 'victim');
    if (to !== 'self') {
      mkdirSync(victim);
      git(victim, h.home, 'init', '-q', '-b', 'main');
    }
    const { fifos, line } = boxWithFifos(h, repo, ['a', 'b']);
    // The accomplice, in its box: on a word from the test, puts a link to the user's repository at `cold`.
    const swapper = started(line(`echo ready; read x < ${shellQuote(join(fifos, 'a'))}; mv cold cold.x && ln -s ${to === 'self' ? '.' : shellQuote(victim)} cold && echo swapped; read x < ${shellQuote(join(fifos, 'b'))}`), repo, h.home, ctx);
    await swapper.said('ready\n');
    // The command: repositories at `a` and `cold`, whose .git the check removes in that order, the
    // first with 20,000 files (its rm takes a while).
    // Between the check's look at `cold` (a folder, no link) and its removal of cold/.git (while
    // it removes a/.git): held still there while the accomplice swaps.
    const stderr = await swappedWhileRemoving(line('git init -q a && (cd a/.git && seq 1 20000 | xargs touch) && git init -q cold && echo planted'), repo, h.home, fifos, swapper);
    expect(existsSync(join(victim, '.git', 'HEAD')), 'the check removed the .git of a repository through the link').toBe(true);
    expect(gatehouseLines(stderr)).toEqual([expect.stringMatching(/^gatehouse: could not remove \(remove them before running Git here\) \/.*\/a\/\.git \/.*\/cold\/\.git: created in a Git folder/)]);
    // What is in the project is removed as before.
    expect(() => lstatSync(join(repo, 'a', '.git'))).toThrow();
  });

  it('a link put in place of a new top-level .git while the check sets its configuration aside (by another command still in its box) does not lead it into a repository of the user’s elsewhere: that one keeps its config', async (ctx) => {
    needsBwrap(ctx, sandbox);
    const h = fakeHome();
    const proj = join(h.home, 'work', 'plain');
    mkdirSync(proj, { recursive: true });
    // A repository of the user's outside the project, with a remote in its config.
    const victim = join(h.home, 'victim');
    mkdirSync(victim);
    git(victim, h.home, 'init', '-q', '-b', 'main');
    git(victim, h.home, 'remote', 'add', 'origin', 'https://example.com/mine.git');
    const { fifos, line } = boxWithFifos(h, proj, ['a', 'b']);
    // The accomplice, in its box: on a word from the test, puts a link to the user's .git in place of the project's.
    const swapper = started(line(`echo ready; read x < ${shellQuote(join(fifos, 'a'))}; mv .git .git.x && ln -s ${shellQuote(join(victim, '.git'))} .git && echo swapped; read x < ${shellQuote(join(fifos, 'b'))}`), proj, h.home, ctx);
    await swapper.said('ready\n');
    // The command: a repository with a core.fsmonitor (set aside by the check), and 20,000 files
    // where the check first clears the way for config.gatehouse-held (its rm takes a while).
    const stderr = await swappedWhileRemoving(line('git init -q && git config core.fsmonitor "$PWD/mon.sh" && mkdir .git/config.gatehouse-held && (cd .git/config.gatehouse-held && seq 1 20000 | xargs touch) && echo made'), proj, h.home, fifos, swapper);
    expect(readFileSync(join(victim, '.git', 'config'), 'utf8'), 'the check set aside the config of a repository outside the project, through the link').toContain('https://example.com/mine.git');
    expect(existsSync(join(victim, '.git', 'config.gatehouse-held'))).toBe(false);
    expect(gatehouseLines(stderr)).toEqual([expect.stringMatching(/^gatehouse: could not set aside \(remove it before running Git there\): a Git repository the contained command made at the top of the project/)]);
  });
});

// ---- the real host ---------------------------------------------------------------------------------

interface Served {
  stop: () => Promise<void>;
  url: string;
  token: string;
  agentToken: string;
  home: ReturnType<typeof fakeHome>;
}

async function serve(env: NodeJS.ProcessEnv = {}): Promise<Served> {
  // Started here rather than with startCli, whose per-test folders cannot be made in beforeAll.
  const shared = sharedTempDir('gatehouse-box-host-');
  const home = fakeHome(() => shared.dir);
  const child = spawn(process.execPath, [cliPath, 'serve', '--home', home.gatehouse, '--port', '0'], {
    env: { ...process.env, HOME: home.home, XDG_CONFIG_HOME: join(home.home, '.config'), GATEHOUSE_HOME: home.gatehouse, GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const seen = (d: Buffer) => {
      log += d.toString();
      if (/Gatehouse console: /.test(log)) resolve();
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`gatehouse serve exited (${code}) before it listened: ${log}`)));
  });
  const info = JSON.parse(readFileSync(join(home.gatehouse, 'serve.json'), 'utf8')) as { url: string; token: string; agentToken: string };
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    shared.remove();
  };
  return { ...info, home, stop };
}

const port = (s: Served) => Number(new URL(s.url).port);

async function op(s: Served, method: string, params: unknown): Promise<Record<string, unknown>> {
  const res = await http({ port: port(s), path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
  const body = JSON.parse(res.body) as { ok: boolean; result?: Record<string, unknown>; error?: unknown };
  if (!body.ok) throw new Error(`${method}: ${res.body}`);
  return body.result!;
}

interface HookReply {
  continue?: boolean;
  hookSpecificOutput?: { permissionDecision: string; permissionDecisionReason: string; updatedInput?: Record<string, unknown> };
}

let n = 0;
async function bash(s: Served, command: string, session = `s${++n}`): Promise<HookReply> {
  const input = { session_id: session, cwd: s.home.proj, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'test', timeout: 120000 }, tool_use_id: `t${++n}` };
  const res = await http({ port: port(s), path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${s.agentToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  return JSON.parse(res.body) as HookReply;
}

function events(s: Served, type: string): Record<string, unknown>[] {
  const db = new Database(join(s.home.gatehouse, 'audit.db'), { readonly: true });
  try {
    return (db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY seq').all(type) as { payload: string }[]).map((r) => JSON.parse(r.payload) as Record<string, unknown>);
  } finally {
    db.close();
  }
}

describe('containment through the Claude Code hook (a real host)', () => {
  let host: Served;
  beforeAll(async () => {
    host = await serve();
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('full autonomy: answered allow with the command boxed (description and timeout kept); run as Claude Code runs it, the key is hidden; the log has the boxed command', async (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    await op(host, 'settings.update', { mode: 'live', autonomy: 'full', hookAutonomyAllow: 'defer', containment: ['full', 'grants'] });
    // A script the judge cannot see into (it only knows a project script runs).
    put(join(host.home.proj, 'peek.sh'), 'cat ~/.ssh/id_rsa; echo after\n');
    const reply = await bash(host, 'sh ./peek.sh');
    const out = reply.hookSpecificOutput!;
    expect(out.permissionDecision).toBe('allow');
    expect(out.permissionDecisionReason).toMatch(/runs contained \(bwrap\)/);
    expect(out.updatedInput).toMatchObject({ description: 'test', timeout: 120000 });
    const line = String(out.updatedInput!.command);
    expect(line).toMatch(/bwrap .* -- \/bin\/sh -c '.*' gatehouse-box - '.*' '.*' \d+ .* \/bin\/(ba)?sh -c 'sh \.\/peek\.sh'$/s);
    // Under the Landlock scope (box-scope.ts) where this machine has one, built in the data folder.
    if ((await installScope(tempDir('gatehouse-scope-'))).ok) {
      expect(line).toContain(` ${join(host.home.gatehouse, 'box', 'scope-')}`);
      const health = (await op(host, 'health.list', {})) as { sandbox: { containment?: { scoped?: boolean; detail: string } } };
      expect(health.sandbox.containment).toMatchObject({ scoped: true, detail: expect.stringContaining('Landlock keeps it from sockets in the abstract namespace') });
    }
    const r = spawnSync('/bin/bash', ['-c', line], { cwd: host.home.proj, env: { ...process.env, HOME: host.home.home }, encoding: 'utf8' });
    expect(r.stdout).toBe('after\n');
    expect(r.stdout + r.stderr).not.toContain('SSH-SECRET');
    const contained = events(host, 'call.contained').at(-1)!;
    expect(contained).toMatchObject({ contained: true, box: 'bwrap', command: line, writable: expect.arrayContaining([host.home.proj]) });
  });

  it('not boxed when the setting does not name the level that allowed it: full autonomy with containment off, or naming only supervised', async (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    await op(host, 'settings.update', { mode: 'live', autonomy: 'full', hookAutonomyAllow: 'defer', containment: [] });
    expect(await bash(host, 'npm test')).toEqual({ continue: true });
    await op(host, 'settings.update', { containment: ['supervised'] });
    expect(await bash(host, 'npm test')).toEqual({ continue: true });
    // Off by setting: nothing to record.
    expect(events(host, 'call.contained').filter((e) => e.contained === false)).toEqual([]);
  });

  it('finishes on its own, within a second, the check of a contained command killed before it could (a note whose process is gone), and records what it undid', async (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    const url = new URL('/ws', host.url);
    url.protocol = 'ws:';
    const ws = await wsConnect(url.href, { protocols: ['gatehouse.v1', `gatehouse.token.${host.token}`], origin: new URL(host.url).origin });
    if (!ws.ok) throw new Error(`the console WebSocket was refused (${ws.status})`);
    const console_ = new WsClient(ws.ws);
    // What a killed command left: a .git/commondir it planted, and the note of a check (a process
    // that has ended) that saw the config and hooks there before, and no commondir.
    const git = join(host.home.proj, '.git');
    put(join(git, 'commondir'), '../evil\n');
    const gone = spawnSync('true').pid;
    const before = { G: `${git}//`, B: `//${git}/config//${git}/hooks//`, D: `//${git}/hooks//` };
    put(join(host.home.gatehouse, 'box', `pending-${gone}-1-run`), `top='' fresh=\n${Object.entries(before).map(([k, v]) => `${k}=${shellQuote(v)}\n`).join('')}ok=1\n`);
    await untilLogged(console_, (e) => e.type === 'containment.check-finished');
    await console_.close();
    expect(existsSync(join(git, 'commondir'))).toBe(false);
    expect(existsSync(join(git, 'config'))).toBe(true);
    expect(events(host, 'containment.check-finished').at(-1)).toMatchObject({ exitCode: 0, said: expect.stringMatching(/^gatehouse: moved into \S*\/box\/held\/\d+-\d+-r1 \S*\/\.git\/commondir: created in a Git folder by an earlier contained command/) });
    expect(readdirSync(join(host.home.gatehouse, 'box')).filter((f) => f.startsWith('pending-'))).toEqual([]);
  });

  it('a grant: the operator approved one call for the session; the next identical one, allowed by the grant, is boxed', async (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    await op(host, 'settings.update', { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', containment: ['full', 'grants'] });
    const session = 'granted';
    // The inbox watched as a console watches it: the event that adds the waiting call.
    const url = new URL('/ws', host.url);
    url.protocol = 'ws:';
    const ws = await wsConnect(url.href, { protocols: ['gatehouse.v1', `gatehouse.token.${host.token}`], origin: new URL(host.url).origin });
    if (!ws.ok) throw new Error(`the console WebSocket was refused (${ws.status})`);
    const console_ = new WsClient(ws.ws);
    const added = console_.waitForEvent((e) => e.event === 'approvals.changed' && (e.payload as { added: unknown[] }).added.length > 0);
    const first = bash(host, 'make test', session);
    const id = ((await added).payload as { added: { id: string }[] }).added[0]!.id;
    const item = (await op(host, 'approvals.get', { id })) as unknown as { id: string; argsHash: string };
    await op(host, 'approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'session' });
    await console_.close();
    // The operator read this one: allowed as it is.
    expect((await first).hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    expect((await first).hookSpecificOutput!.updatedInput).toBeUndefined();
    const second = await bash(host, 'make test', session);
    expect(second.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow', permissionDecisionReason: expect.stringMatching(/grant .* runs contained/) });
    expect(String(second.hookSpecificOutput!.updatedInput!.command)).toMatch(/bwrap .* gatehouse-box - '.*' '.*' \d+ .* \/bin\/(ba)?sh -c 'make test'$/s);
  });

  it('per grant: a command grant the operator made uncontained lets its commands through as they are; a contained one boxes them', async (ctx) => {
    if (noBwrap) return ctx.skip(noBwrap);
    await op(host, 'settings.update', { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', containment: ['full', 'grants'] });
    const url = new URL('/ws', host.url);
    url.protocol = 'ws:';
    const ws = await wsConnect(url.href, { protocols: ['gatehouse.v1', `gatehouse.token.${host.token}`], origin: new URL(host.url).origin });
    if (!ws.ok) throw new Error(`the console WebSocket was refused (${ws.status})`);
    const console_ = new WsClient(ws.ws);
    const grantFor = async (command: string, session: string, extra: Record<string, unknown>) => {
      const seen = console_.events.length;
      const added = console_.waitForEvent((e) => console_.events.indexOf(e) >= seen && e.event === 'approvals.changed' && (e.payload as { added: unknown[] }).added.length > 0);
      const first = bash(host, command, session);
      const id = ((await added).payload as { added: { id: string }[] }).added[0]!.id;
      const item = (await op(host, 'approvals.get', { id })) as unknown as { argsHash: string };
      const r = await op(host, 'approvals.grant', { id, argsHash: item.argsHash, kind: 'command', value: command, scope: 'session', minutes: 30, ...extra });
      await first;
      return r.grant as { uncontained?: boolean };
    };
    expect(await grantFor('cargo test', 'grant-open', { uncontained: true })).toMatchObject({ uncontained: true });
    const open = await bash(host, 'cargo test', 'grant-open');
    expect(open.hookSpecificOutput).toMatchObject({ permissionDecision: 'allow' });
    expect(open.hookSpecificOutput!.updatedInput).toBeUndefined();
    expect((await grantFor('go test', 'grant-boxed', {})).uncontained).toBeUndefined();
    const boxed = await bash(host, 'go test', 'grant-boxed');
    expect(String(boxed.hookSpecificOutput!.updatedInput!.command)).toMatch(/bwrap .* gatehouse-box - '.*' '.*' \d+ .* \/bin\/(ba)?sh -c 'go test'$/s);
    await console_.close();
  });

  it('dry-run: nothing is let through on Gatehouse\'s say, so nothing is boxed', async () => {
    await op(host, 'settings.update', { mode: 'dry-run', autonomy: 'full', hookAsk: 'agent', containment: ['full', 'grants'] });
    const reply = await bash(host, 'npm test');
    expect(reply.hookSpecificOutput).toMatchObject({ permissionDecision: 'ask' });
    expect(reply.hookSpecificOutput!.updatedInput).toBeUndefined();
  });
});

describe('containment without bubblewrap', () => {
  it('lets the call through uncontained as before, records why, and Health says containment is off', async () => {
    const host = await serve({ GATEHOUSE_BWRAP: 'none' });
    try {
      await op(host, 'settings.update', { mode: 'live', autonomy: 'full', hookAutonomyAllow: 'defer', containment: ['full', 'grants'] });
      expect(await bash(host, 'npm test')).toEqual({ continue: true });
      expect(events(host, 'call.contained').at(-1)).toMatchObject({ contained: false, box: null, reason: expect.stringContaining('GATEHOUSE_BWRAP=none') });
      const health = (await op(host, 'health.list', {})) as { sandbox: { containment?: { available: boolean; detail: string } } };
      expect(health.sandbox.containment).toMatchObject({ available: false, detail: expect.stringMatching(/^Containment is off: GATEHOUSE_BWRAP=none/) });
    } finally {
      await host.stop();
    }
  });
});
