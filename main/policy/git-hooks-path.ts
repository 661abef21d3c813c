// Where Git runs a repository's hooks from when its configuration moves them out of `.git/hooks`
// (`core.hooksPath`). Husky, lefthook's and many repositories' own setups point it at a folder of
// the work tree (`.husky/_`, `.githooks`, `scripts/hooks`), which agents may otherwise write: a
// review planted `.husky/pre-commit` with an allowed, contained command, and the operator's next
// `git commit` ran it. The judge (builtin.git-hooks-path) and the shell box (runner/box.ts) read
// it here, per call: a repository can be configured between two calls.
import { closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** A config file larger than this is read only this far (Git's own are a few KiB). */
const MAX_CONFIG_BYTES = 1 << 20;
/** How far up from a path the repository holding it is looked for. */
const MAX_DEPTH = 128;

/**
 * The judge asks for every path a call changes, and the look-ups (a stat per folder up to the
 * repository, five config files) were most of a decision's time; their answers are kept this long.
 * Only an operator changes where hooks run (an agent's change to a Git config is denied, and
 * undone after a contained command), so an answer a second old is still the operator's setting.
 */
const KEEP_MS = 1000;
const MAX_KEPT = 4096;

class Kept<T> {
  private readonly map = new Map<string, { at: number; value: T }>();
  get(key: string, make: () => T): T {
    const hit = this.map.get(key);
    const now = performance.now();
    if (hit && now - hit.at < KEEP_MS) return hit.value;
    if (this.map.size >= MAX_KEPT) this.map.clear();
    const value = make();
    this.map.set(key, { at: now, value });
    return value;
  }
}
/** Per home (one in practice): a folder's repository's hooks folders. */
const keptByHome = new Map<string, Kept<readonly string[]>>();
const NONE: readonly string[] = Object.freeze([]);

/**
 * The start of a regular file, or null. Non-blocking and checked: a FIFO put at the path must
 * not hold the host's thread.
 */
export function readSmallFile(file: string, max: number): string | null {
  let fd: number | null = null;
  try {
    // Most of the files asked for do not exist (the system's and the user's Git configs): a thrown
    // ENOENT costs more than the look-up itself.
    if (!lstatSync(file, { throwIfNoEntry: false })) return null;
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    // Its size, not the most it may be: a 1 MiB buffer zeroed for each of five small config files was a look-up's whole cost.
    const buf = Buffer.alloc(Math.min(max, st.size));
    return buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** The git folder a `.git` file (a linked worktree's, a submodule's) names, absolute; null when it names none. */
export function gitFileTarget(file: string): string | null {
  // Its first 4 KiB: Git's own is one line, and one a command left there may be any size.
  const text = readSmallFile(file, 4096);
  const m = text === null ? null : /^gitdir: *(.+?)\s*$/m.exec(text);
  return m ? resolve(dirname(file), m[1]!) : null;
}

/** The last `hooksPath` of a `[core]` section in one Git config file's text; undefined when it sets none. */
export function hooksPathIn(text: string): string | undefined {
  let section = '';
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    // `[core]` or `[core] hooksPath = x`: Git takes a variable after the header on the same line.
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      line = line.slice(header[0].length);
    }
    if (section !== 'core') continue;
    const kv = /^\s*hookspath\s*=\s*(.*)$/i.exec(line);
    if (kv) found = configValue(kv[1]!);
  }
  return found;
}

/** A config value: quotes removed, escapes read, a comment (`#`, `;` outside quotes) cut off. */
function configValue(v: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < v.length; i++) {
    const ch = v[i]!;
    if (ch === '\\' && i + 1 < v.length) {
      const n = v[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
    } else if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '#' || ch === ';')) break;
    else out += ch;
  }
  return out.trim();
}

/**
 * The folders Git runs this repository's hooks from when `core.hooksPath` sets them (the
 * repository's config over the user's over the system's, as Git reads them), absolute; empty when
 * none sets it. `top` is the work tree (relative values are taken from there; a bare repository's
 * from its git folder). A folder named `_` brings its parent: husky's hooks there run the scripts
 * one folder up (`.husky/pre-commit`).
 */
export function configuredHooksDirs(gitDir: string, top: string | null, home: string): string[] {
  const files = ['/etc/gitconfig', join(home, '.config', 'git', 'config'), join(home, '.gitconfig'), join(gitDir, 'config'), join(gitDir, 'config.worktree')];
  let value: string | undefined;
  for (const f of files) {
    const text = readSmallFile(f, MAX_CONFIG_BYTES);
    const v = text === null ? undefined : hooksPathIn(text);
    if (v !== undefined) value = v;
  }
  if (!value) return [];
  const expanded = value === '~' ? home : value.startsWith('~/') ? join(home, value.slice(2)) : value;
  const dir = isAbsolute(expanded) ? resolve(expanded) : resolve(top ?? gitDir, expanded);
  return basename(dir) === '_' ? [dir, dirname(dir)] : [dir];
}

/** The repository holding `path` (the nearest folder above it with a `.git`): its git folder and work tree. */
export function repositoryOf(path: string): { gitDir: string; top: string } | null {
  let dir = dirname(resolve(path));
  for (let i = 0; i < MAX_DEPTH; i++) {
    const dotGit = join(dir, '.git');
    // No .git here: one folder up (not thrown: most folders have none). A path below a file
    // (ENOTDIR) or a folder this account cannot search (EACCES) has none either.
    let st: ReturnType<typeof lstatSync> | undefined;
    try {
      st = lstatSync(dotGit, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return { gitDir: dotGit, top: dir };
    if (st?.isFile()) {
      const g = gitFileTarget(dotGit);
      if (g) return { gitDir: g, top: dir };
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

/** The configured hooks folder (see configuredHooksDirs) that `path` is in or is, or null. */
export function hooksDirHolding(path: string, home: string): string | null {
  const p = isAbsolute(path) ? path : resolve(path);
  let kept = keptByHome.get(home);
  if (!kept) keptByHome.set(home, (kept = new Kept()));
  const dirs = kept.get(dirname(p), () => {
    const repo = repositoryOf(p);
    return repo ? configuredHooksDirs(repo.gitDir, repo.top, home) : NONE;
  });
  for (const d of dirs) if (p === d || p.startsWith(`${d}/`)) return d;
  return null;
}
