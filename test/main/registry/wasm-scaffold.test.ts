// `gatehouse plugin new --lang wasm-as` as a user meets it: in a clean folder outside the
// checkout, with `gatehouse` on PATH (the built CLI), every command the scaffold prints and its
// README lists is run exactly as written by /bin/sh; then the plugin passes its own scan, is
// enabled, and its tool answers through MCP on a real `gatehouse serve`. Nothing is installed
// into the plugin folder: the build uses the AssemblyScript compiler that ships with Gatehouse.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../../support/cli.js';
import { startServe } from '../../support/served-host.mjs';
import { tempDir } from '../../support/temp.js';
import { connectAgent, resultText } from '../../support/mcp-agent.js';

interface Shell {
  root: string;
  env: NodeJS.ProcessEnv;
}

/** A clean folder outside the checkout with `gatehouse` on PATH and a data folder of its own. */
function userShell(): Shell {
  const root = tempDir('gatehouse-scaffold-user-');
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gatehouse'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`, { mode: 0o755 });
  mkdirSync(join(root, 'work'));
  const home = join(root, 'home');
  return { root, env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, GATEHOUSE_HOME: home, XDG_CONFIG_HOME: join(root, 'config'), GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' } };
}

/** Runs one command line with /bin/sh, as a user pastes it. */
function sh(s: Shell, line: string, cwd = join(s.root, 'work')): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { cwd, env: s.env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** The command lines `plugin new` printed (indented, starting with `gatehouse`). */
const printed = (out: string) => out.split('\n').filter((l) => /^\s+gatehouse /.test(l)).map((l) => l.trim());

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('the wasm-as scaffold builds and enables exactly as it says', () => {
  it('plugin new, then the printed build and enable commands; the plugin passes its scan, has no node_modules, and its tool answers through MCP', async () => {
    const s = userShell();
    const made = await sh(s, 'gatehouse plugin new my-wasm --lang wasm-as');
    expect(made.code, made.out).toBe(0);
    const dir = join(s.root, 'home', 'plugins', 'my-wasm');
    const steps = printed(made.out);
    expect(steps).toEqual([`gatehouse plugin build ${dir}`, 'gatehouse plugin enable my-wasm']);
    for (const step of steps) {
      const r = await sh(s, step);
      expect(r.code, `${step}\n${r.out}`).toBe(0);
    }
    expect(existsSync(join(dir, 'plugin.wasm'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    const scan = await sh(s, `gatehouse plugin scan ${dir}`);
    expect(scan.code, scan.out).toBe(0);
    expect(scan.out).toMatch(/0 findings, total weight 0; scan passed/);

    writeFileSync(join(s.root, 'home', 'settings.json'), JSON.stringify({ mode: 'live', autoApprove: ['my-wasm*'] }));
    const served = await startServe(cliPath, join(s.root, 'home'), s.env);
    children.push(served.host);
    const { client, toolsWhen } = await connectAgent(served.serve, 'scaffold-test');
    try {
      const tool = (await toolsWhen((names) => names.some((n) => n.startsWith('my-wasm')))).find((n) => n.startsWith('my-wasm'))!;
      const r = (await client.callTool({ name: tool, arguments: { message: 'hi' } })) as CallToolResult;
      const text = resultText(r);
      expect(r.isError ?? false, text).toBe(false);
      expect(JSON.parse(text)).toEqual({ received: { message: 'hi' }, length: 16 });
    } finally {
      await client.close();
    }
  }, 180_000);

  it("the README's commands, run in the plugin folder as written, build and enable it", async () => {
    const s = userShell();
    expect((await sh(s, 'gatehouse plugin new from-readme --lang wasm-as')).code).toBe(0);
    const dir = join(s.root, 'home', 'plugins', 'from-readme');
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    const lines = readme.split('\n').filter((l) => /^ {4}\S/.test(l)).map((l) => l.trim());
    expect(lines).toEqual(['gatehouse plugin build .', 'gatehouse plugin enable from-readme']);
    for (const line of lines) {
      const r = await sh(s, line, dir);
      expect(r.code, `${line}\n${r.out}`).toBe(0);
    }
    expect(readFileSync(join(dir, 'gatehouse.toml'), 'utf8')).toContain('gatehouse plugin build .');
    expect(readFileSync(join(dir, 'assembly', 'index.ts'), 'utf8')).toContain('gatehouse plugin build .');
  }, 120_000);

  it('with --dir and --home, the printed commands carry what enable needs to find the plugin', async () => {
    const s = userShell();
    const made = await sh(s, 'gatehouse plugin new elsewhere --lang wasm-as --dir . --home ./data');
    expect(made.code, made.out).toBe(0);
    const steps = printed(made.out);
    const work = join(s.root, 'work');
    expect(steps).toEqual([`gatehouse plugin build ${join(work, 'elsewhere')}`, `gatehouse plugin enable elsewhere --home ${join(work, 'data')} --plugins-dir ${work}`]);
    // From another folder: the printed commands do not depend on where they are run.
    const outs: string[] = [];
    for (const step of steps) {
      const r = await sh(s, step, s.root);
      expect(r.code, `${step}\n${r.out}`).toBe(0);
      outs.push(r.out);
    }
    expect(outs[1]).toMatch(/elsewhere enabled \(elsewhere(__echo)?\)/);
  }, 120_000);

  it('plugin build says what is wrong: not a wasm plugin, or a compile error', async () => {
    const s = userShell();
    expect((await sh(s, 'gatehouse plugin new a-py --lang py --dir .')).code).toBe(0);
    const notWasm = await sh(s, 'gatehouse plugin build a-py');
    expect(notWasm.code).toBe(1);
    expect(notWasm.out).toMatch(/gatehouse plugin build: .*gatehouse\.toml: kind is "tool", not "wasm"/);
    expect((await sh(s, 'gatehouse plugin new broken --lang wasm-as --dir .')).code).toBe(0);
    writeFileSync(join(s.root, 'work', 'broken', 'assembly', 'index.ts'), 'export function echo(): i32 { return nope; }\n');
    const bad = await sh(s, 'gatehouse plugin build broken');
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/Cannot find name 'nope'/);
    expect(bad.out).toMatch(/the AssemblyScript compiler failed \(exit 1\); fix the errors it printed above in assembly\/index\.ts/);
  }, 120_000);
});
