// The box: where a Bash command runs that Gatehouse let through without an operator reading it
// (full autonomy, a grant). The judge cannot see what `npm test`, `make` or a script the agent
// wrote will do once it runs; the box decides what it can reach. It is a whole view of the
// machine, not a plugin's narrow one (the agent's tools, PATH and caches must still work):
//
//   - everything read-only, except the project folder and the temp folders;
//   - what the locked built-in rules forbid reading is masked: credential stores, browser
//     profiles, keyrings, Gatehouse's own data folder (its tokens), and, inside the project,
//     files protected by name (.env files, private keys);
//   - what the locked rules forbid changing stays read-only even inside the project (.git/hooks,
//     .git/config, Claude Code's project settings, plugin folders); git folders are pinned (not
//     renamed away), and the Git files that move configuration, which cannot be bound before
//     they exist (.git/commondir, config.worktree, new submodule and worktree git folders), are
//     removed after the command when it created them, and repositories it added to the index as
//     submodules taken out of it again, and a repository it made in a project that had none
//     kept only when plain (GIT_CHECK_SCRIPT, run outside the box);
//   - other programs' control sockets masked (tmux, screen, the session bus, an ssh agent, X11,
//     docker: a server behind one runs commands outside the box) and the variables naming them
//     removed;
//   - its own /proc (other processes' environments and command lines are not there), no
//     capabilities, a new session (no terminal to push keystrokes into), Gatehouse's tokens
//     removed from the environment.
// The network is not boxed (the judge decides hosts), and what the project folder itself holds
// stays readable and writable: docs/security-model.md says so.
//
// The masks are derived from the locked rules (builtin.ts) rather than listed again here: a
// credential store added there is masked here too. Security-sensitive: a mask removed here is a
// file any contained command can read.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync, type Dirent, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { gitFileTarget, gitHookPlaces } from '../policy/git-hooks-path.js';
import { GIT_POINTER_RULE } from '../policy/rules/persistence.js';
import { verifiedArgv } from './verify-mounts.js';
import type { Rule } from '../policy/types.js';
import { plannedBinds, under } from './sandbox.js';
import { runBriefly } from '../core/run-briefly.js';
import { dropOldest } from '../core/drop-oldest.js';
import { SETTLED_MS } from '../policy/extract/symlink-cache.js';

/** What one contained command may reach; rendered for bubblewrap or Seatbelt. */
export interface BoxPlan {
  /** The folder the command starts in. */
  cwd: string;
  /** Read-write folders (the project, temp folders); everything else is read-only. */
  writable: string[];
  /** Inside a writable folder but read-only all the same (persistence, supervision, plugins). */
  readOnly: string[];
  /**
   * Git folders in a writable folder (a repository's .git, its submodules' and linked worktrees'
   * git folders, and their modules/ and worktrees/ folders): bound onto themselves, so a
   * contained command cannot rename one away and put a folder of its own, config and all, in
   * its place (a folder holding a mount point can be renamed; the mount point itself cannot).
   */
  pinned: string[];
  /**
   * The git folders whose configuration-moving files (commondir, config.worktree, a new config
   * or hooks folder, new modules/ and worktrees/ entries) are removed after the command when it
   * created them: a file that does not exist cannot be bound read-only (GIT_CHECK_SCRIPT).
   */
  gitDirs: string[];
  /**
   * The project folder, when the box can write it: a Git repository the command makes at its top
   * (there was none) has its configuration and hooks set aside after the command (GIT_CHECK_SCRIPT).
   */
  top?: string | undefined;
  /**
   * Agents' settings a contained command may not create (`.claude/settings.json`, `.github/hooks`,
   * ...: the locked rules' names): `names` relative to each of `dirs` (the folders from the
   * command's up to the project's top, where an agent started there reads them; the top always).
   * One that was not there before the box started is removed after it (GIT_CHECK_SCRIPT): one
   * that exists is bound read-only, but a missing one cannot be; one that exists and is not what
   * it was after the box (its folder renamed away and made again) is set aside.
   */
  settings: { dirs: string[]; names: string[] };
  /** Hidden: folders replaced by an empty read-only one, files by an empty file. */
  maskedDirs: string[];
  maskedFiles: string[];
  /** Why the project is not writable, or that the project walk stopped at its budget. */
  notes: string[];
}

export interface BoxContext {
  home: string;
  /** The locked built-in rules (builtinRules(ctx)): what they forbid reading is masked, changing is read-only. */
  rules: readonly Rule[];
  /** Temp folders left writable (default /tmp, /var/tmp and $TMPDIR). */
  tmpDirs?: readonly string[];
  /** Entries the project walk reads at most (default 20,000). */
  walkBudget?: number;
  /** The account whose control sockets are masked (controlSockets; default this process's, which is the agent's). */
  uid?: number;
}

/**
 * Name patterns the box masks in the project on top of the rules': private keys and certificates
 * by their usual names. (The judge protects .env files by rule; these are kept out of a command
 * it cannot see into, where they would otherwise be read by a test or a script.)
 */
const BOX_SECRET_NAMES = ['**/.env*', '**/*.pem', '**/*.key', '**/id_{rsa,dsa,ecdsa,ed25519,ecdsa_sk,ed25519_sk}'];
/** Templates hold no secrets and projects read them. */
const BOX_SECRET_EXCEPT = ['**/.env.example', '**/.env.sample', '**/.env.template'];
/** Not walked (too large, and nothing in them is read by name); git folders are looked at one level deep (walkProject). */
const NOT_WALKED = new Set(['node_modules', '.venv', 'venv', '__pycache__', 'target', '.tox', '.mypy_cache', '.pytest_cache']);
const WALK_BUDGET = 20_000;
/**
 * The files of a git folder Git takes configuration or hooks from (besides its modules/ and
 * worktrees/ folders, which hold more git folders): bound read-only when they exist, removed
 * after a contained command that created them (GIT_CHECK_SCRIPT).
 */
const GIT_CONFIG_NAMES = ['commondir', 'config.worktree', 'config', 'hooks'] as const;
/** Git folders checked after a command at most: each is a few words on the command line. */
const MAX_GIT_DIRS = 256;
/** Folders from the command's up to the project's top whose agent settings are checked after it, at most. */
const MAX_SETTINGS_DIRS = 64;

/**
 * The names (relative paths) of the agents' settings the locked rules keep from change in any
 * folder (`**\/.claude/settings.json`, `**\/.github/hooks/**` as `.github/hooks`): what a
 * contained command may not create where it is missing (BoxPlan.settings). Not Git's, which the
 * Git check deals with, nor a name with a wildcard (none of the agents' is).
 */
function settingsNames(modify: readonly Rule[]): string[] {
  const names = new Set<string>();
  for (const r of modify) {
    for (const g of r.block_paths) {
      if (!g.startsWith('**/')) continue;
      const n = asDirPattern(g.slice(3));
      if (n === '' || GLOB_CHAR.test(n) || n.includes('\\') || n.split('/')[0] === '.git') continue;
      names.add(n);
    }
  }
  return [...names];
}


