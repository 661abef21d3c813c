// Tool lookup: Gateway.find, which every agent call asks four or five times (the ingress, the
// judgement, the level's classification, the confined-reader check, the run). Timed on a host with
// 200 enabled plugins against one with a single plugin: what a call pays for the plugins an
// operator has installed. It once built the whole list agents see for each lookup (every plugin's
// tools, every upstream server's sorted): 24 µs with 200 plugins against 1.9 with one, 130 with
// 1000. Target: no more than 1.5 times the single plugin's.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, type Host } from '../main/host/create-host.js';
import { quantile, type BenchCase } from './harness.js';
import { generatePlugins } from './registry-discovery.js';

const MANY = 200;
const LOOKUPS = 20_000;

/** A host whose home holds `count` generated plugins, all enabled; the tool name sorted last. */
async function hostWith(count: number): Promise<{ host: Host; last: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-lookup-'));
  const home = join(dir, 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  generatePlugins(join(home, 'plugins'), count);
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  for (let i = 0; i < count; i++) await host.registry.enable(`gen-${i}`, 'bench');
  const names = host.gateway.tools().map((t) => t.name).filter((n) => n.startsWith('gen-'));
  if (names.length !== count) throw new Error(`tool lookup bench: ${names.length} of ${count} generated plugins are callable`);
  return { host, last: names.sort().at(-1)!, dir };
}

export async function toolLookupCases(): Promise<{ cases: BenchCase[]; close: () => Promise<void> }> {
  const one = await hostWith(1);
  const many = await hostWith(MANY);
  const timed = (h: { host: Host; last: string }) => (): number => {
    const times = new Array<number>(LOOKUPS);
    for (let i = 0; i < LOOKUPS; i++) {
      const t0 = process.hrtime.bigint();
      const t = h.host.gateway.find(h.last);
      times[i] = Number(process.hrtime.bigint() - t0) / 1000;
      if (t?.name !== h.last) throw new Error(`tool lookup bench: ${h.last} was not found`);
    }
    return quantile(times, 0.5);
  };
  return {
    cases: [
      { name: 'tool lookup, one plugin enabled (Gateway.find, p50)', unit: 'µs', better: 'lower', run: timed(one) },
      {
        name: `tool lookup, ${MANY} plugins enabled (Gateway.find, p50)`,
        unit: 'µs',
        better: 'lower',
        baseline: 'tool lookup, one plugin enabled (Gateway.find, p50)',
        target: { ratio: 1.5 },
        run: timed(many),
      },
    ],
    async close() {
      for (const h of [one, many]) {
        await h.host.close('bench done');
        rmSync(h.dir, { recursive: true, force: true });
      }
    },
  };
}
