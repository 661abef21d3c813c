// Editors, man and gdb: each runs commands of its own language given on its command line.
import { pathOf } from '../shell/path-args.js';
import type { Ctx, Env, EW, Feed, Handler } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { generic } from './generic.js';

/** vi/vim/nvim/emacs: write what they open; `-c`, `+CMD`, `--cmd`, `-S`, `--eval` run editor commands. */
function editor(args: EW[], env: Env, c: Ctx, _feed: Feed, name: string): void {
  const col = c.col;
  col.op('write');
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t.startsWith('+') && !/^\+\d*$/.test(t)) {
      col.op('execute');
      col.evasive(`${name} runs editor commands given on its command line`);
    } else if (['-c', '--cmd', '--eval', '-eval', '--execute', '-x', '-batch', '--batch', '-l', '--load', '-f', '--funcall', '--script'].includes(t) || /^--(eval|load|script)=/.test(t)) {
      col.op('execute');
      col.evasive(`${name} runs editor commands given on its command line`);
      if (!t.includes('=') && t !== '-batch' && t !== '--batch') i++;
    } else if (t === '-S' || t === '-u' || t === '-s' || t === '-i' || t === '-U') {
      col.op('execute');
      col.evasive(`${name} runs an editor script from a file`);
      const f = args[++i];
      if (f && f.t !== 'NONE' && f.t !== 'NORC') pathOf(f, env, c, 'read');
    } else if (t === '-W' || t === '-w' || t === '-V') {
      const f = args[++i];
      if (f && t !== '-V') pathOf(f, env, c, 'write');
    } else if (!t.startsWith('-') || !a.known) pathOf(a, env, c, 'write');
  }
}

/** man: `-P`/`--pager` and `-H`/`--html` run a program of the caller's choosing; `-l` reads files. */
function man(args: EW[], env: Env, c: Ctx): void {
  c.col.op('read');
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-P' || t === '--pager' || t.startsWith('--pager=') || (t.startsWith('-P') && t.length > 2) || t.startsWith('-H') || t.startsWith('--html') || t === '-X' || t.startsWith('--gxditview')) {
      c.col.op('execute');
      c.col.evasive(`man ${t.split('=')[0] ?? ''} runs a program of the caller's choosing`);
      if (t === '-P' || t === '--pager') i++;
    }
  }
  if (args.some((a) => a.t === '-l' || a.t === '--local-file')) for (const a of args) if (!a.t.startsWith('-')) pathOf(a, env, c, 'read');
}

/**
 * gdb: `-ex`/`-x` run debugger commands, which include `shell`. The program it debugs (`gdb
 * PROG`, `gdb --args PROG ARG…`) runs at a `run` read from its input (`echo run | gdb --args …`):
 * a program the call starts.
 */
function gdb(args: EW[], env: Env, c: Ctx): void {
  const at = args.findIndex((a) => a.t === '--args');
  const prog = at >= 0 ? args[at + 1] : args.find((a) => !a.t.startsWith('-'));
  if (prog?.known) c.col.program(prog.t, prog.tilde, env.cwd);
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (['-ex', '--ex', '-eval-command', '--eval-command', '-x', '--command', '-iex', '-ix'].includes(t) || /^--?(eval-command|command)=/.test(t)) {
      c.col.evasive('gdb runs debugger commands given on its command line');
      if (!t.includes('=')) i++;
    }
  }
  unknownProgram(args, env, c);
}

/** Editors, the manual reader and the debugger: they run commands in a language of their own. */
export const EDITOR_PROGRAMS: Record<string, Handler> = {
  vi: editor, vim: editor, nvim: editor, view: editor, ex: editor, gvim: editor, emacs: editor, nano: generic({ ops: ['write'] }), code: generic({ ops: ['write'] }),
  man, gdb,
};
