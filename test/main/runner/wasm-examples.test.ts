// The WebAssembly examples, built in the test from their committed sources (the AssemblyScript
// compiler and wabt from npm; no .wasm is committed), enabled and called through the real
// registry and ToolRunner, in the sandboxed worker process.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import asc from 'assemblyscript/asc';
import type { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import type { ToolRunner } from '../../../main/runner/tool-runner.js';
import { wasmRunner, wat2wasm } from '../../support/wasm.js';
import { scaffoldPlugin } from '../../../main/registry/scaffold.js';

const examples = join(import.meta.dirname, '..', '..', '..', 'examples', 'wasm-plugins');

/** Compiles an AssemblyScript entry the way the example's README says. */
export async function buildAssemblyScript(dir: string, entry = 'assembly/index.ts', out = 'plugin.wasm'): Promise<void> {
  let errors = '';
  const r = await asc.main([join(dir, entry), '-o', join(dir, out), '--runtime', 'stub', '--optimize'], { stderr: { write: (s: string | Uint8Array) => ((errors += String(s)), true) } as never });
  if (r.error) throw new Error(`asc failed: ${r.error.message}\n${errors}`);
}

describe('wasm examples', () => {
  let root: string;
  let registry: PluginRegistry;
  let runner: ToolRunner;
  const records: { type: string; payload: Record<string, unknown> }[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-wasm-ex-'));
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'plugins'));
    ({ registry, runner } = wasmRunner(root, (type, payload) => records.push({ type, payload })));
  });
  afterEach(async () => {
    await runner.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('the AssemblyScript summary tool reads a granted file and returns its summary', async () => {
    const dir = join(root, 'plugins', 'summary');
    cpSync(join(examples, 'summary'), dir, { recursive: true });
    await buildAssemblyScript(dir);
    const notes = join(root, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'todo.md'), '# Groceries\nmilk and "eggs"\nbread\n');
    // The example grants ~/notes; the test's notes are elsewhere.
    const manifest = join(dir, 'gatehouse.toml');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('read = ["~/notes"]', `read = [${JSON.stringify(notes)}]`));
    await registry.refreshAll();
    expect(registry.get('summary')!.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(registry.get('summary')!.toolNames).toEqual(['summary__summarize']);
    await registry.enable('summary', 'alice');
    const r = await runner.call('summary', 'summarize', { path: join(notes, 'todo.md') }, { actor: 'agent:test' });
    expect(r.ok, r.error ?? '').toBe(true);
    expect(r.output).toEqual({ path: join(notes, 'todo.md'), bytes: 34, lines: 3, words: 6, first_line: '# Groceries' });
    expect(r.wasm!.fuelUsed).toBeGreaterThan(0);
    const outside = await runner.call('summary', 'summarize', { path: join(root, 'home', 'trust.json') }, { actor: 'agent:test' });
    expect(outside.ok).toBe(false);
    expect(outside.error).toMatch(/Gatehouse did not let this plugin read/);
    expect(records.filter((x) => x.type === 'wasm.host-call').map((x) => x.payload['decision'])).toEqual(['allow', 'deny']);
  });

  it('the .wat tool greets', async () => {
    const dir = join(root, 'plugins', 'hello-wat');
    cpSync(join(examples, 'hello-wat'), dir, { recursive: true });
    writeFileSync(join(dir, 'plugin.wasm'), await wat2wasm(readFileSync(join(dir, 'hello.wat'), 'utf8')));
    await registry.refreshAll();
    await registry.enable('hello-wat', 'alice');
    const r = await runner.call('hello-wat', 'greet', {}, { actor: 'agent:test' });
    expect(r.output).toEqual({ greeting: 'hello from WebAssembly' });
  });

  it('gatehouse plugin new --lang wasm-as scaffolds an AssemblyScript tool that builds, enables and answers with its fuel', async () => {
    const r = scaffoldPlugin(join(root, 'plugins'), 'my-wasm', 'wasm-as');
    expect(r.files).toEqual(['gatehouse.toml', 'assembly/index.ts', 'README.md']);
    await registry.refreshAll();
    // Not built yet: invalid, saying what to do.
    expect(registry.get('my-wasm')!.problems.find((p) => p.severity === 'error')!.message).toMatch(/`wasm` = "plugin.wasm" does not exist in the plugin folder; build the module/);
    await buildAssemblyScript(r.dir);
    await registry.refreshAll();
    await registry.enable('my-wasm', 'alice');
    const out = await runner.call('my-wasm', 'echo', { message: 'hi' }, { actor: 'agent:test' });
    expect(out.ok, out.error ?? '').toBe(true);
    expect(out.output).toEqual({ received: { message: 'hi' }, length: 16 });
    expect(out.wasm!.fuelUsed).toBeGreaterThan(0);
    expect(out.wasm!.fuelLimit).toBe(1_000_000);
  });

  it("an AssemblyScript abort (throw) ends the call as a trap with the module's own message", async () => {
    const r = scaffoldPlugin(join(root, 'plugins'), 'thrower', 'wasm-as');
    const src = join(r.dir, 'assembly', 'index.ts');
    writeFileSync(src, readFileSync(src, 'utf8').replace('  const args = input();', '  const args = input();\n  if (args.length > 0) throw new Error("no input allowed");'));
    await buildAssemblyScript(r.dir);
    await registry.refreshAll();
    await registry.enable('thrower', 'alice');
    const out = await runner.call('thrower', 'echo', { message: 'x' }, { actor: 'agent:test' });
    expect(out.failure).toBe('trap');
    expect(out.error).toMatch(/the module aborted: no input allowed \(\S*assembly\/index\.ts:\d+:\d+\) \(fuel used \d+ of 1000000\)/);
  });
});
