import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import picomatch from 'picomatch';
import type { Extraction, ToolCall } from '../types.js';
import { Collector } from './collector.js';
import { hostsInText, scpHost } from './hosts.js';
import { callCwd, normalisePath } from './paths.js';
import { analyseScript } from './shell-analyze.js';
import { loadGrammar } from './shell-grammar.js';
import { parseShell } from './shell-parse.js';
import { COMMAND_KEYS, CONTENT_KEYS, PATH_KEYS, toolSpec } from './tools.js';

export interface ExtractOptions {
  /** Home directory for `~` and `$HOME` (default: this process's home). */
  home?: string;
  /** Variables the agent's shell would have, for `$VAR` in commands (HOME and PWD are always known). */
  env?: Record<string, string>;
  /** Resolve symlinks against the real file system (default true). */
  resolveSymlinks?: boolean;
  /** Most entries a link-following walk lists for its links (default MAX_LINK_WALK_ENTRIES). */
  maxLinkWalkEntries?: number;
}

/**
 * Loads the bash grammar (WebAssembly, ~20 ms, once per process). `extract` is synchronous after
 * this; before it, a call with a shell command throws — the policy step turns that into a denial.
 */
export function initExtractor(): Promise<void> {
  return loadGrammar();
}

let defaultHome: string | undefined;

/**
 * The first `.git` folder on the way to `abs` (lexically, or where its links lead) that is not
 * there: a file tool writing `lib/.git/HEAD` makes it, and so puts a git folder in place
 * (builtin.git-pointer) as surely as one writing `lib/.git` itself — one with HEAD, objects/ and
 * refs/ is a repository Git goes into, and a contained command can give it a config before the
 * box's next look at the project.
 */
function gitFoldersMade(abs: string, real: string): string[] {
  const out: string[] = [];
  for (const p of abs === real ? [abs] : [abs, real]) {
    for (let i = p.indexOf('/.git/'); i >= 0; i = p.indexOf('/.git/', i + 1)) {
      const dir = p.slice(0, i + 5);
      let missing: boolean;
      try {
        missing = lstatSync(dir, { throwIfNoEntry: false }) === undefined;
      } catch {
        // ENOTDIR, EACCES: nothing can be made there either.
        missing = false;
      }
      if (missing) {
        out.push(dir);
        break;
      }
    }
  }
  return out;
}
const SCP_LIKE = /^[^@\s/:]+@[^\s/:]+:/;
const MAX_WALK_DEPTH = 32;

/**
 * Longest path argument analysed, in characters (Linux's PATH_MAX). A longer one cannot name a
 * file the kernel accepts, and normalising and resolving it costs time the agent chooses (a 3.8 MB
 * Read path held the host for minutes): it is not analysed, and the call is unsure.
 */
export const MAX_PATH_ARG_LENGTH = 4096;
/** Most path arguments analysed in one call; real calls name a handful (read_multiple_files a few dozen). */
export const MAX_PATH_ARGS = 256;

