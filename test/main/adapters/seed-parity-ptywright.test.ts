// Seed parity (ptywright): plugin.validate_manifest as ptywright documents it
// (ptywright-plugins.txt ~l.97-119), through `gatehouse adapters --stdio` (the built CLI).
//   "Validation checks: name is non-empty; version is non-empty; executable runtime declarations
//    include a non-empty entrypoint; entrypoints without a runtime are rejected; permissions are
//    known; permissions are not duplicated. Unknown permissions fail during JSON deserialization
//    and return Invalid params."
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rpc = (id: number, method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
type Answer = { id: number; result?: { valid: boolean; problems: { code: string; message: string }[] }; error?: { code: number; message: string } };

async function validate(...manifests: unknown[]): Promise<Answer[]> {
  const r = await runCli(['adapters', '--stdio', '--home', tempDir()], {}, manifests.map((m, i) => rpc(i + 1, 'plugin.validate_manifest', { manifest: m })).join('\n'));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Answer);
}

const demo = { name: 'demo', kind: 'adapter', version: '0.1.0', runtime: 'lua', entrypoint: 'main.lua', permissions: ['session.spawn', 'screen.read'] };

describe('ptywright parity: plugin.validate_manifest', () => {
  it('the documented demo manifest is valid (control)', async () => {
    const [a] = await validate(demo);
    expect(a!.result).toEqual({ valid: true, problems: [] });
  });

  it('a manifest with neither runtime nor entrypoint is valid: only an entrypoint without a runtime is rejected (l.115-116)', async () => {
    const [a] = await validate({ name: 'demo', kind: 'matcher', version: '0.1.0', permissions: ['matcher.wait'] });
    expect(a!.result, JSON.stringify(a)).toEqual({ valid: true, problems: [] });
  });

  it('a name is only required to be non-empty (l.113): "Claude-Code" is a valid name', async () => {
    const [a] = await validate({ ...demo, name: 'Claude-Code' });
    expect(a!.result, JSON.stringify(a)).toEqual({ valid: true, problems: [] });
  });

  it('an unknown permission is a JSON-RPC Invalid params error, not a {valid:false} result (l.119)', async () => {
    const [a] = await validate({ ...demo, permissions: ['session.spawn', 'network.fetch'] });
    expect(a!.error?.code, JSON.stringify(a)).toBe(-32602);
  });
});
