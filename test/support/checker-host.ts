// A real host with one checker plugin (a script from test/fixtures/checkers) and full autonomy,
// so an agent's call reaches the checkers without waiting for an operator.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost, type Host } from '../../main/host/create-host.js';
import { tempDir } from './temp.js';

export function hostWithChecker(opts: { name: string; script: string; manifest?: string; allowed?: boolean }): { host: Host; dir: string } {
  const root = tempDir(`gatehouse-checker-${opts.name}-`);
  const dir = join(root, 'plugins', opts.name);
  mkdirSync(dir, { recursive: true });
  const fixtures = fileURLToPath(new URL('../fixtures/checkers/', import.meta.url));
  for (const f of [opts.script, 'lib.mjs']) copyFileSync(join(fixtures, f), join(dir, f));
  writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\nexec node ${opts.script}\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'gatehouse.toml'), `name = "${opts.name}"\ndescription = "A test checker."\nkind = "checker"\ncommand = "run.sh"\n${opts.manifest ?? ''}`);
  mkdirSync(join(root, 'home'), { recursive: true });
  writeFileSync(join(root, 'home', 'settings.json'), JSON.stringify({ autonomy: 'full' }));
  const host = createHost({
    home: join(root, 'home'),
    shell: 'serve',
    log: () => {},
    projectDir: root,
    watch: false,
    pluginDirs: [join(root, 'plugins')],
    ...(opts.allowed ? { allowedPlugins: [opts.name] } : {}),
  });
  return { host, dir };
}
