// The shell model's types: a word after evaluation, the shell state a command sees, the judge's
// per-call context, and the handler signature every program family implements.
import type { Collector } from '../collector.js';
import type { DirCache } from '../globs.js';
import type { Redirect, Script, Stage } from '../shell-ir.js';

/** Parses nested shell source (`sh -c '…'`, `eval '…'`, a literal heredoc fed to a shell). */
export type ParseFn = (src: string) => Script;

export interface Env {
  cwd: string;
  vars: Map<string, string>;
  depth: number;
  /** `alias name=body` seen earlier in the script (bash expands them in later commands). */
  aliases?: Map<string, string>;
  /** Functions defined earlier in the script: their bodies run where they are called (script.ts). */
  functions?: Map<string, Script | null>;
  /**
   * Variables whose later assignments the judge cannot evaluate: a nameref (`declare -n x=HOME`:
   * assigning x assigns HOME) or one with an attribute that changes the value assigned (`-i`
   * arithmetic, `-l`/`-u`/`-c` letter case).
   */
  opaque?: Map<string, 'nameref' | 'attr'>;
}

/** A word after variable evaluation. */
export interface EW {
  t: string;
  known: boolean;
  tilde: boolean;
  subst: boolean;
  indirect: boolean;
  /** Built from variables, known or not. */
  vars: boolean;
  /** The word came from a glob (or a glob that matched nothing): where it starts, what it names. */
  globbed?: { prefix: string; bareLast: boolean };
}

export interface Ctx {
  col: Collector;
  parse: ParseFn;
  home: string;
  env: Record<string, string> | undefined;
  /** Program name → handler (programs/index.ts): the shell model itself knows no program. */
  programs: Readonly<Record<string, Handler>>;
  /** Directory entries globs may still read for this call, and words braces may still make. */
  scanLeft: number;
  braceLeft: number;
  dirs: DirCache;
  /** Links the command itself creates (`ln -s ~ h`), absolute link → absolute target. */
  links: Map<string, string>;
  /** Shell files the command itself writes with visible text (`echo … > x.sh`), absolute path → text. */
  written: Map<string, string>;
  /**
   * Glob options the command turned on (globs.ts GLOB_DOT, GLOB_NOCASE, GLOB_STAR): `shopt -s
   * dotglob`, GLOBIGNORE, `bash -O globstar`. Only ever added to, in any subshell too: a glob
   * expanded with an option on matches at least what it would with it off.
   */
  globOpts?: number;
  /** `shopt -s lastpipe` was seen: a pipeline's last stage may run in the shell itself (script.ts). */
  lastpipe?: boolean;
  /** How many times the rest of the script was judged again in a second folder (script.ts). */
  forks?: number;
}

export interface Feed {
  upstream: Stage[] | null;
  redirects: Redirect[];
  /** Variables set for this command alone (`DOCKER_CONTEXT=x docker ps`), as far as known: the program's environment. */
  assigns?: ReadonlyMap<string, string>;
  /** A declaration builtin's assignments the grammar split off its words (`declare x=~/a`), evaluated. */
  declared?: ReadonlyArray<{ name: string; value: EW }>;
}

export type Handler = (args: EW[], env: Env, c: Ctx, feed: Feed, name: string) => void;

/** Per call, across all its words: a command of many globs costs no more than one big one. */
export const CALL_SCAN_BUDGET = 8192;

export const CALL_BRACE_BUDGET = 4096;

export const MAX_DEPTH = 8;

/**
 * A variable's value when the judge cannot know it (a computed assignment, one made in a branch
 * that may not run): `$x` is then unknown. Kept in the map rather than removed, so that the
 * agent's environment (Ctx.env) does not stand in for a value the script changed.
 */
export const UNKNOWN_VALUE = '\u0000unknown\u0000';

export function forget(env: Env, name: string): void {
  env.vars.set(name, UNKNOWN_VALUE);
}

export function literalEW(t: string): EW {
  return { t, known: true, tilde: t.charCodeAt(0) === 126, subst: false, indirect: false, vars: false };
}

export const UNKNOWN: EW = { t: '', known: false, tilde: false, subst: false, indirect: false, vars: false };
