// tree-sitter-bash through web-tree-sitter: the real grammar, so quoting, heredocs, substitutions
// and compound statements are parsed the way bash parses them instead of by hand-written guesses.
// Loading is async (WebAssembly); parsing after that is synchronous.
import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { escapeGlob, globPattern } from './globs.js';
import { VAR_MARK, type Group, type Redirect, type Script, type SimpleCommand, type Stage, type Word } from './shell-ir.js';
import { MAX_COMMANDS, MAX_HEREDOC_LENGTH, MAX_NESTING, MAX_PIPELINE_STAGES, MAX_WORDS_PER_COMMAND } from './limits.js';

let parser: Parser | null = null;
let loading: Promise<void> | null = null;

/**
 * The wasm files ship inside the npm packages; they are located through Node's resolver so that the
 * lookup works from the sources (vitest), from the esbuild bundle in out/main (packages stay
 * external) and from the CommonJS Electron bundle, where import.meta.url is undefined.
 */
function resolver(): NodeJS.Require {
  const url: unknown = import.meta.url;
  if (typeof url === 'string') return createRequire(url);
  // A cast: some packages' global typings declare a narrower `require` than Node's.
  if (typeof require === 'function') return require as unknown as NodeJS.Require;
  return createRequire(process.cwd() + '/');
}

