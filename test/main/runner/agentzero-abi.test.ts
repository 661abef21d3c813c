// AgentZero's plugin ABI v2, what its SDK's `declare_tool!` builds (cargo build --target
// wasm32-wasip1): the module exports az_alloc(size) -> ptr, az_tool_name() -> i64 and
// az_tool_execute(ptr, len) -> i64. The host writes {"input": <the call's arguments as JSON
// text>, "workspace_root": …} where az_alloc says, and reads {"output", "error"} back from the
// packed pointer (low 32 bits) and length (high 32 bits) the export returns. `az.az_log(level,
// ptr, len)` is linked for every plugin. The modules below are that ABI written out in WAT (what
// the macro expands to, minus serde). A seed-parity review found such a module "succeeding" with
// an empty result, and the reference notepad's az_log import refused.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import type { ToolRunner } from '../../../main/runner/tool-runner.js';
import { wasmPlugin, wasmRunner } from '../../support/wasm.js';

/** A module that logs its input with az_log (level 2, info) and answers `answer`. */
const module = (answer: string, opts: { wasi?: boolean; packed?: string } = {}) => `(module
  ${opts.wasi === false ? '' : '(import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))'}
  (import "az" "az_log" (func $az_log (param i32 i32 i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 0) "my_tool")
  (data (i32.const 64) ${JSON.stringify(answer)})
  (func (export "az_alloc") (param $size i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $heap))
    (global.set $heap (i32.add (global.get $heap) (local.get $size)))
    (local.get $p))
  (func (export "az_tool_name") (result i64)
    (i64.or (i64.const 0) (i64.shl (i64.const 7) (i64.const 32))))
  (func (export "az_tool_execute") (param $ptr i32) (param $len i32) (result i64)
    (call $az_log (i32.const 2) (local.get $ptr) (local.get $len))
    ${opts.packed ?? `(i64.or (i64.const 64) (i64.shl (i64.const ${Buffer.byteLength(answer)}) (i64.const 32)))`}))`;

const manifest = (name: string) => `name = "${name}"\ndescription = "AgentZero's ten-line plugin, built with declare_tool!."\nkind = "wasm"\nwasm = "plugin.wasm"\n\n[tools.my_tool]\ndescription = "Say hello."\n\n[tools.my_tool.parameters.name]\ntype = "string"\n`;

describe('AgentZero plugins (ABI v2), unchanged', () => {
  let root: string;
  let registry: PluginRegistry;
  let runner: ToolRunner;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-az-'));
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'plugins'));
    ({ registry, runner } = wasmRunner(root, () => {}));
  });
  afterEach(async () => {
    await runner.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function load(wat: string, name = 'my_plugin') {
    await wasmPlugin(join(root, 'plugins'), name, manifest(name), wat);
    await registry.refreshAll();
    const problems = registry.get(name)!.problems.filter((p) => p.severity === 'error');
    expect(problems.map((p) => `${p.code}: ${p.message}`)).toEqual([]);
    await registry.enable(name, 'alice');
  }
  const call = (name = 'my_plugin', input: Record<string, unknown> = {}) => runner.call(name, 'my_tool', input, { actor: 'agent:a' });

  it.each([
    ['a wasm32-wasip1 build', true],
    ['a module without WASI', false],
  ])('%s: gets the arguments as JSON text (az_log shows them) and its output is the result', async (_name, wasi) => {
    await load(module('{"output":"Hello, Ada!"}', { wasi }));
    const r = await call('my_plugin', { name: 'Ada' });
    expect(r.ok, r.error ?? '').toBe(true);
    expect(r.output).toEqual({ text: 'Hello, Ada!' });
    expect(r.stderr).toContain('[info] {"input":"{\\"name\\":\\"Ada\\"}","workspace_root":""}');
  }, 60_000);

  it('an error with no output is the tool\'s error; an error beside output is a warning in the logs', async () => {
    await load(module('{"output":"","error":"no such note"}'), 'failing');
    const failed = await call('failing');
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/no such note/);
    await load(module('{"output":"saved","error":"the note was truncated"}'), 'warning');
    const warned = await call('warning');
    expect(warned.ok, warned.error ?? '').toBe(true);
    expect(warned.output).toEqual({ text: 'saved' });
    expect(warned.stderr).toContain('[warn] the note was truncated');
  }, 60_000);

  it('an answer outside the module\'s memory, or empty, is refused with a sentence', async () => {
    await load(module('{"output":"x"}', { packed: '(i64.or (i64.const 0x7fff0000) (i64.shl (i64.const 64) (i64.const 32)))' }), 'outside');
    const r = await call('outside');
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/the plugin's answer \(at 2147418112, 64 bytes\) lies outside its memory/);
    await load(module('{"output":"x"}', { packed: '(i64.const 64)' }), 'empty');
    const empty = await call('empty');
    expect(empty.ok).toBe(false);
    expect(empty.error).toMatch(/the plugin returned empty output/);
  }, 60_000);
});