/** What one tool call would touch, as static analysis sees it. */
export function extract(call: ToolCall, opts?: ExtractOptions): Extraction {
  const home = opts?.home ?? (defaultHome ??= homedir());
  const args = call.arguments ?? {};
  const spec = toolSpec(call.tool);
  // The same function the shell tool runs the command in: judged folder and run folder agree.
  const cwd = callCwd(call, home);
  // A file tool resolves relative paths against the call's own folder, whatever `arguments.cwd`
  // says; a tool that does honour that argument would use it instead. Both are judged.
  const ownCwd = spec.shell ? cwd : callCwd({ cwd: call.cwd, arguments: null }, home);
  const bases = ownCwd === cwd ? [cwd] : [ownCwd, cwd];
  const col = new Collector({ cwd, home, resolveSymlinks: opts?.resolveSymlinks ?? true }, opts?.maxLinkWalkEntries);
  for (const o of spec.ops) col.op(o);

  let command = '';
  for (const k of COMMAND_KEYS) {
    const v = args[k];
    if (typeof v === 'string') command = v;
    else if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) command = (v as string[]).map(shellQuote).join(' ');
    else continue;
    break;
  }
  if (command && (spec.shell || spec.ops.includes('execute'))) {
    analyseScript(parseShell(command), cwd, col, parseShell, home, opts?.env);
  } else if (command) {
    command = '';
  }

  if (cwd.length > MAX_PATH_ARG_LENGTH) col.evasive(`the working folder is longer than ${MAX_PATH_ARG_LENGTH} characters`);
  // `recursive: true` on any tool walks what it is given.
  const walk = spec.walk ?? (args['recursive'] === true || args['recursive'] === 'true' ? 'args' : undefined);
  // A tool whose file semantics are not known may walk a folder it is given (an `archive` tool given
  // `~`, an `index` tool given `~/.config`): its paths count as whole trees, so a protected tree
  // inside one counts as touched.
  // SECURITY: whether or not it carries a command-like field: a `command` parsed as a shell
  // command does not make it a shell tool (`str_replace_editor {command: "create", path:
  // "~/.bashrc"}` was judged as running `create`, its path one level deep and neither read nor
  // written). The command is judged as well: the tool may run it.
  const unknownTool = !spec.shell && spec.ops.length === 1 && spec.ops[0] === 'execute';
  /** An unknown tool's file patterns (`include`, `glob`): paths, and file-name filters of what it walks. */
  const unknownFilters: string[] = [];
  const paths = { count: 0, given: false };
  // A file tool that writes makes the folders on the way (Claude Code's Write does).
  const makesFolders = !spec.shell && spec.ops.includes('write') && (opts?.resolveSymlinks ?? true);
  const addArgPath = (v: string, recursive: boolean): void => {
    if (!v || v.includes('://')) return;
    paths.given = true;
    if (v.length > MAX_PATH_ARG_LENGTH) return col.evasive(`a path argument is longer than ${MAX_PATH_ARG_LENGTH} characters (not analysed)`);
    if (++paths.count > MAX_PATH_ARGS) return col.evasive(`more than ${MAX_PATH_ARGS} path arguments (the rest not analysed)`);
    const relative = !/^(\/|~|\$HOME|\$\{HOME\})/.test(v);
    for (const base of relative ? bases : bases.slice(0, 1)) {
      if (recursive) col.recursivePath(v, base);
      else col.path(v, base);
      if (makesFolders) {
        // Where its links lead, as the collector resolved it for the path itself (no second walk).
        const abs = normalisePath(v, base, home);
        for (const dir of gitFoldersMade(abs, col.realOf(abs))) col.path(dir, '/');
      }
    }
  };

  for (const key in args) {
    const v = args[key];
    // `file:` URLs read a local file, whatever tool fetches them (WebFetch `file:///etc/shadow`).
    if (typeof v === 'string' && (PATH_KEYS.has(key) || URL_KEYS.has(key)) && /^file:/i.test(v)) {
      const local = fileUrlPath(v);
      col.op('read');
      if (local === null) col.evasive('a file: URL that cannot be parsed');
      else addArgPath(local, false);
      continue;
    }
    if (PATH_KEYS.has(key) || (unknownTool && UNKNOWN_PATH_KEYS.has(key))) {
      // Glob's `path` is where its pattern starts, walked below (with the pattern's literal part).
      const recursive = (walk === 'tree' || walk === 'args' || unknownTool) && key !== 'cwd';
      const filter = !PATH_KEYS.has(key);
      if (typeof v === 'string') {
        addArgPath(v, recursive);
        if (filter && v) unknownFilters.push(v);
      } else if (Array.isArray(v)) {
        for (const x of v) {
          if (typeof x !== 'string') continue;
          addArgPath(x, recursive);
          if (filter && x) unknownFilters.push(x);
        }
      }
    }
    if (CONTENT_KEYS.includes(key) && typeof v === 'string') col.addContent(v);
    else if (key === 'edits' && Array.isArray(v)) {
      for (const e of v) {
        if (!e || typeof e !== 'object') continue;
        const r = e as Record<string, unknown>;
        const t = r['new_string'] ?? r['newText'] ?? r['new_text'];
        if (typeof t === 'string') col.addContent(t);
      }
    }
  }
  // Paths nested in objects and arrays (`{"options": {"path": "~/.ssh"}}`); and for a tool whose
  // file semantics are not known, every argument that looks like an absolute or home path, read
  // and written: it may do either with it, and a rule on either must catch it.
  const nestedRecursive = walk === 'tree' || walk === 'args' || unknownTool;
  const nested = (v: unknown, key: string | null, depth: number): void => {
    if (typeof v === 'string') {
      if ((key !== null && PATH_KEYS.has(key)) || (unknownTool && LOOKS_LIKE_PATH.test(v))) addArgPath(v, nestedRecursive && key !== 'cwd');
      return;
    }
    if (!v || typeof v !== 'object' || depth > MAX_WALK_DEPTH || paths.count > MAX_PATH_ARGS) return;
    if (Array.isArray(v)) for (const x of v) nested(x, key, depth + 1);
    else for (const k in v as Record<string, unknown>) nested((v as Record<string, unknown>)[k], k, depth + 1);
  };
  for (const key in args) {
    if (PATH_KEYS.has(key) || (unknownTool && UNKNOWN_PATH_KEYS.has(key)) || CONTENT_KEYS.includes(key) || COMMAND_KEYS.includes(key) || key === 'edits' || key === 'old_string') continue;
    const v = args[key];
    if (typeof v === 'string') {
      if (unknownTool && LOOKS_LIKE_PATH.test(v)) addArgPath(v, true);
    } else if (v && typeof v === 'object') nested(v, null, 1);
  }
  if (unknownTool && col.paths.length > 0) {
    col.op('read');
    col.op('write');
  }

  const pattern = args['pattern'];
  if (walk === 'glob') globWalk(col, typeof pattern === 'string' && pattern ? pattern : '**', args['path'], bases);
  // Grep and search_files without a path search the call's folder, all of it.
  else if (walk === 'tree' && !paths.given) for (const base of bases) col.recursivePath(base, base);
  // Other read tools' patterns name the tree they read when they are absolute (`/etc/**`, `~/.ssh/*`).
  else if (spec.ops.length === 1 && spec.ops[0] === 'read' && typeof pattern === 'string' && /^(\/|~|\$HOME)/.test(pattern)) addArgPath(pattern, false);

  // A walk narrowed to file names (`Grep {"glob": ".env"}`): name-anywhere rules (`**/.env`) cannot
  // see inside a walked folder, so a literal name counts as that file in each walked folder, and a
  // pattern that could select such files leaves the call unsure.
  for (const k of spec.filters ?? []) {
    const f = args[k];
    if (typeof f === 'string' && f) nameFilter(col, f, [...col.recursive], addArgPath);
  }
  for (const f of unknownFilters.slice(0, MAX_PATH_ARGS)) nameFilter(col, f, [...col.recursive], addArgPath);

  // Hosts: URLs anywhere in the arguments. The text a file tool writes is not a destination, so
  // writing a README that mentions a URL does not count as contacting it.
  const skipContent = spec.ops.includes('write') && !spec.ops.includes('network');
  const before = col.hosts.length;
  for (const key in args) {
    if (skipContent && (CONTENT_KEYS.includes(key) || key === 'edits' || key === 'old_string')) continue;
    walkHosts(args[key], col, 0);
  }
  // An unknown tool with a URL in its arguments may well fetch it: fail closed.
  if (col.hosts.length > before && !spec.ops.includes('network') && !spec.shell && spec.ops.includes('execute') && (!command || unknownTool)) col.op('network');
  return col.result(command);
}

