// Options that run code are code (issue #24): build tools and interpreters run whatever their own
// options, `VAR=value` arguments and environment name — `npm test --script-shell=/tmp/x` runs
// /tmp/x, `pytest --pdbcls=os:system` calls os.system, `cargo test --config 'target.….runner=…'`
// runs the runner. One table per program family says which options name a program, a module, a
// config file or a folder to work from (any of them makes the call unsure: asked at every
// autonomy level, never covered by a grant), and which options are known to be inert (all a
// command-prefix grant may add to the command as granted).
//
// Security-sensitive: an option missing from `code` is judged like an ordinary option (allowed at
// full autonomy); an option added to `inert` is covered by every prefix grant of its program.
// When in doubt, leave an option out of `inert` (the grant then asks) rather than out of `code`.
//
// The tables are in code-options/, one file per ecosystem (rules.ts has the table's shape); this
// file joins them and reads a command's words against them.
import { cargo, dotnet, go, gradle, make, mvn } from './code-options/build.js';
import { helm, JS_TOOLS, kubectl, terraform } from './code-options/devtools.js';
import { bun, node, npm, pnpm, yarn } from './code-options/javascript.js';
import { cc, cmake, ctest, java, javac, ninja, rustc } from './code-options/native.js';
import { pip, pytest, python, tox } from './code-options/python.js';
import { type OptWord, outsideProject, type ProgramFamily } from './code-options/rules.js';
import { bundle, composer, deno, elixir, gem, mix, php, rake, ruby, sbt } from './code-options/scripting.js';

export { outsideProject, type OptionRule, type OptWord, type ProgramFamily } from './code-options/rules.js';

/** Program names (as the judge reads them: no folder, no version suffix) to their family. */
export const CODE_OPTION_FAMILIES: Record<string, ProgramFamily> = {
  npm, pnpm, yarn, bun, make, gmake: make, python, python2: python, python3: python, pypy: python, pypy3: python,
  pytest, 'py.test': pytest, pip, pip3: pip, tox, cargo, go, node, nodejs: node, gradle, gradlew: gradle, mvn, mvnw: mvn,
  dotnet, msbuild: dotnet,
  gcc: cc, 'g++': cc, cc, 'c++': cc, clang: cc, 'clang++': cc, cmake, ctest, ninja, rustc, java, javac,
  ...JS_TOOLS, terraform, tofu: terraform, helm, kubectl,
  php, deno, composer, rake, bundle, gem, mix, elixir, sbt, ruby,
};

/**
 * Options that tell a script or test runner (the words npm, pnpm, yarn, tox pass on after `--`) to
 * load a module, read a config or work from another folder: jest, vitest, mocha, node --test, pytest.
 */
const FORWARDED_CODE: Record<string, string> = {
  '--require': 'a module to load', '-r': 'a module to load', '--import': 'a module to load', '--loader': 'a module to load',
  '--experimental-loader': 'a module to load', '--config': 'a config (code) to load', '-c': 'a config (code) to load',
  '--config-file': 'a config to load', '--rootDir': 'a folder to work from', '--roots': 'folders to work from', '--root': 'a folder to work from',
  '--dir': 'a folder to work from', '--cwd': 'a folder to work from', '--prefix': 'a folder to work from', '--setupFiles': 'modules to load',
  '--setupFilesAfterEnv': 'modules to load', '--globalSetup': 'a module to load', '--globalTeardown': 'a module to load',
  '--testEnvironment': 'a module to load', '--env': 'a module to load', '--environment': 'a module to load', '--reporter': 'a module to load',
  '--reporters': 'modules to load', '-R': 'a module to load', '--preset': 'a module to load', '--transform': 'a module to load',
  '--resolver': 'a module to load', '--runner': 'a module to load', '--testRunner': 'a module to load', '--testSequencer': 'a module to load',
  '--snapshotResolver': 'a module to load', '--watchPlugins': 'modules to load', '--plugin': 'a module to load', '--plugins': 'modules to load',
  '--file': 'a module to load', '--ui': 'a module to load', '--node-option': 'node options', '--node-options': 'node options',
  '--exec': 'a program to run', '--shell': 'a program to run', '--script-shell': 'a program to run', '--inspect': 'a debugger port',
  '--inspect-brk': 'a debugger port', '-p': 'a plugin to load', '-o': 'an ini override', '--override-ini': 'an ini override',
  '--rootdir': 'a folder to work from', '--confcutdir': 'a folder to work from', '--pdbcls': 'a class to call', '--test-reporter': 'a module to load',
  '--globals': 'modules to load', '--workspace': 'a folder to work from', '--project': 'a folder to work from',
};

