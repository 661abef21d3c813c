// Checks on a plugin's (or a tool's) command: it must be a file inside the plugin folder, reached
// without leaving it (no absolute path, no "..", no symbolic link pointing out), executable, and
// not a denylisted program under any name.
//
// SECURITY: these checks are what keeps a manifest from turning Gatehouse into a launcher for
// arbitrary programs on the machine. Resolving symbolic links (realpath) is essential: without it
// a link named "cleanup" pointing to /bin/rm would pass. The runner must still verify at exec time
// what it executes (a file can be swapped after validation); these checks do not replace that.
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve, win32 } from 'node:path';
import type { PendingProblem } from './schema-problems.js';
import { dotted } from './describe.js';
import type { PathSegment } from './source-locations.js';

export interface CommandCheckContext {
  /** The plugin folder as given. */
  dir: string;
  /** The plugin folder after resolving symbolic links. */
  realDir: string;
  /** Denylisted basenames, lower-case. */
  denylist: ReadonlySet<string>;
  /** Skip the execute-bit test (Windows has none). */
  posix: boolean;
}

/** Lower-cased basename without a Windows executable extension: "RM.exe" → "rm". */
export function commandBaseName(p: string): string {
  const base = p.split(/[\\/]/).pop() ?? p;
  return base.toLowerCase().replace(/\.(exe|com|bat|cmd)$/, '');
}

export function checkCommand(command: string, segments: PathSegment[], ctx: CommandCheckContext): PendingProblem[] {
  const field = `\`${dotted(segments)}\``;
  const q = JSON.stringify(command);
  const out: PendingProblem[] = [];
  const problem = (code: string, message: string) => out.push({ segments, severity: 'error', code, message });
  const denied = (name: string, via: string | null) => {
    const base = commandBaseName(name);
    if (!ctx.denylist.has(base)) return false;
    const how = via ? `resolves to ${via}, which is ${base}` : `runs ${base}`;
    problem('command.denied', `${field} = ${q} ${how}, a program on the command denylist that no plugin may use as its command; write a script inside the plugin folder that does only what the tool needs.`);
    return true;
  };

  if (posix.isAbsolute(command) || win32.isAbsolute(command)) {
    problem('command.absolute', `${field} = ${q} is an absolute path, but a plugin may only run a file inside its own folder; put the executable (or a wrapper script) in the folder and write its path relative to the folder, e.g. "run.sh".`);
    denied(command, null);
    return out;
  }
  if (command.split(/[\\/]/).includes('..')) {
    problem('command.parent', `${field} = ${q} contains "..", but the command must stay inside the plugin folder; move the executable into the folder and name it without "..".`);
    denied(command, null);
    return out;
  }

  const full = join(ctx.dir, command);
  const byName = denied(command, null);

  let linkTarget: string | null = null;
  try {
    if (lstatSync(full).isSymbolicLink()) linkTarget = resolve(dirname(full), readlinkSync(full));
  } catch {
    const hint = /\s/.test(command.trim()) ? ' (arguments go in `args`, not in `command`)' : '';
    problem('command.missing', `${field} = ${q} does not exist in the plugin folder${hint}; create the file or fix the path.`);
    return out;
  }

  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    // A dangling link: judge where it points even though nothing is there.
    const target = linkTarget ?? full;
    if (isOutside(ctx.realDir, target)) {
      problem('command.escape', `${field} = ${q} is a symbolic link to ${target}, outside the plugin folder; replace the link with the executable itself, inside the folder.`);
    } else {
      problem('command.missing', `${field} = ${q} is a symbolic link to ${target}, which does not exist; fix the link or point \`command\` at the real file.`);
    }
    if (!byName) denied(target, target);
    return out;
  }

  if (!byName && !(linkTarget && denied(linkTarget, linkTarget))) denied(real, real);

  if (isOutside(ctx.realDir, real)) {
    problem('command.escape', `${field} = ${q} resolves through a symbolic link to ${real}, outside the plugin folder; replace the link with the executable itself, inside the folder.`);
    return out;
  }

  const st = statSync(real);
  if (!st.isFile()) {
    problem('command.not-executable', `${field} = ${q} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}, not an executable file; point \`command\` at the program inside it.`);
  } else if (ctx.posix && (st.mode & 0o111) === 0) {
    problem('command.not-executable', `${field} = ${q} is not executable; run chmod +x ${shellQuote(command)} in the plugin folder (and give it a #! line).`);
  }
  return out;
}

function isOutside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' ? false : rel === '..' || rel.startsWith('../') || rel.startsWith('..\\') || isAbsolute(rel);
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
