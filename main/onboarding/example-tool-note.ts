// First run: an agent connected through "write it for me" while the example tool is installed
// but not enabled sees only the shell tool, and nothing said why. The write dialog's notes say so,
// with the command that enables it (the console's Getting started panel has the button).
import { isAbsolute } from 'node:path';
import type { PluginEntry } from '../registry/plugin-registry.js';
import { EXAMPLE_TOOL } from './getting-started.js';

/**
 * The note for an installed example tool that is not enabled, or null. The command names this
 * host's data folder unless it is the default one, so it works as printed from any folder.
 */
export function exampleToolNote(plugin: (name: string) => PluginEntry | undefined, home: string, defaultHome: string): string | null {
  const entry = plugin(EXAMPLE_TOOL);
  if (!entry || entry.status === 'enabled') return null;
  const command = `gatehouse plugin enable ${EXAMPLE_TOOL}${home === defaultHome ? '' : ` --home ${shellWord(home)}`}`;
  return `The example tool ${EXAMPLE_TOOL} is installed but not enabled, so the agent will see only the shell tool: enable it in Plugins (or Getting started), or run \`${command}\`.`;
}

/** A path as one shell word: bare when it is plain, else single-quoted. */
function shellWord(path: string): string {
  return isAbsolute(path) && /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