export function loadGrammar(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= (async () => {
    const req = resolver();
    const runtimeWasm = req.resolve('web-tree-sitter/web-tree-sitter.wasm');
    // Each init instantiates a new WebAssembly runtime: after an abort (tree-sitter runs out of
    // memory and calls abort(), which poisons its runtime for good) this is how parsing recovers.
    await Parser.init({ locateFile: () => runtimeWasm });
    const lang = await Language.load(req.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const p = new Parser();
    p.setLanguage(lang);
    // No warm-up parse here: the first parse compiles much of the grammar's WebAssembly (≈ 45 ms,
    // so a fresh host's first shell call or two are judged in the worker), but a parse at load set
    // V8 compiling the grammar in the background, which every process that loads it (each CLI
    // command, each host) then waited for at exit: `plugin enable` took a second longer.
    parser = p;
  })().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

export function grammarReady(): boolean {
  return parser !== null;
}

/**
 * Drops the parser after a failure, so that the next loadGrammar() builds a fresh runtime and
 * parser instead of reusing one tree-sitter may have left aborted or half-way through a parse.
 */
export function discardParser(): void {
  parser = null;
  loading = null;
}

/** tree-sitter's parse ran past its time budget and was cancelled. */
export class ParseCancelled extends Error {
  override name = 'ParseCancelled';
  constructor(budgetMs: number) {
    super(`parsing took longer than ${budgetMs} ms`);
  }
}

/** Thrown inside the converter when the script is over one of the limits (limits.ts). */
class OverLimit extends Error {}

/** Counts for the script being converted; reset by each parseWithGrammar call. */
let commands = 0;
let depth = 0;

function over(reason: string): never {
  throw new OverLimit(reason);
}

/** One level deeper into the tree; the converter recurses once per level. */
function enter(): void {
  if (++depth > MAX_NESTING) over(`the command nests more than ${MAX_NESTING} levels deep`);
}

/** Variables the converter can evaluate (HOME, PWD, the caller's env, earlier literal assignments). */
export type VarLookup = (name: string) => string | undefined;

/**
 * tree-sitter's tree for `src`, within `budgetMs` of its own time when given (cancelled through its
 * progress callback, which throws ParseCancelled). A parser that failed or returned no tree
 * otherwise is discarded (see discardParser).
 */
function parseTree(src: string, budgetMs?: number): NonNullable<ReturnType<Parser['parse']>> {
  const p = parser;
  if (!p) throw new Error('shell grammar not loaded: call initExtractor() first');
  let tree;
  try {
    if (budgetMs === undefined) tree = p.parse(src);
    else {
      const until = performance.now() + budgetMs;
      // Returning true cancels the parse (web-tree-sitter types the callback as returning void).
      const progressCallback = (() => performance.now() > until) as unknown as () => void;
      tree = p.parse(src, null, { progressCallback });
      if (!tree) {
        // A cancelled parse would be resumed by the next one; reset makes the next start afresh.
        // The parser itself is sound, so it is kept: a reload would make the next call wait.
        p.reset();
        throw new ParseCancelled(budgetMs);
      }
    }
  } catch (err) {
    if (!(err instanceof ParseCancelled)) discardParser();
    throw err;
  }
  if (!tree) {
    discardParser();
    throw new Error('tree-sitter returned no tree');
  }
  return tree;
}

// NUL characters are left out before tree-sitter sees them. Bash drops them from what it reads, and
// no exec'd argument can hold one, so they change nothing a shell runs; left in, each one sends the
// bash grammar's scanner into error recovery, whose cost grows with the square of their number
// (4,000 NULs took 280 ms to parse, 250 took 2 ms). The caller still learns they were there.
const hasNul = (src: string): boolean => src.indexOf('\u0000') >= 0;
const withoutNul = (src: string): string => src.replaceAll('\u0000', '');

/**
 * Parses and converts one script. `budgetMs` bounds tree-sitter's own time (it is cancelled through
 * its progress callback). A script over one of the limits comes back converted up to the point
 * where the limit was reached, with `limit` saying which one; the analyser reports that as
 * evasive, so such a script is never allowed on its own say. If tree-sitter itself fails, the
 * parser is discarded (see discardParser) and the error is thrown.
 */
export function parseWithGrammar(src: string, budgetMs?: number): Script {
  const nul = hasNul(src);
  if (nul) src = withoutNul(src);
  const tree = parseTree(src, budgetMs);
  source = src;
  commands = 0;
  depth = 0;
  const script: Script = { pipelines: [], error: false };
  if (nul) script.nul = true;
  try {
    script.error = tree.rootNode.hasError;
    collectInto(tree.rootNode, script);
  } catch (err) {
    if (!(err instanceof OverLimit)) throw err;
    script.limit = err.message;
    script.error = true;
  } finally {
    tree.delete();
  }
  return script;
}

/** The top level of a script as tree-sitter sees it: what `parseWithGrammar` flattens away. */
export interface SyntaxShape {
  /** tree-sitter reported a syntax error. */
  error: boolean;
  /** Node types of the top-level statements, comments left out (`command`, `list`, `pipeline`, …). */
  statements: string[];
  /** The top-level operator tokens between and after them (`;`, `&`, newlines are not tokens). */
  operators: string[];
}

/**
 * The top-level shape of a script. The IR keeps what each command does but drops how statements
 * are joined, so `npm test &` and `npm test` convert alike; a caller that must know a command runs
 * alone in the foreground (a command-prefix grant) asks here. Same budget rule as parseWithGrammar.
 */
export function syntaxShape(src: string, budgetMs?: number): SyntaxShape {
  const nul = hasNul(src);
  const tree = parseTree(nul ? withoutNul(src) : src, budgetMs);
  try {
    const root = tree.rootNode;
    const statements: string[] = [];
    const operators: string[] = [];
    for (const c of root.children) {
      if (!c) continue;
      if (c.isNamed) {
        if (c.type !== 'comment') statements.push(c.type);
      } else operators.push(c.type);
    }
    return { error: root.hasError || nul, statements, operators };
  } finally {
    tree.delete();
  }
}

const STATEMENT_CONTAINERS = new Set([
  'program', 'compound_statement', 'subshell', 'do_group', 'if_statement', 'elif_clause',
  'else_clause', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement',
  'case_item', 'function_definition', 'heredoc_body',
]);

function statements(node: Node): Script {
  const out: Script = { pipelines: [], error: false };
  enter();
  collectInto(node, out);
  depth--;
  return out;
}

/** Adds the statements directly or indirectly inside `node` to `out`, in source order. */
function collectInto(node: Node, out: Script): void {
  // children is one call into the runtime; child(i) in a loop costs more per child. The anonymous
  // `&` after a statement runs it in the background, in a subshell.
  let from = out.pipelines.length;
  for (const c of node.children) {
    if (!c) continue;
    if (!c.isNamed) {
      if (c.type === '&') maybeFrom(out, from);
      continue;
    }
    from = out.pipelines.length;
    statement(c, out);
  }
}

/** The pipelines added to `out` since `from` may not run, or run in a subshell. */
function maybeFrom(out: Script, from: number): void {
  for (let i = from; i < out.pipelines.length; i++) out.pipelines[i]!.maybe = true;
}

function statement(n: Node, out: Script): void {
  switch (n.type) {
    case 'list': {
      // `a && b && c …` nests to the left, one level per operator: walked down with a loop, not by
      // recursion, so a long chain neither counts as nesting nor grows the stack.
      const rest: Node[][] = [];
      let left: Node | null = n;
      while (left && left.type === 'list') {
        const kids: Node[] = left.namedChildren.filter((k): k is Node => k !== null);
        rest.push(kids.slice(1));
        left = kids[0] ?? null;
      }
      if (left) statement(left, out);
      // What comes after `&&` or `||` runs or not as the command before it ends.
      const from = out.pipelines.length;
      for (let i = rest.length - 1; i >= 0; i--) for (const k of rest[i] as Node[]) statement(k, out);
      maybeFrom(out, from);
      return;
    }
    case 'pipeline': {
      if (n.namedChildCount > MAX_PIPELINE_STAGES) over(`a pipeline has more than ${MAX_PIPELINE_STAGES} stages`);
      const stages: Stage[] = [];
      for (const c of n.namedChildren) if (c) stages.push(...stageOf(c, out));
      out.pipelines.push({ stages });
      return;
    }
    case 'comment':
    case 'heredoc_body':
    case 'heredoc_start':
    case 'heredoc_end':
      return;
    default: {
      const stages = stageOf(n, out);
      if (stages.length) out.pipelines.push({ stages });
    }
  }
}

/** One pipeline stage; a heredoc operator can swallow the rest of the line (`cat <<E | sh`). */
function stageOf(n: Node, out: Script): Stage[] {
  switch (n.type) {
    case 'command':
      return [command(n, [])];
    case 'redirected_statement': {
      const body = n.childForFieldName('body');
      const redirects: Redirect[] = [];
      const tail: Stage[] = [];
      const after: Node[] = [];
      for (let i = 0; i < n.namedChildCount; i++) {
        const c = n.namedChild(i);
        if (!c || (body && c.equals(body))) continue;
        if (c.type.endsWith('_redirect')) redirects.push(...redirect(c, tail, after));
      }
      let head: Stage;
      if (!body) head = { kind: 'cmd', assigns: [], words: [], redirects };
      else if (body.type === 'command') head = command(body, redirects);
      else head = body.type === 'if_statement' ? { ...ifGroup(body), redirects } : { kind: 'group', body: statements(body), redirects, ...groupKind(body) };
      const res = [head, ...tail];
      for (const a of after) statement(a, out);
      return res;
    }
    case 'negated_command':
      return [{ kind: 'group', body: statements(n), redirects: [] }];
    case 'test_command':
    case 'declaration_command':
    case 'unset_command':
    case 'variable_assignment':
    case 'variable_assignments':
      return [special(n)];
    default:
      // Loop values, case subjects and stray words: only their substitutions run anything.
      if (isWordNode(n)) {
        const value = word(n);
        return value.substs.length ? [{ kind: 'cmd', assigns: [{ name: '', value }], words: [], redirects: [] }] : [];
      }
      if (n.type === 'if_statement') return [ifGroup(n)];
      if (STATEMENT_CONTAINERS.has(n.type) || n.namedChildCount > 0) {
        const body = statements(n);
        // `for x in …`/`select x in …`: x takes values the judge does not follow, so it is unknown
        // in the loop and after it (not the value it had before: `x=/tmp; for x in ~/.ssh; …`).
        const loopVar = n.type === 'for_statement' ? n.childForFieldName('variable')?.text : undefined;
        if (loopVar) body.pipelines.unshift({ stages: [{ kind: 'cmd', assigns: [{ name: loopVar, value: { ...wordText(''), dynamic: true } }], words: [], redirects: [] }] });
        return [{ kind: 'group', body, redirects: [], ...groupKind(n) }];
      }
      return [];
  }
}

const LOOPS = new Set(['while_statement', 'for_statement', 'c_style_for_statement']);

/** How a compound runs (shell-ir.ts Group): once in the shell (`{ …; }`), in a subshell, maybe, repeated, or when called. */
function groupKind(n: Node): Pick<Group, 'maybe' | 'subshell' | 'loop' | 'fn'> {
  if (n.type === 'compound_statement') return {};
  if (n.type === 'subshell') return { subshell: true };
  if (LOOPS.has(n.type)) return { maybe: true, loop: true };
  if (n.type === 'function_definition') {
    const name = n.childForFieldName('name')?.text;
    return { maybe: true, ...(name ? { fn: name } : {}) };
  }
  return { maybe: true };
}

/**
 * `if C; then A; elif D; then B; else E; fi`: the condition runs, then one branch at most. Each
 * branch is a group that may not run, so a later branch does not see what an earlier one set
 * (`if false; then x=/tmp; else cat $x/id_rsa; fi` reads the x set before the if).
 */
function ifGroup(n: Node): Group {
  const body: Script = { pipelines: [], error: false };
  enter();
  let branch: Script | null = null;
  const close = () => {
    if (branch) body.pipelines.push({ stages: [{ kind: 'group', body: branch, redirects: [], maybe: true }] });
    branch = null;
  };
  for (const ch of n.children) {
    if (!ch) continue;
    if (!ch.isNamed) {
      if (ch.type === 'then') branch = { pipelines: [], error: false };
      continue;
    }
    if (ch.type === 'elif_clause' || ch.type === 'else_clause') {
      close();
      const clause = ch.type === 'elif_clause' ? ifGroup(ch) : { kind: 'group' as const, body: statements(ch), redirects: [], maybe: true as const };
      body.pipelines.push({ stages: [{ ...clause, maybe: true }] });
      continue;
    }
    statement(ch, branch ?? body);
  }
  close();
  depth--;
  return { kind: 'group', body, redirects: [], maybe: true };
}

function countCommand(): void {
  if (++commands > MAX_COMMANDS) over(`the command holds more than ${MAX_COMMANDS} commands`);
}

function special(n: Node): SimpleCommand {
  countCommand();
  const cmd: SimpleCommand = { kind: 'cmd', assigns: [], words: [], redirects: [] };
  if (n.type === 'variable_assignment') {
    cmd.assigns.push(assignment(n));
    return cmd;
  }
  if (n.type === 'test_command') {
    // `[[ … ]]` runs nothing itself, but may hold substitutions.
    const inner = statements(n);
    return { kind: 'cmd', assigns: [], words: [{ ...wordText('[['), substs: [inner] }], redirects: [] };
  }
  // declaration_command / unset_command / variable_assignments: `export A=b`, `local x`, `a=1 b=2`.
  if (n.namedChildCount > MAX_WORDS_PER_COMMAND) over(`a command has more than ${MAX_WORDS_PER_COMMAND} words`);
  const kw = n.child(0);
  if (kw && !kw.isNamed) cmd.words.push(wordText(kw.text));
  for (let i = 0; i < n.namedChildCount; i++) {
    const c = n.namedChild(i);
    if (!c) continue;
    if (c.type === 'variable_assignment') cmd.assigns.push(assignment(c));
    // `unset x`, `local x`, `declare -n x`: the names are the builtin's words (shell/assign.ts).
    else if (isWordNode(c) || c.type === 'variable_name') cmd.words.push(word(c));
  }
  if (n.type === 'variable_assignments') cmd.words = [];
  return cmd;
}

function assignment(n: Node): { name: string; value: Word } {
  const name = n.childForFieldName('name')?.text ?? '';
  const v = n.childForFieldName('value');
  const value = v ? word(v) : wordText('');
  // `a=(x y)`: an array, whose `$a` is its first element; the judge keeps no arrays.
  if (v?.type === 'array') value.dynamic = true;
  return { name, value };
}

function command(n: Node, redirects: Redirect[]): SimpleCommand {
  countCommand();
  if (n.childCount > MAX_WORDS_PER_COMMAND) over(`a command has more than ${MAX_WORDS_PER_COMMAND} words`);
  const cmd: SimpleCommand = { kind: 'cmd', assigns: [], words: [], redirects };
  const tail: Stage[] = [];
  let prevEnd = -1;
  // A cursor walks the children in one pass; child(i) and fieldNameForChild(i) each start over.
  const cur = n.walk();
  try {
    for (let more = cur.gotoFirstChild(); more; more = cur.gotoNextSibling()) {
      const c = cur.currentNode;
      // The grammar gives some escaped characters (`' '\$`) as anonymous argument nodes.
      if (!c.isNamed && cur.currentFieldName !== 'argument') continue;
      if (c.type === 'variable_assignment') cmd.assigns.push(assignment(c));
      else if (c.type === 'command_name') {
        const w = c.namedChild(0);
        if (w) cmd.words.push(word(w));
        prevEnd = c.endIndex;
      } else if (c.type.endsWith('_redirect')) {
        cmd.redirects.push(...redirect(c, tail, []));
        prevEnd = -1;
      } else if (c.type !== 'comment') {
        // tree-sitter-bash sometimes ends a word early — at an escaped blank (`'a'\ 'b'`) or before an
        // escaped character (`' '\#`) — where bash keeps one word: nodes that touch are one word.
        const gap = prevEnd >= 0 ? source.slice(prevEnd, c.startIndex) : ' ';
        const prev = cmd.words[cmd.words.length - 1];
        if (prev && (gap === '' || /^(\\[ \t])+$/.test(gap))) mergeInto(prev, gap.replace(/\\/g, ''), word(c, false));
        else cmd.words.push(word(c));
        prevEnd = c.endIndex;
      }
    }
  } finally {
    cur.delete();
  }
  return cmd;
}

function mergeInto(w: Word, blanks: string, next: Word): void {
  if (w.glob !== undefined || next.glob !== undefined) w.glob = (w.glob ?? escapeGlob(w.text)) + blanks + (next.glob ?? escapeGlob(next.text));
  w.text += blanks + next.text;
  w.dynamic ||= next.dynamic;
  w.vars ||= next.vars;
  w.ifs ||= next.ifs;
  w.indirect ||= next.indirect;
  w.substs.push(...next.substs);
}

function redirect(n: Node, tail: Stage[], after: Node[]): Redirect[] {
  if (n.type === 'heredoc_redirect') {
    let start = '';
    let body = '';
    let literal = true;
    // `cat <<E > file`: the grammar nests the redirections that follow the operator.
    const extra: Redirect[] = [];
    for (let i = 0; i < n.namedChildCount; i++) {
      const c = n.namedChild(i);
      if (!c) continue;
      if (c.type === 'heredoc_start') start = c.text;
      else if (c.type === 'heredoc_body') {
        if (c.endIndex - c.startIndex > MAX_HEREDOC_LENGTH) over(`a here-document is longer than ${MAX_HEREDOC_LENGTH / 1024} KiB`);
        body = c.text;
        if (c.namedChildCount > 0) literal = false;
      } else if (c.type === 'pipeline') {
        if (c.namedChildCount > MAX_PIPELINE_STAGES) over(`a pipeline has more than ${MAX_PIPELINE_STAGES} stages`);
        for (let j = 0; j < c.namedChildCount; j++) {
          const s = c.namedChild(j);
          if (s) tail.push(...stageOf(s, { pipelines: [], error: false }));
        }
      } else if (c.type.endsWith('_redirect')) extra.push(...redirect(c, tail, after));
      else if (c.type !== 'heredoc_end' && c.type !== 'file_descriptor') after.push(c);
    }
    // A quoted delimiter makes the body literal; otherwise `$` and backticks in it are expanded.
    if (/['"\\]/.test(start)) literal = true;
    else if (/[`$]/.test(body)) literal = false;
    const op = n.child(0)?.text ?? '<<';
    return [{ op, target: null, body, bodyLiteral: literal }, ...extra];
  }
  if (n.type === 'herestring_redirect') {
    const w = n.namedChild(n.namedChildCount - 1);
    const target = w ? word(w) : null;
    return [{ op: '<<<', target, body: target?.text ?? '', bodyLiteral: !target?.dynamic }];
  }
  let op = '>';
  const targets: Word[] = [];
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (!c) continue;
    if (!c.isNamed) op = c.text;
    else if (n.fieldNameForChild(i) === 'destination') targets.push(word(c));
  }
  if (!targets.length) return [{ op, target: null }];
  return targets.map((target) => ({ op, target }));
}

function isWordNode(n: Node): boolean {
  return WORD_TYPES.has(n.type);
}
const WORD_TYPES = new Set([
  'word', 'string', 'raw_string', 'ansi_c_string', 'translated_string', 'concatenation',
  'simple_expansion', 'expansion', 'command_substitution', 'process_substitution',
  'arithmetic_expansion', 'number', 'brace_expression',
]);

export function wordText(text: string): Word {
  return { text, dynamic: false, vars: false, tilde: false, ifs: false, indirect: false, substs: [] };
}

/** Source text of the script being converted (for the escaped-blank workaround below). */
let source = '';

function word(n: Node, restoreLead = true): Word {
  const w = wordText('');
  // Which parts bash would brace- and glob-expand (quoting matters, and is gone from `text`).
  const glob = globPattern(n, ansiC);
  if (!restoreLead) {
    appendWord(n, w, false, false);
    if (glob !== null) w.glob = glob;
    return w;
  }
  // tree-sitter-bash drops escaped blanks at the start of a word (`\ a` is one word " a" to bash,
  // "a" to the grammar); put them back so that a path like `\ /x` is judged as bash sees it.
  let i = n.startIndex;
  let lead = '';
  while (i >= 2 && (source[i - 1] === ' ' || source[i - 1] === '\t')) {
    // The blank is escaped when an odd number of backslashes precede it.
    let k = i - 2;
    while (k >= 0 && source[k] === '\\') k--;
    if ((i - 2 - k) % 2 === 0) break;
    lead = (source[i - 1] as string) + lead;
    i -= 2;
  }
  if (lead) w.text = lead;
  appendWord(n, w, false, !lead);
  if (glob !== null) w.glob = lead + glob;
  return w;
}

/** Evaluates `n` onto `w`. `quoted`: inside double quotes. `first`: at the very start of the word. */
function appendWord(n: Node, w: Word, quoted: boolean, first: boolean): void {
  enter();
  appendNode(n, w, quoted, first);
  depth--;
}

function appendNode(n: Node, w: Word, quoted: boolean, first: boolean): void {
  switch (n.type) {
    case 'word': {
      const t = n.text;
      if (first && !quoted && t.charCodeAt(0) === 126) w.tilde = true;
      w.text += unescapeBare(t);
      return;
    }
    case 'raw_string':
      w.text += n.text.slice(1, -1);
      return;
    case 'ansi_c_string':
      w.text += decodeAnsiC(n.text.slice(2, -1));
      return;
    case 'string':
    case 'translated_string': {
      const src = n.text;
      const base = n.startIndex;
      let pos = src.indexOf('"') + 1;
      const end = src.length - 1;
      for (let i = 0; i < n.namedChildCount; i++) {
        const c = n.namedChild(i);
        if (!c) continue;
        const cs = c.startIndex - base;
        if (cs > pos) w.text += unescapeDouble(src.slice(pos, cs));
        if (c.type === 'string_content') w.text += unescapeDouble(c.text);
        else appendWord(c, w, true, false);
        pos = c.endIndex - base;
      }
      if (end > pos) w.text += unescapeDouble(src.slice(pos, end));
      return;
    }
    case 'concatenation':
      for (let i = 0; i < n.namedChildCount; i++) {
        const c = n.namedChild(i);
        if (c) appendWord(c, w, quoted, first && i === 0);
      }
      // tree-sitter-bash splits `$HOME/.ssh$x/id_rsa` into `$HOME/.ssh` + a bare `$` and the word
      // `x/id_rsa`: bash expands `$x` there, so the word is not known (it read as `.sshx`).
      if (n.childCount > n.namedChildCount && /^[A-Za-z_{]/.test(source.charAt(n.endIndex))) {
        const last = n.child(n.childCount - 1);
        if (last && !last.isNamed && last.text === '$') w.dynamic = true;
      }
      return;
    case 'simple_expansion': {
      const name = n.text.slice(1);
      appendVar(name, n.text, w, quoted);
      return;
    }
    case 'expansion': {
      const t = n.text;
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])\}$/.exec(t);
      if (m && m[1]) appendVar(m[1], t, w, quoted);
      else {
        if (t.startsWith('${!')) w.indirect = true;
        if (/^\$\{IFS\b/.test(t) && !quoted) w.ifs = true;
        w.dynamic = true;
        w.text += t;
        collectSubsts(n, w);
      }
      return;
    }
    case 'command_substitution':
    case 'process_substitution':
      w.dynamic = true;
      w.text += n.text;
      w.substs.push(statements(n));
      return;
    case 'arithmetic_expansion':
      w.dynamic = true;
      w.text += n.text;
      collectSubsts(n, w);
      return;
    default:
      if (!n.isNamed) {
        w.text += unescapeBare(n.text);
        return;
      }
      w.text += n.text;
      collectSubsts(n, w);
  }
}

function collectSubsts(n: Node, w: Word): void {
  enter();
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (c.type === 'command_substitution' || c.type === 'process_substitution') {
      w.dynamic = true;
      w.substs.push(statements(c));
    } else collectSubsts(c, w);
  }
  depth--;
}

/**
 * A variable reference is kept as NUL-name-NUL (bash strings cannot hold NUL, so the marker cannot be
 * forged by quoting) and evaluated by the analyser, which knows HOME, PWD, the caller's env and
 * earlier assignments in the same script.
 */
function appendVar(name: string, _src: string, w: Word, quoted: boolean): void {
  if (name === 'IFS' && !quoted) w.ifs = true;
  w.vars = true;
  w.text += VAR_MARK + name + VAR_MARK;
}


export function unescapeBare(t: string): string {
  if (t.indexOf('\\') < 0) return t;
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const ch = t[i] as string;
    if (ch === '\\' && i + 1 < t.length) {
      i++;
      if (t[i] !== '\n') out += t[i];
    } else out += ch;
  }
  return out;
}

export function unescapeDouble(t: string): string {
  if (t.indexOf('\\') < 0) return t;
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const ch = t[i] as string;
    const nx = t[i + 1];
    if (ch === '\\' && nx !== undefined && '$`"\\\n'.includes(nx)) {
      i++;
      if (nx !== '\n') out += nx;
    } else out += ch;
  }
  return out;
}

const ansiC = (n: Node): string => decodeAnsiC(n.text.slice(2, -1));

function decodeAnsiC(t: string): string {
  return t.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_m, e: string) => {
    const k = e[0];
    if (k === 'x' || k === 'u' || k === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (k !== undefined && k >= '0' && k <= '7') return String.fromCharCode(parseInt(e, 8) & 0xff);
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };
    if (k === 'c') return String.fromCharCode((e.charCodeAt(1) || 64) & 31);
    return simple[e] ?? e;
  });
}

