// Builds better-sqlite3 for Electron's ABI into native/electron/, leaving node_modules (the
// Node build the tests use) untouched. Needs Electron's headers, which node-gyp downloads.
import { cpSync, mkdirSync, mkdtempSync, copyFileSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
const source = dirname(require.resolve('better-sqlite3/package.json'));
const work = mkdtempSync(join(tmpdir(), 'gatehouse-native-'));
cpSync(source, work, { recursive: true, filter: (p) => !p.includes(`${join(source, 'build')}`) });

// npm ships node-gyp; use that copy rather than adding a dependency.
const npmDir = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm');
const gyp = [join(npmDir, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js')].find(existsSync);
if (!gyp) {
  console.error(`node-gyp not found under ${npmDir}; install it (npm i -g node-gyp) and retry.`);
  process.exit(1);
}
console.log(`Building better-sqlite3 for Electron ${electronVersion} in ${work}`);
const env = { ...process.env };
delete env.npm_config_nodedir; // a nodedir pointing at Node's headers would build the wrong ABI
const r = spawnSync(process.execPath, [gyp, 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'], { cwd: work, stdio: 'inherit', env });
if (r.status !== 0) process.exit(r.status ?? 1);
const out = join(root, 'native', 'electron');
mkdirSync(out, { recursive: true });
copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), join(out, 'better_sqlite3.node'));
rmSync(work, { recursive: true, force: true });
console.log(`Wrote ${join(out, 'better_sqlite3.node')}`);