export type ItemKind = 'code' | 'inert' | 'other' | 'positional' | 'forwarded' | 'unknown';

export interface Item {
  /** Index of the item's first word in the arguments, and of the word after it. */
  at: number;
  end: number;
  kind: ItemKind;
  /** The option or word, for reasons. */
  name: string;
  why?: string;
  /** A code option whose value is a file the program reads (OptionRule.reads). */
  reads?: boolean;
}

function envName(name: string, table: Record<string, string>): string | undefined {
  if (Object.hasOwn(table, name)) return table[name];
  for (const [k, why] of Object.entries(table)) {
    if (k.endsWith('*') && name.startsWith(k.slice(0, -1))) return why;
  }
  return undefined;
}

/** Why an environment variable set for a command makes a build tool load or run other code, or undefined. */
export function codeEnvReason(name: string): string | undefined {
  for (const [prog, f] of Object.entries(FAMILY_ENV)) {
    const why = envName(name, f);
    if (why) return `${name} (${prog}): ${why}`;
  }
  return undefined;
}

const FAMILY_ENV: Record<string, Record<string, string>> = Object.fromEntries(
  [...new Set(Object.values(CODE_OPTION_FAMILIES))].filter((f) => f.env).map((f) => [f.label, f.env as Record<string, string>]),
);

/** `VAR=value`, `VAR+=v`, `VAR:=v`, `VAR::=v`, `VAR?=v`, `VAR!=v` (make's forms on its command line). */
const MAKE_ASSIGN = /^([^=:+?!\s$]+)\s*(?::{1,3}|\+|\?|!)?=/;

function forwardedItem(w: OptWord, i: number, f: ProgramFamily, judge: boolean): Item {
  const name = w.t.split('=')[0] ?? w.t;
  const why = Object.hasOwn(FORWARDED_CODE, name) ? FORWARDED_CODE[name] : undefined;
  if (why && (!judge || f.forwardedCode)) return { at: i, end: i + 1, kind: 'code', name, why: `passes ${name} (${why}) to the script it runs` };
  const value = w.t.includes('=') ? w.t.slice(w.t.indexOf('=') + 1) : w.t;
  if (!w.known || outsideProject(value)) return { at: i, end: i + 1, kind: 'other', name: w.t };
  return { at: i, end: i + 1, kind: 'forwarded', name: w.t };
}

/**
 * getopt_long (make), optparse (pip), argparse (tox), commons-cli (mvn) and nopt (npm) take a
 * unique start of a long option for the option: `--dir=/tmp/x` is make's `--directory`. A long
 * option the table does not know that starts one of the code options is judged as that option.
 */
function abbreviated(f: ProgramFamily, opt: string): string {
  if (!opt.startsWith('--') || opt.length < 4 || known(f, opt)) return opt;
  return Object.keys(f.code).find((k) => k.startsWith(opt)) ?? opt;
}

/** A config key as the option it sets: `script-shell`, `script_shell` and `scriptShell` are `--script-shell`. */
function configOption(key: string): string {
  return '--' + key.replace(/_/g, '-').replace(/[A-Z]/g, (m) => '-' + m.toLowerCase());
}

