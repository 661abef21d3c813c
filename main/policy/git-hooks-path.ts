// Where Git runs a repository's hooks from when its configuration moves them out of `.git/hooks`
// (`core.hooksPath`). Husky, lefthook's and many repositories' own setups point it at a folder of
// the work tree (`.husky/_`, `.githooks`, `scripts/hooks`), which agents may otherwise write: a
// review planted `.husky/pre-commit` with an allowed, contained command, and the operator's next
// `git commit` ran it. The judge (builtin.git-hooks-path) and the shell box (runner/box.ts) read
// it here, per call: a repository can be configured between two calls.
import { lstatSync } from 'node:fs';
import { readSmallFile } from '../core/read-small-file.js';
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
  get(key: string, make: () => T, now = performance.now()): T {
    const hit = this.map.get(key);
    if (hit && now - hit.at < KEEP_MS) return hit.value;
    if (this.map.size >= MAX_KEPT) this.map.clear();
    const value = make();
    this.map.set(key, { at: now, value });
    return value;
  }
}

/** The git folder a `.git` file (a linked worktree's, a submodule's) names, absolute; null when it names none. */
export function gitFileTarget(file: string): string | null {
  // Its first 4 KiB: Git's own is one line, and one a command left there may be any size.
  const text = readSmallFile(file, 4096);
  const m = text === null ? null : /^gitdir: *(.+?)\s*$/m.exec(text);
  return m ? resolve(dirname(file), m[1]!) : null;
}

/** The `core.hooksPath` one Git config file's text sets last; undefined when it sets none. */
export function hooksPathIn(text: string): string | undefined {
  const all = readConfigText(text).hooksPaths;
  return all.length ? all[all.length - 1] : undefined;
}

/** What one Git config file's text says that matters here: its `core.hooksPath` values and the files it includes. */
function readConfigText(text: string): { hooksPaths: string[]; includes: string[] } {
  const hooksPaths: string[] = [];
  const includes: string[] = [];
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    let line = raw;
    // `[core]` or `[core] hooksPath = x`: Git takes a variable after the header on the same line.
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      line = line.slice(header[0].length);
    }
    const kv = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const key = kv[1]!.toLowerCase();
    if (section === 'core' && key === 'hookspath') hooksPaths.push(configValue(kv[2]!));
    // Every include, whatever its condition (includeIf "gitdir:…", "onbranch:…"): one that does not
    // apply only makes more folders protected, never fewer.
    else if ((section === 'include' || section === 'includeif') && key === 'path') includes.push(configValue(kv[2]!));
  }
  return { hooksPaths, includes };
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

const tilde = (p: string, home: string) => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p);

/** How deep includes are followed (Git's own limit is 10). */
const MAX_INCLUDE_DEPTH = 10;

/**
 * The `core.hooksPath` values and included files of these config files and of everything they
 * include (relative includes are taken from the including file's folder).
 */
function readConfigs(files: readonly string[], home: string): { hooksPaths: string[]; includes: string[] } {
  const hooksPaths: string[] = [];
  const includes: string[] = [];
  const seen = new Set<string>();
  const read = (file: string, depth: number) => {
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    const text = readSmallFile(file, MAX_CONFIG_BYTES);
    if (text === null) return;
    const r = readConfigText(text);
    hooksPaths.push(...r.hooksPaths);
    for (const inc of r.includes) {
      if (!inc) continue;
      const path = resolve(dirname(file), tilde(inc, home));
      includes.push(path);
      read(path, depth + 1);
    }
  };
  for (const f of files) read(f, 0);
  return { hooksPaths, includes };
}

/** The folders a hooksPath value names, absolute (see gitHookPlaces). */
function hooksFolders(values: readonly string[], base: string, home: string): string[] {
  const out: string[] = [];
  for (const v of values) {
    if (!v) continue;
    const expanded = tilde(v, home);
    const dir = isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
    out.push(dir);
    // Husky's hooks (`.husky/_/pre-commit`) run the scripts one folder up (`.husky/pre-commit`).
    if (basename(dir) === '_') out.push(dirname(dir));
  }
  return [...new Set(out)];
}

const userConfigs = (home: string) => ['/etc/gitconfig', join(home, '.config', 'git', 'config'), join(home, '.gitconfig')];

/**
 * What Git reads for this repository that decides where hooks run: the folders `core.hooksPath`
 * names (in the system's, the user's and the repository's config and what they include; every
 * value, not only the one that wins: a superset is safe), absolute, and the config files included
 * (writing one can set it). `top` is the work tree (relative values are taken from there; a bare
 * repository's from its git folder). A linked worktree's git folder shares its config through
 * `commondir`.
 */
export function gitHookPlaces(gitDir: string, top: string | null, home: string): { hooks: string[]; includes: string[] } {
  const common = readSmallFile(join(gitDir, 'commondir'), 4096)?.trim();
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  const r = readConfigs([...userConfigs(home), join(commonDir, 'config'), join(gitDir, 'config.worktree')], home);
  return { hooks: hooksFolders(r.hooksPaths, top ?? gitDir, home), includes: r.includes };
}

/** The hooks folders and included files of the system's and the user's config alone: every repository runs them. */
export function userHookPlaces(home: string): { hooks: string[]; includes: string[] } {
  const r = readConfigs(userConfigs(home), home);
  // A relative value there is taken from each repository's top: only absolute and ~ ones name one folder.
  return { hooks: hooksFolders(r.hooksPaths.filter((v) => isAbsolute(tilde(v, home))), '/', home), includes: r.includes };
}

/** The repository holding the folder `start` (itself or the nearest above with a `.git`). */
function repositoryFrom(start: string): { gitDir: string; top: string } | null {
  let dir = start;
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

/** Kept per home: the places of a folder's repository, and the user's own. */
const keptByHome = new Map<string, { repos: Kept<{ hooks: string[]; includes: string[] } | null>; user: Kept<{ hooks: string[]; includes: string[] }> }>();

/**
 * What `path` is of the places that decide where Git runs hooks, or null: inside (or the same as)
 * a hooks folder of its own repository, of the repository the call runs in (`cwd`: an absolute
 * hooksPath outside the work tree), or of the user's config (every repository); or a config file
 * one of their configs includes.
 */
export function hookPlaceOf(path: string, home: string, cwd?: string): string | null {
  const p = isAbsolute(path) ? path : resolve(path);
  let kept = keptByHome.get(home);
  if (!kept) keptByHome.set(home, (kept = { repos: new Kept(), user: new Kept() }));
  const repos = kept.repos;
  // One clock read per call: this runs for every path a call changes.
  const now = performance.now();
  const placesIn = (dir: string) =>
    repos.get(
      dir,
      () => {
        const repo = repositoryFrom(dir);
        return repo ? gitHookPlaces(repo.gitDir, repo.top, home) : null;
      },
      now,
    );
  const own = dirname(p);
  const found = (places: { hooks: string[]; includes: string[] } | null): string | null => {
    if (!places) return null;
    for (const d of places.hooks) if (p === d || p.startsWith(`${d}/`)) return d;
    for (const f of places.includes) if (p === f) return f;
    return null;
  };
  return (
    found(placesIn(own)) ??
    (cwd && cwd.startsWith('/') && cwd !== own ? found(placesIn(cwd)) : null) ??
    found(kept.user.get('', () => userHookPlaces(home), now))
  );
}
