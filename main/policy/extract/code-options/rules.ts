// The shape of a code-option table (one per program family) and helpers the tables share.
// Security-sensitive: see code-options.ts — an option missing from `code` is judged ordinary.


export interface OptionRule {
  why: string;
  /** Takes a value: `--opt=v`, `--opt v`, `-ov`, `-o v`. */
  value?: boolean;
  /** Only some values name code (`-p no:x` disables a plugin; `-w pkg` is a workspace inside the project). */
  when?: (value: string) => boolean;
  /**
   * The value is a file the program reads into itself: judged as that file's read as well, so a
   * rule protecting it decides (`node --env-file ~/.aws/credentials` puts the keys in its environment).
   */
  reads?: boolean;
}

export interface ProgramFamily {
  /** How reasons name the program. */
  label: string;
  /** Options that name code, a config file or a folder to work from. Go and mvn spell long options with one dash. */
  code: Record<string, OptionRule>;
  /** Options without a value known to change nothing about what runs. */
  inert: string[];
  /** Options with a value known to change nothing about what runs (`-k EXPR`, `-j 4`). */
  inertValued: string[];
  /** Options that take a value and are neither (only so the words after them are read right). */
  otherValued?: string[];
  /** Options whose value is optional, taken when it matches (make's `-j`, `-j4`, `-j 4`). */
  optional?: Record<string, RegExp>;
  /** Options after which every word is the program's own argument (python's `-c CODE`, `-m MOD`). */
  endsOptions?: string[];
  /** `VAR=value` arguments that name code (make). Any other assignment is not inert. */
  argVars?: Record<string, string>;
  /** Environment variables (exact names, or prefixes ending in `*`) the program reads as options. */
  env?: Record<string, string>;
  /** The first argument (cargo's `+toolchain`). */
  lead?: (word: string) => string | null;
  /** A positional word that names code (mvn's `group:artifact:version:goal`). */
  positional?: (word: string) => string | null;
  /** Words after `--` go to a script or test binary (npm, cargo) rather than being positional. */
  forwards: boolean;
  /** Forwarded words are judged against FORWARDED_CODE (the script is most likely a test runner). */
  forwardedCode?: boolean;
  /** Options end at the first positional word, which is the script (node, python). */
  untilPositional?: boolean;
  /** Extra positional words (test names, paths inside the project) are inert. Targets, tasks and goals are not. */
  positionalInert: boolean;
  /**
   * A command that keeps such an option in the program's config for every later run (`npm config
   * set script-shell /tmp/x`, `go env -w GOFLAGS=…`): why, or null. `pos`: the positional words.
   */
  configWrite?: (pos: string[], args: readonly OptWord[]) => string | null;
  /** Single-dash words are whole option names (`-exec`, `-gs`) before they are letter bundles. */
  singleDashLong?: boolean;
  /**
   * A prefix that sets any config as an option (pnpm's `--config.script-shell=x`, also spelled
   * `--config.scriptShell`): read as the option the key names (`--script-shell`).
   */
  configPrefix?: string;
  /**
   * A whole word that names code by its own spelling, whatever else the table says (MSBuild's
   * `-p:PreBuildEvent=…`, `/logger:x.dll`, a `@file` of more switches): why, or null.
   */
  switchWord?: (word: string) => string | null;
}

/** A word of the command, and whether the judge knows its value. */
export interface OptWord {
  t: string;
  known: boolean;
}

/** A path outside the project: absolute, from home, or climbing out. */
export function outsideProject(v: string): boolean {
  return v.startsWith('/') || v.startsWith('~') || /(^|[/{\\])\.\.([/}\\]|$)/.test(v);
}

export const always = (why: string): OptionRule => ({ why, value: true });

/** An option whose value is a file the program reads (an environment file), and which can set what runs. */
export const readsFile = (why: string): OptionRule => ({ why, value: true, reads: true });

/** A `key=value` or `key value` pair at `pairs[i]`: the key, its value, and where the next pair starts. */
function pairAt(pairs: string[], i: number): { key: string; value: string; next: number } {
  const p = pairs[i] as string;
  const eq = p.indexOf('=');
  return eq > 0 ? { key: p.slice(0, eq), value: p.slice(eq + 1), next: i + 1 } : { key: p, value: pairs[i + 1] ?? '', next: i + 2 };
}

/** Is one of `pairs` a code option of `code` (keys spelled as config keys: `script-shell`, `script_shell`, `--script-shell`)? */
export function setsCodeKey(code: Record<string, OptionRule>, pairs: string[], keyOf: (key: string) => string): string | null {
  for (let i = 0; i < pairs.length; ) {
    const { key, value, next } = pairAt(pairs, i);
    const opt = keyOf(key);
    const rule = Object.hasOwn(code, opt) ? code[opt] : undefined;
    if (rule && (!rule.when || rule.when(value))) return `config set ${key} keeps an option that ${rule.why}, for every later run`;
    i = next;
  }
  return null;
}

/** `npm config set KEY VALUE`, `npm set KEY=VALUE`, `pnpm config set …`, `yarn config set …`. */
export const npmConfigWrite = (code: Record<string, OptionRule>) => (pos: string[]): string | null => {
  const [a, b, ...rest] = pos;
  const pairs = a === 'set' ? [b ?? '', ...rest] : (a === 'config' || a === 'c') && b === 'set' ? rest : null;
  return pairs ? setsCodeKey(code, pairs.filter(Boolean), (k) => '--' + k.replace(/^--/, '').replace(/_/g, '-')) : null;
};
