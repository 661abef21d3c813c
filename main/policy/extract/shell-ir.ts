// The small intermediate form every shell front end (the tree-sitter grammar, the fast lexer for
// plain commands) produces, so that one analyser judges them all.

/** One shell word after quote removal, as far as static analysis can evaluate it. */
export interface Word {
  /** Literal value; parts that could not be evaluated keep their source text (`$((…))`). */
  text: string;
  /** Contains an expansion the converter cannot evaluate (arithmetic, `${x:-y}`, a substitution). */
  dynamic: boolean;
  /** Contains variable references, written as VAR_MARK name VAR_MARK in `text`. */
  vars: boolean;
  /** Starts with an unquoted `~`, which the shell expands to the home directory. */
  tilde: boolean;
  /** Contains unquoted `$IFS`/`${IFS}`: the shell splits it into several words. */
  ifs: boolean;
  /** Contains `${!name}` variable indirection. */
  indirect: boolean;
  /** Command and process substitutions inside the word, analysed as scripts of their own. */
  substs: Script[];
  /**
   * The word as a bash pattern, present only when it has unquoted glob or brace characters or
   * unquoted variables (whose values bash globs): quoted characters backslash-escaped, variables as
   * markers (see globs.ts). Absent means the word is passed as `text`, unexpanded.
   */
  glob?: string;
}

export interface Redirect {
  /** `>`, `>>`, `<`, `&>`, `&>>`, `>|`, `<>`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  target: Word | null;
  /** Body of a here-document or here-string (literal when `bodyLiteral`). */
  body?: string;
  bodyLiteral?: boolean;
}

export interface SimpleCommand {
  kind: 'cmd';
  assigns: Array<{ name: string; value: Word }>;
  words: Word[];
  redirects: Redirect[];
}

/** A compound statement (subshell, `{ …; }`, if/for/while/case, function body) with its redirects. */
export interface Group {
  kind: 'group';
  body: Script;
  redirects: Redirect[];
  /**
   * What the body sets may not hold after it: it may not run, or run in a subshell (if/while/for/
   * case, a function's body, `( … )`); a `{ …; }` group runs in the shell itself, once.
   */
  maybe?: true;
  /** `( … )`: nothing it sets or changes to holds after it. */
  subshell?: true;
  /** A loop's body (while, until, for, select): its second pass sees what its first one set. */
  loop?: true;
  /** A function's definition: its body runs where the function is called, by this name. */
  fn?: string;
}

export type Stage = SimpleCommand | Group;
export interface Pipeline {
  stages: Stage[];
  /** It may not run (after `&&` or `||`), or runs in a subshell (`… &`): what it sets may not hold after it. */
  maybe?: true;
}
/** Statements in source order; `;`, `&&`, `||`, `&` and newlines all separate pipelines. */
export interface Script {
  pipelines: Pipeline[];
  /** The grammar reported a syntax error somewhere in this script, or it is over a limit. */
  error: boolean;
  /**
   * The script is over one of the judge's limits (limits.ts) and was converted only up to it; says
   * which limit, in words an operator reads (`a pipeline has more than 256 stages`).
   */
  limit?: string;
  /**
   * The command had NUL characters, left out before parsing. Bash drops the NULs in what it reads,
   * and no program's argument can carry one, so no shell runs the text as the agent wrote it.
   */
  nul?: true;
}

export function literalWord(text: string): Word {
  return { text, dynamic: false, vars: false, tilde: text.charCodeAt(0) === 126, ifs: false, indirect: false, substs: [] };
}

/** Brackets a variable name in Word.text. Bash strings cannot contain NUL, so quoting cannot forge it. */
export const VAR_MARK = '\u0000';
