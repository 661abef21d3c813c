// Where this installation of Gatehouse is: two folders up from both this source file
// (main/core/) and the bundle it is built into (out/main/). The hook and MCP snippets name its
// entry file; the built-in rule builtin.gatehouse-cli keeps agents from starting it.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installation's root folder, or null when this code cannot tell where it is loaded from. */
export function installRoot(): string | null {
  const url: unknown = import.meta.url;
  // The CommonJS Electron bundle has no import.meta.url (esbuild defines it as undefined).
  const here = typeof url === 'string' ? dirname(fileURLToPath(url)) : typeof __dirname === 'string' ? __dirname : null;
  return here ? resolve(here, '..', '..') : null;
}

/** `bin/gatehouse.js`, the installed `gatehouse` command; null when it is not there (a packaged app). */
export function installedEntry(): string | null {
  const root = installRoot();
  const entry = root ? join(root, 'bin', 'gatehouse.js') : null;
  return entry && existsSync(entry) ? entry : null;
}

/** The files that are this installation's command line: the entry and the built bundles' folder. */
export function installedCliFiles(): string[] {
  const root = installRoot();
  return root ? [join(root, 'bin', 'gatehouse.js'), join(root, 'out', 'main')] : [];
}
