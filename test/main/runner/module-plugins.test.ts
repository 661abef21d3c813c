// Module plugins (Triggerfish's `mod.ts`): loaded in a sandboxed child that reports the exports
// as data, validated with exact errors, run in a long-lived child per plugin, `fetch` served by
// the host only to declaredEndpoints through the network policy. Real child processes, real
// bubblewrap where it works, a real HTTP server on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { ModuleLoadError, ModuleProcess, type ModuleProcessOptions } from '../../../main/runner/module/module-process.js';
import { canonicalToolName, effectiveTrust } from '../../../main/runner/module/module-exports.js';
import { tempDir } from '../../support/temp.js';
import { scaffoldPlugin } from '../../../main/registry/scaffold.js';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { PluginService } from '../../../main/registry/plugin-service.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { scanFile, scanPlugin } from '../../../main/registry/scan/index.js';
import { DEFAULT_THRESHOLDS } from '../../../main/registry/types.js';
import { moduleManifest } from '../../../main/runner/module/describe-module.js';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import { triggerfishAlias } from '../../../main/policy/rules/compile.js';
import { liveInGroup } from '../../support/processes.js';

const WEATHER = join(import.meta.dirname, '..', '..', '..', 'examples', 'plugins', 'weather');
const detection = detectSandbox();

type Rec = { type: string; actor: string; payload: Record<string, unknown> };

const open: ModuleProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

function proc(dir: string, records: Rec[] = [], extra: Partial<ModuleProcessOptions> = {}): ModuleProcess {
  const p = new ModuleProcess({
    pluginDir: dir,
    cacheDir: join(dir, '..', 'cache'),
    detection,
    fetch: { record: (type, actor, payload) => records.push({ type, actor, payload }) },
    ...extra,
  });
  open.push(p);
  return p;
}

/** A plugin folder holding one mod.ts. */
function plugin(source: string, name = 'p'): string {
  const root = tempDir('gatehouse-module-');
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'mod.ts'), source);
  return dir;
}

/** A module with a manifest and one tool `t` whose executor body is `body`. */
function tool(body: string, top = '', manifest = ''): string {
  return plugin(`${top}
export const manifest = { name: "p", version: "1.0.0", description: "test", classification: "PUBLIC", trust: "sandboxed", declaredEndpoints: [] ${manifest} };
export const toolDefinitions = [{ name: "t", description: "a tool", parameters: {} }];
export function createExecutor(context: any) {
  return async (name: string, input: any) => { ${body} };
}
`);
}

async function server(answer: (url: string) => string): Promise<{ srv: Server; port: number }> {
  const srv = createServer((req, res) => res.end(answer(req.url ?? '')));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return { srv, port: (srv.address() as AddressInfo).port };
}

describe('module plugins: discovery and validation', () => {
  it("loads Triggerfish's documented weather plugin unchanged, with forecast's JSON Schema and the systemPrompt", async () => {
    expect(readFileSync(join(WEATHER, 'mod.ts'), 'utf8')).toContain('export function createExecutor(context)');
    const p = proc(cpToTemp(WEATHER));
    const loaded = await p.load();
    expect(loaded.manifest).toEqual({ name: 'weather', version: '1.0.0', description: 'Weather forecast lookups', classification: 'PUBLIC', trust: 'sandboxed', declaredEndpoints: ['https://api.weather.com'] });
    expect(loaded.tools).toEqual([
      {
        name: 'forecast',
        qualified: 'weather__forecast',
        alias: 'plugin_weather_forecast',
        description: 'Get the weather forecast for a city.',
        inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'], additionalProperties: false },
      },
    ]);
    expect(loaded.systemPrompt).toBe('Use `forecast` to look up weather for any city.');
    expect(p.sandboxed).toBe(detection.kind === 'bwrap');
    expect(canonicalToolName('plugin_weather_forecast', [loaded])).toBe('weather__forecast');
  });

  it('names every problem of the exports exactly: a missing export, a tool without a name, a parameter type outside the set, a wrong field type', async () => {
    const dir = plugin(`
export const manifest = { name: "bad", version: 1, classification: "SECRET" };
export const toolDefinitions = [{ description: "no name" }, { name: "x", parameters: { when: { type: "date" }, n: { type: "number", required: "yes" } } }];
`);
    const err = await proc(dir).load().then(() => null, (e: unknown) => e as ModuleLoadError);
    expect(err?.failure).toBe('invalid-exports');
    expect(err?.message).toContain('The module does not export `createExecutor`');
    expect(err?.message).toContain('`manifest.version` is a number; it must be a non-empty string.');
    expect(err?.message).toContain('`manifest.classification` is "SECRET"; it must be one of "PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED".');
    expect(err?.message).toContain('`toolDefinitions[0].name` is missing; every tool needs a name.');
    expect(err?.message).toContain('`toolDefinitions[1].parameters.when.type` is "date"; it must be one of "string", "number", "integer", "boolean", "object", "array".');
    expect(err?.message).toContain('`toolDefinitions[1].parameters.n.required` is a string; it must be true or false.');
  });

  it('refuses an import from outside the plugin folder or from the network, naming the importing file', async () => {
    const outside = plugin('import { x } from "../shared.ts";\nexport const manifest = { x };');
    writeFileSync(join(outside, '..', 'shared.ts'), 'export const x = 1;');
    const e1 = await proc(outside).load().then(() => null, (e: unknown) => e as ModuleLoadError);
    expect(e1?.failure).toBe('load-error');
    expect(e1?.message).toMatch(/mod\.ts imports "\.\.\/shared\.ts", which is outside the plugin folder/);
    const net = plugin('import { x } from "https://deno.land/x/mod.ts";\nexport const manifest = { x };');
    const e2 = await proc(net).load().then(() => null, (e: unknown) => e as ModuleLoadError);
    expect(e2?.message).toMatch(/mod\.ts imports "https:\/\/deno\.land\/x\/mod\.ts" from the network/);
  });
});

