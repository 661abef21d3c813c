// `npm install`'s last step: fetch the Electron binary, and survive a network that cannot.
//
// Electron's own install script downloads its binary from GitHub and fails the whole
// `npm install` when it cannot, so nothing else gets set up either. package.json's
// `allowScripts` keeps npm from running that script; this one runs it instead, bounded in time,
// and turns a failure into a note: the console still starts, served to the browser
// (`npm start` says so), and `npm run electron:download` tries again later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const TIMEOUT_MS = Number(process.env.GATEHOUSE_ELECTRON_DOWNLOAD_TIMEOUT_MS ?? 180_000);
const require = createRequire(import.meta.url);

let installJs;
try {
  installJs = join(dirname(require.resolve('electron/package.json')), 'install.js');
} catch {
  // A production install without devDependencies has no Electron to set up.
  process.exit(0);
}
if (!existsSync(installJs)) process.exit(0);
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) {
  console.log('gatehouse: ELECTRON_SKIP_BINARY_DOWNLOAD is set; not downloading Electron (npm start serves the console to your browser).');
  process.exit(0);
}

const r = spawnSync(process.execPath, [installJs], { cwd: dirname(installJs), stdio: ['ignore', 'inherit', 'pipe'], timeout: TIMEOUT_MS, encoding: 'utf8' });
if (r.status === 0) process.exit(0);

const why = r.error?.code === 'ETIMEDOUT'
  ? `no answer within ${Math.round(TIMEOUT_MS / 1000)} s`
  : (String(r.stderr ?? '').split('\n').map((l) => l.trim()).find((l) => l) ?? `exit ${r.status ?? r.signal}`);
console.warn([
  '',
  `gatehouse: the Electron binary could not be downloaded (${why}).`,
  '  Everything else is installed. `npm start` serves the console to your browser instead and prints its URL.',
  '  To get the desktop window later: `npm run electron:download` (ELECTRON_MIRROR picks another download site).',
  '',
].join('\n'));
process.exit(0);
