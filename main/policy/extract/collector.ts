import { posix } from 'node:path';
import { OPERATIONS, type Extraction, type Operation } from '../types.js';
import { expandHome, normalisePath, resolveSymlinks, type PathContext } from './paths.js';
import { walkPath } from '../../core/path-walk.js';
import { MAX_HOSTS, MAX_LINK_WALK_ENTRIES, MAX_PATHS } from './limits.js';
import { linksLeaving } from './link-walk.js';

/** A `..` segment. */
const DOT_DOT = /(?:^|\/)\.\.(?:\/|$)/;

const BIT: Record<Operation, number> = { read: 1, write: 2, delete: 4, copy: 8, move: 16, execute: 32, network: 64 };

/**
 * When the extraction running on this thread must stop (performance.now() time), or Infinity.
 * Set around one synchronous extract() by guarded-extract.ts: the analysis cannot be pre-empted,
 * so the Collector, which every finding passes through, checks the clock and throws past it.
 */
let deadlineAt = Infinity;
let deadlineMs = 0;

/** Runs `fn` (synchronous) with a cooperative deadline of `ms` on this thread's extractions. */
export function withExtractionDeadline<T>(ms: number, fn: () => T): T {
  const outer = deadlineAt;
  deadlineAt = performance.now() + ms;
  deadlineMs = ms;
  try {
    return fn();
  } finally {
    deadlineAt = outer;
  }
}

/** The calling thread's deadline passed (guarded-extract.ts then judges the call in its worker). */
export class ExtractionDeadline extends Error {
  override name = 'ExtractionDeadline';
  constructor() {
    super(`extraction took longer than ${deadlineMs} ms`);
  }
}

/** Milliseconds left before this thread's extraction deadline; Infinity when none is set. */
export function extractionTimeLeft(): number {
  return deadlineAt === Infinity ? Infinity : deadlineAt - performance.now();
}

function checkDeadline(): void {
  if (deadlineAt !== Infinity && performance.now() > deadlineAt) throw new ExtractionDeadline();
}

/** Accumulates one call's findings; deduplicates and keeps first-seen order. */
export class Collector {
  private ops = 0;
  readonly paths: string[] = [];
  readonly hosts: string[] = [];
  readonly reasons: string[] = [];
  readonly recursive: string[] = [];
  /** What the call starts: see Extraction.programs. */
  readonly programs: string[] = [];
  content = '';
  // Membership beside the arrays: a command naming thousands of paths made Array.includes
  // quadratic, so a long list is looked up in a Set (see Seen).
  private readonly seenPaths = new Seen(this.paths);
  /** A path with a `..` as its text reads → where the kernel takes it (throughDotDot). */
  private readonly kernelReal = new Map<string, string>();
  private readonly seenHosts = new Seen(this.hosts);
  private readonly seenReasons = new Seen(this.reasons);
  private readonly seenRecursive = new Seen(this.recursive);
  /** Where each path's symlinks lead, asked once per call (a path named as a tree is asked twice). */
  private real: Map<string, string> | null = null;
  private readonly seenFollowed = new Seen([]);
  private readonly seenPrograms = new Seen(this.programs);

  /**
   * Set by a command handler while it records the folders of a walk that follows symbolic links
   * (`grep -R`, `rg -L`, `find -L`): each such folder's links out count as walked too.
   */
  followLinks = false;

  constructor(
    readonly ctx: PathContext,
    private readonly maxLinkWalkEntries = MAX_LINK_WALK_ENTRIES,
  ) {}

  op(o: Operation): void {
    checkDeadline();
    this.ops |= BIT[o];
  }

  hasOp(o: Operation): boolean {
    return (this.ops & BIT[o]) !== 0;
  }

  /** A path from a tool argument: `~` and `$HOME` expanded, relative to `cwd`. */
  path(raw: string, cwd: string = this.ctx.cwd): void {
    if (!raw) return;
    const abs = normalisePath(raw, cwd, this.ctx.home);
    this.addAbsolute(abs);
    this.throughDotDot(expandHome(raw, this.ctx.home), cwd, abs);
  }

