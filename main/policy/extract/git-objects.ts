// What git's content-printing subcommands read. `git show HEAD:.env`, `git show :.env` (the
// index), `git cat-file -p :0:.env`, `git diff`, `git log -p`, `git archive` and `git grep` print
// file contents from the repository's objects, never naming a work-tree path the rules could see:
// without this, a locked rule on `.env` let `git add -A && git show :.env` print the secret.
//
//  - `REV:PATH`, `:PATH`, `:N:PATH` name PATH relative to the work tree's top (`./` and `../`
//    relative to the folder git runs in): a read of that path.
//  - A command that prints the contents of many files (a diff, a patch log, an archive, a grep
//    without paths) reads every tracked file: each tracked `.env` file (from the index) is read.
//    History is not searched: a secret committed and later untracked is not found (documented in
//    docs/security-model.md, "Git objects").
//  - `git cat-file` given a bare object id cannot be mapped to a path: unsure.
// Security-sensitive: a subcommand or option missed here prints protected files unjudged.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { Collector } from './collector.js';
import { isEnvName } from './env-files.js';

/** A shell word after evaluation (shell-analyze's EW fits). */
export interface GitWord {
  t: string;
  known: boolean;
}

/** Where a work tree's repository is: its top folder and its git folder. */
export interface GitRepo {
  top: string;
  gitDir: string;
}

const MAX_UP = 64;

