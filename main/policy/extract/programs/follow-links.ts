// Walks that follow symbolic links, by program and option.
import type { EW, Handler } from '../shell/types.js';

/** Any word is the long option (or `--opt=…`), or a short-option bundle holding one of `shorts`. */
function anyFlag(args: EW[], shorts: string, longs: string[]): boolean {
  return args.some((a) => longs.some((l) => a.t === l || a.t.startsWith(`${l}=`)) || (shorts !== '' && /^-[^-]/.test(a.t) && [...shorts].some((s) => a.t.includes(s))));
}

/**
 * Walks that follow symbolic links, and the options that make them: while such a command records
 * the folders it walks, the links inside that lead out count as walked too (Collector.followLinks).
 * A bundle that merely contains the letter inside a value (`grep -eR`) only costs a listing.
 */
const FOLLOWS: Record<string, (args: EW[]) => boolean> = {
  grep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  egrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  fgrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  zgrep: (a) => anyFlag(a, 'R', ['--dereference-recursive']),
  rg: (a) => anyFlag(a, 'L', ['--follow']),
  ag: (a) => anyFlag(a, 'f', ['--follow']),
  ack: (a) => anyFlag(a, '', ['--follow']),
  find: (a) => a.some((w) => w.t === '-L' || w.t === '-follow'),
  fd: (a) => anyFlag(a, 'L', ['--follow']),
  fdfind: (a) => anyFlag(a, 'L', ['--follow']),
  cp: (a) => anyFlag(a, 'L', ['--dereference']),
  tar: (a) => anyFlag(a, 'h', ['--dereference']) || (a[0] !== undefined && !a[0].t.startsWith('-') && /^[a-zA-Z]*h/.test(a[0].t)),
  rsync: (a) => anyFlag(a, 'Lk', ['--copy-links', '--copy-dirlinks', '--copy-unsafe-links']),
  zip: (a) => !anyFlag(a, 'y', ['--symlinks']),
  du: (a) => anyFlag(a, 'L', ['--dereference']),
  ls: (a) => anyFlag(a, 'L', ['--dereference']),
  tree: (a) => anyFlag(a, 'l', []),
};

/**
 * Wraps each handler FOLLOWS names so that, while the options make it follow links, the walks it
 * records follow them too. Fails at load when FOLLOWS names a program no family handles.
 */
export function withFollowedLinks(handlers: Record<string, Handler>): void {
  for (const [name, follows] of Object.entries(FOLLOWS)) {
    const inner = handlers[name];
    if (!inner) throw new Error(`FOLLOWS names ${name}, which has no handler`);
    handlers[name] = (args, env, c, feed, n) => {
      if (!follows(args)) return inner(args, env, c, feed, n);
      const before = c.col.followLinks;
      c.col.followLinks = true;
      try {
        return inner(args, env, c, feed, n);
      } finally {
        c.col.followLinks = before;
      }
    };
  }
}