  /** A path from a shell word: `~` only when the shell itself would expand it (unquoted, leading). */
  shellPath(text: string, tilde: boolean, cwd: string): string | null {
    if (!text) return null;
    let abs: string;
    if (tilde) abs = normalisePath(text, cwd, this.ctx.home);
    else abs = posix.resolve(cwd.charCodeAt(0) === 47 ? cwd : posix.resolve('/', cwd), text);
    this.addAbsolute(abs);
    this.throughDotDot(tilde ? expandHome(text, this.ctx.home) : text, cwd, abs);
    return abs;
  }

  /**
   * Where a path with a `..` after a symbolic link really leads, added beside its lexical form.
   * Security-sensitive: paths are normalised as text first, so with `b -> .` in the project,
   * `b/b/../../.ssh/id_rsa` read as the project's own `.ssh/id_rsa`, while the kernel follows `b`
   * before applying `..` and reads the home's (a review reached ~/.ssh and ~/.bashrc this way).
   * Only paths with a `..` are walked again (walkPath: as the kernel resolves them).
   */
  private throughDotDot(expanded: string, cwd: string, lexical: string): void {
    const real = this.kernelPlace(expanded, cwd);
    if (real === undefined) return;
    if (real === null) return this.evasive(`the path ${expanded.slice(0, 80)} loops through symbolic links`);
    if (real !== lexical) {
      this.addAbsolute(real);
      this.kernelReal.set(lexical, real);
    }
  }

  /** Where symlinks lead from `abs`, walked once per call (memoised). */
  realOf(abs: string): string {
    const real = (this.real ??= new Map());
    let r = real.get(abs);
    if (r === undefined) real.set(abs, (r = resolveSymlinks(abs)));
    return r;
  }

  /**
   * Both the lexical path and, when it differs, where symlinks lead: a deny rule on either must
   * match (`/tmp/link/id_rsa` that is really `~/.ssh/id_rsa`, or a `.git/hooks` that links elsewhere).
   */
  private addAbsolute(abs: string): void {
    checkDeadline();
    if (this.seenPaths.has(abs)) return;
    if (this.paths.length >= MAX_PATHS) {
      this.evasive(`the call names more than ${MAX_PATHS} paths; Gatehouse judged the first ${MAX_PATHS}`);
      return;
    }
    this.seenPaths.add(abs);
    if (this.ctx.resolveSymlinks) this.seenPaths.add(this.realOf(abs));
  }

  /**
   * A program the call starts, as the command word (or interpreter script, or package) names it:
   * a bare name as it is, a path made absolute with where its links lead (`~/x` that links to
   * Gatehouse's bin file is that file). Not a path the call touches: `paths` has those.
   */
  program(text: string, tilde: boolean, cwd: string): void {
    if (!text) return;
    checkDeadline();
    const add = (p: string): void => {
      if (this.seenPrograms.has(p)) return;
      // The same bound as paths: a command may name thousands of words, each a program to `xargs`.
      if (this.programs.length >= MAX_PATHS) return this.evasive(`the call starts more than ${MAX_PATHS} programs; Gatehouse judged the first ${MAX_PATHS}`);
      this.seenPrograms.add(p);
    };
    // `.` and `..` are folders (`npx .` in the folder it runs in), never names looked up in PATH.
    if (!text.includes('/') && text !== '.' && text !== '..') return add(text);
    const abs = tilde ? normalisePath(text, cwd, this.ctx.home) : posix.resolve(cwd.charCodeAt(0) === 47 ? cwd : posix.resolve('/', cwd), text);
    add(abs);
    if (this.ctx.resolveSymlinks) add(this.realOf(abs));
    // A `..` after a link, as the kernel follows it (see throughDotDot).
    const real = this.kernelPlace(tilde ? expandHome(text, this.ctx.home) : text, cwd);
    if (real) add(real);
  }

