// Walks a parsed script: pipelines, stages, substitutions, assignments, aliases, and each simple
// command handed to the program table (Ctx.programs). Nested shell code goes back through here.
import { ExtractionDeadline } from '../collector.js';
import { expandHome, normalisePath } from '../paths.js';
import { mentionsGatehouse, packagePrograms, signalsGatehouse } from '../self-cli.js';
import type { Script, SimpleCommand, Stage, Word } from '../shell-ir.js';
import { commandName, foldConfusables, INTERPRETERS, SHELLS, VERSIONED } from './command-name.js';
import { setPositional, setVar } from './assign.js';
import { codeOptions, codeVars } from './env-vars.js';
import { pathOf } from './path-args.js';
import { printedText, redirects } from './redirects.js';
import { type Ctx, type Env, type EW, type Feed, forget, literalEW, MAX_DEPTH } from './types.js';
import { unknownProgram } from './unknown-program.js';
import { evalWord, expandWords } from './words.js';

/**
 * `group`: the script is the body of a `{ …; }` or other compound the caller goes on after, so a
 * folder changed by a chain at its end is settled here; at the top nothing follows the last chain.
 */
export function runScript(s: Script, env: Env, c: Ctx, group = false): void {
  if (s.limit) c.col.evasive(`${s.limit}: Gatehouse analysed it only in part`);
  else if (s.error) c.col.evasive('the shell grammar could not parse part of the command');
  if (s.nul) c.col.evasive('the command contains NUL characters, which no shell runs as written (Gatehouse analysed it with them left out)');
  // The folder before a run of pipelines that may not run (`mkdir b && cd b && make`): the rest
  // of the chain runs in the new one, and a command after the chain in either (settleFolder).
  let folderBefore: string | null = null;
  for (const [k, p] of s.pipelines.entries()) {
    if (!p.maybe && folderBefore !== null) {
      // What follows runs in either folder: judged in both (`[ -d x ] && cd x; ls`), a few times
      // per call; past that, unsure.
      if (env.cwd !== folderBefore && (c.forks ?? 0) < MAX_FOLDER_FORKS) {
        c.forks = (c.forks ?? 0) + 1;
        runScript({ pipelines: s.pipelines.slice(k), error: false }, { ...subshellOf(env), cwd: folderBefore }, c, group);
      } else settleFolder(folderBefore, env, c);
      folderBefore = null;
    }
    if (p.maybe) folderBefore ??= env.cwd;
    // One array grows as the stages go by (a copy per stage was quadratic in a long pipeline);
    // each stage sees the stages before it, and nothing keeps the array after its call.
    const upstream: Stage[] = [];
    // Every stage of a pipeline of several runs in a subshell: what one sets is not seen by the
    // next or after it (`x=/tmp | cat $x/id_rsa` reads the x set before).
    const subshells = p.stages.length > 1;
    const before = p.maybe && !subshells ? snapshot(env) : null;
    for (const [i, st] of p.stages.entries()) {
      // With lastpipe the last stage runs in the shell itself (bash -c has no job control), when
      // the option is on where it runs: either way, what it changes holds or not (settleVars).
      const inShell = subshells && c.lastpipe === true && i === p.stages.length - 1;
      const lastBefore = inShell ? snapshot(env) : null;
      const here = subshells && !inShell ? subshellOf(env) : env;
      const group = !subshells && st.kind === 'group' && (st.maybe || st.subshell) ? snapshot(env) : null;
      stage(st, here, c, upstream.length > 0 ? upstream : null);
      // A loop's next pass sees what the one before set: judged again with that unknown.
      if (group && st.kind === 'group' && st.loop && changed(group, env)) {
        settleVars(group, env);
        stage(st, here, c, upstream.length > 0 ? upstream : null);
      }
      if (group && st.kind === 'group' && st.subshell) restore(group, env);
      else if (group) {
        settleVars(group, env);
        settleFolder(group.cwd, env, c);
      }
      // Defined now (its body, judged above as one that may not run, is what a later call runs).
      if (st.kind === 'group' && st.fn !== undefined) (here.functions ??= new Map<string, Script | null>()).set(st.fn, st.body);
      if (lastBefore) {
        settleVars(lastBefore, env);
        settleFolder(lastBefore.cwd, env, c);
      }
      upstream.push(st);
    }
    if (before) settleVars(before, env);
  }
  if (group && folderBefore !== null) settleFolder(folderBefore, env, c);
}

/** How many times a call's script is judged again in the folder a chain may not have changed to. */
const MAX_FOLDER_FORKS = 4;

