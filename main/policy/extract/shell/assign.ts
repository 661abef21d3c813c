// Variables the shell sets: plain assignments (`x=…`), declaration builtins (`declare`, `export`,
// `local`, `typeset`, `readonly`), and the builtins that assign a variable (`printf -v`, `read`,
// `mapfile`, `getopts`, `let`, `unset`, `shift`, `set --`). The judge keeps the values it knows and
// drops the ones it does not: a variable left with an old value would be judged wrongly
// (`x=/tmp; printf -v x %s ~/.ssh; cat $x/id_rsa` reads the key). Security-sensitive.
import { GLOB_DOT } from '../globs.js';
import { expandHome } from '../paths.js';
import { codeVarReason, fileVar, shellMeaningVar } from './env-vars.js';
import { addGlobOpts } from './glob-options.js';
import { nested } from './script.js';
import { type Ctx, type Env, type EW, type Feed, forget, MAX_DEPTH } from './types.js';
import { evalWord } from './words.js';

/** `NAME` or `NAME[SUBSCRIPT]`. */
const NAME_RE = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$/s;

/**
 * `name` (maybe `NAME[SUB]`) set to `v`, or to a value the judge does not know (`v` null or not
 * known). An element other than 0 leaves `$NAME` as it was; the rest of the shell's own meanings
 * (HOME, BASH_CMDS, …) are env-vars.ts's.
 */
export function setVar(name: string, v: EW | null, env: Env, c: Ctx): void {
  const m = NAME_RE.exec(name);
  if (!m) return;
  const base = m[1] as string;
  const sub = m[2];
  // bash turns dotglob on when GLOBIGNORE is set (`GLOBIGNORE=x; cat ~/*/id_rsa`).
  if (base === 'GLOBIGNORE') addGlobOpts(c, GLOB_DOT);
  const kind = env.opaque?.get(base);
  if (kind === 'nameref') c.col.evasive('an assignment through a nameref (declare -n) sets another variable');
  if (kind !== undefined) {
    forget(env, base);
    return;
  }
  if (sub !== undefined && sub !== '0') {
    // `a[3]=x` leaves `$a` (element 0) alone; `a[$i]=x` or `a[key]=x` may be element 0.
    if (!/^[1-9][0-9]*$/.test(sub.trim())) forget(env, base);
    return;
  }
  if (v?.known) env.vars.set(base, v.tilde ? expandHome(v.t, c.home) : v.t);
  else forget(env, base);
}

/** A builtin assigns the variable its argument names; a name computed at run time could be any. */
function assignNamed(a: EW | undefined, v: EW | null, env: Env, c: Ctx, what: string): void {
  if (!a) return;
  if (!a.known) {
    c.col.evasive(`${what} assigns a variable whose name is computed`);
    return;
  }
  setVar(a.t, v, env, c);
}

const known = (t: string): EW => ({ t, known: true, tilde: false, subst: false, indirect: false, vars: false });

/** An assignment as a declaration builtin sees it: `x=value` (grammar) or the word `x=value`. */
export interface DeclAssign {
  name: string;
  value: EW;
}

