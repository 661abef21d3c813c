// Builds the parts the tests run as built output (the CLI as a child process, the preload
// bundle in a vm, the renderer's index.html) when they are missing or older than their sources
// (test/support/build-freshness.ts). `npm test` builds everything first, so this matters for a
// bare `npx vitest run test/<file>.test.ts` after an edit: without it a CLI test runs the old bundle.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decideBuild } from './support/build-freshness.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export default function setup(): void {
  const todo = decideBuild(root).filter((d) => d.state !== 'fresh');
  if (todo.length === 0) return;
  const jobs = todo.flatMap((d) => d.jobs);
  console.log(`gatehouse tests: building ${jobs.join(', ')}: ${todo.map((d) => d.reason).join('; ')}`);
  const r = spawnSync(process.execPath, ['scripts/build.mjs', `--only=${jobs.join(',')}`], { cwd: root, stdio: 'inherit' });
  // Not fatal here: the tests that need the built output fail and say so; the rest still run.
  if (r.status !== 0) console.error(`\ngatehouse tests: building ${jobs.join(', ')} failed (exit ${r.status ?? r.signal}); tests of the built CLI, preload and renderer will fail.\n`);
}
