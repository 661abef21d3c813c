// Where this installation of Gatehouse is: two folders up from both this source file
// (main/core/) and the bundle it is built into (out/main/). The hook and MCP snippets name its
// entry file; the built-in rule builtin.gatehouse-cli keeps agents from starting it.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
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
  return root ? cliFilesOf(root) : [];
}

function cliFilesOf(root: string): string[] {
  return [join(root, 'bin', 'gatehouse.js'), join(root, 'out', 'main')];
}

/**
 * Everything this installation runs, for the rule that keeps agents from changing it: the command
 * line's files, its package.json (Node reads its "type" to load them), and every node_modules
 * folder Node looks in for the packages the bundles load (they are built with their dependencies
 * outside, and workers load them again when they start). SECURITY: an agent that edited
 * node_modules/picomatch ran its code inside the host the next time the extraction worker started,
 * with the operator token in reach; and a folder earlier in the lookup (out/node_modules) would
 * shadow the real package. In a project that installed Gatehouse itself, that is the project's
 * node_modules: installing packages there changes what Gatehouse runs, so it is protected too.
 */
export function installedCodeFiles(root = installRoot(), home = homedir(), nodePath = process.env.NODE_PATH): string[] {
  if (!root) return [];
  const lookup: string[] = [];
  // Node's lookup from out/main upward: each folder's node_modules, skipping node_modules folders themselves.
  for (let dir = join(root, 'out', 'main'); ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') lookup.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) break;
  }
  // Where Node looks after them, for a package none of those has (ws tries bufferutil, which
  // is not installed: one planted in ~/.node_modules ran in the host), and NODE_PATH's folders.
  const globals = [join(home, '.node_modules'), join(home, '.node_libraries'), ...(nodePath ?? '').split(delimiter).filter((d) => isAbsolute(d))];
  // All of out/ (the console the serve shell reads from disk, the preload, out/package.json's
  // "type" for the bundles), and the example plugins new homes are given.
  return [join(root, 'bin', 'gatehouse.js'), join(root, 'out'), join(root, 'package.json'), join(root, 'examples'), ...lookup, ...globals];
}
