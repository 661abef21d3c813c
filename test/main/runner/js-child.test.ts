// The one way JavaScript children start (main/runner/js-child.ts): under Node with the Node that
// runs Gatehouse; under Electron (a stand-in for process.versions.electron, execPath and PATH, so
// no global is patched) with a real Node found on the PATH and the entry unpacked beside the asar,
// never the app's binary, whose runAsNode fuse is off. No Node: the child is refused, with a
// sentence, and nothing runs. The children are real processes.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findNode, JsChildRefused, type RuntimeHost } from '../../../main/core/node-runtime.js';
import { spawnJsChild } from '../../../main/runner/js-child.js';
import { ModuleLoadError, ModuleProcess } from '../../../main/runner/module/module-process.js';
import { detectSandbox, unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { WasmHostClient } from '../../../main/runner/wasm/wasm-host-client.js';
import { tempDir } from '../../support/temp.js';

const realNode = realpathSync(process.execPath);
const detection = detectSandbox();
/** A packaged app's binary: starting it would start the app, so it must never be run. */
const APP_BINARY = '/nonexistent/Gatehouse/gatehouse';

function electron(path: string): RuntimeHost {
  return { electron: '40.10.2', execPath: APP_BINARY, path, platform: process.platform };
}

/** A folder holding `node`: a link to the Node running the tests, or a script standing in for something else. */
function pathWith(node: { script: string } | 'real'): string {
  const dir = join(tempDir('gatehouse-path-'), 'bin');
  mkdirSync(dir);
  if (node === 'real') symlinkSync(process.execPath, join(dir, 'node'));
  else writeFileSync(join(dir, 'node'), `#!/bin/sh\n${node.script}\n`, { mode: 0o755 });
  return dir;
}

/** Runs `file` as a JavaScript child and returns what it printed. */
async function run(file: string, runtime?: RuntimeHost): Promise<string> {
  const { child } = spawnJsChild({ what: 'the test child', file, wrap: () => unsandboxedWrap({ timeoutMs: 10_000 }), options: { stdio: ['ignore', 'pipe', 'pipe'] }, ...(runtime ? { runtime } : {}) });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  expect(code, err).toBe(0);
  return out;
}

const PRINT = 'process.stdout.write(JSON.stringify({ execPath: process.execPath, file: process.argv[1], electron: process.versions.electron ?? null }));\n';

describe('JavaScript children', () => {
  it('under Node, run with the Node that runs Gatehouse', async () => {
    const file = join(tempDir('gatehouse-js-child-'), 'child.mjs');
    writeFileSync(file, PRINT);
    expect(JSON.parse(await run(file))).toEqual({ execPath: realNode, file, electron: null });
  });

  it("under Electron, run with a real Node from the PATH and the entry unpacked beside the asar, never the app's binary", async () => {
    const resources = tempDir('gatehouse-resources-');
    // Only the unpacked copy exists: a Node outside Electron cannot read app.asar.
    const unpacked = join(resources, 'app.asar.unpacked', 'out', 'main', 'child.mjs');
    mkdirSync(dirname(unpacked), { recursive: true });
    writeFileSync(unpacked, PRINT);
    const inAsar = join(resources, 'app.asar', 'out', 'main', 'child.mjs');
    const printed = JSON.parse(await run(inAsar, electron(`relative/bin:${pathWith('real')}`))) as { execPath: string; file: string };
    expect(printed).toEqual({ execPath: realNode, file: unpacked, electron: null });
  });

  it('under Electron, pass over a `node` that is not Node.js, or too old, or Electron itself, and refuse with a sentence when none is left', () => {
    const notNode = pathWith({ script: 'echo hello' });
    const old = pathWith({ script: `echo '["node","18.19.0",null]'` });
    const app = pathWith({ script: `echo '["node","22.1.0","40.10.2"]'` });
    const found = findNode(electron([notNode, old, app].join(':')));
    expect(found.ok).toBe(false);
    const reason = found.ok ? '' : found.reason;
    expect(reason).toContain(`${join(notNode, 'node')} is not Node.js`);
    expect(reason).toContain(`${join(old, 'node')} is Node.js 18.19.0, older than 20.19`);
    expect(reason).toContain(`${join(app, 'node')} is not Node.js`);
    expect(reason).toContain('runAsNode fuse is off');
    expect(() => spawnJsChild({ what: 'the test child', file: '/x/child.mjs', wrap: () => unsandboxedWrap(), options: {}, runtime: electron('') })).toThrow(JsChildRefused);
    // And a real one later on the PATH is found.
    expect(findNode(electron([notNode, old, pathWith('real')].join(':')))).toEqual({ ok: true, node: realNode });
  });
});

describe('JavaScript children: module plugins and the WebAssembly process', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((p) => p.close()));
  });

  function moduleProcess(runtime: RuntimeHost): ModuleProcess {
    const root = tempDir('gatehouse-module-electron-');
    const dir = join(root, 'p');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'mod.ts'),
      `export const manifest = { name: "p", version: "1.0.0", description: "test", classification: "PUBLIC", trust: "sandboxed", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "t", description: "a tool", parameters: {} }];
export function createExecutor() { return async () => process.execPath; }
`,
    );
    const p = new ModuleProcess({ pluginDir: dir, cacheDir: join(root, 'cache'), detection, fetch: { record: () => undefined }, runtime });
    open.push(p);
    return p;
  }

  it('a module plugin under Electron runs in its sandbox with the Node from the PATH', async () => {
    const p = moduleProcess(electron(pathWith('real')));
    const r = await p.call('t', {}, { timeoutMs: 10_000 });
    expect(r).toMatchObject({ ok: true, output: realNode });
    expect(p.sandboxed).toBe(detection.kind === 'bwrap');
  });

  it('a module plugin under Electron without a Node is refused with the reason, and nothing is started', async () => {
    const p = moduleProcess(electron(pathWith({ script: 'echo hello' })));
    const err = await p.load().then(() => null, (e: unknown) => e as ModuleLoadError);
    expect(err).toBeInstanceOf(ModuleLoadError);
    expect(err?.failure).toBe('load-error');
    expect(err?.message).toMatch(/^the module plugin in .* was not started: no Node\.js 20\.19 or later was found on the PATH/);
    expect(p.pid).toBeNull();
  });

  it('the WebAssembly process under Electron without a Node is refused with the reason', async () => {
    const client = new WasmHostClient({ detection, runtime: electron('') });
    open.push(client);
    const spec = { module: { hash: 'h', bytes: new Uint8Array(0) }, call: {}, timeoutMs: 1000, hostCall: () => Promise.resolve({ ok: false, error: 'none' }) } as unknown as Parameters<WasmHostClient['run']>[0];
    await expect(client.run(spec)).rejects.toThrow(/^the WebAssembly runner was not started: no Node\.js 20\.19 or later was found on the PATH; the desktop app cannot act as one/);
    expect(client.pid).toBeNull();
  });
});