/** An absolute, `~` or `$HOME` path (what an unknown tool's string argument is taken for). */
const LOOKS_LIKE_PATH = /^(\/[^/]|~\/|~$|\$HOME(\/|$)|\$\{HOME\})/;

/**
 * Argument names an unknown tool's file patterns go by (read_many_files' `include`, a search's
 * `glob`): judged as its paths, and as the file-name filters of what it walks.
 */
const UNKNOWN_PATH_KEYS = new Set(['include', 'glob', 'includes', 'globs']);

const URL_KEYS = new Set(['url', 'uri', 'href', 'link', 'location', 'endpoint']);

/** The local path of a `file:` URL (percent-decoded), or null when it cannot be parsed. */
function fileUrlPath(v: string): string | null {
  if (v.length > MAX_PATH_ARG_LENGTH * 3) return null;
  try {
    const u = new URL(v);
    return decodeURIComponent(u.pathname) || '/';
  } catch {
    return null;
  }
}

/** File names protected wherever they are (`**` + `/.env`, `**` + `/.env.*`): a walk's file-name filter is tested against them. */
const NAME_PROTECTED = ['.env', '.env.local', '.env.production', '.env.development', '.env.test'];

function nameFilter(col: Collector, filter: string, walked: readonly string[], addArgPath: (v: string, recursive: boolean) => void): void {
  if (filter.length > MAX_PATH_ARG_LENGTH) return col.evasive(`a file-name filter is longer than ${MAX_PATH_ARG_LENGTH} characters (not analysed)`);
  const name = filter.replace(/^(\*\*\/)+/, '');
  if (!GLOB_CHAR.test(name) && !name.includes('/')) {
    for (const dir of walked) addArgPath(`${dir}/${name}`, false);
    return;
  }
  let selects: boolean;
  try {
    const last = name.slice(name.lastIndexOf('/') + 1);
    const test = picomatch(last, { dot: true });
    selects = NAME_PROTECTED.some((n) => test(n));
  } catch {
    selects = true;
  }
  if (selects) col.evasive('the file-name filter of a folder search could select .env files');
}

