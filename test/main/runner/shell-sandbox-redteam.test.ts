// Red-team finding against the `shell` tool's sandbox (sandbox-plan.ts, sandbox.ts): it hides a
// hand-kept list of secret folders under the folders it binds, narrower than what the locked
// rules protect for every operation and what the box (containment) hides. An agent at full
// autonomy sends the MCP call
//   shell {"command": "sh proj/steal.sh", "cwd": "~"}
// which the judge allows ("execute proj/steal.sh"); the sandbox binds the home read-only as the
// working folder and the script prints the GitHub CLI token, the Git credentials, Claude Code's
// own sign-in, the npm token, the PostgreSQL password file. The same holds for a folder bound
// because it is on PATH (~/.cargo for ~/.cargo/bin): ~/.cargo/credentials.toml in every sandbox.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { Autonomy, decideCall } from '../../../main/policy/autonomy.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { buildRuleSet, evaluatePolicy } from '../../../main/policy/rules/engine.js';
import type { Operation, ToolCall } from '../../../main/policy/types.js';
import { shellPlan, shellProfile } from '../../../main/runner/sandbox-plan.js';
import { bwrapArgs, detectSandbox } from '../../../main/runner/sandbox.js';
import { tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();
const noBwrap = sandbox.kind === 'bwrap' ? null : `bubblewrap cannot build a sandbox here (${sandbox.reason})`;

function put(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Files the locked rules protect for every operation (builtin.credentials.*), each holding a marker. */
const LOCKED_SECRETS = ['.git-credentials', '.pgpass', '.npmrc', '.config/gh/hosts.yml', '.claude/.credentials.json', '.codex/auth.json', '.local/share/keyrings/login.keyring', '.vault-token', '.cargo/credentials.toml'];

beforeAll(async () => {
  await initExtractor();
});

describe('red team: the shell tool sandbox hides what the locked rules protect', () => {
  it('FINDING: a script run from the home (cwd "~", allowed at full autonomy) reads credential files the locked rules protect', (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-shell-');
    const home = join(root, 'home');
    const gatehouse = join(home, '.config', 'gatehouse');
    put(join(gatehouse, 'operator-token'), 'OPERATOR-SECRET\n');
    put(join(home, '.ssh', 'id_rsa'), 'SSH-SECRET\n');
    for (const f of LOCKED_SECRETS) put(join(home, f), `LOCKED-SECRET ${f}\n`);
    put(join(home, 'proj', 'steal.sh'), `for f in ${LOCKED_SECRETS.map((f) => `"$HOME/${f}"`).join(' ')} "$HOME/.ssh/id_rsa" "${gatehouse}/operator-token"; do cat "$f" 2>/dev/null; done; echo done\n`);

    // The judge: what the MCP call above is decided as at full autonomy.
    const call: ToolCall = { id: 'c1', agent: 'red-team', session: 's1', tool: 'shell', arguments: { command: 'sh proj/steal.sh', cwd: '~' }, cwd: home, source: 'mcp', receivedAt: 0 };
    const x = extract(call, { home });
    const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: gatehouse, caseInsensitive: false }), []);
    const d = decideCall({ call, extraction: x, policy: evaluatePolicy(x, call, { rules }), autonomy: new Autonomy({ level: 'full' }) });
    expect(d.decision).toBe('allow');

    // The sandbox the shell tool runs it in (runShellTool's scope: the call's folder and what was extracted).
    const profile = shellProfile({ cwd: home, paths: x.paths, hosts: x.hosts, evasive: x.evasive, operations: x.operations }, home, gatehouse);
    const env = { PATH: '/usr/bin:/bin', HOME: home };
    const r = spawnSync(sandbox.path, [...bwrapArgs(profile, sandbox, { home, env }), '--', '/bin/sh', '-c', 'sh proj/steal.sh'], { encoding: 'utf8', env });
    expect(r.stdout, r.stderr).toMatch(/done\n$/);
    // These were hidden already.
    expect(r.stdout).not.toMatch(/SSH-SECRET|OPERATOR-SECRET/);
    expect(r.stdout, 'credential files the locked rules protect were readable in the shell tool sandbox').not.toMatch(/LOCKED-SECRET/);
  });

  it('FINDING: a folder bound because it is on PATH (~/.cargo for ~/.cargo/bin) brings its credentials into every sandbox', (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-path-');
    const home = join(root, 'home');
    const proj = join(root, 'work', 'proj');
    mkdirSync(proj, { recursive: true });
    mkdirSync(join(home, '.cargo', 'bin'), { recursive: true });
    put(join(home, '.cargo', 'credentials.toml'), '[registry]\ntoken = "LOCKED-SECRET cargo"\n');
    // `cargo build` approved in the project: build.rs (the agent's) runs with the project and PATH folders in view.
    const profile = shellProfile({ cwd: proj, paths: [], hosts: [], evasive: false, operations: ['execute'] }, home, join(home, '.config', 'gatehouse'));
    const env = { PATH: `${join(home, '.cargo', 'bin')}:/usr/bin:/bin`, HOME: home };
    const r = spawnSync(sandbox.path, [...bwrapArgs(profile, sandbox, { home, env }), '--', '/bin/sh', '-c', `cat ${join(home, '.cargo', 'credentials.toml')}; echo done`], { encoding: 'utf8', env });
    expect(r.stdout, r.stderr).toMatch(/done\n$/);
    expect(r.stdout, 'the cargo token was readable through the PATH bind').not.toMatch(/LOCKED-SECRET/);
  });

  it('FINDING: a protected place in the project (.git/hooks) that is a relative link to the home is not bound read-only over the project: binding it would follow the link and show the home, keys and tokens', (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-lock-');
    const home = join(root, 'home');
    const gatehouse = join(home, '.config', 'gatehouse');
    const proj = join(home, 'proj');
    put(join(gatehouse, 'operator-token'), 'OPERATOR-SECRET\n');
    put(join(home, '.ssh', 'id_rsa'), 'SSH-SECRET\n');
    mkdirSync(join(proj, '.git'), { recursive: true });
    // The link leads, on the host and inside the sandbox alike, to the home (a folder the sandbox
    // has: bwrap made it on the way to the project).
    symlinkSync('../..', join(proj, '.git', 'hooks'));
    // A command that writes in the project: the project is bound writable and its protected
    // places found by name (namedPlaces) are bound read-only on top.
    const profile = shellProfile({ cwd: proj, paths: [join(proj, 'out.txt')], hosts: [], evasive: false, operations: ['write', 'execute'] }, home, gatehouse);
    const env = { PATH: '/usr/bin:/bin', HOME: home };
    const r = spawnSync(sandbox.path, [...bwrapArgs(profile, sandbox, { home, env }), '--', '/bin/sh', '-c', `cat ${join(home, '.ssh', 'id_rsa')} ${join(gatehouse, 'operator-token')} 2>/dev/null; echo done`], { encoding: 'utf8', env });
    expect(r.stdout, r.stderr).toMatch(/done\n$/);
    expect(r.stdout).not.toMatch(/SSH-SECRET|OPERATOR-SECRET/);
  });

  it("FINDING: a working folder judged as a folder and made a link into Gatehouse's folder before the command runs is not run in (one to the folder itself runs in an empty folder); one made a link to the home shows it read-only, its keys and tokens hidden", (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-cwd-');
    const home = join(root, 'home');
    const gatehouse = join(home, '.config', 'gatehouse');
    put(join(gatehouse, 'operator-token'), 'OPERATOR-SECRET\n');
    put(join(home, '.ssh', 'id_rsa'), 'SSH-SECRET\n');
    const work = join(home, 'proj', 'work');
    const scope = { cwd: work, paths: [join(work, 'trust.json')], hosts: [], evasive: false, operations: ['read', 'write', 'execute'] as Operation[] };
    mkdirSync(join(home, 'proj'), { recursive: true });
    mkdirSync(join(gatehouse, 'plugins'), { recursive: true });
    // Judged while it was a folder; swapped for a link (into Gatehouse's folder) while the call waited for an approval.
    symlinkSync(relative(join(home, 'proj'), join(gatehouse, 'plugins')), work);
    const plan = shellPlan(sandbox, scope, { timeoutMs: 5000, home, gatehouseHome: gatehouse });
    expect(() => plan.wrap('/bin/sh', ['-c', 'cat ../operator-token'])).toThrow(/not run: its folder .* is now a link to .*gatehouse\/plugins, inside .*gatehouse, where no command runs/);
    // A link to Gatehouse's folder itself: run there, in the empty folder that hides it.
    unlinkSync(work);
    symlinkSync(relative(join(home, 'proj'), gatehouse), work);
    const hidden = shellPlan(sandbox, scope, { timeoutMs: 5000, home, gatehouseHome: gatehouse, env: { PATH: '/usr/bin:/bin', HOME: home } }).wrap('/bin/sh', ['-c', 'cat operator-token 2>/dev/null; echo x > trust.json 2>/dev/null || echo refused']);
    const h = spawnSync(hidden.command, hidden.args, { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: home } });
    expect(h.stdout, h.stderr).toBe('refused\n');
    // The same swap to the home: bound read-only by its real place, with what is secret in it hidden.
    unlinkSync(work);
    symlinkSync('..', work);
    const env = { PATH: '/usr/bin:/bin', HOME: home };
    const profile = shellPlan(sandbox, scope, { timeoutMs: 5000, home, gatehouseHome: gatehouse, env });
    const w = profile.wrap('/bin/sh', ['-c', `cat .ssh/id_rsa .config/gatehouse/operator-token 2>/dev/null; echo x > made.txt 2>/dev/null || echo refused`]);
    const r = spawnSync(w.command, w.args, { encoding: 'utf8', env });
    expect(r.stdout, r.stderr).toMatch(/refused\n$/);
    expect(r.stdout).not.toMatch(/SSH-SECRET|OPERATOR-SECRET/);
  });

  it("a linked .git/hooks inside the project (.git/hooks -> ../.githooks, shared hooks) stays read-only: locked at its real place", (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-sharedhooks-');
    const home = join(root, 'home');
    const proj = join(root, 'proj');
    mkdirSync(join(proj, '.git'), { recursive: true });
    mkdirSync(join(proj, '.githooks'));
    symlinkSync('../.githooks', join(proj, '.git', 'hooks'));
    const profile = shellProfile({ cwd: proj, paths: [join(proj, 'out.txt')], hosts: [], evasive: false, operations: ['write', 'execute'] }, home, join(home, '.config', 'gatehouse'));
    const env = { PATH: '/usr/bin:/bin', HOME: home };
    const r = spawnSync(sandbox.path, [...bwrapArgs(profile, sandbox, { home, env }), '--', '/bin/sh', '-c', 'echo evil > .git/hooks/pre-commit 2>/dev/null || echo refused; echo ok > out.txt'], { encoding: 'utf8', env });
    expect(r.stdout, r.stderr).toBe('refused\n');
    expect(existsSync(join(proj, '.githooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(proj, 'out.txt'))).toBe(true);
  });

  it('a read path reached through a writable bind (an alias into the project) is not bound, link or folder: a concurrent command could swap it between the check and the mount', (ctx) => {
    if (noBwrap || sandbox.kind !== 'bwrap') return ctx.skip(noBwrap ?? '');
    const root = tempDir('gatehouse-redteam-alias-');
    const shared = join(root, 'shared');
    mkdirSync(join(shared, 'cache'), { recursive: true });
    symlinkSync(join(shared, 'cache'), join(root, 'alias'));
    const args = bwrapArgs({ pluginDir: root, read: [join(root, 'alias')], write: [shared], hosts: [] }, sandbox, { home: join(root, 'home'), env: { PATH: '/usr/bin:/bin' } });
    expect(args.join(' ')).toContain(`--bind-try ${shared} ${shared}`);
    expect(args).not.toContain(join(root, 'alias'));
  });
});
