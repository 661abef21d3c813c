// Builds the parts the tests run as built output (the CLI as a child process, the preload
// bundle in a vm, the renderer's index.html) when they are missing. `npm test` builds
// everything first, so this only matters for a bare `npx vitest run` on a fresh checkout.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const needed: [job: string, file: string][] = [
  ['cli', 'out/main/cli.js'],
  // `gatehouse hook` answers from its own bundle; without it bin/gatehouse.js falls back to cli.js.
  ['hook', 'out/main/hook.js'],
  ['preload', 'out/preload/index.cjs'],
  ['renderer', 'out/renderer/index.html'],
];

export default function setup(): void {
  const missing = needed.filter(([, file]) => !existsSync(`${root}/${file}`)).map(([job]) => job);
  if (missing.length === 0) return;
  const r = spawnSync(process.execPath, ['scripts/build.mjs', `--only=${missing.join(',')}`], { cwd: root, stdio: 'inherit' });
  // Not fatal here: the tests that need the built output fail and say so; the rest still run.
  if (r.status !== 0) console.error(`\ngatehouse tests: building ${missing.join(', ')} failed (exit ${r.status ?? r.signal}); tests of the built CLI, preload and renderer will fail.\n`);
}
