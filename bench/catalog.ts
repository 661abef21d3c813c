// The signed catalog (main/catalog/): refresh plus install of one plugin from a local catalog of
// 500 plugins, with a fresh client each round (cold metadata: every signature checked), and a
// search over that catalog's signed index. Building the catalog (500 packs, scans and signatures)
// is setup, not timed.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addCatalogSource, CatalogClient } from '../main/catalog/catalog-client.js';
import { addPlugin, initCatalog, readIndex } from '../main/catalog/publisher.js';
import type { BenchCase } from './harness.js';

export async function catalogCases(opts: { plugins: number }): Promise<{ cases: BenchCase[]; close: () => void }> {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-catalog-'));
  const cat = join(root, 'cat');
  initCatalog(cat);
  for (let i = 0; i < opts.plugins; i++) {
    const d = join(root, 'src', `p${i}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'gatehouse.toml'), `name = "plugin-${i}"\ndescription = "Generated plugin ${i}, topic ${i % 17}."\nversion = "1.0.0"\ncommand = "run.sh"\n\n[permissions]\nread = ["/tmp"]\n`);
    writeFileSync(join(d, 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho "{}"\n');
    chmodSync(join(d, 'run.sh'), 0o755);
    await addPlugin(cat, d, { publisher: `pub${i % 10}` });
  }
  const repo = join(cat, 'repository');
  const rootJson = readFileSync(join(repo, 'metadata', '1.root.json'));
  const index = readIndex(cat);
  let round = 0;
  const label = `${opts.plugins} plugins`;
  return {
    close: () => rmSync(root, { recursive: true, force: true }),
    cases: [
      {
        name: `catalog: refresh + install 1 of ${label} (local folder, cold metadata)`,
        unit: 'ms',
        better: 'lower',
        target: { median: 1000 },
        async run() {
          const state = join(root, `state-${++round}`);
          const t = performance.now();
          addCatalogSource(state, repo, rootJson);
          const c = new CatalogClient({ name: 'bench', stateDir: state, pluginsDir: join(root, `plugins-${round}`) });
          await c.install(`plugin-${(round * 37) % opts.plugins}`);
          return performance.now() - t;
        },
      },
      {
        name: `catalog: search the signed index of ${label}`,
        unit: 'ms',
        better: 'lower',
        target: { median: 20 },
        run() {
          const t = performance.now();
          const hits = CatalogClient.search(index, `topic ${++round % 17}`);
          const ms = performance.now() - t;
          if (hits.length === 0) throw new Error('the generated index should match every topic');
          return ms;
        },
      },
    ],
  };
}