const GLOB_CHAR = /(^|[^\\])[*?[\]{}()!+@]/;

/**
 * Claude Code's Glob: `pattern` is matched under `path` (default the call's folder); an absolute
 * or `~` pattern starts where it says. What it walks is the pattern's literal start (`~/.ssh` of
 * `~/.ssh/*`, `/home/u` of `/home/u/**` + `/id_rsa`, the root itself for `**` + `/*`): walked whole, so a
 * protected tree under it counts as touched. A wildcard part that could climb out of that start
 * (`..`, `~`, `$`, an absolute alternative in braces) leaves the answer unsure.
 */
function globWalk(col: Collector, pattern: string, pathArg: unknown, bases: string[]): void {
  if (pattern.length > MAX_PATH_ARG_LENGTH) return col.evasive(`the Glob pattern is longer than ${MAX_PATH_ARG_LENGTH} characters (not analysed)`);
  const segs = pattern.split('/');
  let i = 0;
  while (i < segs.length && !GLOB_CHAR.test(segs[i] as string)) i++;
  const literal = segs.slice(0, i).join('/');
  const wild = segs.slice(i).join('/');
  if (/(^|[/{,])\.\.($|[/},])|(^|[{,(|])\s*~|[{,(|]\s*\//.test(wild)) col.evasive('the Glob pattern could reach outside the folder it starts at');
  const start = i === 0 ? '' : literal === '' ? '/' : literal;
  if (/^(\/|~|\$HOME|\$\{HOME\})/.test(start)) return col.recursivePath(start, bases[0]);
  const root = typeof pathArg === 'string' && pathArg && pathArg.length <= MAX_PATH_ARG_LENGTH ? pathArg : '.';
  for (const base of bases) col.recursivePath(start ? `${root}/${start}` : root, base);
}

function walkHosts(v: unknown, col: Collector, depth: number): void {
  if (typeof v === 'string') {
    hostsInText(v, (h) => col.host(h));
    if (v.length < 512 && SCP_LIKE.test(v)) col.host(scpHost(v, true));
    return;
  }
  if (!v || typeof v !== 'object' || depth > MAX_WALK_DEPTH) return;
  if (Array.isArray(v)) {
    for (const x of v) walkHosts(x, col, depth + 1);
    return;
  }
  for (const k in v as Record<string, unknown>) walkHosts((v as Record<string, unknown>)[k], col, depth + 1);
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