function optionItem(f: ProgramFamily, opt: string, value: string | undefined, at: number, end: number): Item {
  const rule = Object.hasOwn(f.code, opt) ? f.code[opt] : undefined;
  if (rule && (!rule.when || value === undefined || rule.when(value))) return { at, end, kind: 'code', name: opt, why: rule.why, ...(rule.reads ? { reads: true } : {}) };
  if (rule || f.inert.includes(opt) || f.inertValued.includes(opt)) return { at, end, kind: 'inert', name: opt };
  return { at, end, kind: 'other', name: opt };
}

const takesValue = (f: ProgramFamily, opt: string): boolean =>
  (Object.hasOwn(f.code, opt) && f.code[opt]?.value === true) || f.inertValued.includes(opt) || (f.otherValued?.includes(opt) ?? false);

const known = (f: ProgramFamily, opt: string): boolean => Object.hasOwn(f.code, opt) || f.inert.includes(opt) || takesValue(f, opt) || Object.hasOwn(f.optional ?? {}, opt);

/**
 * The value of option `opt` at word `i`: glued (`rest`, after `=` or the letter) or the next word.
 * A value the judge cannot read is undefined: a conditional option is then taken at its worst.
 */
function valueOf(f: ProgramFamily, opt: string, args: readonly OptWord[], i: number, rest: string | undefined): { value: string | undefined; end: number } {
  const w = args[i] as OptWord;
  if (rest !== undefined) return { value: w.known ? rest : undefined, end: i + 1 };
  const pattern = f.optional?.[opt];
  const next = args[i + 1];
  if (pattern) return next?.known && pattern.test(next.t) ? { value: next.t, end: i + 2 } : { value: '', end: i + 1 };
  if (!takesValue(f, opt) || !next) return { value: undefined, end: i + 1 };
  return { value: next.known ? next.t : undefined, end: i + 2 };
}

/**
 * Does a word the judge cannot read in full still show which option it is? `--script-shell=$X`
 * and `-j$(nproc)` do (what is computed is the value); `$OPTS`, `--$X` and `-q$X` (more letters,
 * any of them an option) do not.
 */
