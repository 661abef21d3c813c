// Discovery + validation + scan of many plugins, as at host start. Baseline: just reading
// every file of the same folders, which any discovery must do at least once.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PluginRegistry } from '../main/registry/plugin-registry.js';
import { TrustStore } from '../main/registry/trust-store.js';
import type { BenchCase } from './harness.js';

const sh = '#!/bin/sh\n# Reads JSON on stdin and answers with JSON.\ninput=$(cat)\nprintf \'{"received": %s}\\n\' "$input"\n';
const py = '#!/usr/bin/env python3\n"""Echo tool."""\nimport json\nimport sys\n\nargs = json.load(sys.stdin)\njson.dump({"echo": args.get("message", "")}, sys.stdout)\n';
const js = "#!/usr/bin/env node\nlet input = '';\nprocess.stdin.on('data', (c) => (input += c));\nprocess.stdin.on('end', () => {\n  const args = JSON.parse(input || '{}');\n  process.stdout.write(JSON.stringify({ echo: args.message ?? '' }));\n});\n";

/** 200 small plugins: a third each in shell, Python and Node; half WraithRun, half our format. */
export function generatePlugins(root: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const name = `gen-${i}`;
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    const [file, text] = i % 3 === 0 ? ['run.sh', sh] : i % 3 === 1 ? ['run.py', py] : ['run.mjs', js];
    writeFileSync(join(dir, file), text);
    chmodSync(join(dir, file), 0o755);
    writeFileSync(join(dir, 'README.md'), `# ${name}\n\nA generated plugin. See https://example.com/docs for more.\n`);
    const params = '[parameters.message]\ntype = "string"\nrequired = true\ndescription = "Text to echo."\n';
    if (i % 2 === 0) {
      writeFileSync(join(dir, 'tool.toml'), `name = "${name}"\ndescription = "Generated tool ${i}."\nversion = "1.0.0"\ncommand = "${file}"\ntimeout_secs = 10\n\n${params}`);
    } else {
      writeFileSync(join(dir, 'gatehouse.toml'), `name = "${name}"\ndescription = "Generated tool ${i}."\nversion = "1.0.0"\nkind = "tool"\ncommand = "${file}"\nclassification = "INTERNAL"\n\n[permissions]\nread = ["/tmp"]\n\n${params}`);
    }
  }
}

function readAll(dir: string): number {
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    bytes += e.isDirectory() ? readAll(p) : readFileSync(p).length;
  }
  return bytes;
}

export function registryCases(opts: { plugins: number }): BenchCase[] {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-bench-plugins-'));
  const plugins = join(root, 'plugins');
  generatePlugins(plugins, opts.plugins);
  const home = join(root, 'home');
  mkdirSync(home);
  const label = `${opts.plugins} plugins`;
  return [
    {
      name: `read every file of ${label}`,
      unit: 'ms',
      better: 'lower',
      run() {
        const t = performance.now();
        readAll(plugins);
        return performance.now() - t;
      },
    },
    {
      name: `discover + validate + scan ${label}`,
      unit: 'ms',
      better: 'lower',
      baseline: `read every file of ${label}`,
      target: { median: 1000 },
      async run() {
        const t = performance.now();
        const registry = new PluginRegistry({ sources: [{ dir: plugins, origin: 'cli' }], trust: new TrustStore(home) });
        await registry.refreshAll();
        const ms = performance.now() - t;
        const bad = registry.list().filter((e) => e.status !== 'disabled');
        if (bad.length) throw new Error(`generated plugins should all be valid and clean: ${bad[0]!.name} is ${bad[0]!.status}`);
        return ms;
      },
    },
  ];
}
