// The crust Python checker in examples/plugins/path-guard runs unchanged in the pool, with the
// config from its own manifest: it blocks paths outside the allowed folders and network access
// when configured, and allows paths inside.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckerPool, type CheckerSpec } from '../../../main/checkers/checker-pool.js';
import { loadManifest } from '../../../main/registry/manifest/load-manifest.js';
import { evaluateParams, liveMembers } from '../../fixtures/checkers/pool-helpers.js';
import { repoRoot } from '../../support/cli.js';

const dir = join(repoRoot, 'examples', 'plugins', 'path-guard');

function pathGuardSpec(config?: Record<string, unknown>): CheckerSpec {
  const { manifest, problems } = loadManifest(dir);
  if (!manifest) throw new Error(`path-guard manifest did not load: ${JSON.stringify(problems)}`);
  expect(manifest.kind).toBe('checker');
  return {
    name: manifest.name,
    command: manifest.command,
    args: manifest.args,
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/home/operator', PYTHONDONTWRITEBYTECODE: '1' },
    config: config ?? manifest.config,
    optional: manifest.optional,
    timeoutMs: manifest.timeoutSecs * 1000,
  };
}

describe('path-guard (a crust checker in Python)', () => {
  let pool: CheckerPool;
  const groups: number[] = [];
  beforeAll(async () => {
    pool = new CheckerPool({ checkers: [pathGuardSpec()], onEvent: (e) => e.type === 'checker.spawned' && groups.push(e.pid as number) });
    await pool.start();
    expect(pool.status()[0]).toMatchObject({ name: 'path-guard', ready: 1 });
  });
  afterAll(async () => {
    await pool.close();
    expect(groups.length).toBe(1);
    expect(groups.flatMap(liveMembers)).toEqual([]);
  });

  it('reads allowed_dirs and block_network from its manifest', () => {
    expect(pathGuardSpec().config).toEqual({ allowed_dirs: ['/tmp', '~/projects'], block_network: true });
  });

  it('blocks a path outside the allowed folders', async () => {
    const v = await pool.evaluate(evaluateParams({ tool_name: 'Read', arguments: { path: '/etc/passwd' }, paths: ['/etc/passwd'] }));
    expect(v).toEqual({
      decision: 'block',
      checker: 'path-guard',
      result: { rule_name: 'path-guard-outside', severity: 'high', action: 'block', message: '/etc/passwd is outside the allowed folders (/tmp, ~/projects).' },
      failures: [],
    });
  });

  it('allows paths inside the allowed folders (~ expanded by the checker)', async () => {
    expect(await pool.evaluate(evaluateParams({ paths: ['/tmp/work/notes.txt', '/home/operator/projects/app/main.ts'] }))).toEqual({ decision: 'allow', failures: [] });
  });

  it('blocks a path that only looks inside', async () => {
    const v = await pool.evaluate(evaluateParams({ paths: ['/tmp/../etc/shadow'] }));
    expect(v).toMatchObject({ decision: 'block', result: { rule_name: 'path-guard-outside' } });
  });

  it('blocks network access when block_network is set', async () => {
    const v = await pool.evaluate(evaluateParams({ tool_name: 'WebFetch', arguments: { url: 'https://example.com' }, operation: 'network', operations: ['network'], paths: [], hosts: ['example.com'] }));
    expect(v).toMatchObject({ decision: 'block', checker: 'path-guard', result: { rule_name: 'path-guard-network', severity: 'high', action: 'block', message: 'Network access is blocked by path-guard.' } });
  });

  it('lets network through when block_network is off', async () => {
    const open = new CheckerPool({ checkers: [pathGuardSpec({ allowed_dirs: ['/tmp'], block_network: false })] });
    try {
      await open.start();
      expect(await open.evaluate(evaluateParams({ operation: 'network', operations: ['network'], paths: [], hosts: ['example.com'] }))).toEqual({ decision: 'allow', failures: [] });
    } finally {
      await open.close();
    }
  });
});