function visibleName(f: ProgramFamily, t: string): boolean {
  const dyn = t.search(/[$`]/);
  const head = dyn < 0 ? t : t.slice(0, dyn);
  if (!head.startsWith('-')) return false;
  const eq = head.indexOf('=');
  if (eq > 1) return true;
  if (head.startsWith('--') || head.length < 2) return false;
  const last = '-' + head[head.length - 1];
  return takesValue(f, last) || Object.hasOwn(f.optional ?? {}, last);
}

/**
 * Reads a program's arguments against its family's table: each option (with its value), `VAR=`
 * argument and positional word, in order. `judge`: read for the judge (forwarded words count
 * as code only where the family says its scripts are test runners) rather than for a grant.
 */
export function readOptions(f: ProgramFamily, args: readonly OptWord[], judge = true): Item[] {
  const out: Item[] = [];
  let forwarding = false;
  let positionalOnly = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] as OptWord;
    const t = w.t;
    if (forwarding) {
      out.push(forwardedItem(w, i, f, judge));
      continue;
    }
    if (!w.known && !positionalOnly && /^[-$`+]/.test(t) && !visibleName(f, t)) {
      // `npm test $OPTS`: a word chosen at run time could be any option above.
      out.push({ at: i, end: i + 1, kind: 'unknown', name: t });
      continue;
    }
    if (t === '--' && !positionalOnly) {
      out.push({ at: i, end: i + 1, kind: f.forwards ? 'forwarded' : 'inert', name: t });
      if (f.forwards) forwarding = true;
      else positionalOnly = true;
      continue;
    }
    const sw = f.switchWord?.(t);
    if (sw && !positionalOnly) {
      out.push({ at: i, end: i + 1, kind: 'code', name: t.split(/[:=]/)[0] ?? t, why: sw });
      continue;
    }
    if (i === 0 && f.lead) {
      const why = f.lead(t);
      if (why) {
        out.push({ at: i, end: i + 1, kind: 'code', name: t, why });
        continue;
      }
    }
    if (positionalOnly || t.length < 2 || t[0] !== '-') {
      const assign = f.argVars ? MAKE_ASSIGN.exec(t) : null;
      if (assign) {
        const name = assign[1] as string;
        const why = Object.hasOwn(f.argVars as object, name) ? (f.argVars as Record<string, string>)[name] : undefined;
        out.push(why ? { at: i, end: i + 1, kind: 'code', name, why } : { at: i, end: i + 1, kind: 'other', name: t });
        continue;
      }
      const why = f.positional?.(t);
      out.push({ at: i, end: i + 1, kind: why ? 'code' : !f.positionalInert || !w.known || outsideProject(t) ? 'other' : 'positional', name: t, ...(why ? { why } : {}) });
      if (f.untilPositional) forwarding = true;
      continue;
    }
    // A long option, or (go, mvn) a whole single-dash one: `--opt=v`, `--opt v`, `-exec v`, `-gs file`.
    const eq = t.indexOf('=');
    const head = eq > 0 ? t.slice(0, eq) : t;
    let long: string | null = null;
    if (f.configPrefix && head.startsWith(f.configPrefix) && head.length > f.configPrefix.length) long = configOption(head.slice(f.configPrefix.length));
    else if (t.startsWith('--')) long = f.singleDashLong && known(f, head.slice(1)) ? head.slice(1) : abbreviated(f, head);
    else if (f.singleDashLong && head.length > 2) {
      if (known(f, head)) long = head;
      // Go and maven do not bundle letters: an unknown word is one unknown option, unless it is a
      // letter with its value glued on (`-Dkey=v`, `-T4`).
      else if (!takesValue(f, head.slice(0, 2))) {
        out.push({ at: i, end: i + 1, kind: 'other', name: head });
        continue;
      }
    }
    if (long !== null) {
      const { value, end } = valueOf(f, long, args, i, eq > 0 ? t.slice(eq + 1) : undefined);
      out.push(optionItem(f, long, value, i, end));
      i = end - 1;
      if (f.endsOptions?.includes(long)) forwarding = true;
      continue;
    }
    // Short options, bundled and glued: `-qx`, `-pno:cacheprovider`, `-j4`, `-Dkey=v`, `-C dir`.
    for (let j = 1; j < t.length; j++) {
      const opt = '-' + t[j];
      // `-w=../x`: some parsers (nopt) take what follows `=` as the value.
      const rest = t.slice(t[j + 1] === '=' ? j + 2 : j + 1);
      const pattern = f.optional?.[opt];
      if (pattern && (!rest || pattern.test(rest) || !w.known)) {
        const { end } = valueOf(f, opt, args, i, rest || undefined);
        out.push({ at: i, end, kind: 'inert', name: opt });
        i = end - 1;
        break;
      }
      if (takesValue(f, opt)) {
        const { value, end } = valueOf(f, opt, args, i, rest || undefined);
        out.push(optionItem(f, opt, value, i, end));
        i = end - 1;
        if (f.endsOptions?.includes(opt)) forwarding = true;
        break;
      }
      out.push(optionItem(f, opt, undefined, i, i + 1));
    }
  }
  return out;
}

/** The family of a program as the judge names it (`npm`, `python3`, `gmake`), if it has one. */
export function familyOf(program: string): ProgramFamily | undefined {
  // Asked for every command: the plain name first, the spelled-out forms only when it misses.
  if (Object.hasOwn(CODE_OPTION_FAMILIES, program)) return CODE_OPTION_FAMILIES[program];
  // `python3.12`, and a compiler installed under its version (`gcc-12`, `clang++-17`, `x86_64-linux-gnu-gcc-12`).
  const name = /^(python[23]?|pypy3?)(\.?\d+)*$/.test(program)
    ? program.replace(/[\d.]+$/, '') || program
    : program.replace(/^(?:[\w]+-)*?((?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+))(?:-\d+(?:\.\d+)*)?$/, '$1');
  return Object.hasOwn(CODE_OPTION_FAMILIES, name) ? CODE_OPTION_FAMILIES[name] : undefined;
}

