// A process whose extractor was never closed (a CLI command, the bench) exits once its calls are
// answered: the idle extraction worker keeps nothing alive. Adding the worker's 'message' listener
// refs its port again, so the worker was unref'd before it for nothing, and `npm run bench` never
// exited. A real child process with the real worker, built from the sources as the host finds it.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { expect, it, onTestFinished } from 'vitest';
import { entryFile } from '../../../main/core/entry-file.js';
import { tempDir } from '../../support/temp.js';

it('a process that never closes its guarded extractor exits once the worker has answered', async () => {
  const guarded = fileURLToPath(new URL('../../../main/policy/extract/guarded-extract.ts', import.meta.url));
  // The worker built from the sources, as the host finds it there.
  const worker = entryFile({ name: 'extract-worker', ext: '.cjs', callerUrl: pathToFileURL(guarded).href, what: 'the extraction worker', packagesExternal: true });
  const entry = join(tempDir('gatehouse-extract-exit-'), 'cli.ts');
  writeFileSync(
    entry,
    `import { GuardedExtractor } from ${JSON.stringify(guarded)};
const g = new GuardedExtractor({ home: '/home/u', resolveSymlinks: false, inProcessMaxLength: 16 });
const x = await g.extract({ id: 'c', agent: 'a', session: 's', tool: 'Bash', arguments: { command: 'cat /w/a.txt && echo done' }, cwd: '/w', source: 'api', receivedAt: 0 });
process.stdout.write(JSON.stringify(x.paths) + '\\n');
`,
  );
  // Under node_modules, where the bundle's packages resolve, with the worker under its built name.
  const dir = join(dirname(dirname(worker)), `gatehouse-extract-exit-${process.pid}-${Date.now()}`);
  mkdirSync(dir);
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(worker, join(dir, 'extract-worker.cjs'));
  const bundle = join(dir, 'cli.mjs');
  await build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'silent' });
  const child = spawn(process.execPath, [bundle], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A failing run leaves the process hanging: it goes with the test.
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  // Before the fix the process hung here (the test's timeout fails it).
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect(code, err).toBe(0);
  expect(out).toBe('["/w/a.txt"]\n');
});
