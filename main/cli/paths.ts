// Locations inside the installed package, from the built CLI at out/main/cli.js.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const electronNativeBinding = join(packageRoot, 'native', 'electron', 'better_sqlite3.node');
