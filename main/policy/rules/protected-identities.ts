// Hard links to protected files. A hard link is the file itself under another name: reading
// `proj/notes.bak` that is a link to ~/.ssh/id_rsa reads the key, and appending to a link to
// ~/.bashrc changes the real one. Rules match names, so the names a call uses are not enough.
//
// The table keeps the identity (device, inode) of every protected file that has more than one
// name, found by listing the places the built-in rules protect by location (bounded), and the
// .env files of the folders calls work in. A path a call names that is a regular file with more
// than one link is looked up: when its identity is a protected file's, the call is judged as
// touching that file too. Folders a call walks whole are listed for such links (bounded) while
// any protected file has several names.
//
// Refreshing without a timer: a file with several links whose inode changed (ctime) after the
// last listing started may be a new link to a protected file, so the protected places are listed
// again, at most once per `minRescanMs` of the injected clock; when that limit holds it back the
// call is unsure (asked), never silently allowed. A file whose links have not changed since the
// listing began was either found then or is not protected.
//
// Security-sensitive: a protected place left out of the listing, or a budget hit that is not
// reported as unsure, lets a hard link read or change what the rule protects.
import { readdirSync, statSync, type Stats } from 'node:fs';
import { posix } from 'node:path';
import picomatch from 'picomatch';
import { isEnvName } from '../extract/env-files.js';
import type { CompiledRule } from './compile.js';
import { globBase } from './paths.js';

export interface ProtectedIdentitiesOptions {
  /** The built-in rules: the files they match, under their literal bases, are listed. */
  rules: readonly CompiledRule[];
  home: string;
  /** Folders listed besides the home's (Gatehouse's home, plugin folders outside the home). */
  extraRoots?: readonly string[];
  /** The injected clock, for the rescan limit. */
  now: () => number;
  /** Least time between two listings (default 1000 ms). */
  minRescanMs?: number;
  /** Most entries one listing visits in one protected folder (default 4,000), breadth first. */
  maxPerTree?: number;
  /** Most entries one listing visits in all (default 40,000). */
  maxEntries?: number;
  /** Most entries a call's walked folders are listed for links (default 20,000). */
  maxWalkEntries?: number;
}

export interface LinkedPaths {
  /** A path the call names → the protected file it is a hard link to. */
  aliases: Map<string, string>;
  /** Why the answer is not complete (the call is then unsure), or null. */
  unsure: string | null;
}

/** The inode's ctime is compared with the listing's start on the file system's clock: its granularity (a tick) is allowed for. */
const CTIME_SLACK_MS = 50;
/** Folders of a project listed for its .env files, and how deep. */
const PROJECT_ENTRIES = 2000;
const PROJECT_DEPTH = 4;
const SKIP_IN_PROJECT = new Set(['.git', 'node_modules', '.venv', 'venv', 'target', 'dist', 'build', '.cache']);

const idOf = (st: Stats): string => `${st.dev}:${st.ino}`;

