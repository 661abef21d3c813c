// Finds the Electron binary that `npm install electron` downloads. Where the download failed or
// was skipped, `require('electron')` throws; we turn that into a reason instead.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

export type ElectronLookup = { found: true; path: string } | { found: false; reason: string };

export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): ElectronLookup {
  if (env.GATEHOUSE_NO_ELECTRON === '1') return { found: false, reason: 'GATEHOUSE_NO_ELECTRON=1 is set' };
  let path: unknown;
  try {
    path = createRequire(import.meta.url)('electron');
  } catch (err) {
    return { found: false, reason: `the electron package has no binary (${(err as Error).message.split('\n')[0]})` };
  }
  if (typeof path !== 'string' || !existsSync(path)) return { found: false, reason: `the Electron binary is missing at ${String(path)}` };
  return { found: true, path };
}
