// Limits follow what a plugin is: a tool's process lives for one call, so its CPU seconds are
// capped at its timeout; a checker or an MCP server lives for hours and serves many calls, so a
// lifetime CPU limit would kill it mid-shift; it keeps every other limit. And a checker's
// timeout_secs is how long one evaluate may take (5 s unless its manifest says otherwise).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../../main/registry/manifest/load-manifest.js';
import { runOneShot, scrubEnv } from '../../../main/runner/one-shot.js';
import { sandboxPlan } from '../../../main/runner/sandbox-plan.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import type { PluginManifest } from '../../../main/registry/types.js';
import { hostWithChecker } from '../../support/checker-host.js';
import { tempDir } from '../../support/temp.js';

/** A plugin folder whose command prints the limits it runs under, as JSON. */
function limitsProbe(kind: 'tool' | 'checker' | 'mcp', extra = ''): { dir: string; manifest: PluginManifest } {
  const dir = join(tempDir('gatehouse-plan-'), `probe-${kind}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "probe-${kind}"\ndescription = "Prints its limits."\nkind = "${kind}"\ncommand = "limits.sh"\n${extra}`);
  writeFileSync(join(dir, 'limits.sh'), '#!/bin/sh\nprintf \'{"cpu":"%s","files":"%s"}\' "$(ulimit -t)" "$(ulimit -n)"\n', { mode: 0o755 });
  const m = loadManifest(dir).manifest;
  if (!m) throw new Error('probe manifest did not load');
  return { dir, manifest: m };
}

async function limitsOf(kind: 'tool' | 'checker' | 'mcp', extra = ''): Promise<{ cpu: string; files: string }> {
  const { dir, manifest } = limitsProbe(kind, extra);
  const plan = sandboxPlan(detectSandbox(), manifest, dir);
  const r = await runOneShot({ plugin: manifest.name, command: join(dir, 'limits.sh'), args: [], cwd: dir, input: {}, timeoutMs: 10_000, env: scrubEnv(process.env, []), wrap: plan.wrap });
  if (!r.ok) throw new Error(r.message);
  return r.output as { cpu: string; files: string };
}

describe('limits by kind of plugin', () => {
  it('a tool gets CPU seconds for its timeout, plus one', async () => {
    expect(await limitsOf('tool', 'timeout_secs = 12\n')).toEqual({ cpu: '13', files: '256' });
  });

  it('a checker and an MCP server get no lifetime CPU limit, and keep the others', async () => {
    expect(await limitsOf('checker')).toEqual({ cpu: 'unlimited', files: '256' });
    expect(await limitsOf('mcp')).toEqual({ cpu: 'unlimited', files: '256' });
  });

  it("a checker's timeout_secs is per evaluate call: 5 s by default, or what its manifest says", () => {
    expect(limitsProbe('checker').manifest.timeoutSecs).toBe(5);
    expect(limitsProbe('checker', 'timeout_secs = 2\n').manifest.timeoutSecs).toBe(2);
    expect(limitsProbe('tool').manifest.timeoutSecs).toBe(30);
  });
});

describe("a checker's timeout in a real host", () => {
  it('a checker that never answers blocks the call after its own timeout_secs, not the default', async () => {
    const { host } = hostWithChecker({ name: 'slow-guard', script: 'hang.mjs', manifest: 'timeout_secs = 1\n', allowed: true });
    try {
      await host.ready;
      expect(host.registry.get('slow-guard')?.status).toBe('enabled');
      const r = await host.gateway.call({ agent: 'claude', session: 's1', tool: 'shell', arguments: { command: 'ls /tmp' }, source: 'api' });
      expect(r.decision).toBe('deny');
      expect(r.decider).toMatchObject({ kind: 'checker', checker: 'slow-guard' });
      const waited = Number(/did not answer within (\d+) ms/.exec(r.reason)?.[1]);
      expect(waited, r.reason).toBeGreaterThanOrEqual(1000);
      expect(waited, r.reason).toBeLessThan(5000);
    } finally {
      await host.close('test done');
    }
  });
});
