// The tool runner on real plugin processes: the run-time integrity check, the breaker that
// stops calling a failing plugin, metrics, and the audit trail of each execution.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../../../main/registry/plugin-registry.js';
import { TrustStore } from '../../../main/registry/trust-store.js';
import { ToolRunner } from '../../../main/runner/tool-runner.js';
import { BreakerBoard } from '../../../main/runner/breaker-board.js';
import { PluginMetrics } from '../../../main/runner/metrics.js';
import { unsandboxedWrap } from '../../../main/runner/sandbox.js';

function plugin(root: string, name: string, script: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.toml'), `name = "${name}"\ndescription = "Test tool."\ncommand = "run.sh"\ntimeout_secs = 5\n`);
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
  return dir;
}

describe('tool runner', () => {
  let root: string;
  let now: number;
  let records: { type: string; actor: string; payload: Record<string, unknown> }[];
  let transitions: string[];
  let registry: PluginRegistry;
  let runner: ToolRunner;
  let metrics: PluginMetrics;
  let breakers: BreakerBoard;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-runner-'));
    mkdirSync(join(root, 'home'));
    plugin(join(root, 'plugins'), 'good', '#!/bin/sh\ncat >/dev/null\necho \'{"fine": true}\'\n');
    plugin(join(root, 'plugins'), 'bad', '#!/bin/sh\necho "disk on fire" >&2\nexit 3\n');
    now = 1_000_000;
    records = [];
    transitions = [];
    registry = new PluginRegistry({ sources: [{ dir: join(root, 'plugins'), origin: 'cli' }], trust: new TrustStore(join(root, 'home')) });
    await registry.refreshAll();
    await registry.enable('good', 'alice');
    await registry.enable('bad', 'alice');
    metrics = new PluginMetrics();
    breakers = new BreakerBoard({ clock: { now: () => now }, changed: (p, next, prev) => transitions.push(`${p}:${prev.state}->${next.state}`) });
    runner = new ToolRunner({
      registry,
      breakers,
      metrics,
      sandboxFor: () => ({ wrap: unsandboxedWrap(), sandboxed: false, warning: 'tests run unsandboxed' }),
      record: (type, actor, payload) => records.push({ type, actor, payload }),
    });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs an enabled tool and records its execution', async () => {
    const r = await runner.call('good', undefined, { x: 1 }, { actor: 'agent:test' });
    expect(r.ok).toBe(true);
    expect(r.output).toEqual({ fine: true });
    expect(records.map((x) => x.type)).toEqual(['execution.started', 'execution.ended']);
    expect(records[1]!.payload).toMatchObject({ plugin: 'good', ok: true, exitCode: 0 });
    expect(metrics.snapshot('good').successes).toBe(1);
  });

  it('three failures open the breaker; the next call is refused without running; a reset lets it run again', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await runner.call('bad', undefined, {}, { actor: 'agent:test' });
      expect(r.ok).toBe(false);
      expect(r.failure).toBe('crash');
      expect(r.error).toMatch(/exited with code 3: disk on fire/);
    }
    expect(breakers.snapshot('bad').state).toBe('open');
    expect(transitions).toContain('bad:closed->open');
    const started = records.filter((x) => x.type === 'execution.started').length;
    const refused = await runner.call('bad', undefined, {}, { actor: 'agent:test' });
    expect(refused.failure).toBe('breaker_open');
    expect(records.filter((x) => x.type === 'execution.started').length).toBe(started);
    expect(metrics.snapshot('bad').failures.crash).toBe(3);

    // After the cooldown one probe decides; it fails again, so the breaker re-opens.
    now += 5 * 60_000;
    expect(breakers.snapshot('bad').state).toBe('half_open');
    const probe = await runner.call('bad', undefined, {}, { actor: 'agent:test' });
    expect(probe.failure).toBe('crash');
    expect(breakers.snapshot('bad').state).toBe('open');
    expect(breakers.snapshot('bad').cycle).toBe(2);

    breakers.get('bad').reset();
    expect(breakers.snapshot('bad').state).toBe('closed');
    expect((await runner.call('bad', undefined, {}, { actor: 'agent:test' })).failure).toBe('crash');
  });

  it('a disabled plugin does not run for agents, but an operator may test-run it', async () => {
    await registry.disable('good', 'alice');
    await expect(runner.call('good', undefined, {}, { actor: 'agent:test' })).rejects.toThrow(/not enabled/);
    const r = await runner.call('good', undefined, {}, { actor: 'operator:alice', testRun: true });
    expect(r.ok).toBe(true);
  });
});