/** What a subshell starts with: a copy of the shell's variables and folder. */
const subshellOf = (env: Env): Env => ({ ...env, vars: new Map(env.vars), ...(env.opaque ? { opaque: new Map(env.opaque) } : {}), ...(env.functions ? { functions: new Map(env.functions) } : {}) });

interface Snapshot {
  vars: Map<string, string>;
  opaque: Map<string, 'nameref' | 'attr'> | undefined;
  functions: Map<string, Script | null> | undefined;
  cwd: string;
}

const snapshot = (env: Env): Snapshot => ({ vars: new Map(env.vars), opaque: env.opaque ? new Map(env.opaque) : undefined, functions: env.functions ? new Map(env.functions) : undefined, cwd: env.cwd });

/**
 * After commands that may not have run, or ran in a subshell (after `&&`/`||`, in an if/while/case
 * branch, a function's body, `… &`): a variable they changed holds either value, so it is unknown
 * from here on. Security-sensitive: applied in order, `x=~/.ssh; true || x=/tmp; cat $x/id_rsa`
 * was judged a read of /tmp/id_rsa while bash reads the key (a review ran it at full autonomy).
 */
function settleVars(before: Snapshot, env: Env): void {
  for (const [name, value] of env.vars) if (before.vars.get(name) !== value) forget(env, name);
  for (const name of before.vars.keys()) if (!env.vars.has(name)) forget(env, name);
  if (env.opaque) for (const [name, kind] of env.opaque) if (before.opaque?.get(name) !== kind) forget(env, name);
  // A function defined there may or may not be: calling it is unsure (null).
  if (env.functions) for (const [name, body] of env.functions) if (before.functions?.get(name) !== body) env.functions.set(name, null);
}

/** Whether commands since `before` changed a variable or the folder. */
function changed(before: Snapshot, env: Env): boolean {
  if (env.cwd !== before.cwd || env.vars.size !== before.vars.size) return true;
  for (const [name, value] of env.vars) if (before.vars.get(name) !== value) return true;
  return false;
}

/** A folder changed to by commands that may not have run: what follows runs in either, so the call is unsure. */
function settleFolder(before: string, env: Env, c: Ctx): void {
  if (env.cwd !== before) c.col.evasive('the working folder depends on commands that may not have run');
}

/** `( … )`: the shell's variables and folder as they were before it. */
function restore(before: Snapshot, env: Env): void {
  env.vars = before.vars;
  if (before.opaque) env.opaque = before.opaque;
  else delete env.opaque;
  if (before.functions) env.functions = before.functions;
  else delete env.functions;
  env.cwd = before.cwd;
}

function stage(st: Stage, env: Env, c: Ctx, upstream: Stage[] | null): void {
  if (st.kind === 'group') {
    // `done < <(find …)`: the substitution in a loop's redirection runs too.
    for (const r of st.redirects) if (r.target) substs(r.target, env, c);
    runScript(st.body, env, c, true);
    redirects(st.redirects, env, c, false);
    return;
  }
  simple(st, env, c, upstream);
}

/** `$(<FILE)` (bash reads FILE into the word; the grammar keeps no command for it). */
const SUBST_READ_RE = /\$\(\s*<\s*([^()\s;|&<>]+)\s*\)/g;