/** The judge's reasons: each option, argument or word of `args` that names code, a config or a folder. */
export function codeOptionReasons(program: string, args: readonly OptWord[]): string[] {
  return codeOptionFindings(program, args).reasons;
}

/** Where the value of an option that names a file the program reads is: the word, and where in it the value starts. */
export interface ReadValue {
  index: number;
  from: number;
}

/**
 * codeOptionReasons, and the values of the options whose file the program reads into itself
 * (`node --env-file=~/.aws/credentials`): the judge reads each as that file's read too.
 */
export function codeOptionFindings(program: string, args: readonly OptWord[]): { reasons: string[]; reads: ReadValue[] } {
  const f = familyOf(program);
  if (!f) return { reasons: [], reads: [] };
  const reasons: string[] = [];
  const reads: ReadValue[] = [];
  const items = readOptions(f, args);
  for (const it of items) {
    if (it.kind === 'code') {
      reasons.push(`${f.label} ${it.name} ${it.why ?? 'names code'}`);
      if (it.reads) {
        // `--opt value` (two words) or `--opt=value` (one).
        if (it.end === it.at + 2) reads.push({ index: it.at + 1, from: 0 });
        else {
          const eq = (args[it.at]?.t ?? '').indexOf('=');
          if (eq > 0) reads.push({ index: it.at, from: eq + 1 });
        }
      }
    } else if (it.kind === 'unknown') reasons.push(`${f.label}: an argument built at run time could be an option that runs code`);
  }
  if (f.configWrite) {
    const pos = items.filter((it) => (it.kind === 'positional' || it.kind === 'other') && it.end === it.at + 1 && !it.name.startsWith('-')).map((it) => args[it.at]?.t ?? '');
    const why = f.configWrite(pos, args);
    if (why) reasons.push(`${f.label} ${why}`);
  }
  return { reasons, reads };
}

export type ExtraCheck = { ok: true } | { ok: false; reason: string };

/**
 * Does a command-prefix grant of the first `granted` words cover the whole command `words`
 * (literal words: the grant checked it is one plain command)? Only when every word after the
 * prefix is an inert option, a test name or path inside the project, or a word passed on to the
 * script that names no module, config or folder. Programs without a family keep plain prefix
 * matching (git's own handling is elsewhere).
 */
export function extraWordsInert(words: readonly string[], granted: number): ExtraCheck {
  const program = (words[0] ?? '').slice((words[0] ?? '').lastIndexOf('/') + 1);
  let f = familyOf(program);
  if (!f || words.length <= granted) return { ok: true };
  let start = 1;
  // `python3 -m pytest …`: the module's options, not python's.
  if (f === python) {
    for (let i = 1; i < words.length; i++) {
      const w = words[i] as string;
      const glued = /^-[A-Za-z]*m(.+)$/.exec(w);
      const mod = glued ? glued[1] : /^-[A-Za-z]*m$/.test(w) ? words[i + 1] : undefined;
      if (mod !== undefined) {
        const inner = familyOf(mod);
        if (inner) {
          f = inner;
          start = glued ? i + 1 : i + 2;
        }
        break;
      }
      if (!w.startsWith('-') || /^-[A-Za-z]*c/.test(w)) break;
      if (/^-[WXQ]$/.test(w)) i++;
    }
    // The words up to the module are python's own: past them, a grant must reach the module.
    if (f !== python && granted < start) return { ok: false, reason: 'the grant ends before the module python runs' };
  }
  const items = readOptions(f, words.slice(start).map((t) => ({ t, known: true })), false);
  for (const it of items) {
    if (it.end + start <= granted) continue;
    if (it.kind === 'inert' || it.kind === 'positional' || it.kind === 'forwarded') continue;
    const what = it.kind === 'code' ? `${it.name} ${it.why ?? 'names code'}` : `${it.name} is not known to be inert`;
    return { ok: false, reason: `${f.label} ${what}; a prefix grant covers only the command as granted and inert options` };
  }
  return { ok: true };
}
