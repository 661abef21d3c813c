// Judges a parsed shell script: which operations each command performs, on which paths and hosts,
// and what static analysis cannot see through (`evasive`). Conservative by design: when a command
// could do more than one thing, every operation it could do is reported.
// The shell model is in shell/ (words, redirects, pipelines); what each program does is in
// programs/, one file per family, joined into one table in programs/index.ts.
import type { Collector } from './collector.js';
import { PROGRAMS } from './programs/index.js';
import type { Script } from './shell-ir.js';
import { runScript } from './shell/script.js';
import { CALL_BRACE_BUDGET, CALL_SCAN_BUDGET, type Ctx, type ParseFn } from './shell/types.js';

export function analyseScript(script: Script, cwd: string, col: Collector, parse: ParseFn, home: string, env?: Record<string, string>): void {
  const c: Ctx = { col, parse, home, env, programs: PROGRAMS, scanLeft: CALL_SCAN_BUDGET, braceLeft: CALL_BRACE_BUDGET, dirs: new Map(), links: new Map(), written: new Map() };
  col.op('execute');
  runScript(script, { cwd, vars: new Map(), depth: 0 }, c);
}