function substs(w: Word, env: Env, c: Ctx): void {
  if (w.substs.length && w.text.includes('$(')) {
    SUBST_READ_RE.lastIndex = 0;
    for (let m = SUBST_READ_RE.exec(w.text); m; m = SUBST_READ_RE.exec(w.text)) {
      const f = (m[1] as string).replace(/^["']|["']$/g, '');
      if (!f.includes('$')) pathOf(literalEW(f), env, c, 'read');
      else c.col.evasive('a path argument the judge cannot evaluate');
    }
  }
  for (const s of w.substs) {
    if (env.depth >= MAX_DEPTH) {
      c.col.evasive('shell nesting too deep to analyse');
      return;
    }
    // A substitution runs in a subshell: its `cd` and assignments do not leak out.
    // Functions too: a trap's code calls them in this shell, and a child bash has the exported ones.
  runScript(s, { cwd: env.cwd, vars: new Map(env.vars), depth: env.depth + 1, ...(env.opaque ? { opaque: env.opaque } : {}), ...(env.functions ? { functions: new Map(env.functions) } : {}) }, c);
  }
}

function simple(cmd: SimpleCommand, env: Env, c: Ctx, upstream: Stage[] | null): void {
  if (cmd.assigns.length) codeVars(cmd, env, c);
  for (const a of cmd.assigns) substs(a.value, env, c);
  for (const w of cmd.words) substs(w, env, c);
  for (const r of cmd.redirects) if (r.target) substs(r.target, env, c);
  if (!cmd.words.length) {
    // bash expands a leading `~` in an assignment: `p=~/.ssh; cat $p/id_rsa` reads ~/.ssh/id_rsa.
    for (const a of cmd.assigns) if (a.name) setVar(a.name, evalWord(a.value, env, c), env, c);
    redirects(cmd.redirects, env, c, false);
    return;
  }
  const words = expandWords(cmd.words, env, c);
  const name = commandName(words[0]?.t ?? '');
  redirects(cmd.redirects, env, c, SHELLS.has(name) || INTERPRETERS.has(name), printedText(name, words, cmd.redirects));
  // `declare x=~/.ssh`, `export x=…`: the grammar splits the assignments off the declaration
  // builtin; they bind the variable for the rest of the script, not for the command alone.
  const declared = cmd.assigns.length > 0 && DECLARATIONS.has(cmd.words[0]?.text ?? '');
  const assigns = !cmd.assigns.length ? {} : declared ? { declared: cmd.assigns.map((a) => ({ name: a.name, value: evalWord(a.value, env, c) })) } : { assigns: commandAssigns(cmd, env, c) };
  run(words, env, c, { upstream, redirects: cmd.redirects, ...assigns });
}

/** The builtins whose assignments the grammar splits off their words. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** The known values of the variables a command sets for itself alone. */
function commandAssigns(cmd: SimpleCommand, env: Env, c: Ctx): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of cmd.assigns) {
    const v = evalWord(a.value, env, c);
    if (a.name && v.known) out.set(a.name, v.tilde ? expandHome(v.t, c.home) : v.t);
  }
  return out;
}

export function nested(src: string, env: Env, c: Ctx): void {
  let s: Script;
  try {
    s = c.parse(src);
  } catch (err) {
    // The calling thread's deadline passing is not this code's fault: the whole call moves on.
    if (err instanceof ExtractionDeadline) throw err;
    c.col.evasive('nested shell code could not be parsed');
    return;
  }
  // Functions too: a trap's code calls them in this shell, and a child bash has the exported ones.
  runScript(s, { cwd: env.cwd, vars: new Map(env.vars), depth: env.depth + 1, ...(env.opaque ? { opaque: env.opaque } : {}), ...(env.functions ? { functions: new Map(env.functions) } : {}) }, c);
}