describe('module plugins: without esbuild (an installed Gatehouse), TypeScript transpiles the folder', () => {
  it('runs a module whose mod.ts imports a helper from its folder, and refuses an import from outside it', async () => {
    const dir = plugin(`import { shout } from "./lib/shout.ts";
export const manifest = { name: "loud", version: "1.0.0", description: "d", classification: "PUBLIC", declaredEndpoints: [] };
export const toolDefinitions = [{ name: "say", description: "says", parameters: { word: { type: "string", required: true } } }];
export function createExecutor(context: { log: { info(m: string): void } }) {
  return async (name: string, input: { word: string }): Promise<string | null> => (name === "say" ? shout(input.word) : null);
}
`);
    mkdirSync(join(dir, 'lib'));
    writeFileSync(join(dir, 'lib', 'shout.ts'), 'import { upper } from "../util";\nexport function shout(w: string): string { return upper(w) + "!"; }\n');
    writeFileSync(join(dir, 'util.ts'), 'export const upper = (s: string): string => s.toUpperCase();\n');
    const p = proc(dir, [], { compiler: 'typescript' });
    expect(await p.call('say', { word: 'hi' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: 'HI!' });
    const outside = plugin('import { x } from "../../etc/x.ts";\nexport const manifest = { x };');
    const e = await proc(outside, [], { compiler: 'typescript' }).load().then(() => null, (err: unknown) => err as ModuleLoadError);
    expect(e?.message).toMatch(/mod\.ts imports "\.\.\/\.\.\/etc\/x\.ts", which does not exist in the plugin folder|outside the plugin folder/);
  });
});

describe('module plugins: the scanner', () => {
  it('an import from outside the folder or from the network is a finding; one inside the folder is not', () => {
    const rules = (text: string, file = 'mod.ts') => scanFile(file, text).map((f) => f.rule);
    expect(rules('import { x } from "../shared.ts";')).toContain('js.import-outside');
    expect(rules('import { x } from "./lib/../../up.ts";')).toContain('js.import-outside');
    expect(rules('export * from "/opt/lib.js";')).toContain('js.import-outside');
    expect(rules('import { x } from "https://deno.land/x/mod.ts";')).toContain('js.import-url');
    expect(rules('import { x } from "../util.ts";', 'lib/helper.ts')).toEqual([]);
    expect(rules('import { x } from "./lib/helper.ts";\nimport { readFileSync } from "node:fs";')).toEqual([]);
  });
});

describe('module plugins: markers in the editor', () => {
  it("a syntax error in mod.ts while typing is a problem with its line and column; the scaffold's code has none", async () => {
    const root = tempDir('gatehouse-module-markers-');
    const parent = join(root, 'plugins');
    mkdirSync(parent);
    const { dir } = scaffoldPlugin(parent, 'mk', 'ts-module');
    const trust = new TrustStore(join(root, 'home'));
    const registry = new PluginRegistry({ sources: [{ dir: parent, origin: 'cli' }], trust });
    const service = new PluginService(registry, trust, { homePluginsDir: parent });
    await registry.refreshAll();
    const good = readFileSync(join(dir, 'mod.ts'), 'utf8');
    expect(service.check('mk', 'mod.ts', good).problems).toEqual([]);
    const broken = good.replace('return input.message ?? "";', 'return input.message ?? ;');
    const line = broken.split('\n').findIndex((l) => l.includes('?? ;')) + 1;
    expect(service.check('mk', 'mod.ts', broken).problems).toEqual([expect.objectContaining({ file: 'mod.ts', code: 'module.syntax', severity: 'error', line, message: expect.stringContaining('Expression expected') })]);
  });
});

describe('module plugins: the scaffold', () => {
  it('gatehouse plugin new NAME --lang ts-module makes a module that loads, passes the scan and answers', async () => {
    const parent = tempDir('gatehouse-module-scaffold-');
    const { dir, files } = scaffoldPlugin(parent, 'word-count', 'ts-module');
    expect(files).toEqual(['mod.ts']);
    const p = proc(dir);
    const loaded = await p.load();
    expect(loaded.tools.map((t) => [t.qualified, t.inputSchema.required])).toEqual([['word-count__echo', ['message']]]);
    expect(await p.call('echo', { message: 'hi' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: 'hi', logs: [{ level: 'info', message: 'echoing {"length":2}' }] });
    const scan = await scanPlugin(dir, moduleManifest(dir, loaded), DEFAULT_THRESHOLDS);
    expect(scan.findings).toEqual([]);
  });
});

describe('module plugins: execution', () => {
  it("returns a local test server's answer when the weather plugin's declaredEndpoints point there (loopback allowed by the operator's allowPrivateHosts), with context.log recorded", async () => {
    const { srv, port } = await server((url) => `sunny in ${new URL(url, 'http://x').searchParams.get('city')}`);
    try {
      const dir = cpToTemp(WEATHER);
      const src = readFileSync(join(dir, 'mod.ts'), 'utf8').replaceAll('https://api.weather.com', `http://127.0.0.1:${port}`);
      writeFileSync(join(dir, 'mod.ts'), src);
      const records: Rec[] = [];
      const p = proc(dir, records, { fetch: { allowPrivateHosts: ['127.0.0.1'], record: (type, actor, payload) => records.push({ type, actor, payload }) } });
      const r = await p.call('forecast', { city: 'Oslo' }, { timeoutMs: 10_000, callId: 'c1', actor: 'agent:a' });
      expect(r).toMatchObject({ ok: true, output: 'sunny in Oslo', logs: [{ level: 'info', message: 'Fetching forecast {"city":"Oslo"}' }] });
      expect(records).toEqual([{ type: 'module.fetch', actor: 'agent:a', payload: expect.objectContaining({ call: 'c1', plugin: 'weather', tool: 'forecast', host: '127.0.0.1', decision: 'allow' }) }]);
      // A warm second call goes to the same child.
      const pid = p.pid;
      expect(await p.call('forecast', { city: 'Bergen' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: 'sunny in Bergen' });
      expect(p.pid).toBe(pid);
    } finally {
      srv.close();
    }
  });

  it('refuses loopback without the operator setting, naming the host and the address', async () => {
    const { srv, port } = await server(() => 'should not be reached');
    try {
      const dir = cpToTemp(WEATHER);
      writeFileSync(join(dir, 'mod.ts'), readFileSync(join(dir, 'mod.ts'), 'utf8').replaceAll('https://api.weather.com', `http://127.0.0.1:${port}`));
      const records: Rec[] = [];
      const r = await proc(dir, records).call('forecast', { city: 'Oslo' }, { timeoutMs: 10_000 });
      expect(r).toMatchObject({ ok: false, failure: 'error' });
      expect(r.ok ? '' : r.error).toMatch(/fetch to 127\.0\.0\.1 was refused: it reaches 127\.0\.0\.1, a loopback address/);
      expect(records[0]?.payload).toMatchObject({ decision: 'deny', decider: 'network', host: '127.0.0.1' });
    } finally {
      srv.close();
    }
  });

  it('refuses a fetch to an undeclared host with a tool error naming it, and records the refusal', async () => {
    const dir = cpToTemp(WEATHER);
    writeFileSync(join(dir, 'mod.ts'), readFileSync(join(dir, 'mod.ts'), 'utf8').replace('`https://api.weather.com/v1/forecast', '`https://exfil.example.net/steal'));
    const records: Rec[] = [];
    const r = await proc(dir, records).call('forecast', { city: 'Oslo' }, { timeoutMs: 10_000, callId: 'c2' });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain('fetch to exfil.example.net was refused: https://exfil.example.net/steal is not under the plugin\'s declaredEndpoints (https://api.weather.com)');
    expect(records).toEqual([{ type: 'module.fetch', actor: 'plugin', payload: expect.objectContaining({ call: 'c2', host: 'exfil.example.net', decision: 'deny', decider: 'endpoint' }) }]);
  });

  it('a 204 answer reaches the module as an empty Response, with its status', async () => {
    const srv = createServer((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as AddressInfo).port;
    try {
      const dir = plugin(`export const manifest = { name: "p", version: "1.0.0", classification: "PUBLIC", declaredEndpoints: ["http://127.0.0.1:${port}"] };
export const toolDefinitions = [{ name: "t", parameters: {} }];
export function createExecutor() { return async () => { const r = await fetch("http://127.0.0.1:${port}/x", { method: "DELETE" }); return { status: r.status, body: await r.text() }; }; }
`);
      const r = await proc(dir, [], { fetch: { allowPrivateHosts: ['127.0.0.1'], record: () => undefined } }).call('t', {}, { timeoutMs: 10_000 });
      expect(r).toMatchObject({ ok: true, output: { status: 204, body: '' } });
    } finally {
      srv.close();
    }
  });

  it('returns JSON results as values and a thrown error as a tool error with its message', async () => {
    const p = proc(tool('if (input.fail) throw new Error("no such city"); return { temp: 21, city: input.city };'));
    expect(await p.call('t', { city: 'Rome' }, { timeoutMs: 10_000 })).toMatchObject({ ok: true, output: { temp: 21, city: 'Rome' } });
    expect(await p.call('t', { fail: true }, { timeoutMs: 10_000 })).toMatchObject({ ok: false, failure: 'error', error: 'no such city' });
  });
});

describe('module plugins: Triggerfish tool names in policy rules', () => {
  it('an allow rule bound to plugin_weather_forecast covers the call of weather__forecast and nothing else', async () => {
    expect(triggerfishAlias('weather__forecast')).toBe('plugin_weather_forecast');
    expect(triggerfishAlias('shell')).toBe('');
    const dir = tempDir('gatehouse-module-policy-');
    const file = join(dir, 'policy.yaml');
    mkdirSync(join(dir, 'gatehouse-home'));
    writeFileSync(file, `rules:\n  - { name: weather-reads, tools: [plugin_weather_forecast], actions: [read], block_paths: ["${dir}/cities.json"], decision: allow }\n`);
    // The data folder apart from the files judged (Gatehouse's own folder is protected).
    const store = new PolicyStore({ file, home: join(dir, 'home'), gatehouseHome: join(dir, 'gatehouse-home'), caseInsensitive: false, watch: false });
    await store.start();
    const x = { operations: ['read' as const], paths: [join(dir, 'cities.json')], hosts: [], command: '', content: '', evasive: false, evasiveReasons: [] };
    const call = (tool: string) => ({ id: 'c', agent: 'a', session: 's', tool, arguments: {}, cwd: dir, source: 'mcp' as const, receivedAt: 0 });
    expect((await store.evaluateAsync(x, call('weather__forecast'))).decision).toBe('allow');
    expect((await store.evaluateAsync(x, call('weather__other'))).decision).not.toBe('allow');
    expect((await store.evaluateAsync(x, call('plugin_weather_forecast'))).decision).toBe('allow');
    store.close();
  });
});

describe('module plugins: trust', () => {
  it('is trusted only when the manifest and the operator both say so', () => {
    expect(effectiveTrust({ trust: 'trusted' }, undefined)).toBe('sandboxed');
    expect(effectiveTrust({ trust: 'trusted' }, 'sandboxed')).toBe('sandboxed');
    expect(effectiveTrust({ trust: 'sandboxed' }, 'trusted')).toBe('sandboxed');
    expect(effectiveTrust({ trust: 'trusted' }, 'trusted')).toBe('trusted');
  });
});

function cpToTemp(src: string): string {
  const dir = join(tempDir('gatehouse-module-'), 'weather');
  cpSync(src, dir, { recursive: true });
  return dir;
}

export { liveInGroup };