  /**
   * A path the call reaches as a whole tree (`grep -r . ~/.config`): added as a path, and marked so
   * that rules count every protected tree under it as touched. Relative to `cwd`, `~` expanded.
   */
  recursivePath(raw: string, cwd: string = this.ctx.cwd): void {
    if (!raw) return;
    const abs = normalisePath(raw, cwd, this.ctx.home);
    this.addAbsolute(abs);
    this.throughDotDot(expandHome(raw, this.ctx.home), cwd, abs);
    this.markRecursive(abs);
  }

  /** Where a path with a `..` leads as the kernel follows it (null: its links loop); undefined when it has no `..` or links are not resolved. */
  private kernelPlace(expanded: string, cwd: string): string | null | undefined {
    if (!this.ctx.resolveSymlinks || !DOT_DOT.test(expanded)) return undefined;
    const base = cwd.charCodeAt(0) === 47 ? cwd : posix.resolve('/', cwd);
    return walkPath(expanded.charCodeAt(0) === 47 ? expanded : `${base}/${expanded}`).final;
  }

  /** Marks an absolute path (and where its symlinks lead) as reached recursively. */
  markRecursive(abs: string): void {
    // Where a `..` after a link really leads (throughDotDot) is walked as a whole tree too.
    const kernel = this.kernelReal.get(abs);
    if (kernel !== undefined && kernel !== abs) this.markRecursive(kernel);
    if (this.followLinks) this.linksOut(abs);
    if (this.seenRecursive.has(abs)) return;
    this.seenRecursive.add(abs);
    if (this.ctx.resolveSymlinks) this.seenRecursive.add(this.realOf(abs));
  }

  /** A link-following walk of `abs`: where its links lead out of it is reached as a whole tree too. */
  private linksOut(abs: string): void {
    // Without file-system access (a replay of a recorded call) there is nothing to list.
    if (!this.ctx.resolveSymlinks || this.seenFollowed.has(abs)) return;
    this.seenFollowed.add(abs);
    const walk = linksLeaving(abs, this.maxLinkWalkEntries, checkDeadline);
    for (const t of walk.targets) {
      this.addAbsolute(t);
      this.seenRecursive.add(t);
    }
    if (!walk.complete) this.evasive(`the walk follows symbolic links and ${abs} holds more than ${this.maxLinkWalkEntries} entries to check (not all were seen)`);
  }

  host(h: string | null): void {
    if (!h || this.seenHosts.has(h)) return;
    if (this.hosts.length >= MAX_HOSTS) {
      this.evasive(`the call names more than ${MAX_HOSTS} hosts; Gatehouse judged the first ${MAX_HOSTS}`);
      return;
    }
    this.seenHosts.add(h);
  }

  evasive(reason: string): void {
    checkDeadline();
    this.seenReasons.add(reason);
  }

  addContent(text: string): void {
    if (!text) return;
    this.content = this.content ? this.content + '\n' + text : text;
  }

  result(command: string): Extraction {
    const operations: Operation[] = [];
    for (const o of OPERATIONS) if (this.ops & BIT[o]) operations.push(o);
    return {
      operations,
      paths: this.paths,
      hosts: this.hosts,
      command,
      content: this.content,
      evasive: this.reasons.length > 0,
      evasiveReasons: this.reasons,
      ...(this.recursive.length ? { recursive: this.recursive } : {}),
      ...(this.programs.length ? { programs: this.programs } : {}),
    };
  }
}

/** Lists up to this long are searched; longer ones get a Set. */
const SHORT_LIST = 16;

/**
 * Membership of one of a call's lists, first-seen order kept by the list itself. Most calls name
 * a path or two, and seven Sets allocated per call were a measurable share of a decision: a short
 * list is searched, and past SHORT_LIST entries a Set takes over (a command naming thousands of
 * paths stays linear).
 */
class Seen {
  private set: Set<string> | null = null;

  constructor(private readonly list: string[]) {}

  has(v: string): boolean {
    return this.set !== null ? this.set.has(v) : this.list.includes(v);
  }

  /** Appends `v` unless already there. */
  add(v: string): void {
    if (this.has(v)) return;
    this.list.push(v);
    if (this.set !== null) this.set.add(v);
    else if (this.list.length > SHORT_LIST) this.set = new Set(this.list);
  }
}