const GLOB_CHAR = /(?<!\\)[*?[{]/;
const unescape = (s: string) => s.replace(/\\(.)/g, '$1');

/**
 * Rules that decide on a file read / on changes, enabled and denying. Not the judge's rule over a
 * `.git` put in place: bound read-only, every `.git` folder would be, and Git could not commit in
 * the box; what a contained command makes at a `.git` path is the Git check's (GIT_CHECK_SCRIPT).
 */
function protectedPatterns(rules: readonly Rule[]): { read: Rule[]; modify: Rule[] } {
  const active = rules.filter((r) => r.enabled && r.decision === 'deny' && r.block_paths.length > 0 && r.name !== GIT_POINTER_RULE);
  return {
    read: active.filter((r) => r.actions.includes('read')),
    modify: active.filter((r) => !r.actions.includes('read') && r.actions.some((a) => a === 'write' || a === 'delete' || a === 'move' || a === 'copy')),
  };
}

/** Compiled once per pattern: compiling was most of existingPlaces' time, and every sandboxed run asks. */
const nameMatchers = new Map<string, (name: string) => boolean>();
function nameMatcher(pattern: string): (name: string) => boolean {
  let m = nameMatchers.get(pattern);
  if (!m) nameMatchers.set(pattern, (m = picomatch(pattern, { dot: true })));
  return m;
}

/** An absolute (or ~) glob's path segments (a trailing /** dropped) and the index of the first with a wildcard (-1: none). */
function placeSegments(glob: string, home: string): { segs: string[]; k: number } | null {
  const g = glob === '~' ? home : glob.startsWith('~/') ? join(home, glob.slice(2)) : glob;
  if (!g.startsWith('/')) return null;
  const segs = g.split('/').filter((s) => s !== '');
  if (segs[segs.length - 1] === '**') segs.pop();
  return { segs, k: segs.findIndex((s) => GLOB_CHAR.test(s)) };
}

/**
 * The path every place existingPlaces(glob, home) names is or lies in: the glob up to its first
 * wildcard (null for a relative glob, which names none). Lets a caller that wants only the places
 * inside some folders skip the globs that cannot name one, without a look at the disk.
 */
export function placesBase(glob: string, home: string): string | null {
  const parsed = placeSegments(glob, home);
  if (parsed === null) return null;
  const { segs, k } = parsed;
  return '/' + segs.slice(0, k < 0 ? segs.length : k).map(unescape).join('/');
}

/**
 * The places an absolute (or ~) glob names, as they exist now: a literal path (a trailing /**
 * means the folder itself), or the entries of one folder matching one glob segment followed by
 * nothing or /**. Anything more complex (/proc/*\/environ) is left to the box's own /proc and the
 * read-only root.
 */
export function existingPlaces(glob: string, home: string): string[] {
  const parsed = placeSegments(glob, home);
  if (parsed === null) return [];
  const { segs, k } = parsed;
  if (k < 0) {
    const p = '/' + segs.map(unescape).join('/');
    return p !== '/' && existsSync(p) ? [p] : [];
  }
  if (k !== segs.length - 1) return [];
  const parent = '/' + segs.slice(0, k).map(unescape).join('/');
  const match = nameMatcher(segs[k]!);
  try {
    return readdirSync(parent).filter((n) => match(n)).map((n) => join(parent, n));
  } catch {
    return [];
  }
}

/**
 * Where other programs of the same user listen for commands: a server behind one runs what it is
 * told outside the box (`tmux run-shell`, `screen -X`, `systemd-run --user` over the session bus,
 * an X server's keystrokes, an ssh agent's signatures for `ssh localhost`, the docker socket).
 * Connecting to a socket needs no write access to its folder, so a read-only view is not enough:
 * these are masked. tmux and screen keep theirs under the temp folders (writable in the box), the
 * session bus, systemd --user, Wayland and the agents in $XDG_RUNTIME_DIR (/run/user/UID).
 * Sockets in the abstract namespace have no path to mask: Landlock scopes them (box-scope.ts).
 */
export function controlSockets(tmpDirs: readonly string[], uid: number | undefined): string[] {
  const out: string[] = ['/run/screen', '/var/run/screen', '/run/docker.sock', '/var/run/docker.sock', '/tmp/.X11-unix', '/tmp/.ICE-unix'];
  if (uid !== undefined) out.push(`/run/user/${uid}`);
  for (const t of new Set([...tmpDirs, '/tmp'])) {
    let names: string[];
    try {
      names = readdirSync(t);
    } catch {
      continue;
    }
    // tmux-UID, ssh-XXXXXX (ssh-agent), dbus-XXXXXX (a session bus on a path), screen's S-USER.
    for (const n of names) if (/^(tmux-\d+|ssh-[A-Za-z0-9]+|dbus-[A-Za-z0-9]+|screens?)$/.test(n)) out.push(join(t, n));
  }
  return out.filter((p) => existsSync(p));
}

/** The project a call works in: the repository its folder is in (below the home), else the folder. */
export function projectOf(cwd: string, home: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (dir === home || dir === '/' || under(home, dir)) break;
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return resolve(cwd);
}

/** The box for a command started in `cwd`. */
export function boxPlan(ctx: BoxContext, cwd: string): BoxPlan {
  const home = resolve(ctx.home);
  const notes: string[] = [];
  const { read, modify } = protectedPatterns(ctx.rules);
  const maskedDirs = new Set<string>();
  const maskedFiles = new Set<string>();
  const readOnly = new Set<string>();
  const pinned = new Set<string>();
  const gitDirs = new Set<string>();
  const mask = (p: string) => {
    try {
      (statSync(p).isDirectory() ? maskedDirs : maskedFiles).add(p);
    } catch {
      // Gone since it was listed: nothing to hide.
    }
  };

  const tmp = (ctx.tmpDirs ?? ['/tmp', '/var/tmp', process.env.TMPDIR ?? '']).filter((d) => d && isAbsolute(d) && existsSync(d)).map((d) => resolve(d));
  const writable = new Set<string>(tmp.filter((d, i, all) => !all.some((o, j) => j !== i && o !== d && under(d, o))));
  const project = projectOf(cwd, home);
  // The home itself, or a folder holding it, is never writable whole: that would open every
  // dotfile in it (start-up files, autostart, ~/.local/bin).
  if (project === '/' || under(home, project)) notes.push(`the command's folder ${project} is the home or holds it, so nothing but the temp folders is writable`);
  else writable.add(project);

  // Absolute and ~ patterns: masked wherever they are; read-only only matters inside a writable folder.
  for (const r of read) for (const g of r.block_paths) if (!g.startsWith('**/') && !g.startsWith('/proc')) for (const p of existingPlaces(g, home)) mask(p);
  for (const p of controlSockets(tmp, ctx.uid ?? process.getuid?.())) mask(p);
  for (const r of modify) {
    for (const g of r.block_paths) if (!g.startsWith('**/')) for (const p of existingPlaces(g, home)) if ([...writable].some((w) => under(p, w))) readOnly.add(p);
  }

  // Name patterns: looked for in the writable folder the command starts in (the project).
  if (writable.has(project)) {
    const found = namedPlaces(project, ctx.rules, ctx.walkBudget);
    for (const f of found.secret) mask(f);
    // A dangling link among them cannot be bound: bubblewrap then refuses the box, naming it, and
    // the command does not run. Not bound, the command could make what it names (in the project,
    // in /tmp) and an agent would read that through it.
    for (const k of found.kept) readOnly.add(k);
    // Their configuration files read-only here too, not only when the walk visited them: a walk
    // that ran out of budget inside a git folder left them writable, and the check after the
    // command sees only whether they exist, not what they say.
    for (const d of found.git.dirs) {
      pinned.add(d);
      gitDirs.add(d);
      for (const n of GIT_CONFIG_NAMES) if (existsSync(join(d, n))) readOnly.add(join(d, n));
    }
    for (const l of found.git.lists) pinned.add(l);
    // A linked worktree's `.git` file names its git folder: kept as it is (read-only, and a
    // mount point cannot be renamed or removed), and that folder, when the box can write it,
    // pinned, its configuration files read-only (the walk did not see them) and checked.
    for (const f of found.git.files) {
      readOnly.add(f);
      const g = gitFileTarget(f);
      if (!g || gitDirs.has(g) || ![...writable].some((w) => under(g, w)) || !existsSync(g)) continue;
      pinned.add(g);
      gitDirs.add(g);
      for (const n of GIT_CONFIG_NAMES) if (existsSync(join(g, n))) readOnly.add(join(g, n));
    }
    // The folder each repository's Git config runs hooks from instead of .git/hooks (core.hooksPath,
    // husky's .husky): read-only like .git/hooks, or an allowed command plants the operator's next commit.
    // A linked worktree's git folder (named by its `.git` file) has the file's folder as its top.
    const repos = [...found.git.dirs.map((d) => ({ gitDir: d, top: dirname(d) })), ...found.git.files.flatMap((f) => {
      const g = gitFileTarget(f);
      return g ? [{ gitDir: g, top: dirname(f) }] : [];
    })];
    for (const { gitDir, top } of repos.slice(0, MAX_GIT_DIRS)) {
      const places = gitHookPlaces(gitDir, top, home);
      for (const d of [...places.hooks, ...places.includes]) if (existsSync(d) && [...writable].some((w) => under(d, w))) readOnly.add(d);
    }
    if (gitDirs.size > MAX_GIT_DIRS) notes.push(`${gitDirs.size} Git folders in ${project}: only the first ${MAX_GIT_DIRS} are checked for configuration files a contained command created`);
    if (!found.complete) notes.push(`the project walk stopped after ${ctx.walkBudget ?? WALK_BUDGET} entries: name-protected files deeper in ${project} are not masked (the judge still checks every path a command names)`);
  }
  // The folders an agent may be started in later whose settings it reads: the command's, up to
  // the top (always the top; past MAX_SETTINGS_DIRS, the ones nearest the command).
  const settingsDirs: string[] = [];
  const names = writable.has(project) ? settingsNames(modify) : [];
  if (writable.has(project)) {
    const chain: string[] = [];
    for (let d = resolve(cwd); (d === project || under(d, project)) && chain.length <= 4096; d = dirname(d)) {
      chain.push(d);
      if (d === project || dirname(d) === d) break;
    }
    settingsDirs.push(...chain.filter((d) => d !== project).slice(0, MAX_SETTINGS_DIRS - 1), project);
    if (chain.length > MAX_SETTINGS_DIRS) notes.push(`the command's folder is ${chain.length - 1} folders below the project's top: agent settings are checked in the nearest ${MAX_SETTINGS_DIRS - 1} and the top only`);
  }
  // A mask or read-only place inside another mask adds nothing; a read-only place holding a
  // writable folder would cover it (the home, when a project or temp folder is inside it).
  for (const d of maskedDirs) {
    for (const p of [...maskedFiles, ...readOnly]) {
      if (!under(p, d)) continue;
      maskedFiles.delete(p);
      readOnly.delete(p);
    }
    for (const p of [...pinned, ...gitDirs]) {
      if (!under(p, d)) continue;
      pinned.delete(p);
      gitDirs.delete(p);
    }
  }
  for (const p of [...readOnly]) if ([...writable].some((w) => under(w, p))) readOnly.delete(p);
  return {
    cwd: resolve(cwd),
    writable: [...writable],
    readOnly: [...readOnly],
    pinned: [...pinned],
    gitDirs: [...gitDirs].slice(0, MAX_GIT_DIRS),
    ...(writable.has(project) ? { top: project } : {}),
    settings: { dirs: settingsDirs, names },
    maskedDirs: [...maskedDirs],
    maskedFiles: [...maskedFiles],
    notes,
  };
}

/**
 * What a folder holds that the locked rules protect by name (`**\/…` patterns), found by a
 * bounded walk: `secret` files no command it runs may read (.env files, private keys; the rules'
 * read-protected names and the box's own), `kept` places it may not change (.git/hooks,
 * .git/config, Claude Code's project settings, plugin folders). `complete` is false when the walk
 * stopped at its budget. Used by the box and by the `shell` tool's sandbox (sandbox-plan.ts).
 * `opts.now` is the clock that tells a settled folder (see FolderShare); `opts.fresh` walks without
 * the shares kept (tests compare the two).
 */
export function namedPlaces(root: string, rules: readonly Rule[], budget = WALK_BUDGET, opts: { now?: () => number; fresh?: boolean } = {}): { secret: string[]; kept: string[]; git: GitPlaces; complete: boolean } {
  const { read, modify } = protectedPatterns(rules);
  const named = read.flatMap((r) => r.block_paths.filter((g) => g.startsWith('**/')));
  const namedModify = modify.flatMap((r) => r.block_paths.filter((g) => g.startsWith('**/')));
  const except = read.flatMap((r) => r.block_except);
  const found = { secret: [] as string[], kept: [] as string[], git: { dirs: [], lists: [], files: [] } as GitPlaces, complete: true };
  const matchers = namedMatchers(named, namedModify, except);
  found.complete = walkProject(root, budget, opts.fresh ? { ...matchers, shares: new Map() } : matchers, found, opts.now ?? Date.now);
  return { secret: found.secret, kept: found.kept, git: found.git, complete: found.complete };
}

/** What the project walk found of Git's own folders (see walkProject). */
export interface GitPlaces {
  /** Git folders: a `.git` folder, and the submodule and worktree folders under its modules/ and worktrees/. */
  dirs: string[];
  /** The modules/ and worktrees/ folders of those. */
  lists: string[];
  /** `.git` files (a linked worktree's or a submodule's pointer to its git folder). */
  files: string[];
}

type Matcher = (rel: string) => boolean;
/** A folder of the walk: tree, a folder of the work tree; gitdir, a git folder; gitlist, its modules/ or worktrees/. */
interface Folder {
  dir: string;
  rel: string;
  kind: 'tree' | 'gitdir' | 'gitlist';
}

/**
 * One folder's share of a walk: what its entries add (in their order) and the folders to walk
 * from it. Every contained call walks its project, on the host's thread, and agents call in the
 * same project all day: a folder whose entries did not change gives the same share, found again
 * for one stat instead of a listing and a match of every entry against the patterns.
 *
 * Why a stat proves it: making, removing or renaming an entry (a file swapped for a folder or a
 * link included) changes its folder's mtime and ctime, and the same path reaching another folder
 * has another device or inode. Only a folder whose times were settled (older than SETTLED_MS) when
 * it was stated is kept: a file system stamps times with a coarse clock, and a change in the same
 * tick as the listing could leave them equal (symlink-cache.ts, where this rule comes from, says
 * more). What a file holds is never part of a share (names and kinds only).
 */
interface FolderShare {
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Entries listed (the walk's budget counts them). */
  entries: number;
  secret: string[];
  kept: string[];
  gitFiles: string[];
  gitDirs: string[];
  gitLists: string[];
  next: Folder[];
}

/** Matchers for a set of patterns, and the folder shares walked with them (by folder, kind and path from the root). */
interface Named {
  isSecret: Matcher;
  isKept: Matcher;
  shares: Map<string, FolderShare>;
}

/** Compiled by their patterns: compiling is most of namedPlaces' own time, and every shell call runs it. */
const matcherCache = new Map<string, Named>();
/** Folder shares kept per set of patterns at most (a project of 2,000 entries has ~200 folders); past it the older half goes. */
const MAX_SHARES = 20_000;

function namedMatchers(named: string[], namedModify: string[], except: string[]): Named {
  const key = JSON.stringify([named, namedModify, except]);
  let m = matcherCache.get(key);
  if (!m) {
    const secret = anyOf([...named, ...BOX_SECRET_NAMES].map(asDirPattern));
    const template = anyOf([...except, ...BOX_SECRET_EXCEPT]);
    const kept = anyOf(namedModify.map(asDirPattern));
    m = { isSecret: (rel) => secret(rel) && !template(rel), isKept: kept, shares: new Map() };
    // Rules change rarely; a bound keeps edits over a long run from growing it.
    if (matcherCache.size >= 16) matcherCache.clear();
    matcherCache.set(key, m);
  }
  return m;
}

/**
 * picomatch(globs, { dot: true }) as one regular expression: what picomatch's matcher for a list
 * does (a glob equal to the input, else its expression), but one match per path instead of one
 * per glob. The walk asks it of every entry of the project on every contained call, on the
 * host's thread: with ~25 globs the list's matcher took half of a 10 ms walk of a 1,700-entry
 * project.
 */
export function anyOf(globs: string[]): Matcher {
  if (globs.length === 0) return () => false;
  const res = globs.map((g) => picomatch.makeRe(g, { dot: true }));
  const flags = res[0]!.flags;
  // Never the case (the options are the same for all), but then each keeps its own flags.
  if (res.some((r) => r.flags !== flags)) return picomatch(globs, { dot: true });
  const one = new RegExp(res.map((r) => `(?:${r.source})`).join('|'), flags);
  const literal = new Set(globs);
  return (rel) => rel !== '' && (literal.has(rel) || one.test(rel));
}

/** `**\/.git/hooks/**` names the folder: matched as `**\/.git/hooks` against the folder's own path. */
const asDirPattern = (g: string) => (g.endsWith('/**') ? g.slice(0, -3) : g);

/**
 * Visits every entry under `root` (not following links) breadth first, Git's folders before the
 * rest of the work tree, into `found`: name-protected files (secret: files only, a folder named
 * .env is a Python virtualenv as often as not) and places (kept), neither descended into, and
 * Git's folders. A `.git` folder is looked at one level deep, and so are the git folders of
 * submodules and linked worktrees under its modules/ and worktrees/ (their config and hooks are
 * protected by name like the repository's; their objects are not files anyone names). Returns
 * false when the budget ran out first. A folder unchanged since a walk found it settled adds the
 * share it added then (FolderShare).
 */
function walkProject(root: string, budget: number, named: Named, found: { secret: string[]; kept: string[]; git: GitPlaces }, now: () => number): boolean {
  // Git's folders are walked before any more of the work tree: in a project larger than the
  // budget, a submodule's git folder (.git/modules/NAME) would otherwise be reached after it ran
  // out, and its config left writable and unchecked by the box.
  // Each folder with its path relative to the root ('/'-separated, '' for the root): built by
  // appending names, not by path.relative per entry (a third of the walk's own time).
  const tree: Folder[] = [{ dir: resolve(root), rel: '', kind: 'tree' }];
  const gitQueue: Folder[] = [];
  let seen = 0;
  for (let t = 0, g = 0; ; ) {
    const item = g < gitQueue.length ? gitQueue[g++] : tree[t++];
    if (!item) break;
    const share = shareOf(item, named, now, budget - seen, found);
    if (share === 'budget') return false;
    if (!share) continue;
    seen += share.entries;
    // One by one: a spread of a long list into push() can pass the engine's argument limit.
    for (const f of share.secret) found.secret.push(f);
    for (const f of share.kept) found.kept.push(f);
    for (const f of share.gitFiles) found.git.files.push(f);
    for (const f of share.gitDirs) found.git.dirs.push(f);
    for (const f of share.gitLists) found.git.lists.push(f);
    for (const n of share.next) (n.kind === 'tree' ? tree : gitQueue).push(n);
  }
  return true;
}

/**
 * One folder's share (FolderShare): the one kept, when a stat proves it current, else listed and
 * matched now (and kept when settled). Null when the folder cannot be listed. A folder of more
 * entries than the walk has `room` for adds those it has room for straight to `found`, and is
 * never kept: 'budget', the walk ends there (a folder of a million files is not matched whole).
 */
function shareOf(item: Folder, named: Named, now: () => number, room: number, found: { secret: string[]; kept: string[]; git: GitPlaces }): FolderShare | 'budget' | null {
  const key = `${item.kind}\0${item.dir}\0${item.rel}`;
  // Stated before it is listed: a change after the stat leaves other times for the next walk to see.
  let st: Stats | undefined;
  try {
    st = statSync(item.dir, { throwIfNoEntry: false });
  } catch {
    st = undefined;
  }
  const kept = named.shares.get(key);
  if (kept && kept.entries <= room && st && st.ino === kept.ino && st.dev === kept.dev && st.mtimeMs === kept.mtimeMs && st.ctimeMs === kept.ctimeMs) return kept;
  let entries: Dirent[];
  try {
    entries = readdirSync(item.dir, { withFileTypes: true });
  } catch {
    named.shares.delete(key);
    return null;
  }
  const over = entries.length > room;
  const share: FolderShare = { dev: st?.dev ?? -1, ino: st?.ino ?? -1, mtimeMs: st?.mtimeMs ?? NaN, ctimeMs: st?.ctimeMs ?? NaN, entries: entries.length, secret: [], kept: [], gitFiles: [], gitDirs: [], gitLists: [], next: [] };
  const out = over ? { secret: found.secret, kept: found.kept, gitFiles: found.git.files, gitDirs: found.git.dirs, gitLists: found.git.lists } : share;
  const base = item.dir.endsWith(sep) ? item.dir : item.dir + sep;
  const relBase = item.rel === '' ? '' : item.rel + '/';
  let n = 0;
  for (const e of entries) {
    if (++n > room) break;
    // A name from readdir is never '', '.' or '..' and holds no separator: joined as join() would.
    const full = base + e.name;
    const rel = relBase + e.name;
    const isDir = e.isDirectory();
    const isGitEntry = item.kind === 'tree' && e.name === '.git';
    if (isGitEntry && e.isFile()) out.gitFiles.push(full);
    if (!isDir && named.isSecret(rel)) {
      out.secret.push(full);
      continue;
    }
    if (named.isKept(rel)) {
      out.kept.push(full);
      continue;
    }
    if (!isDir) continue;
    if (item.kind === 'tree') {
      if (isGitEntry) {
        out.gitDirs.push(full);
        share.next.push({ dir: full, rel, kind: 'gitdir' });
      } else if (!NOT_WALKED.has(e.name)) share.next.push({ dir: full, rel, kind: 'tree' });
    } else if (item.kind === 'gitdir') {
      if (e.name === 'modules' || e.name === 'worktrees') {
        out.gitLists.push(full);
        share.next.push({ dir: full, rel, kind: 'gitlist' });
      }
    } else {
      out.gitDirs.push(full);
      share.next.push({ dir: full, rel, kind: 'gitdir' });
    }
  }
  if (over) return 'budget';
  const settledBefore = now() - SETTLED_MS;
  if (st && st.mtimeMs <= settledBefore && st.ctimeMs <= settledBefore) {
    if (named.shares.size >= MAX_SHARES) dropOldest(named.shares, named.shares.size >> 1);
    named.shares.set(key, share);
  } else named.shares.delete(key);
  return share;
}

// ---- bubblewrap ---------------------------------------------------------------------------------

/** Gatehouse's tokens, when a user exported them: gone from the contained command's environment. */
const TOKEN_VARS = ['GATEHOUSE_TOKEN', 'GATEHOUSE_AGENT_TOKEN'];
/** Where a program finds another one's control socket (masked by controlSockets): gone too, so none goes looking. */
const SOCKET_VARS = ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'TMUX', 'TMUX_PANE', 'STY', 'DOCKER_HOST'];

/**
 * What makes a shell run code as it starts, before the box's check of its mounts (verify-mounts.ts)
 * has run: where /bin/sh is bash, `SHELLOPTS=xtrace` with `PS4='$(cmd)'` from the agent's
 * environment ran cmd on the check's first line, in a box about to be refused.
 */
const SHELL_START_VARS = ['SHELLOPTS', 'BASHOPTS', 'PS4', 'BASH_ENV', 'ENV'];

/** The bwrap arguments (before `--` and the command) for a plan. */
export function bwrapBoxArgs(plan: BoxPlan, asRoot = process.getuid?.() === 0): string[] {
  const args = [
    '--die-with-parent',
    // No controlling terminal: a contained command cannot push keystrokes into the agent's (TIOCSTI).
    '--new-session',
    // As root the box would keep every capability (and could remount its way out): dropped. Not
    // root: a user namespace of its own.
    ...(asRoot ? ['--cap-drop', 'ALL'] : ['--unshare-user']),
    // Its own /proc: the host's and the agent's environments and command lines are not readable.
    '--unshare-pid',
    '--ro-bind', '/', '/',
    '--dev-bind', '/dev', '/dev',
    '--proc', '/proc',
  ];
  for (const w of plan.writable) args.push('--bind', w, w);
  // After the writable folders (inside them), before the read-only places (inside these). -try:
  // one gone since the plan (`git worktree prune`) has nothing left to rename, and must not stop
  // the command; a new one there is the check's (GIT_CHECK_SCRIPT).
  for (const p of plan.pinned) args.push('--bind-try', p, p);
  for (const p of plan.readOnly) args.push('--ro-bind', p, p);
  // Last: no bind above can uncover them.
  for (const d of plan.maskedDirs) args.push('--tmpfs', d, '--remount-ro', d);
  for (const f of plan.maskedFiles) args.push('--ro-bind', '/dev/null', f);
  for (const v of [...TOKEN_VARS, ...SOCKET_VARS, ...SHELL_START_VARS]) args.push('--unsetenv', v);
  args.push('--chdir', plan.cwd);
  return args;
}

/** The box's command: the check of its mounts (verify-mounts.ts), then `shell -c command`. */
function verifiedCommand(plan: BoxPlan, shell: string, command: string): string[] {
  // By their real paths too: bwrap mounts a folder reached through a link at its real place.
  const writable = [...plan.writable, ...plan.pinned];
  return verifiedArgv([...writable, ...writable.map(realOr)], [shell, '-c', command], { binds: plannedBinds(bwrapBoxArgs(plan)) });
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** One word of shell text, quoted so the shell gives it back unchanged. */
export function shellQuote(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** The program that builds the box; for bubblewrap, the Landlock scope it runs under where there is one (box-scope.ts). */
export type BoxProgram = { kind: 'bwrap'; path: string; scope?: string } | { kind: 'seatbelt'; path: string };

/**
 * The command line that runs `command` in the box: what the agent's own shell runs instead of
 * the command (Claude Code evaluates it in its shell, so this is shell text). When the box can
 * write a git folder, it is `/bin/sh` running GIT_CHECK_SCRIPT — whatever the agent's shell is
 * (zsh fails on a glob that matches nothing) — with the plan's git folders and then the box's
 * own command line as its arguments.
 * The command itself runs under `shell -c`, unchanged; its output and exit status are the
 * command's, unless the check after it removed a file it created (then at least 1).
 */
export function boxedCommandLine(box: BoxProgram, plan: BoxPlan, command: string, shell = defaultShell(), checkFile?: string): string {
  const boxed = box.kind === 'bwrap' ? [...(box.scope ? [box.scope] : []), box.path, ...bwrapBoxArgs(plan), '--', ...verifiedCommand(plan, shell, command)] : [box.path, '-p', seatbeltProfile(plan), shell, '-c', command];
  // No git folder the box can write and no project it can write (only temp folders): nothing to
  // check, and the box alone spares the agent's shell a process.
  if (!plan.gitDirs.length && !plan.top) return boxed.map(shellQuote).join(' ');
  // The check from its installed file (installBoxCheck) when there is one: a short line, and one
  // an agent's own safety checks read as a script file run by sh. Claude Code, for one, asks the
  // user about any `sh -c` script over 2,000 characters that runs rm, which this one does.
  const check = checkFile ? ['/bin/sh', checkFile] : ['/bin/sh', '-c', GIT_CHECK_SCRIPT, 'gatehouse-box'];
  const list = (xs: readonly string[]) => xs.map((x) => `${x}//`).join('');
  return [...check, plan.top ?? '', String(plan.gitDirs.length), ...plan.gitDirs, list(plan.settings.dirs), list(plan.settings.names), ...boxed].map(shellQuote).join(' ');
}

/**
 * Writes GIT_CHECK_SCRIPT to `dir` (Gatehouse's data folder: hidden in the box, and out of reach
 * of the agent's own commands by the locked rules), under a name that is its content's hash, so
 * a line handed out before an upgrade still names the script it was made with. Checked on every
 * call (a small read): a file changed since it was written is written again.
 */
export function installBoxCheck(dir: string): string {
  const file = join(dir, `box-check-${createHash('sha256').update(GIT_CHECK_SCRIPT).digest('hex').slice(0, 16)}.sh`);
  try {
    if (readFileSync(file, 'utf8') === GIT_CHECK_SCRIPT) return file;
  } catch {
    // Not there yet.
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, GIT_CHECK_SCRIPT, { mode: 0o644 });
  renameSync(tmp, file);
  return file;
}

/**
 * Run outside the box, around it: `sh FILE TOP N GITDIR... SDIRS SNAMES BOX-COMMAND...`
 * (installBoxCheck; or `sh -c SCRIPT NAME TOP ...`), TOP the project folder or empty, SDIRS and
 * SNAMES the plan's settings folders and names, each one followed by `//`. Git reads
 * configuration and hooks from files that an ordinary repository does not have — `commondir`
 * (the folder config and hooks come from), `config.worktree`, the git folders of submodules and
 * linked worktrees (modules/NAME, worktrees/NAME) — and bubblewrap can only make a file that
 * exists read-only (binding over a missing one would create it in the user's repository). So
 * before the box starts, this notes which of them exist in each git folder; after the box is
 * gone (its process namespace with it: nothing inside can write any more), it removes those that
 * were not there before — and a folder that was replaced by something else — and says so on one
 * line of stderr. A `config` or `hooks` that was missing is treated the same way (bound when present).
 *
 * The same goes for a repository the command adds inside the project (`git init sub`, a
 * core.fsmonitor in its config, `git add sub`): Git outside runs `git status` in every submodule
 * of the index, and so its fsmonitor. So the gitlinks of each git folder's index are listed
 * before and after (links), and one at a path that had none is taken out of the index again
 * (`update-index --index-info` with mode 0; the files stay) unless that path is a plain folder
 * with no .git (a pulled submodule not checked out: nothing for Git to go into, and a .git put
 * there later is caught as below); a gitlink bumped to another commit
 * stays, as does whatever else the command staged. A gitlink that stays can still be given a
 * repository of the command's own: the empty folder of a submodule not checked out, or the folder
 * of one checked out renamed away (its pinned .git goes with it) and a new one made at its path.
 * So the identity (inode; for a file also a cksum of what it says, since one the box can write
 * may be rewritten in place) of each gitlink's `PATH/.git` is noted before (the git folder's work
 * tree known then; one `ls` for all its gitlinks), and one that is there after and is not the
 * same is removed (moved), like a new modules/ entry; a path with a link on the way is not looked
 * at, nor removed through: Git does not go into it either.
 * And a repository made at the top of a project that had none (TOP; git init, a clone) is kept
 * when its config holds only what those write and its hooks only Git's samples (benign), and
 * otherwise has its config and hooks set aside as *.gatehouse-held with a plain config in their
 * place (hold).
 *
 * The agents' settings are looked at the same way (settings): a settings file or folder of an
 * agent (BoxPlan.settings: `.claude/settings.json`, `.github/hooks`, ...) that was not in one of
 * the folders before the box is removed after it, and a link put on the way to one. One that was
 * there is bound read-only, but a missing one cannot be, and a test suite or build script the
 * command runs could otherwise leave the agent's next session hooks that run unsupervised. One
 * that was there is known by what it is as well (SE, ST, settings_text, replaced_all): a folder on the
 * way can be renamed away, the read-only mount with it, and one made again with new settings in
 * its place; such a one is set aside into the data folder, never deleted (it may be the user's).
 *
 * Written for a hostile command inside: the notes are kept in this shell's own variables, out of
 * the box's reach; a path is tested with -L as well as -e and removed with `rm -rf --`, which
 * removes a link and never what it points to; only real folders (not links) are listed; names
 * are never split on whitespace or newlines (the list's separator is `//`, which no path here
 * holds; Git quotes a path with a newline in its listings). Its own programs are found on a fixed
 * PATH (SAFE_PATH), not the agent's, which may name a folder in the project the command could
 * put a `git` or an `rm` in; Git runs with core.fsmonitor off. A signal that ends this shell runs
 * the check before it exits, and the check itself ignores HUP, INT and TERM: the command can
 * make it slow (thousands of files to remove), and one that stopped it half-way would leave what
 * it had not undone yet; SIGKILL cannot be ignored.
 */
const GIT_CHECK_SCRIPT = `if [ "$1" = --recover ]; then RO=1 top= n=0; else RO= top=$1; shift; n=$1; shift; fi
G= SD= SN= SE= ST=
while [ "$n" -gt 0 ]; do G="$G$1//"; shift; n=$((n - 1)); done
if [ -z "$RO" ]; then SD=$1 SN=$2; shift 2; fi
NL='
'
TAB=$(printf '\\t')
SAFE_PATH=/usr/bin:/bin:/usr/local/bin:/opt/homebrew/bin
# The agent's PATH is the command's only: a folder on it may be in the project, where a command
# run before could have put an ls or a sed for this check to run outside the box.
P0=$PATH PATH=$SAFE_PATH
has_git() { command -v git >/dev/null 2>&1; }
there() { [ -e "$1" ] || [ -L "$1" ]; }
realdir() { [ -d "$1" ] && [ ! -L "$1" ]; }
B=// D=// R= C=0
note() {
  if [ "$phase" = before ]; then
    there "$1" || return 0
    B="$B$1//"
    if realdir "$1"; then D="$D$1//"; fi
    return 0
  fi
  there "$1" || return 0
  case $B in
  *"//$1//"*)
    case $D in *"//$1//"*) realdir "$1" && return 0 ;; *) return 0 ;; esac ;;
  esac
  remove "$1"
  return 1
}
remove() {
  discard "$1"
  if there "$1"; then case $SK in s) SF=1 ;; x) XF=1 ;; *) F=1 ;; esac; fi
  removed "$1"
}
# $2 in the folder $1, by its path there (see idents).
remove_in() {
  (discard "./$2" "$1"; cd -- "$1" 2>/dev/null || exit 1; ! there "./$2") || F=1
  removed "$1/$2"
}
# Removed; when finishing an earlier command's check (HOLD, see recover), moved into HOLD instead:
# the repository may have changed since in ways the user made, so nothing is deleted then.
# Removed after all when it cannot be moved: Git outside must not find it.
# Made from inside the folder that holds it ($1, or $1 under the folder $2), entered from the
# first root it is under (the project, else a git folder the check was given: not links, the box
# cannot replace them) with cd -P, and only when no link was on the way: another command still in
# its box may put one there after the check looked (a work-tree folder swapped for a link to a
# repository of the user's elsewhere, or to the project itself, whose .git the removal would then
# be), and removing or moving by the path would follow it. Once in the folder, nothing the box
# does can move it out of the box's writable places.
discard() {
  (
    d=$2 rel=\${1%/*}
    if [ -z "$d" ]; then d=$rel rel=; fi
    rel=\${rel#./}
    [ "$rel" != . ] || rel=
    rq=$top//\${G0:-$G}
    while :; do
      [ -n "$rq" ] || exit 1
      r=\${rq%%//*} rq=\${rq#*//}
      [ -n "$r" ] || continue
      case $d in "$r" | "$r"/*) break ;; esac
    done
    cd -P -- "$r" 2>/dev/null || exit 1
    rest=\${d#"$r"} rest=\${rest#/}
    if [ -n "$rel" ]; then rest=\${rest:+$rest/}$rel; fi
    want=$PWD\${rest:+/$rest}
    if [ -n "$rest" ]; then cd -P -- "./$rest" 2>/dev/null || exit 1; fi
    [ "$PWD" = "$want" ] || exit 1
    b=\${1##*/}
    for try in 1 2; do
      if [ -n "$HOLD" ]; then
        mkdir -p -- "$HOLD" 2>/dev/null
        mv -f -- "./$b" "$HOLD/$((C + SC + XC + 1))-$b" 2>/dev/null && exit 0
      fi
      # When holding, removed only once it could not be moved either way.
      if [ -z "$HOLD" ] || [ "$try" = 2 ]; then
        rm -rf -- "./$b" 2>/dev/null
        there "./$b" || exit 0
      fi
      # A folder the command made read-only (this one, or one in what is removed) keeps rm out:
      # made writable for its owner, and tried once more.
      [ "$try" = 1 ] || exit 1
      chmod u+w . 2>/dev/null
      if realdir "./$b"; then chmod -R u+rwx -- "./$b" 2>/dev/null; fi
    done
  )
}
# Counted by kind (SK): Git's files (empty), new agent settings (s), ones not what they were (x).
removed() {
  case $SK in
  s) SC=$((SC + 1)) rm_n=$SC ;;
  x) XC=$((XC + 1)) rm_n=$XC ;;
  *) C=$((C + 1)) rm_n=$C ;;
  esac
  [ "$rm_n" -le 5 ] || return 0
  rm_p=" $(printf '%s' "$1" | LC_ALL=C tr -c '[:print:]' '[?*]')"
  case $SK in s) SR="$SR$rm_p" ;; x) XR="$XR$rm_p" ;; *) R="$R$rm_p" ;; esac
}
# The agents' settings (each name of SN in each folder of SD), noted before the box and removed
# after it when they were not there before, as note does. A folder on the way to one that is a
# link now and was not one before (a link to a folder the command fills, in the temp folders, say)
# is removed itself: an agent reads its settings through it. One that was a link before, and one
# that is no folder, is not gone into.
settings() {
  phase=$1 SK=s sg_q=$SD
  while [ -n "$sg_q" ]; do
    sg_d=\${sg_q%%//*} sg_q=\${sg_q#*//}
    [ -n "$sg_d" ] || continue
    sg_n=$SN
    while [ -n "$sg_n" ]; do
      sg_x=\${sg_n%%//*} sg_n=\${sg_n#*//}
      [ -n "$sg_x" ] || continue
      sg_p=$sg_d
      while :; do
        case $sg_x in
        */*) sg_p=$sg_p/\${sg_x%%/*} sg_x=\${sg_x#*/}; on_way "$sg_p" || break ;;
        *)
          sg_f=$sg_p/$sg_x
          note "$sg_f"
          if [ "$phase" = before ] && there "$sg_f"; then SE="$SE$sg_f//"; fi
          break ;;
        esac
      done
    done
  done
  if [ "$phase" = before ]; then settings_text; ST=$st_out; else replaced_all; fi
  SK=
}
# What the settings paths that were there (SE) are, as one text: the listing of each and of
# everything under it (inode, mode, size, where a link leads) and the hash of each file's content.
# Not the inode alone: another box can put another file at a path just before this one's
# read-only bind is made, and write to the one that was there (same inode) through its own; and an
# inode number is only unique on its device. One find of each kind for all of them.
settings_text() {
  set --
  st_q=$SE
  while [ -n "$st_q" ]; do
    st_p=\${st_q%%//*} st_q=\${st_q#*//}
    if [ -n "$st_p" ]; then set -- "$@" "$st_p"; fi
  done
  st_out=
  [ $# -gt 0 ] || return 0
  # -H: a settings path that is a link is read through it (what the agent reads). Without the
  # link count and the times, which change without the content changing (a hard link made, six
  # months passing while a killed command's note waits); the hashes tell content apart.
  st_out=$( { find -H "$@" -exec ls -ldni -- {} + | sed 's/^ *\\([^ ]*\\) *\\([^ ]*\\) *[^ ]* *\\([^ ]*\\) *\\([^ ]*\\) *\\([^ ]*\\) *[^ ]* *[^ ]* *[^ ]* /\\1 \\2 \\3 \\4 \\5 /'; find -H "$@" -type f -exec $HS {} + ; } 2>/dev/null; printf x) st_out=\${st_out%x}
}
# True when the line $1 of the text is about the path $2 (it, or something in it).
about() {
  case $1 in *" $2" | *" $2/"* | *" $2 -> "*) return 0 ;; esac
  return 1
}
# The lines of the text $1 about none of the settings paths (SE), in un_out.
unattributed() {
  un_out=
  while IFS= read -r un_l; do
    un_q=$SE un_m=
    while [ -n "$un_q" ]; do
      un_p=\${un_q%%//*} un_q=\${un_q#*//}
      [ -n "$un_p" ] || continue
      if about "$un_l" "$un_p"; then un_m=1; break; fi
    done
    [ -n "$un_m" ] || un_out="$un_out$un_l$NL"
  done <<LINES
$1
LINES
}
# The lines of the text $2 about the path $1 (it, or something in it), in lo_out.
lines_of() {
  lo_out=
  while IFS= read -r lo_l; do
    if about "$lo_l" "$1"; then lo_out="$lo_out$lo_l$NL"; fi
  done <<LINES
$2
LINES
}
# The settings paths that were there and are not what they were (their lines of the text differ;
# every one of them when the text differs in a line that names none): another file or folder
# in their place (a folder on the way renamed away, the read-only one with it, and made again), or
# the same one changed, or an edit of the user's meanwhile. Set aside, never deleted.
replaced_all() {
  [ -n "$SE" ] || return 0
  settings_text
  [ "$st_out" = "$ST" ] && return 0
  ra_new=$st_out
  # A difference no path's lines account for (a name sha256sum escapes): all of them.
  unattributed "$ST"; ra_was=$un_out
  unattributed "$ra_new"
  ra_all=; [ "$un_out" = "$ra_was" ] || ra_all=1
  ra_q=$SE
  while [ -n "$ra_q" ]; do
    ra_p=\${ra_q%%//*} ra_q=\${ra_q#*//}
    [ -n "$ra_p" ] || continue
    if [ -z "$ra_all" ]; then
      lines_of "$ra_p" "$ST"; ra_was=$lo_out
      lines_of "$ra_p" "$ra_new"
      [ "$lo_out" != "$ra_was" ] || continue
    fi
    # Gone (another check took it, or a folder on the way was renamed away and not made again):
    # nothing there for an agent to read; and one the notes no longer count as there was new.
    there "$ra_p" || continue
    case $B in *"//$ra_p//"*) replaced "$ra_p" ;; esac
  done
}
replaced() {
  rp_h=$HOLD
  if [ -z "$HOLD" ] && [ -n "$JD" ]; then HOLD=$JD/held/$ME-settings; fi
  XH=$HOLD SK=x
  remove "$1"
  HOLD=$rp_h SK=s
}
on_way() {
  if [ "$phase" = before ]; then note "$1"; return 0; fi
  if [ -L "$1" ]; then
    case $B in *"//$1//"*) case $D in *"//$1//"*) ;; *) return 1 ;; esac ;; esac
    remove "$1"
    return 1
  fi
  realdir "$1"
}
# True when $1 is one of the settings paths (or a folder on the way to one) of the folders $2 and names $3.
settings_path() {
  sp_q=$2
  while [ -n "$sp_q" ]; do
    sp_d=\${sp_q%%//*} sp_q=\${sp_q#*//}
    [ -n "$sp_d" ] || continue
    case $1 in "$sp_d"/*) ;; *) continue ;; esac
    sp_r=\${1#"$sp_d"/}
    case //$3 in *"//$sp_r//"* | *"//$sp_r/"*) return 0 ;; esac
  done
  return 1
}
scan() {
  phase=$1 Q=$G
  while [ -n "$Q" ]; do
    g=\${Q%%//*} Q=\${Q#*//}
    realdir "$g" || continue
    for f in ${GIT_CONFIG_NAMES.join(' ')} modules worktrees; do note "$g/$f"; done
    for s in modules worktrees; do
      realdir "$g/$s" || continue
      for p in "$g/$s"/* "$g/$s"/.[!.]* "$g/$s"/..?*; do
        note "$p"
        # One there before that the plan does not name (made since the plan, which is reused for
        # a moment, by a file tool: its HEAD is an ordinary file) is checked as a git folder too,
        # its config and hooks included: a git submodule update outside uses it as it is.
        if [ "$phase" = before ] && realdir "$p"; then
          case //$G in *"//$p//"*) ;; *) G="$G$p//" Q="$Q$p//" ;; esac
        fi
      done
    done
  done
}
git_here() {
  (
    unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_COMMON_DIR GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT
    d=$1; shift
    git --git-dir="$d" -c core.fsmonitor=false -c core.quotePath=true "$@"
  ) 2>/dev/null
}
gitlinks() {
  [ -f "$1/index" ] || return 0
  git_here "$1" ls-files -s | grep '^160000 '
}
# A path as Git quotes it: \\\\, \\" and \\ooo made what printf %b reads.
unq() {
  case $1 in
  \\"*\\") ;;
  *) printf '%s' "$1"; return ;;
  esac
  u=\${1#?} u=\${u%?}
  printf '%b' "$(printf '%s' "$u" | sed -e 's/\\\\\\\\/\\\\134/g' -e 's/\\\\"/"/g' -e 's/\\\\\\([0-7]\\)/\\\\0\\1/g')"
}
inside() {
  ip_d=$1 ip_r=$2
  while :; do
    realdir "$ip_d" || return 1
    case $ip_r in
    */*) ip_d="$ip_d/\${ip_r%%/*}" ip_r=\${ip_r#*/} ;;
    *) realdir "$ip_d/$ip_r"; return ;;
    esac
  done
}
worktree_of() {
  case $1 in
  */.git) printf '%s' "\${1%/.git}" ;;
  */worktrees/*) if [ -f "$1/gitdir" ]; then IFS= read -r wt_x < "$1/gitdir"; printf '%s' "\${wt_x%/.git}"; fi ;;
  *) git_here "$1" rev-parse --show-toplevel ;;
  esac
}
path_of() {
  case $1 in \\"*) p=$(unq "$1"; echo x) p=\${p%x} ;; *) p=$1 ;; esac
}
# Sets id_out to a line "PATH<tab>ID" for each gitlink in $2 (Git's quoting): ID the inode of
# PATH/.git under the work tree $1 (and, for a file, the cksum of what it says), - when there is
# none, ? when a link is on the way (Git does not go in), ! when ls could not tell. One ls for
# all (-q: one line each, -f: in this order). Looked at from inside the work tree, by the paths Git uses there: by its absolute path, a
# folder deep enough is longer than the system takes (ENAMETOOLONG), and a .git there would look
# like none while Git, in the work tree, goes into it. When the work tree cannot be entered, no
# gitlink gets an ID (so none is kept as new).
idents() {
  id_out=$(cd -- "$1" 2>/dev/null && idents_here "$2"; printf x) id_out=$NL\${id_out%x}
}
idents_here() {
  id_w=. id_l=$1 id_q= id_out=
  set --
  while IFS= read -r l; do
    [ -n "$l" ] || continue
    q=\${l#*"$TAB"}
    path_of "$q"
    if ! inside "$id_w" "$p"; then id_out="$id_out$q$TAB?$NL"
    elif ! there "$id_w/$p/.git"; then id_out="$id_out$q$TAB-$NL"
    else set -- "$@" "$id_w/$p/.git"; id_q="$id_q$q$NL"; fi
  done <<EOF
$id_l
EOF
  if [ $# -eq 0 ]; then printf '%s' "$id_out"; return 0; fi
  id_ls=$(ls -diqf -- "$@" 2>/dev/null) id_c=0
  while IFS= read -r l; do id_c=$((id_c + 1)); done <<EOF
$id_ls
EOF
  [ "$id_c" -eq $# ] || id_ls=
  # A .git file rewritten in place keeps its inode: what it says is part of its identity, the
  # cksum of each (F lines), one cksum for all unless a name holds a newline.
  id_tmp=
  set --
  while IFS= read -r l; do
    q=\${id_q%%"$NL"*} id_q=\${id_q#*"$NL"}
    l=\${l#"\${l%%[! ]*}"} l=\${l%% *}
    case $l in
    ''|*[!0-9]*) id_tmp="$id_tmp-$q$TAB!$NL" ;;
    *)
      path_of "$q"
      if [ -f "$id_w/$p/.git" ] && [ ! -L "$id_w/$p/.git" ]; then set -- "$@" "$id_w/$p/.git"; id_tmp="\${id_tmp}F$q$TAB$l$NL"
      else id_tmp="$id_tmp-$q$TAB$l$NL"; fi ;;
    esac
  done <<EOF
$id_ls
EOF
  while [ -n "$id_q" ]; do
    id_tmp="$id_tmp-\${id_q%%"$NL"*}$TAB!$NL" id_q=\${id_q#*"$NL"}
  done
  # Git reads no .git file over 1 MiB (the folder is no repository then), and one the command
  # made that large (sparse: no disk) would hold cksum, and the check, for hours: when there is
  # one, each is looked at alone, and one that large is known by its inode only.
  id_ck=
  if [ $# -gt 0 ]; then
    id_c=-1
    if [ -z "$(find "$@" -prune -size +2048 -print 2>/dev/null)" ]; then
      id_ck=$(cksum -- "$@" 2>/dev/null) id_c=0
      while IFS= read -r l; do id_c=$((id_c + 1)); done <<EOF
$id_ck
EOF
    fi
    if [ "$id_c" -ne $# ]; then
      id_ck=
      for f in "$@"; do
        if [ -n "$(find "$f" -prune -size +2048 -print 2>/dev/null)" ]; then id_ck="\${id_ck}large large$NL"
        else id_ck="$id_ck$(cksum < "$f" 2>/dev/null)$NL"; fi
      done
    fi
  fi
  while IFS= read -r l; do
    case $l in
    F*)
      k=\${id_ck%%"$NL"*} id_ck=\${id_ck#*"$NL"}
      r=\${k#* } l="\${l#F}:\${k%% *}.\${r%% *}" ;;
    -*) l=\${l#-} ;;
    *) continue ;;
    esac
    id_out="$id_out$l$NL"
  done <<EOF
$id_tmp
EOF
  printf '%s' "$id_out"
}
moved() {
  idents "$1" "$2"
  while IFS= read -r l; do
    [ -n "$l" ] || continue
    q=\${l%"$TAB"*} new=\${l##*"$TAB"}
    case $ids in *"$NL$q$TAB"*) ;; *) continue ;; esac
    old=\${ids#*"$NL$q$TAB"} old=\${old%%"$NL"*}
    [ "$new" = "$old" ] && continue
    case $new in -|'?'|'!') continue ;; esac
    [ "$old" = '!' ] && continue
    path_of "$q"
    remove_in "$1" "$p/.git"
  done <<EOF
$id_out
EOF
}
unlock() {
  there "$1/index.lock" || return 0
  rm -rf -- "$1/index.lock" 2>/dev/null && return 0
  if realdir "$1/index.lock"; then chmod -R u+rwx -- "$1/index.lock" 2>/dev/null; fi
  rm -rf -- "$1/index.lock" 2>/dev/null
}
# ni_out: the lines of $1 ("...<tab>PATH") whose PATH is none of those of the lines of $2 (the same form).
not_in() {
  ni_p=$NL ni_out=
  while IFS= read -r l; do [ -n "$l" ] && ni_p="$ni_p\${l#*"$TAB"}$NL"; done <<EOF
$2
EOF
  while IFS= read -r l; do
    [ -n "$l" ] || continue
    case $ni_p in *"$NL\${l#*"$TAB"}$NL"*) continue ;; esac
    ni_out="$ni_out$l$NL"
  done <<EOF
$1
EOF
}
unlink_new() {
  g=$1 was=$2 now=$3 uw=$4
  [ "$now" = "$was" ] && return 0
  not_in "$now" "$was"
  add=$ni_out
  [ -n "$add" ] || return 0
  # A new gitlink whose path is a plain folder with no .git (a merge or pull that brings a
  # submodule, not checked out) stays: Git outside goes into no repository there, and a .git put
  # there later is one the next check removes (moved). Anything else at the path goes.
  keep=
  if [ -n "$uw" ]; then
    idents "$uw" "$add"
    while IFS= read -r l; do
      case $l in *"$TAB-") keep="$keep-$TAB\${l%"$TAB"*}$NL" ;; esac
    done <<EOF
$id_out
EOF
  fi
  not_in "$add" "$keep"
  drop=
  while IFS= read -r l; do
    [ -n "$l" ] || continue
    drop="\${drop}0 \${l#160000 }$NL"
    LC=$((LC + 1))
    if [ "$LC" -le 5 ]; then LR="$LR \${l#*"$TAB"}"; fi
  done <<EOF
$ni_out
EOF
  [ -n "$drop" ] || return 0
  # Git outside reads the index whatever lock is next to it: no lock may keep this change from
  # being made, not even one there before the box (the command can take it away, stage and put
  # it back), nor a folder in its place, nor a git folder the command made read-only.
  # Git writes the index through a link, into what it names (another repository's index): an
  # index the command made a link is made a file of this git folder first.
  if [ -L "$g/index" ]; then
    rm -rf -- "$g/index.gatehouse"
    if cp -- "$g/index" "$g/index.gatehouse" 2>/dev/null; then mv -f -- "$g/index.gatehouse" "$g/index"; else rm -f -- "$g/index"; fi
  fi
  unlock "$g"
  if ! printf '%s' "$drop" | git_here "$g" update-index --index-info; then
    if realdir "$g"; then chmod u+w -- "$g" 2>/dev/null; fi
    unlock "$g"
    printf '%s' "$drop" | git_here "$g" update-index --index-info || LF=1
  fi
}
links() {
  has_git || return 0
  i=0 Q=$G
  while [ -n "$Q" ]; do
    g=\${Q%%//*} Q=\${Q#*//} i=$((i + 1))
    # A FIFO where Git opens a file would hold this check (and the agent) for good: never Git's own.
    for f in "$g/HEAD" "$g"/sharedindex.*; do if [ -p "$f" ]; then remove "$f"; fi; done
    if [ "$1" = before ]; then
      eval "K_$i=\\$(gitlinks \\"\\$g\\")"
      eval "was=\\$K_$i"
      if [ -n "$was" ]; then
        w=$(worktree_of "$g")
        if [ -n "$w" ]; then idents "$w" "$was"; eval "W_$i=\\$w I_$i=\\$id_out"; fi
      fi
      continue
    fi
    eval "was=\\$K_$i w=\\$W_$i ids=\\$I_$i"
    now=$(gitlinks "$g")
    if [ -n "$w" ]; then moved "$w" "$now"; fi
    # The work tree as known before the box; a .git folder's own is its parent.
    case $g in */.git) [ -n "$w" ] || w=\${g%/.git} ;; esac
    unlink_new "$g" "$was" "$now" "$w"
  done
}
benign() {
  for f in commondir config.worktree modules worktrees; do there "$1/$f" && return 1; done
  { [ -f "$1/config" ] && [ ! -L "$1/config" ]; } || return 1
  keys=$(git config --file "$1/config" --name-only --list 2>/dev/null) || return 1
  while IFS= read -r k; do
    case $k in
    core.repositoryformatversion | core.filemode | core.bare | core.logallrefupdates | core.ignorecase | core.precomposeunicode | core.symlinks | extensions.objectformat | remote.*.url | remote.*.fetch | branch.*.remote | branch.*.merge | user.name | user.email | '') ;;
    *) return 1 ;;
    esac
  done <<EOF
$keys
EOF
  there "$1/hooks" || return 0
  realdir "$1/hooks" || return 1
  for h in "$1/hooks"/* "$1/hooks"/.[!.]* "$1/hooks"/..?*; do
    there "$h" || continue
    case $h in *.sample) [ -f "$h" ] && [ ! -L "$h" ] || return 1 ;; *) return 1 ;; esac
  done
  return 0
}
# Each step from inside the .git, entered with cd -P, and only when that is the project's own
# (another command still in its box may put a link to a repository of the user's in its place);
# made writable for its owner first (the command may have made it read-only).
in_git() {
  (cd -P -- "$top" 2>/dev/null && t=$PWD && cd -P ./.git 2>/dev/null && [ "$PWD" = "$t/.git" ] && { chmod u+w . 2>/dev/null; eval "$1"; })
}
hold() {
  g=$top/.git
  if [ -L "$g" ] || [ ! -d "$g" ]; then
    discard "$g"
    if there "$g"; then HF=1; fi
    H="$g (not a folder: a link or a file naming a Git folder elsewhere) removed"
    return 0
  fi
  H=
  for f in config hooks commondir config.worktree; do
    there "$g/$f" || continue
    in_git 'rm -rf -- "./$f.gatehouse-held" 2>/dev/null; mv -f -- "./$f" "./$f.gatehouse-held" 2>/dev/null' || HF=1
    if there "$g/$f"; then HF=1; fi
    H="$H $g/$f"
  done
  in_git 'printf "[core]\\\\n\\\\trepositoryformatversion = 0\\\\n\\\\tfilemode = true\\\\n\\\\tbare = false\\\\n\\\\tlogallrefupdates = true\\\\n" > ./config' || HF=1
  H="the configuration and hooks of\${H:- $g}, set aside as *.gatehouse-held (look at them, and move back what is yours)"
  has_git && unlink_new "$g" "" "$(gitlinks "$g")" "$top"
}
check() {
  scan after
  links after
  settings after
  if [ -n "$fresh" ] && there "$top/.git"; then
    if [ -d "$top/.git" ] && [ ! -L "$top/.git" ] && benign "$top/.git"; then
      # What git init or a plain clone writes: kept, its submodules (gitlinks) left out.
      has_git && unlink_new "$top/.git" "" "$(gitlinks "$top/.git")" "$top"
    else
      hold
      if [ -n "$HF" ]; then what='could not set aside (remove it before running Git there)'; else what='set aside'; fi
      printf "gatehouse: %s: a Git repository $WHO made at the top of the project, %s. Git run outside the box runs commands its configuration and hooks name, unboxed. A command that must create a repository configured so needs the operator to approve it.\\n" "$what" "$H" >&2
      [ "$st" -eq 0 ] && st=1
    fi
  fi
  if [ "$LC" -gt 0 ]; then
    more=; [ "$LC" -gt 5 ] && more=" and $((LC - 5)) more"
    if [ -n "$LF" ]; then what='could not take out of (move those folders out of the project before running Git here)'; else what='took out of'; fi
    printf "gatehouse: %s Git's index%s%s: repositories $WHO added inside the project (submodules), whose configuration Git run outside the box would follow on status or diff, running its commands unboxed. Their files are left as they are. A command that must add a submodule needs the operator to approve it.\\n" "$what" "$LR" "$more" >&2
    [ "$st" -eq 0 ] && st=1
  fi
  said "$SC" "$SR" "$SF" "$HOLD" 'could not remove (remove them before starting an agent there)' "agent settings $WHO created in the project. An agent started there would take hooks, commands or servers from them and run those unsupervised. A command that must create them needs the operator to approve it."
  said "$XC" "$XR" "$XF" "$XH" 'could not set aside (look at them before starting an agent there)' "agent settings that were there are not what they were after $WHO ran (a folder on the way renamed away and made again, or changed by you meanwhile). An agent started there would take hooks, commands or servers from them and run those unsupervised: look at them, and put back what is yours."
  said "$C" "$R" "$F" "$HOLD" 'could not remove (remove them before running Git here)' "created in a Git folder by $WHO, and Git run outside the box reads configuration or hooks from such files (commondir, config.worktree, the git folders of submodules and worktrees), so a command named there would run unboxed. A command that must create them (git worktree add, git submodule update) needs the operator to approve it."
}
# One line for what a check took away: $1 how many, $2 the first five, $3 set when one could not
# be, $4 the folder they were moved into (else removed), $5 what a failure says, $6 the rest.
said() {
  [ "$1" -gt 0 ] || return 0
  more=; [ "$1" -gt 5 ] && more=" and $(($1 - 5)) more"
  if [ -n "$3" ]; then what=$5; elif [ -n "$4" ]; then what="moved into $4"; else what=removed; fi
  printf 'gatehouse: %s%s%s: %s\\n' "$what" "$2" "$more" "$6" >&2
  [ "$st" -eq 0 ] && st=1
}
# The journal. SIGKILL cannot be caught, and an agent sends it to every process of the command:
# Claude Code 1.5 s after its TERM, which this check may outlast. So what was there before is
# written down before the box starts (save), and the journal is removed once the check is done;
# one whose owner is dead is finished by the next check that starts (recover_all, before its own
# scan would take what was planted for the user's) and by Gatehouse itself, which runs this file
# with --recover when it sees one. Journals live in this file's folder (Gatehouse's data folder:
# hidden in the box, and out of the agent's reach by the locked rules), named
# pending-PID-START-TAG for their owner: START the process's start time (from /proc, 0 where
# there is none), so a pid used again is not taken for the owner.
JD= J= HOLD= PROC= WHO='the contained command'
# A hash that cannot be made to match on purpose (cksum's CRC can): coreutils', else macOS's.
if command -v sha256sum >/dev/null 2>&1; then HS=sha256sum; elif command -v shasum >/dev/null 2>&1; then HS='shasum -a 256'; else HS=cksum; fi
case $0 in */box-check-*.sh) JD=\${0%/*}; case $JD in /*) ;; *) JD=$PWD/$JD ;; esac ;; esac
startof() {
  so=
  { read -r so_l < "/proc/$1/stat"; } 2>/dev/null || return 1
  so_l=\${so_l##*") "}
  set -- $so_l
  [ $# -ge 20 ] && [ "$1" != Z ] || return 1
  shift 19
  so=$1
}
alive() {
  if [ -n "$PROC" ]; then startof "$1" && [ "$so" = "$2" ]; else kill -0 "$1" 2>/dev/null; fi
}
# sq_o: $1 quoted for the shell.
sq() {
  sq_s=$1 sq_o=
  while :; do
    case $sq_s in
    *"'"*) sq_o="$sq_o\${sq_s%%"'"*}'\\''" sq_s=\${sq_s#*"'"} ;;
    *) sq_o="'$sq_o$sq_s'"; return ;;
    esac
  done
}
save() {
  J=$JD/pending-$ME-run sv=
  {
    for v in top G0 G SD SN SE ST B D fresh; do
      eval "sq_v=\\"\\$$v\\""; sq "$sq_v"; printf '%s=%s\\n' "$v" "$sq_o" || sv=1
    done
    j=1
    while [ "$j" -le "\${i:-0}" ]; do
      for v in K W I; do
        eval "sq_v=\\"\\$\${v}_$j\\""; sq "$sq_v"; printf '%s_%s=%s\\n' "$v" "$j" "$sq_o" || sv=1
      done
      j=$((j + 1))
    done
    # Last, and only when all else was written: a note cut off has no ok (its box never started).
    if [ -z "$sv" ]; then printf 'ok=1\\n' || sv=1; fi
  } > "$J" 2>/dev/null || sv=1
  if [ -n "$sv" ]; then rm -f -- "$J" 2>/dev/null; J=; fi
}
finish() {
  if [ -n "$J" ]; then rm -f -- "$J"; fi
}
# Two commands at once. What another command's box made before this check's scan (a gitlink it
# staged, a modules/ entry) is not what was there before for this one either: that command's
# check takes it out when its box is done, and this box could then make it again, for this
# check to keep. So this check's note of what was there before is narrowed by every other note
# in the journal (a box still running, its check running, a note not yet finished): for the git
# folders that note covers, only what it found there before counts (nl: the notes, //-joined;
# one that went away during the scan, its check done, has the scan made again).
notes() {
  nl=
  for nj in "$JD"/pending-*; do [ -f "$nj" ] && nl="$nl$nj//"; done
}
# Prints the assignments that narrow B, D, fresh, K_j and I_j by the note $1 (in a subshell).
narrow_one() {
  mB=$B mD=$D mG=$G mtop=$top mi=\${i:-0} j=1
  while [ "$j" -le "$mi" ]; do eval "mK_$j=\\$K_$j mI_$j=\\$I_$j; unset K_$j I_$j"; j=$((j + 1)); done
  ok= B= D= G= top= fresh= SD= SN= SE= ST=
  # 4: a note still being written (its box not started yet); any other failure: gone.
  [ -f "$1" ] || exit 3
  . "$1" 2>/dev/null
  if [ "$ok" != 1 ]; then [ -f "$1" ] || exit 3; exit 4; fi
  oB=$B oD=$D oG=$G oSD=$SD oSN=$SN
  # A path under a git folder the note covers, or one of its settings paths, is kept only when the note has it too.
  keep_of() {
    ko_l=$1 ko_o=$2 ko_out=//
    while [ "$ko_l" != // ] && [ -n "$ko_l" ]; do
      ko_l=\${ko_l#//} x=\${ko_l%%//*} ko_l=//\${ko_l#*//}
      [ -n "$x" ] || continue
      case $ko_o in *"//$x//"*) ko_out="$ko_out$x//"; continue ;; esac
      ko_c= ko_q=$oG
      while [ -n "$ko_q" ]; do
        ko_g=\${ko_q%%//*} ko_q=\${ko_q#*//}
        case $x in "$ko_g"/*) ko_c=1; break ;; esac
      done
      if [ -z "$ko_c" ] && settings_path "$x" "$oSD" "$oSN"; then ko_c=1; fi
      [ -n "$ko_c" ] || ko_out="$ko_out$x//"
    done
  }
  keep_of "$mB" "$oB"; sq "$ko_out"; printf 'B=%s\\n' "$sq_o"
  keep_of "$mD" "$oD"; sq "$ko_out"; printf 'D=%s\\n' "$sq_o"
  if [ -n "$fresh" ] && [ "$top" = "$mtop" ]; then printf 'fresh=1\\n'; fi
  j=1 mq=$mG
  while [ "$j" -le "$mi" ]; do
    mg=\${mq%%//*} mq=\${mq#*//}
    k=0 kq=$oG kf=
    while [ -n "$kq" ]; do
      k=$((k + 1)) kg=\${kq%%//*} kq=\${kq#*//}
      if [ "$kg" = "$mg" ]; then kf=$k; break; fi
    done
    if [ -n "$kf" ]; then
      eval "mk=\\$mK_$j ok_k=\\$K_$kf mids=\\$mI_$j oids=\\$I_$kf"
      # The gitlinks of this one that the note has too.
      not_in "$mk" "$ok_k"; not_in "$mk" "$ni_out"
      sq "$ni_out"; printf 'K_%s=%s\\n' "$j" "$sq_o"
      # A .git the note knew otherwise (not unknown, !) is known as the note knew it.
      ni=$NL
      while IFS= read -r l; do
        [ -n "$l" ] || continue
        q=\${l%"$TAB"*}
        case $oids in *"$NL$q$TAB"*)
          o=\${oids#*"$NL$q$TAB"} o=\${o%%"$NL"*}
          [ "$o" = '!' ] || l="$q$TAB$o" ;;
        esac
        ni="$ni$l$NL"
      done <<NARROW
$mids
NARROW
      sq "$ni"; printf 'I_%s=%s\\n' "$j" "$sq_o"
    fi
    j=$((j + 1))
  done
}
# False when a note went away (its check done, or claimed) before it was read: scanned again.
narrow() {
  nq=$nl
  while [ -n "$nq" ]; do
    nj=\${nq%%//*} nq=\${nq#*//}
    nv=$(narrow_one "$nj")
    case $? in 0) eval "$nv" ;; 4) ;; *) return 1 ;; esac
  done
}
recover_one() {
  ok= SD= SN= SE= ST=
  . "$1" 2>/dev/null
  [ "$ok" = 1 ] || return 0
  HOLD=$JD/held/\${1##*/pending-}
  WHO='an earlier contained command (stopped before the check after it was done)'
  F= st=0 LC=0 LR= LF= HF= C=0 R= SC=0 SR= SF= SK= XC=0 XR= XF= XH=
  check
}
recover_all() {
  [ -n "$JD" ] || return 0
  rk=0
  for j in "$JD"/pending-*; do
    [ -f "$j" ] || continue
    o=\${j##*/pending-}
    op=\${o%%-*} o=\${o#*-}
    os=\${o%%-*}
    case $op in '' | *[!0-9]*) continue ;; esac
    alive "$op" "$os" && continue
    # Claimed by renaming it to this shell's name: one check finishes it, and one killed while
    # doing so leaves it for the next.
    rk=$((rk + 1)) c=$JD/pending-$ME-r$rk
    mv -f -- "$j" "$c" 2>/dev/null || continue
    (recover_one "$c")
    rm -f -- "$c"
  done
}
if startof $$; then PROC=1 ME=$$-$so; else ME=$$-0; fi
recover_all
[ -z "$RO" ] || exit 0
F= st=0 LC=0 LR= LF= HF= SC=0 SR= SF= SK= XC=0 XR= XF= XH= G0=$G nt=0
while :; do
  nl=
  if [ -n "$JD" ]; then notes; fi
  n1=$nl B=// D=// G=$G0 fresh= SE= ST=
  scan before
  links before
  settings before
  if [ -n "$top" ] && ! there "$top/.git"; then fresh=1; fi
  [ -n "$JD" ] || break
  notes
  gone= nq=$n1
  while [ -n "$nq" ]; do
    nj=\${nq%%//*} nq=\${nq#*//}
    case $nl in *"$nj//"*) ;; *) gone=1 ;; esac
  done
  if [ -z "$gone" ]; then narrow && break; fi
  nt=$((nt + 1))
  if [ "$nt" -ge 8 ]; then
    printf 'gatehouse: the command was not run: the checks of other contained commands kept finishing while this one looked at the Git folders. Run it again.\\n' >&2
    exit 1
  fi
done
# No note, no box: a KILL would leave the check undone with nothing to finish it.
if [ -n "$JD" ]; then
  save
  if [ -z "$J" ]; then
    printf 'gatehouse: the command was not run: the note the check keeps while it runs could not be written in %s (is the disk full?). Free some space there and run it again.\\n' "$JD" >&2
    exit 1
  fi
fi
trap 'st=$?; trap "" HUP INT TERM; check; finish; exit "$st"' HUP INT TERM
PATH=$P0 "$@"
st=$?
trap '' HUP INT TERM
check
finish
exit "$st"
`;

const defaultShell = () => (existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh');

/** Runs `true` in a box of `plan` (under `scope` when given): whether bubblewrap can build this box here (and why not). */
export async function tryBox(bwrap: string, plan: BoxPlan, scope?: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const argv = [...(scope ? [scope] : []), bwrap, ...bwrapBoxArgs(plan), '--', '/bin/sh', '-c', 'true'];
  const r = await runBriefly(argv[0]!, argv.slice(1), { timeoutMs: 5000 });
  if (r.status === 0) return { ok: true };
  return { ok: false, reason: (r.stderr || r.error?.message || `exit ${r.status}`).trim() };
}

// ---- Seatbelt (macOS sandbox-exec) --------------------------------------------------------------

const sbString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/**
 * The same box as a Seatbelt profile for `sandbox-exec -p` (what Codex and Claude Code use on
 * macOS). Everything is allowed as by default, then denied: writes outside the writable folders
 * and the devices, writes to the read-only places, reads and writes of the masked ones. Denials
 * come after the allow, so they hold whichever way rules are ordered.
 */
export function seatbeltProfile(plan: BoxPlan): string {
  // /tmp and /var are links to /private/… on macOS, and Seatbelt matches the path it reaches.
  const withPrivate = (ps: readonly string[]) => [...ps, ...ps.filter((w) => w === '/tmp' || w.startsWith('/tmp/') || w === '/var/tmp' || w.startsWith('/var/')).map((w) => `/private${w}`)];
  const writable = withPrivate(plan.writable);
  const lines = [
    '(version 1)',
    '(allow default)',
    `(deny file-write* (require-not (require-any ${[...writable.map((w) => `(subpath ${sbString(w)})`), '(subpath "/dev")', '(subpath "/private/var/folders")'].join(' ')})))`,
  ];
  // The agents' settings, there or not: Seatbelt's rules go by path, so one that does not exist
  // cannot be made either (here a program the command left running would outlive the check: no
  // process namespace ends it with the box).
  const settings = plan.settings.dirs.flatMap((d) => plan.settings.names.map((n) => `${d}/${n}`));
  const readOnly = [...new Set([...plan.readOnly, ...withPrivate(settings)])];
  if (readOnly.length) lines.push(`(deny file-write* ${readOnly.map((p) => `(subpath ${sbString(p)})`).join(' ')})`);
  const hidden = [...plan.maskedDirs.map((d) => `(subpath ${sbString(d)})`), ...plan.maskedFiles.map((f) => `(literal ${sbString(f)})`)];
  if (hidden.length) lines.push(`(deny file-read* file-write* ${hidden.join(' ')})`);
  return lines.join('\n');
}
