// Plugin kinds come from one table of providers (main/registry/kinds/): a kind added as one folder
// (test/fixtures/kinds/greeter/) and one entry in the table is listed, validated, scanned and run
// by the real registry, plugin service and tool runner, with no other code naming it. A second
// test keeps kind names out of the code outside the providers.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kindProvider, kindProviders, registerKind } from '../../../main/registry/kinds/index.js';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { PluginService } from '../../../main/registry/plugin-service.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { unsandboxedWrap } from '../../../main/runner/sandbox.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { greeterKind } from '../../fixtures/kinds/greeter/index.js';
import { repoRoot } from '../../support/cli.js';

/** A plugin folder of the greeter kind; its command echoes what the runner sent it. */
function greeter(root: string, name: string, manifest: string, script = '#!/bin/sh\nprintf \'{"got":%s}\' "$(cat)"\n'): void {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "Greets."\nkind = "greeter"\ncommand = "run.sh"\n${manifest}`);
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
}

describe('a plugin kind added through the kind table', () => {
  let root: string;
  let unregister: () => void;
  let registry: PluginRegistry;
  let service: PluginService;

  beforeEach(async () => {
    unregister = registerKind(greeterKind);
    root = mkdtempSync(join(tmpdir(), 'gatehouse-kinds-'));
    mkdirSync(join(root, 'home'));
    greeter(join(root, 'plugins'), 'hello', 'config = { greeting = "hello" }\n');
    greeter(join(root, 'plugins'), 'mute', '');
    greeter(join(root, 'plugins'), 'loud', 'config = { greeting = "HI" }\n', '#!/bin/sh\n# SHOUT\ncat\n');
    const trust = new TrustStore(join(root, 'home'));
    registry = new PluginRegistry({ sources: [{ dir: join(root, 'plugins'), origin: 'cli' }], trust });
    await registry.refreshAll();
    service = new PluginService(registry, trust, { homePluginsDir: join(root, 'plugins') });
  });
  afterEach(() => {
    unregister();
    rmSync(root, { recursive: true, force: true });
  });

  it('is in the table and lists with the data its provider states', () => {
    expect(kindProviders().map((p) => p.name)).toEqual(['tool', 'checker', 'mcp', 'wasm', 'module', 'greeter']);
    const hello = service.list().find((p) => p.name === 'hello')!;
    expect(hello).toMatchObject({ kind: 'greeter', status: 'disabled', toolNames: ['hello'], errors: 0 });
    expect(hello.kindInfo).toEqual(greeterKind.info);
  });

  it("validates with the kind's own rule: a manifest without a greeting is invalid, and says what to add", () => {
    const mute = registry.get('mute')!;
    expect(mute.status).toBe('invalid');
    expect(mute.problems).toContainEqual(expect.objectContaining({ code: 'greeter.greeting', severity: 'error', path: 'config', file: 'gatehouse.toml', message: expect.stringMatching(/add `greeting` to `config`/) }));
  });

  it("scans with the kind's own rule beside the common ones", () => {
    expect(registry.get('loud')!.scan!.findings).toContainEqual(expect.objectContaining({ file: 'run.sh', rule: 'greeter.shout', weight: 1 }));
    expect(registry.get('hello')!.scan!.findings.filter((f) => f.rule === 'greeter.shout')).toEqual([]);
  });

  it('runs through the tool runner on the engine its provider picks, with what the provider adds to the call', async () => {
    await registry.enable('hello', 'alice');
    const records: string[] = [];
    const runner = new ToolRunner({
      registry,
      breakers: new BreakerBoard({ clock: { now: () => 0 } }),
      metrics: new PluginMetrics(),
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'tests run unsandboxed' }),
      record: (type) => records.push(type),
    });
    try {
      const r = await runner.call('hello', undefined, { to: 'world' }, { actor: 'agent:test' });
      expect(r.error).toBeNull();
      expect(r.output).toEqual({ got: { greeting: 'hello', input: { to: 'world' } } });
      expect(records).toEqual(['execution.started', 'execution.ended']);
    } finally {
      await runner.close();
    }
  });

  it('is refused with the list of kinds once it leaves the table', async () => {
    unregister();
    await registry.refreshAll();
    const hello = registry.get('hello')!;
    expect(hello.status).toBe('invalid');
    const kindProblem = hello.problems.find((p) => p.path === 'kind');
    expect(kindProblem?.message).toMatch(/"greeter"/);
    expect(kindProblem?.message).toMatch(/tool/);
    expect(kindProvider('greeter')).toBeUndefined();
  });

  it('keeps a name once taken, and refuses a kind whose console flag and runner disagree', () => {
    expect(() => registerKind({ ...greeterKind })).toThrow(/already in the table/);
    expect(() => registerKind({ ...greeterKind, name: 'wasm' })).toThrow(/already in the table/);
    expect(() => registerKind({ ...greeterKind, name: 'mute-greeter', run: undefined })).toThrow(/info.callable is true but it has no run\(\)/);
  });
});

describe('kind names stay inside their providers', () => {
  // A comparison of a plugin's kind with a kind's name decides by name what the kind's provider
  // should say (its info, its rules, its run). Kinds of other things share these words: these
  // files compare something else, each for the reason given.
  const NOT_PLUGIN_KINDS = new Map([
    ['main/audit/replay.ts', "a call's decider (a checker's verdict), not a plugin's kind"],
    ['main/gateway/gateway.ts', "an agent tool's route (the built-in shell, the tool runner, an upstream server): every callable kind routes to 'tool'"],
  ]);
  const KIND_COMPARISON = /\bkind'?\]?\s*[!=]==\s*'(tool|checker|mcp|wasm|module)'/;

  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) return n === 'node_modules' ? [] : sources(p);
      return /\.(ts|tsx)$/.test(n) ? [p] : [];
    });
  }

  it('no file outside main/registry/kinds/ compares a kind with a kind name', () => {
    const hits: string[] = [];
    for (const top of ['main', 'renderer/src', 'shared']) {
      for (const file of sources(join(repoRoot, top))) {
        const rel = relative(repoRoot, file).split('\\').join('/');
        if (rel.startsWith('main/registry/kinds/') || NOT_PLUGIN_KINDS.has(rel)) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (KIND_COMPARISON.test(line)) hits.push(`${rel}:${i + 1}: ${line.trim().slice(0, 120)}`);
          });
      }
    }
    expect(hits).toEqual([]);
  });
});
