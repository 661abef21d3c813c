// The program table: every family's handlers by program name, and the links they follow.
// Families not yet in a file of their own (programs/<family>.ts) are still here.
import type { EW, Handler } from '../shell/types.js';
import { ARCHIVE_PROGRAMS } from './archive.js';
import { BUILD_PROGRAMS } from './build.js';
import { BUILTIN_PROGRAMS } from './builtins.js';
import { CREDENTIAL_PROGRAMS } from './credentials.js';
import { EDITOR_PROGRAMS } from './editors.js';
import { FILE_PROGRAMS } from './files.js';
import { INTERPRETER_PROGRAMS } from './interpreters.js';
import { NETWORK_PROGRAMS } from './network.js';
import { PACKAGE_PROGRAMS } from './packages.js';
import { SERVER_CLIENT_PROGRAMS } from './server-clients.js';
import { SERVICE_PROGRAMS } from './services.js';
import { TEXT_PROGRAMS } from './text.js';
import { VCS_PROGRAMS } from './vcs.js';
import { WRAPPER_PROGRAMS } from './wrappers.js';

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

/** Each family's table, by family name (the test checks that no program is in two). */
export const FAMILIES: Readonly<Record<string, Readonly<Record<string, Handler>>>> = {
  builtins: BUILTIN_PROGRAMS,
  files: FILE_PROGRAMS,
  text: TEXT_PROGRAMS,
  archive: ARCHIVE_PROGRAMS,
  network: NETWORK_PROGRAMS,
  'server-clients': SERVER_CLIENT_PROGRAMS,
  vcs: VCS_PROGRAMS,
  packages: PACKAGE_PROGRAMS,
  build: BUILD_PROGRAMS,
  interpreters: INTERPRETER_PROGRAMS,
  wrappers: WRAPPER_PROGRAMS,
  services: SERVICE_PROGRAMS,
  credentials: CREDENTIAL_PROGRAMS,
  editors: EDITOR_PROGRAMS,
};

/**
 * Program name → handler, for run(). A name two families claim would be judged by whichever came
 * last, silently: the registry refuses to load instead.
 */
export const PROGRAMS: Readonly<Record<string, Handler>> = joinFamilies(FAMILIES);

export function joinFamilies(families: Readonly<Record<string, Readonly<Record<string, Handler>>>>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  const claimedBy = new Map<string, string>();
  for (const [family, table] of Object.entries(families)) {
    for (const [name, handler] of Object.entries(table)) {
      const first = claimedBy.get(name);
      if (first !== undefined) throw new Error(`programs/${family}.ts and programs/${first}.ts both handle ${name}: keep it in one family`);
      claimedBy.set(name, family);
      out[name] = handler;
    }
  }
  withFollowedLinks(out);
  return out;
}
