// `npm run dist`: build out/, then package it with electron-builder (electron-builder.yml).
// Arguments go to electron-builder: `npm run dist -- --linux deb`, `npm run dist -- --dir`.
//
// electron-builder rebuilds native addons for Electron's ABI in place, in this checkout's
// node_modules (its npmRebuild step). Left like that, better-sqlite3 would no longer load under
// Node: the tests, `gatehouse serve` and the CLI would all fail with NODE_MODULE_VERSION errors.
// So the build/ folder of every addon is saved first and put back afterwards, whether packaging
// worked or not; that needs no network, unlike `npm rebuild`. See docs/packaging.md.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const modules = join(root, 'node_modules');

/** Top-level and scoped packages that compile an addon (they carry binding.gyp). */
function addonDirs() {
  const dirs = [];
  for (const name of readdirSync(modules)) {
    const scoped = name.startsWith('@') ? readdirSync(join(modules, name)).map((n) => join(name, n)) : [name];
    for (const pkg of scoped) if (existsSync(join(modules, pkg, 'binding.gyp'))) dirs.push(pkg);
  }
  return dirs;
}

function run(cmd, args) {
  console.log(`\n> ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  return r.status ?? 1;
}

if (run(process.execPath, ['scripts/build.mjs']) !== 0) process.exit(1);

const saved = mkdtempSync(join(tmpdir(), 'gatehouse-dist-addons-'));
const addons = addonDirs();
for (const pkg of addons) {
  const build = join(modules, pkg, 'build');
  if (existsSync(build)) cpSync(build, join(saved, pkg), { recursive: true });
}
let status;
try {
  status = run(join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'electron-builder.cmd' : 'electron-builder'), process.argv.slice(2));
} finally {
  for (const pkg of addons) {
    const build = join(modules, pkg, 'build');
    rmSync(build, { recursive: true, force: true });
    if (existsSync(join(saved, pkg))) cpSync(join(saved, pkg), build, { recursive: true });
  }
  rmSync(saved, { recursive: true, force: true });
  console.log(`\nRestored the Node builds of ${addons.join(', ')} in node_modules.`);
}
if (status === 0) console.log('Installers are in dist/.');
process.exit(status);
