// Programs described by a table row alone (Spec): the operation, options that take values,
// options that name paths, and options that make the walk recursive.
import type { Operation } from '../../types.js';
import { parseArgs, recursive } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { type Handler, literalEW } from '../shell/types.js';

interface Spec {
  ops: Operation[];
  /** Short options that take a value. */
  v?: string;
  /** Long options that take a separate value. */
  lv?: string[];
  /** Leading positionals that are not paths (a pattern, a mode, an owner). */
  skip?: number;
  /** Options whose value is a path, and the operation done on it. */
  pathOpts?: Record<string, Operation>;
  /** Options that make the command walk its path arguments whole (`-r`, `-R`); `true`: always. */
  rec?: string[] | true;
  /** With no path argument the command reads the working folder (`ls`). */
  cwd?: boolean;
}

export const READ: Spec = { ops: ['read'] };

export function generic(spec: Spec): Handler {
  return (args, env, c) => {
    for (const o of spec.ops) c.col.op(o);
    const p = parseArgs(args, spec.v, spec.lv);
    const tree = recursive(p, spec.rec);
    let skip = spec.skip ?? 0;
    for (const a of p.pos) {
      if (skip > 0) {
        skip--;
        continue;
      }
      pathOf(a, env, c, spec.ops[0], tree);
    }
    // `ls -R`, `tree`, `du -a` with no path walk the working folder; `ls` alone lists it.
    if (tree && !p.pos.length && spec.ops[0] === 'read') c.col.recursivePath('.', env.cwd);
    else if (spec.cwd && !p.pos.length) pathOf(literalEW('.'), env, c, 'read');
    if (spec.pathOpts) for (const o of p.opts) { const op = spec.pathOpts[o.name]; if (op && o.value) pathOf(o.value, env, c, op); }
  };
}