const DECL_NAME_RE = /^([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)(\+?)=/s;

/**
 * `declare`/`typeset`/`local`/`export`/`readonly` [-flags] [NAME[=VALUE]]…: a known value is
 * bound like a plain assignment; a nameref (`-n`) or a variable whose assigned values an attribute
 * transforms (`-i`, `-l`, `-u`, `-c`) is unknown from then on; `local NAME` starts empty.
 * `assigns`: the ones the grammar split off (`declare x=~/a`), evaluated.
 */
export function declaration(args: EW[], assigns: readonly DeclAssign[] | undefined, env: Env, c: Ctx, name: string): void {
  let flags = '';
  const items: Array<{ name: string; value: EW | null; bare: boolean }> = [];
  let options = true;
  for (const a of args) {
    const t = a.t;
    if (options && a.known && t === '--') {
      options = false;
      continue;
    }
    if (options && a.known && /^[-+][A-Za-z]+$/.test(t)) {
      // `+x` removes an attribute: nothing the judge keeps changes with it.
      if (t[0] === '-') flags += t.slice(1);
      continue;
    }
    if (!a.known) {
      // `declare "$v"`, `export $kv`: which variable gets which value is out of the judge's sight.
      c.col.evasive(`${name} of a variable named at run time`);
      continue;
    }
    const m = DECL_NAME_RE.exec(t);
    if (!m) {
      items.push({ name: t, value: null, bare: true });
      continue;
    }
    const rest = t.slice(m[0].length);
    const base = (m[1] as string).replace(/\[.*$/s, '');
    const why = codeVarReason(base);
    if (why) c.col.evasive(why);
    // `export PGPASSFILE=~/.ssh/id_rsa`: every later command reads the file it names.
    if (/[xX]/.test(flags) || name === 'export') fileVar(base, { ...a, t: rest, tilde: rest.charCodeAt(0) === 126 }, env, c);
    shellMeaningVar(m[1] as string, { known: true, t: rest, tilde: rest.charCodeAt(0) === 126 }, env, c);
    // `x+=…` appends to a value the judge may not keep; `-a 'x=(a b)'` is an array.
    const value = m[2] || (/[aA]/.test(flags) && rest.startsWith('(')) ? null : { ...a, t: rest, tilde: rest.charCodeAt(0) === 126 };
    items.push({ name: m[1] as string, value, bare: false });
  }
  // Functions (`-f`, `-F`) and printing (`-p`) set no variable.
  if (/[fFp]/.test(flags)) return;
  for (const a of assigns ?? []) items.push({ name: a.name, value: a.value, bare: false });
  const nameref = flags.includes('n');
  const transforms = /[iluc]/.test(flags);
  for (const it of items) {
    const base = NAME_RE.exec(it.name)?.[1];
    if (!base) continue;
    if (nameref) {
      // `declare -n x=HOME`: $x is HOME's value, and assigning x assigns HOME.
      if (env.opaque?.get(base) === 'nameref' && !it.bare) c.col.evasive('an assignment through a nameref (declare -n) sets another variable');
      (env.opaque ??= new Map()).set(base, 'nameref');
      forget(env, base);
      continue;
    }
    if (transforms && env.opaque?.get(base) !== 'nameref') (env.opaque ??= new Map()).set(base, 'attr');
    // `local` outside a function is refused (the variable keeps its value), and a second `local x`
    // in one keeps it too; the judge does not know which function it is in: unknown either way.
    if (name === 'local') {
      forget(env, base);
      continue;
    }
    // `declare x`, `export x` keep the value.
    if (it.bare) continue;
    setVar(it.name, it.value, env, c);
  }
}

/** `printf -v NAME FORMAT ARGS…`: NAME gets what printf would print, when the judge can tell. */
export function printfVar(args: EW[], env: Env, c: Ctx): void {
  const a0 = args[0];
  if (!a0?.known || !a0.t.startsWith('-v')) return;
  let target: EW | undefined;
  let i: number;
  if (a0.t === '-v') {
    target = args[1];
    i = 2;
  } else {
    target = { ...a0, t: a0.t.slice(2) };
    i = 1;
  }
  if (args[i]?.t === '--') i++;
  const fmt = args[i];
  const vals = args.slice(i + 1);
  let value: EW | null = null;
  // Only `%s` and `%%` in a format without escapes: anything else is left to printf.
  if (fmt?.known && !fmt.t.includes('\\') && !/%(?![s%])/.test(fmt.t) && vals.every((v) => v.known)) {
    const n = (fmt.t.match(/%s/g) ?? []).length;
    const texts = vals.map((v) => (v.tilde ? expandHome(v.t, c.home) : v.t));
    let out = '';
    let k = 0;
    do {
      out += fmt.t.replace(/%([s%])/g, (_m, ch: string) => (ch === '%' ? '%' : (texts[k++] ?? '')));
    } while (n > 0 && k < texts.length);
    value = known(out);
  }
  assignNamed(target, value, env, c, 'printf -v');
}

/** `read [-r] [-a ARRAY] [NAME…]`: a here-string's or literal here-document's line when it is the input, else unknown. */
export function readVars(args: EW[], env: Env, c: Ctx, feed: Feed): void {
  const names: EW[] = [];
  let raw = false;
  let plain = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.known && a.t === '--') {
      names.push(...args.slice(i + 1));
      break;
    }
    if (a.known && /^-[A-Za-z]/.test(a.t) && !names.length) {
      for (let j = 1; j < a.t.length; j++) {
        const ch = a.t.charAt(j);
        if (ch === 'r') raw = true;
        else if (ch === 's' || ch === 'e') continue;
        else if ('adinNptu'.includes(ch)) {
          plain = false;
          const v = j + 1 < a.t.length ? { ...a, t: a.t.slice(j + 1) } : args[++i];
          if (ch === 'a') assignNamed(v, null, env, c, 'read -a');
          break;
        }
      }
      continue;
    }
    names.push(a);
  }
  if (!names.length) names.push(known('REPLY'));
  let line: string | null = null;
  if (plain) {
    for (const r of feed.redirects) {
      if (r.op === '<<<' && r.target) {
        const w = evalWord(r.target, env, c);
        line = w.known ? (w.tilde ? expandHome(w.t, c.home) : w.t) : null;
      } else if ((r.op === '<<' || r.op === '<<-') && r.bodyLiteral && r.body !== undefined) line = r.body;
      else if (r.op === '<' || r.op === '<&' || r.op === '<>') line = null;
    }
    if (feed.upstream) line = null;
  }
  if (line !== null) line = line.split('\n')[0] as string;
  if (line !== null && !raw && line.includes('\\')) line = null;
  // Split as the default IFS splits: one field a name, the rest of the line to the last.
  const fields = line === null ? null : line.replace(/^[ \t]+|[ \t]+$/g, '');
  let rest = fields;
  names.forEach((n, k) => {
    let v: EW | null = null;
    if (rest !== null) {
      if (k === names.length - 1) {
        v = known(rest);
        rest = '';
      } else {
        const m = /^(\S*)[ \t]*(.*)$/s.exec(rest);
        v = known(m?.[1] ?? '');
        rest = m?.[2] ?? '';
      }
    }
    assignNamed(n, v, env, c, 'read');
  });
}