/** The repository `cwd` is in (a `.git` folder, or a `.git` file naming one), or null. */
export function repoOf(cwd: string): GitRepo | null {
  let dir = cwd;
  for (let i = 0; i < MAX_UP; i++) {
    const dotGit = dir === '/' ? '/.git' : `${dir}/.git`;
    let st;
    try {
      // Most folders on the way up have no `.git`: existsSync (access(2)) answers that without
      // building a Stats object (a third cheaper; `git diff` in a folder four deep outside any
      // repository was a slow call of the bench's mix). Any failure of either means "no .git here".
      st = existsSync(dotGit) ? statSync(dotGit, { throwIfNoEntry: false }) : undefined;
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return { top: dir, gitDir: dotGit };
    if (st?.isFile()) {
      // A linked work tree or a submodule: `gitdir: <path>`.
      try {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8').slice(0, 4096));
        if (m) return { top: dir, gitDir: posix.resolve(dir, m[1] as string) };
      } catch {
        // Unreadable: git cannot use it either.
      }
      return null;
    }
    if (dir === '/') return null;
    dir = posix.dirname(dir);
  }
  return null;
}


/** Largest index parsed (a monorepo's is tens of MB; over this the answer is unsure). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;
const indexCache = new Map<string, { mtimeMs: number; size: number; env: string[] | string }>();

/**
 * The tracked `.env` files (paths relative to the top), from the git index; a string saying why
 * when the index cannot be read. Parsed once per version of the index file.
 */
export function trackedEnvFiles(repo: GitRepo): string[] | string {
  const file = `${repo.gitDir}/index`;
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch (err) {
    return `the git index cannot be read (${(err as Error).message})`;
  }
  // A new repository: nothing is tracked yet.
  if (!st) return [];
  if (st.size > MAX_INDEX_BYTES) return `the git index is over ${MAX_INDEX_BYTES / 1024 / 1024} MB`;
  const hit = indexCache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.env;
  let env: string[] | string;
  try {
    const sha256 = existsSync(`${repo.gitDir}/config`) && /objectformat\s*=\s*sha256/i.test(readFileSync(`${repo.gitDir}/config`, 'utf8').slice(0, 65536));
    env = indexPaths(readFileSync(file), sha256 ? 32 : 20).filter((p) => isEnvName(p.slice(p.lastIndexOf('/') + 1)));
  } catch (err) {
    env = `the git index cannot be read (${(err as Error).message})`;
  }
  if (indexCache.size > 64) indexCache.clear();
  indexCache.set(file, { mtimeMs: st.mtimeMs, size: st.size, env });
  return env;
}

/** Every path in a git index (versions 2, 3 and 4); throws on anything else. */
export function indexPaths(buf: Buffer, hashLen: number): string[] {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not a git index');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Error(`git index version ${version} is not known`);
  const count = buf.readUInt32BE(8);
  const out: string[] = [];
  let off = 12;
  let prev = '';
  const fixed = 40 + hashLen;
  for (let n = 0; n < count; n++) {
    if (off + fixed + 2 > buf.length) throw new Error('the git index ends inside an entry');
    const flags = buf.readUInt16BE(off + fixed);
    let p = off + fixed + 2;
    if (version >= 3 && (flags & 0x4000) !== 0) p += 2;
    let path: string;
    if (version === 4) {
      // The name is the previous one with N bytes cut off its end, then this suffix.
      let c = buf[p++] as number;
      let strip = c & 127;
      while (c & 128) {
        c = buf[p++] as number;
        strip = ((strip + 1) << 7) | (c & 127);
      }
      const end = buf.indexOf(0, p);
      if (end < 0 || strip > prev.length) throw new Error('a git index entry is malformed');
      path = prev.slice(0, prev.length - strip) + buf.toString('utf8', p, end);
      off = end + 1;
    } else {
      const end = buf.indexOf(0, p);
      if (end < 0) throw new Error('a git index entry is malformed');
      path = buf.toString('utf8', p, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
      off += (end - off + 8) & ~7;
    }
    out.push(path);
    prev = path;
  }
  return out;
}

/** `REV:PATH`, `:PATH`, `:N:PATH` → the path part, or null (`:/text` searches commit messages). */
function objectPath(t: string): string | null {
  const at = t.indexOf(':');
  if (at < 0 || t.startsWith(':/') || t.startsWith(':(') || t.startsWith(':!') || t.startsWith(':^')) return null;
  const stage = /^:[0-3]:/.exec(t);
  return stage ? t.slice(3) : t.slice(at + 1);
}

/** Options whose value is the next word, per subcommand (so it is not taken for a revision or path). */
const VALUE_OPTS: Record<string, ReadonlySet<string>> = {
  show: new Set(['-n', '--max-count', '-U', '--unified', '--format', '--pretty', '--skip', '--since', '--until', '--author', '--grep', '--encoding']),
  log: new Set(['-n', '--max-count', '-U', '--unified', '--format', '--pretty', '--skip', '--since', '--until', '--after', '--before', '--author', '--committer', '--grep', '--encoding', '-S', '-G', '-L', '--decorate-refs', '--decorate-refs-exclude']),
  diff: new Set(['-U', '--unified', '--inter-hunk-context', '-O', '--relative', '--diff-filter', '-S', '-G', '--src-prefix', '--dst-prefix', '--line-prefix', '--anchored']),
  'cat-file': new Set(['--path', '--filters']),
  archive: new Set(['--format', '--prefix', '-o', '--output', '--remote', '--exec', '--add-file', '--add-virtual-file', '--mtime']),
  grep: new Set(['-e', '-f', '--max-depth', '-A', '-B', '-C', '-m', '--max-count', '--threads', '--after-context', '--before-context', '--context']),
  blame: new Set(['-L', '-S', '--contents', '--ignore-rev', '--ignore-revs-file', '--date', '--abbrev']),
};
VALUE_OPTS['whatchanged'] = VALUE_OPTS['log'] as ReadonlySet<string>;
VALUE_OPTS['format-patch'] = VALUE_OPTS['log'] as ReadonlySet<string>;
VALUE_OPTS['stash'] = VALUE_OPTS['diff'] as ReadonlySet<string>;
VALUE_OPTS['annotate'] = VALUE_OPTS['blame'] as ReadonlySet<string>;

/** Options that turn a log or show into a patch (file contents), or pickaxe searches of contents. */
const PATCH_OPTS = /^(-p|-u|--patch|--patch-with-stat|--patch-with-raw|--cc|-c|--full-diff|-L.*|--word-diff.*|--color-words.*|-S.*|-G.*|--pickaxe-regex|--textconv)$/;
/** Options that make a diff or show print no contents (unless a patch option is also there). */
const NO_PATCH_OPTS = /^(-s|--no-patch|--stat.*|--shortstat|--numstat|--dirstat.*|--name-only|--name-status|--summary|--raw|--quiet|--exit-code|--check|--compact-summary)$/;

interface Split {
  /** Positional words before `--`. */
  pos: GitWord[];
  opts: string[];
  /** Options' separate values (`--contents F`): name → value words. */
  values: Array<{ name: string; value: GitWord }>;
  /** Pathspecs after `--`. */
  paths: GitWord[];
}

function split(sub: string, rest: readonly GitWord[]): Split {
  const takes = VALUE_OPTS[sub] ?? new Set<string>();
  const out: Split = { pos: [], opts: [], values: [], paths: [] };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as GitWord;
    if (a.known && a.t === '--') {
      out.paths.push(...rest.slice(i + 1));
      break;
    }
    if (a.known && a.t.length > 1 && a.t.startsWith('-')) {
      const eq = a.t.indexOf('=');
      const name = eq > 0 ? a.t.slice(0, eq) : a.t;
      out.opts.push(name);
      if (eq > 0) out.values.push({ name, value: { t: a.t.slice(eq + 1), known: true } });
      else if (takes.has(a.t) && i + 1 < rest.length) out.values.push({ name, value: rest[++i] as GitWord });
      continue;
    }
    out.pos.push(a);
  }
  return out;
}

/** Does this git subcommand print file contents from the repository (the ones gitObjectReads judges)? */
export const printsContents = (sub: string): boolean => Object.hasOwn(VALUE_OPTS, sub);

/**
 * The reads of one git subcommand that prints file contents from the repository (show, log,
 * whatchanged, format-patch, stash show, diff, cat-file, archive, grep, blame, annotate): reported on `col` as reads of
 * work-tree paths; unsure when the object cannot be mapped to a path.
 */
export function gitObjectReads(sub: string, rest: readonly GitWord[], cwd: string, col: Collector): void {
  if (!printsContents(sub)) return;
  const s = split(sub, rest);
  // Looked up only when an answer needs it: the walk up costs a system call per folder, and most
  // of these commands never ask (`git diff --stat`, `git log` without -p print no file contents).
  // Asked at most once per call, so every answer in it rests on the same look-up.
  let found: GitRepo | null | undefined;
  const repoHere = (): GitRepo | null => (found === undefined ? (found = repoOf(cwd)) : found);
  const top = (): string => repoHere()?.top ?? cwd;
  const read = (path: string, relativeToTop: boolean): void => {
    col.op('read');
    col.path(path, relativeToTop && !/^\.\.?(\/|$)/.test(path) ? top() : cwd);
  };
  const unsure = (why: string): void => {
    col.op('read');
    col.evasive(why);
  };
  // Every tracked .env file, when the command prints the contents of the whole tree (or of the
  // folders named): what a locked rule on `.env` must see.
  const wholeTree = (under: readonly string[] = []): void => {
    const repo = repoHere();
    if (!repo) return;
    const env = trackedEnvFiles(repo);
    if (typeof env === 'string') return unsure(`git ${sub} prints tracked files' contents and ${env}`);
    const dirs = under.map((d) => posix.resolve(cwd, d));
    for (const rel of env) {
      const abs = posix.join(repo.top, rel);
      if (dirs.length === 0 || dirs.some((d) => abs === d || abs.startsWith(d === '/' ? '/' : `${d}/`))) read(abs, false);
    }
  };
  const objects = (words: readonly GitWord[]): void => {
    for (const w of words) {
      if (!w.known) return unsure(`git ${sub} names an object the judge cannot evaluate`);
      const p = objectPath(w.t);
      if (p) read(p, true);
    }
  };
  const named = (words: readonly GitWord[]): string[] => {
    const out: string[] = [];
    for (const w of words) {
      if (!w.known) {
        unsure(`git ${sub} names a path the judge cannot evaluate`);
        continue;
      }
      // Pathspec magic (`:(exclude)x`, `:!x`) narrows, it names no further file.
      if (/^:[(!^]/.test(w.t)) continue;
      read(w.t, false);
      out.push(w.t);
    }
    return out;
  };
  const patch = s.opts.some((o) => PATCH_OPTS.test(o));
  const quiet = !patch && s.opts.some((o) => NO_PATCH_OPTS.test(o));
  // Files named by an option are read whole (`blame --contents F`, `archive --add-file=F`).
  for (const v of s.values) if (v.name === '--contents' || v.name === '--add-file' || v.name === '--path') named([v.value]);

  // What a patch or archive of the tree (or of the folders named) prints: every tracked .env in it.
  const tree = (given: readonly GitWord[]): void => wholeTree(named(given));
  const existing = (w: GitWord): boolean => w.known && objectPath(w.t) === null && existsSync(posix.resolve(cwd, w.t));

  switch (sub) {
    case 'show': {
      objects(s.pos);
      const commits = s.pos.filter((w) => w.known && objectPath(w.t) === null);
      // `git show` alone is HEAD; each commit shown prints its patch.
      if ((commits.length > 0 || s.pos.length === 0) && !quiet) tree(s.paths);
      return;
    }
    // A patch series is every commit's patch (to files, or to standard output with --stdout).
    case 'format-patch':
      tree(s.paths);
      return;
    case 'stash':
      // `git stash show -p` prints a stash's patch; with -u its untracked files too, which the
      // index does not list.
      if (s.pos[0]?.t !== 'show' || !patch) return;
      if (s.opts.some((o) => o === '-u' || o === '--include-untracked' || o === '--only-untracked')) unsure('git stash show prints untracked files saved in the stash');
      tree(s.paths);
      return;
    case 'log':
    case 'whatchanged':
      if (patch) tree([...s.paths, ...s.pos.filter(existing)]);
      return;
    case 'diff': {
      objects(s.pos);
      // `git diff A:x B:y` compares two blobs, named above.
      if (quiet || s.pos.some((w) => w.known && objectPath(w.t) !== null)) return;
      tree([...s.paths, ...s.pos.filter(existing)]);
      return;
    }
    case 'cat-file': {
      if (s.opts.some((o) => o === '--batch' || o === '--batch-command' || o === '--batch-all-objects')) return unsure('git cat-file reads the objects its input names');
      // -t, -s, -e print an object's type, size or existence, never its contents.
      if (s.opts.some((o) => o === '-t' || o === '-s' || o === '-e')) return;
      for (const w of s.pos) {
        if (!w.known) return unsure('git cat-file names an object the judge cannot evaluate');
        const p = objectPath(w.t);
        if (p) read(p, true);
        else if (/^[0-9a-f]{4,64}$/i.test(w.t)) unsure('git cat-file prints an object by its id, which names no path');
      }
      return;
    }
    case 'archive': {
      const [treeish, ...paths] = s.pos;
      if (treeish) objects([treeish]);
      const inner = treeish?.known ? objectPath(treeish.t) : null;
      // `git archive HEAD:src` archives the tree under src: the .env files tracked there.
      if (inner !== null && paths.length + s.paths.length === 0) wholeTree([posix.resolve(top(), inner)]);
      else tree([...paths, ...s.paths]);
      return;
    }
    case 'grep': {
      // The first positional is the pattern unless -e or -f gave it.
      const pattern = s.opts.some((o) => o === '-e' || o === '-f' || o === '--and' || o === '--or') ? 0 : 1;
      objects(s.pos.slice(pattern));
      tree(s.paths);
      if (s.opts.includes('--no-index') || s.opts.includes('--untracked')) {
        // Untracked files too: the work tree's own .env files, which a walked folder does not show.
        unsure(`git grep ${s.opts.includes('--no-index') ? '--no-index' : '--untracked'} searches untracked files, .env files among them`);
      }
      return;
    }
    case 'blame':
    case 'annotate': {
      const paths = s.paths.length ? s.paths : s.pos.slice(-1);
      named(paths);
      return;
    }
  }
}