function statOrNull(p: string): Stats | null {
  try {
    return statSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

export class ProtectedIdentities {
  private table = new Map<string, string>();
  /** Wall-clock start of the last listing (file-system time), -Infinity before the first. */
  private listedAtWall = -Infinity;
  /** The injected clock's time of the last listing. */
  private listedAt = -Infinity;
  private readonly roots: Root[];
  private readonly projects = new Set<string>();
  private readonly minRescanMs: number;

  constructor(private readonly opts: ProtectedIdentitiesOptions) {
    this.minRescanMs = opts.minRescanMs ?? 1000;
    this.roots = protectedRoots(opts.rules, opts.home, opts.extraRoots ?? []);
  }

  /**
   * The protected files that `paths` (absolute, symlinks resolved) and the folders in `walked` are
   * hard links to. `cwd` is the call's folder: its .env files are listed the first time it is seen.
   */
  linked(paths: readonly string[], walked: readonly string[], cwd: string | null): LinkedPaths {
    const aliases = new Map<string, string>();
    let unsure: string | null = null;
    if (cwd && cwd.startsWith('/') && !this.projects.has(cwd)) {
      if (this.projects.size > 256) this.projects.clear();
      this.projects.add(cwd);
      this.listProject(cwd);
    }
    const check = (p: string, st: Stats): void => {
      if (!st.isFile() || st.nlink < 2) return;
      let hit = this.table.get(idOf(st));
      if (hit === undefined && st.ctimeMs >= this.listedAtWall - CTIME_SLACK_MS) {
        // Linked (or changed) since the last listing: it may be a new link to a protected file.
        if (this.opts.now() - this.listedAt >= this.minRescanMs) {
          this.list();
          hit = this.table.get(idOf(st));
        } else unsure ??= `${p} has several hard links and changed since Gatehouse last listed the protected files`;
      }
      if (hit !== undefined && hit !== p) aliases.set(p, hit);
    };
    for (const p of paths) {
      const st = statOrNull(p);
      if (st) check(p, st);
    }
    // A walked folder reaches every file in it: while some protected file has several names, its
    // links may be among them. Nothing to look for otherwise.
    if (walked.length > 0 && this.listedAt === -Infinity) this.list();
    if (walked.length > 0 && this.table.size > 0) {
      const left = { n: this.opts.maxWalkEntries ?? 20_000 };
      for (const dir of walked) {
        if (!walkFiles(dir, left, () => true, check)) {
          unsure ??= `${dir} holds more entries than Gatehouse lists for hard links to protected files`;
          break;
        }
      }
    }
    return { aliases, unsure };
  }

  /** Lists the protected places (and the projects seen) for files with several links. */
  private list(): void {
    this.listedAt = this.opts.now();
    this.listedAtWall = Date.now();
    const table = new Map<string, string>();
    let total = this.opts.maxEntries ?? 40_000;
    const perTree = this.opts.maxPerTree ?? 4000;
    const protectedFile = (p: string): boolean => this.opts.rules.some((r) => !r.paths.empty && r.paths.match(p) !== null && r.except.match(p) === null);
    const starts: string[] = [];
    for (const r of this.roots) {
      if (!r.first) starts.push(r.dir);
      else {
        try {
          for (const name of readdirSync(r.dir)) if (r.first(name)) starts.push(`${r.dir}/${name}`);
        } catch {
          // Not there: nothing to list.
        }
      }
    }
    for (const root of starts) {
      if (total <= 0) break;
      // Breadth first, a budget per place: the files that matter (keys, cookies, token files) sit
      // near the top, and one large browser profile does not use up the others' share.
      const budget = { n: Math.min(perTree, total) };
      const before = budget.n;
      // The stat first: almost no file has several names, and matching every rule costs more.
      const keep = keepIn(table);
      walkFiles(root, budget, () => true, (p, st) => st.nlink > 1 && protectedFile(p) && keep(p, st));
      total -= before - Math.max(budget.n, 0);
    }
    for (const p of this.projects) listEnvFiles(p, keepIn(table));
    this.table = table;
  }

  private listProject(cwd: string): void {
    listEnvFiles(cwd, keepIn(this.table));
  }
}

/** Records a file with several names in `table` (the first name found of each identity). */
const keepIn =
  (table: Map<string, string>) =>
  (p: string, st: Stats): void => {
    if (st.isFile() && st.nlink > 1 && !table.has(idOf(st))) table.set(idOf(st), p);
  };

/** The .env files (not templates) of a project folder, a bounded walk deep. */
function listEnvFiles(dir: string, found: (path: string, st: Stats) => void): void {
  walkFiles(dir, { n: PROJECT_ENTRIES }, (_full, name) => isEnvName(name), found, (name, depth) => depth < PROJECT_DEPTH && !SKIP_IN_PROJECT.has(name));
}

/**
 * Breadth first under `root` (no symbolic link below it followed): each regular file `want`
 * accepts, with its stat. At most `budget.n` entries; false when the budget ran out first.
 */
function walkFiles(
  root: string,
  budget: { n: number },
  want: (full: string, name: string) => boolean,
  found: (full: string, st: Stats) => void,
  descend: (name: string, depth: number) => boolean = () => true,
): boolean {
  const top = statOrNull(root);
  if (!top) return true;
  if (!top.isDirectory()) {
    if (top.isFile() && want(root, posix.basename(root))) found(root, top);
    return true;
  }
  const queue: Array<[string, number]> = [[root, 0]];
  while (queue.length > 0) {
    const [d, depth] = queue.shift() as [string, number];
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      continue; // unreadable to the tool as well
    }
    for (const e of entries) {
      if (--budget.n < 0) return false;
      const full = d === '/' ? `/${e.name}` : `${d}/${e.name}`;
      if (e.isDirectory()) {
        if (descend(e.name, depth + 1)) queue.push([full, depth + 1]);
      } else if (e.isFile() && want(full, e.name)) {
        const st = statOrNull(full);
        if (st) found(full, st);
      }
    }
  }
  return true;
}

interface Root {
  dir: string;
  /** The glob's first segment below `dir` when it has wildcards (`google-chrome*`): only matching children are listed. */
  first: ((name: string) => boolean) | null;
}

const WILD = /(^|[^\\])[*?[\]{}()!+@]/;

/**
 * The literal places the built-in rules protect that an agent's account can link to: their bases
 * inside the home (the home itself only through a wildcard name, `~/.xsession*`) and the extra
 * roots. System folders are left out: their files belong to root, and the kernel's
 * protected_hardlinks forbids linking another user's files.
 */
function protectedRoots(rules: readonly CompiledRule[], home: string, extra: readonly string[]): Root[] {
  const h = home.replace(/\/+$/, '');
  const out = new Map<string, Root>();
  for (const r of rules) {
    for (const g of r.rule.block_paths) {
      const base = globBase(g, home);
      if (base === null) continue;
      const plain = base.replace(/\\(.)/g, '$1');
      if (plain !== h && !plain.startsWith(`${h}/`)) continue;
      const expanded = g.trim().startsWith('~/') ? h + g.trim().slice(1) : g.trim();
      const seg = expanded.length > base.length ? (expanded.slice(base.length + 1).split('/')[0] ?? '') : '';
      const wild = seg !== '' && seg !== '**' && WILD.test(seg);
      if (plain === h && !wild) continue;
      const key = wild ? `${plain}\0${seg}` : plain;
      if (!out.has(key)) out.set(key, { dir: plain, first: wild ? picomatch(seg, { dot: true }) : null });
    }
  }
  for (const e of extra) if (e.startsWith('/') && e !== h && e !== '/' && !out.has(e)) out.set(e, { dir: posix.normalize(e), first: null });
  return [...out.values()];
}