/** `mapfile`/`readarray [-t] [-C CALLBACK] [ARRAY]`: the array (MAPFILE) is unknown; CALLBACK is shell code it runs. */
export function mapfileVars(args: EW[], env: Env, c: Ctx): void {
  let array: EW | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.known && /^-[A-Za-z]/.test(a.t)) {
      for (let j = 1; j < a.t.length; j++) {
        const ch = a.t.charAt(j);
        if (!'dnOsuCc'.includes(ch)) continue;
        const v = j + 1 < a.t.length ? { ...a, t: a.t.slice(j + 1) } : args[++i];
        if (ch === 'C') {
          c.col.evasive('mapfile -C runs shell code for the lines it reads');
          if (v?.known && env.depth < MAX_DEPTH) nested(v.t, env, c);
        }
        break;
      }
      continue;
    }
    array = a;
    break;
  }
  assignNamed(array ?? known('MAPFILE'), null, env, c, 'mapfile');
}

/** `getopts OPTSTRING NAME [ARG…]`: NAME, OPTARG and OPTIND change. */
export function getoptsVars(args: EW[], env: Env, c: Ctx): void {
  assignNamed(args[1], null, env, c, 'getopts');
  forget(env, 'OPTARG');
  forget(env, 'OPTIND');
}

/** `let EXPR…` (and `((…))` text): every variable an expression assigns is a number the judge does not compute. */
export function letVars(args: EW[], env: Env, c: Ctx): void {
  for (const a of args) {
    if (!a.known) {
      c.col.evasive('let evaluates a computed expression');
      continue;
    }
    for (const m of a.t.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)/g)) {
      setVar((m[1] ?? m[2] ?? m[3]) as string, null, env, c);
    }
  }
}

/** `unset [-v|-n] NAME…`: empty from then on (`unset -f` removes functions). */
export function unsetVars(args: EW[], env: Env, c: Ctx): void {
  let fn = false;
  for (const a of args) {
    if (a.known && /^-[fvn]+$/.test(a.t)) {
      fn = a.t.includes('f');
      continue;
    }
    if (fn) continue;
    if (!a.known) {
      c.col.evasive('unset of a variable named at run time');
      continue;
    }
    const m = NAME_RE.exec(a.t);
    if (!m) continue;
    const base = m[1] as string;
    const kind = env.opaque?.get(base);
    if (kind === 'nameref') c.col.evasive('unset through a nameref (declare -n) unsets another variable');
    if (m[2] !== undefined || kind !== undefined) forget(env, base);
    else env.vars.set(base, '');
    env.opaque?.delete(base);
  }
}

/** Positional parameters ($1…, $@, $*) as the judge keeps them (interpreters.ts `sh -c CODE _ ARG…`). */
export function setPositional(values: EW[] | null, env: Env, c: Ctx): void {
  for (const k of [...env.vars.keys()]) if (/^[1-9][0-9]*$/.test(k) || k === '@' || k === '*' || k === '#') env.vars.delete(k);
  // Unknown from here on (a word the judge cannot evaluate may be any number of them).
  if (values === null) return;
  values.forEach((v, k) => {
    if (v.known) env.vars.set(String(k + 1), v.tilde ? expandHome(v.t, c.home) : v.t);
  });
  const only = values.length === 1 ? values[0] : undefined;
  if (only?.known) {
    const t = only.tilde ? expandHome(only.t, c.home) : only.t;
    env.vars.set('@', t);
    env.vars.set('*', t);
  }
}

/** `set [options] [--] ARG…`: the ARGs are the new positional parameters. */
export function setBuiltin(args: EW[], env: Env, c: Ctx): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    if (!a.known) return setPositional(null, env, c);
    if (a.t === '--' || a.t === '-') return setPositional(args.slice(i + 1), env, c);
    if (/^[-+]o$/.test(a.t)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(a.t)) continue;
    return setPositional(args.slice(i), env, c);
  }
}

/** `shift [N]`: $N+1 becomes $1. */
export function shiftBuiltin(args: EW[], env: Env, c: Ctx): void {
  const a = args[0];
  const n = a === undefined ? 1 : a.known && /^[0-9]+$/.test(a.t) ? Number(a.t) : -1;
  if (n === 0) return;
  const old = new Map<number, string>();
  let max = 0;
  for (const [k, v] of env.vars) {
    if (!/^[1-9][0-9]*$/.test(k)) continue;
    old.set(Number(k), v);
    max = Math.max(max, Number(k));
  }
  if (n < 0) {
    if (max > 0) setPositional(null, env, c);
    return;
  }
  const values: EW[] = [];
  for (let k = n + 1; k <= max; k++) {
    const v = old.get(k);
    values.push(v === undefined ? { ...known(''), known: false } : known(v));
  }
  setPositional(values, env, c);
}