export function run(words: EW[], env: Env, c: Ctx, feed: Feed): void {
  const w0 = words[0];
  if (!w0) return;
  const col = c.col;
  col.op('execute');
  let name = '';
  if (!w0.known) col.evasive(w0.subst ? 'command substitution builds the command' : 'a variable is the command word');
  else {
    // Even a variable we could evaluate: `$cmd` as the command word hides what runs from a reader.
    if (w0.vars) col.evasive('a variable is the command word');
    name = commandName(w0.t);
  }
  if (w0.known && w0.t.includes('/')) {
    col.shellPath(w0.t, w0.tilde, env.cwd);
    runWritten(w0, env, c);
  }
  // eslint-disable-next-line no-control-regex -- the class is "not ASCII", which starts at \x00
  if (/[^\x00-\x7f]/.test(name)) {
    col.evasive('non-ASCII command name (a look-alike of another command?)');
    name = foldConfusables(name);
  }
  const args = words.slice(1);
  if (w0.known) programs(w0, name, args, env, c);
  // A function defined earlier runs its body here, in this shell, with the variables and folder
  // of this moment (`x=/tmp; f() { cat $x/id_rsa; }; x=~/.ssh; f` reads the key). Before an
  // alias of the same name: bash -c expands no alias, so the function is what runs.
  const fn = w0.known && !w0.vars ? env.functions?.get(w0.t) : undefined;
  if (fn === null) return col.evasive(`${w0.t} is a function that may or may not have been defined as it was last written`);
  const alias = fn === undefined && w0.known && !w0.vars ? env.aliases?.get(w0.t) : undefined;
  if (alias !== undefined) return runAlias(w0.t, alias, args, env, c, feed);
  if (fn !== undefined) {
    if (env.depth >= MAX_DEPTH) return col.evasive('functions call each other too deep to analyse');
    // Its arguments are its positional parameters while it runs (`f() { cat "$1"; }; f ~/.ssh/id_rsa`).
    const positional = [...env.vars].filter(([k]) => /^(?:[1-9][0-9]*|[@*#])$/.test(k));
    setPositional(args.some((a) => !a.known) ? null : args, env, c);
    env.depth++;
    try {
      runScript(fn, env, c, true);
    } finally {
      env.depth--;
      setPositional([], env, c);
      for (const [k, v] of positional) env.vars.set(k, v);
    }
    return;
  }
  // `time x=…` is an assignment in the shell (time is a keyword); its value is not followed.
  if (name === 'time') {
    const assigned = args.find((a) => !a.t.startsWith('-'));
    const m = assigned && /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/.exec(assigned.t);
    if (m) forget(env, m[1] as string);
  }
  name = VERSIONED.exec(name)?.[1] ?? name;
  if (name.startsWith('docker-credential-')) {
    // Credential helpers print registry passwords; the store they read is not named.
    col.op('read');
    col.path('~/.docker/config.json', env.cwd);
    col.evasive(`${name} hands out stored credentials`);
  }
  // own properties only: a command named `constructor` must not reach Object.prototype.
  const h = Object.hasOwn(c.programs, name) ? c.programs[name] : undefined;
  codeOptions(name, args, c, env);
  // Shells and interpreters are in the table too (programs/interpreters.ts).
  if (h) h(args, env, c, feed, name);
  else {
    // A program the judge does not know may be a wrapper that runs its arguments (`chronic
    // gatehouse url`, moreutils'): a word naming Gatehouse's own command line makes the call unsure.
    const self = args.find((a) => a.known && mentionsGatehouse(a.t));
    if (self) col.evasive(`${name || 'the command'} may start Gatehouse's own command line (${self.t})`);
    unknownProgram(args, env, c, false, name || 'the command');
  }
}

/**
 * What this command word starts, for the rule on Gatehouse's own CLI (self-cli.ts): the word as
 * written, its name with look-alike letters folded, and the package a runner fetches.
 */
function programs(w0: EW, name: string, args: EW[], env: Env, c: Ctx): void {
  c.col.program(w0.t, w0.tilde, env.cwd);
  if (name !== commandName(w0.t)) c.col.program(name, false, env.cwd);
  const words = args.map((a) => (a.known ? a.t : null));
  for (const p of packagePrograms(name, words)) c.col.program(p, p.startsWith('~/'), env.cwd);
  // `pkill -f 'gatehouse serve'`, `kill $(pgrep …)`: stopping the host leaves the agent unsupervised.
  const stops = signalsGatehouse(name, args);
  if (stops) c.col.evasive(stops);
}

/** Runs an alias defined earlier in the script: its body's words, then the call's arguments. */
function runAlias(name: string, body: string, args: EW[], env: Env, c: Ctx, feed: Feed): void {
  // bash does not expand an alias inside its own expansion (`alias ls='ls -la'`).
  const aliases = new Map(env.aliases);
  aliases.delete(name);
  const inner: Env = { ...env, aliases };
  let s: Script;
  try {
    s = c.parse(body);
  } catch (err) {
    if (err instanceof ExtractionDeadline) throw err;
    c.col.evasive('an alias whose body could not be parsed');
    return;
  }
  const st = s.pipelines.length === 1 && s.pipelines[0]?.stages.length === 1 ? s.pipelines[0].stages[0] : undefined;
  if (st && st.kind === 'cmd' && st.words.length && !st.redirects.length && !st.assigns.length && !s.error) {
    for (const w of st.words) substs(w, inner, c);
    run([...expandWords(st.words, inner, c), ...args], inner, c, feed);
    env.cwd = inner.cwd;
    return;
  }
  // A compound body (`alias x='cd ~; cat'`): judged as written, arguments after it.
  c.col.evasive('an alias with a compound body');
  if (env.depth < MAX_DEPTH) nested(body + ' ' + args.map((a) => shellQuoteWord(a.t)).join(' '), inner, c);
}

function shellQuoteWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A script this same command wrote with visible text (`echo 'cat ~/.ssh/id_rsa' > x.sh; sh x.sh`) is judged as what it holds. */
export function runWritten(script: EW, env: Env, c: Ctx): void {
  if (!c.written.size) return;
  const abs = normalisePath(script.tilde ? script.t : script.t.startsWith('~') ? './' + script.t : script.t, env.cwd, c.home);
  const text = c.written.get(abs);
  if (text === undefined) return;
  if (env.depth >= MAX_DEPTH) c.col.evasive('shell nesting too deep to analyse');
  else nested(text, env, c);
}

export function runRest(rest: EW[], env: Env, c: Ctx, feed: Feed): void {
  if (rest.length) run(rest, env, c, feed);
}
