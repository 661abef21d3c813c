// What a plugin folder reaches outside itself without a line of code: symbolic links that point
// out of it, and manifest permission paths that resolve out of it.
//
// - A link is never followed by the scanner (scan-plugin.ts), so the file it points to is never
//   scanned; but the plugin's code can open it, and the sandbox binds the folder with its links.
//   `data -> ~/.ssh` turns "read your own files" into "read the keys". A link that stays inside
//   the folder is harmless and not reported.
// - `permissions.read`/`write` paths are bound into the sandbox. `data/x`, where `data` is a link
//   out of the folder, reads as the plugin's own files and grants something else (weight 3). A path
//   that is absolute, from `~` or climbs out with `..` says so in the manifest: a write there is
//   weight 2, a read weight 1. Any path that is or holds `/`, the home folder or a credential store
//   (`../../.ssh` from a plugin in ~/.config/gatehouse/plugins included) is weight 3.
import { leavesFolder } from '../../core/path-walk.js';
import { readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Finding, PluginManifest } from '../types.js';
import { RULES } from './rules.js';

/** `child` is `parent` or inside it (both absolute, normalised). */
function within(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

/** The real path of `p`, resolving every link that exists along it; the missing tail is kept as written. */
function realish(p: string): string {
  let head = resolve(p);
  const tail: string[] = [];
  for (let i = 0; i < 64; i++) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) break;
      tail.unshift(head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      head = parent;
    }
  }
  return resolve(p);
}

function realDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

/** Findings for symbolic links (relative paths, `/`-separated) that lead out of the plugin folder. */
export function scanLinks(dir: string, links: readonly string[]): Finding[] {
  const root = realDir(dir);
  const out: Finding[] = [];
  for (const rel of links) {
    const at = join(dir, ...rel.split('/'));
    let target: string;
    try {
      target = readlinkSync(at);
    } catch {
      continue; // gone since it was listed
    }
    // Where the link leads, followed as the kernel follows it (a link to a link out, and
    // `b/b/../..` with `b -> .`, which reads as the folder by its text and climbs out of it).
    if (leavesFolder(root, rel) === null) continue;
    const shown = target.length > 80 ? `${target.slice(0, 79)}…` : target;
    out.push({ file: rel, line: 1, column: 1, rule: 'plugin.symlink-outside', weight: RULES['plugin.symlink-outside'].weight, message: `${rel} is a symbolic link to ${JSON.stringify(shown)}, outside the plugin folder: the scanner does not follow it, but the plugin's code can read or write what it points to. Copy the file into the folder instead.` });
  }
  return out;
}

// Places whose contents are credentials or the system itself: a permission on them, or on a folder
// holding them, is never what a tool needs.
const SENSITIVE_HOME = ['.ssh', '.gnupg', '.aws', '.azure', '.config/gcloud', '.kube', '.docker', '.netrc', '.pgpass', '.git-credentials', '.config/gatehouse', '.bashrc', '.zshrc', '.profile', '.bash_profile'];
const SENSITIVE_ROOT = ['/etc', '/root', '/proc', '/sys', '/dev', '/boot', '/var/run', '/run'];

function sensitive(p: string, home: string): boolean {
  const places = [...SENSITIVE_HOME.map((h) => join(home, h)), ...SENSITIVE_ROOT];
  // The path is one of them, inside one, or holds one (/, the home folder, ~/.config).
  return places.some((s) => within(s, p) || within(p, s));
}

/** The line (1-based) and column of `needle` (quoted) in the manifest's text, looked for after its permissions section starts. */
function position(source: string | undefined, needle: string): { line: number; column: number } {
  if (!source) return { line: 1, column: 1 };
  const section = Math.max(0, source.search(/\[permissions\]|"permissions"|^permissions/m));
  let i = source.indexOf(JSON.stringify(needle), section);
  if (i < 0) i = source.indexOf(needle, section);
  if (i < 0) i = source.indexOf(needle);
  if (i < 0) return { line: 1, column: 1 };
  const before = source.slice(0, i);
  const line = before.split('\n').length;
  return { line, column: i - before.lastIndexOf('\n') };
}

/** Findings for `permissions.read`/`write` paths that resolve outside the plugin folder. */
export function scanPermissionPaths(manifest: PluginManifest, dir: string, source: string | undefined, home = homedir()): Finding[] {
  const out: Finding[] = [];
  const root = realDir(dir);
  const file = manifest.manifestFile;
  for (const kind of ['read', 'write'] as const) {
    // Declared paths outside the folder are one finding per kind (listing them all): a plugin that
    // honestly needs two folders is not failed by the count of its lines.
    const declared: { p: string; real: string; how: string }[] = [];
    for (const p of manifest.permissions[kind]) {
      const where = position(source, p);
      const push = (rule: 'manifest.permission-escape' | 'manifest.permission-sensitive', message: string) =>
        out.push({ file, ...where, rule, weight: RULES[rule].weight, message });
      const quoted = JSON.stringify(p.length > 80 ? `${p.slice(0, 79)}…` : p);
      const fromHome = p === '~' || p.startsWith('~/');
      const expanded = p === '~' ? home : fromHome ? join(home, p.slice(2)) : resolve(dir, p);
      const real = realish(expanded);
      if (sensitive(expanded, home) || sensitive(real, home)) {
        push('manifest.permission-sensitive', `permissions.${kind} ${quoted} is, or holds, the root, the home folder or a credential store (${real}): no tool needs ${kind === 'write' ? 'to write' : 'to read'} there. Name the one folder the tool works on.`);
        continue;
      }
      if (within(root, real)) continue; // the plugin's own files, however written
      // Written as a path in the folder, landing outside only through a link in it: nothing in the
      // manifest shows where it leads.
      if (!fromHome && !isAbsolute(p) && within(resolve(dir), expanded)) {
        push('manifest.permission-escape', `permissions.${kind} ${quoted} looks like a path in the plugin folder but a symbolic link takes it to ${real}, outside it: declare the real path, absolute or from ~, so the operator sees it.`);
        continue;
      }
      // Absolute, from ~, or climbing out with .. (written in the manifest for a reviewer to see).
      declared.push({ p, real, how: !fromHome && !isAbsolute(p) ? ', climbing out with ..' : '' });
    }
    if (declared.length === 0) continue;
    const list = declared.map((d) => `${JSON.stringify(d.p)} (${d.real}${d.how})`).join(', ');
    const rule = kind === 'write' ? 'manifest.write-outside' : 'manifest.read-outside';
    const message = kind === 'write'
      ? `permissions.write lets the plugin change files outside its folder: ${list}. Keep it to the one folder the tool must write, and say why in the description.`
      : `permissions.read lets the plugin read files outside its folder: ${list}. Keep it to what the tool needs.`;
    out.push({ file, ...position(source, declared[0]!.p), rule, weight: RULES[rule].weight, message });
  }
  return out;
}
