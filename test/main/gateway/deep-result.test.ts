// A tool result that nests deeper than Gatehouse passes on (a plugin printing 300,000 nested
// arrays): the call ran, so it is recorded and answered as executed, a failure of the tool saying
// why. A review found it answered "denied, runner error, not executed" after the plugin had run:
// serialising the result overflowed the stack after the run, and the runner error's deny was
// recorded as a second decision. Real host, real plugin process, real audit log.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { MAX_RESULT_NESTING } from '../../../main/gateway/gateway.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

async function withPlugin(depth: number) {
  const home = join(tempDir('gatehouse-deep-'), 'home');
  const dir = join(home, 'plugins', 'deep');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'gatehouse.toml'), 'name = "deep"\ndescription = "Prints a nested result."\ncommand = "run.sh"\ntimeout_secs = 30\n');
  // {"a": [[[…]]]} with `depth` arrays, written by sh alone (no interpreter needed).
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\ncat >/dev/null\nprintf '{"a":'\nhead -c ${depth} /dev/zero | tr '\\0' '['\nhead -c ${depth} /dev/zero | tr '\\0' ']'\nprintf '}'\n`);
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  hosts.push(host);
  await host.ready;
  await host.registry.enable('deep', 'tester');
  return host;
}

it('a result nested 300,000 levels deep: the call is executed, answered as the tool\'s failure saying why, with one decision on record', async () => {
  const host = await withPlugin(300_000);
  const r = await host.gateway.call({ agent: 'a', session: 's', tool: 'deep', arguments: {}, source: 'api' });
  expect(r).toMatchObject({ decision: 'allow', executed: true });
  expect(r.result).toMatchObject({ ok: false, failure: 'bad_output', output: null });
  expect(r.result!.error).toMatch(new RegExp(`deep returned a result nested deeper than ${MAX_RESULT_NESTING} levels`));
  const trail = host.audit.tail(200).filter((e) => (e.payload as { call?: string }).call === r.call.id);
  expect(trail.filter((e) => e.type === 'call.decided')).toHaveLength(1);
  expect(trail.find((e) => e.type === 'call.result')?.payload).toMatchObject({ executed: true });
});

it(`a result exactly ${MAX_RESULT_NESTING} levels deep is passed on`, async () => {
  const host = await withPlugin(MAX_RESULT_NESTING - 1);
  const r = await host.gateway.call({ agent: 'a', session: 's', tool: 'deep', arguments: {}, source: 'api' });
  expect(r.result).toMatchObject({ ok: true });
});
