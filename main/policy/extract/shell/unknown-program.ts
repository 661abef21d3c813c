// A program no family knows: every path-like argument is read and written.
import { isMetadataHost } from '../../network.js';
import { fileUrlPath, hostsInText } from '../hosts.js';
import { pathOf, processSubst } from './path-args.js';
import type { Ctx, Env, EW } from './types.js';

/**
 * A program whose file semantics are not in the table: it may do anything to what it is given, so
 * every argument that looks like a path (`/x`, `~/x`, `./x`, `a/b`, `--file=~/x`, `-f/x`, a file
 * a glob matched) counts as read and written, and `file:` URLs as reads.
 */
/** A word that follows an option and looks like a file name (`--in notes.txt`, `-c app.yaml`). */
const FILE_NAME = /^[^\s=:]*[A-Za-z_][^\s=:]*\.[A-Za-z0-9]{1,10}$/;

/**
 * `unknown`: the program's name when it is not in the table at all — then a path-like argument
 * also makes the call unsure (what the program does with it is a guess). `tree`: folders are taken whole.
 */
export function unknownProgram(args: EW[], env: Env, c: Ctx, tree = false, unknown?: string): void {
  const col = c.col;
  let paths = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const prev = args[i - 1];
    const afterOption = prev !== undefined && prev.known && prev.t.length > 1 && prev.t[0] === '-' && !prev.t.includes('=') && prev.t !== '--';
    if (!a.known) {
      if (processSubst(a)) continue;
      // `frob "$d/id_rsa"`: a path whose folder is chosen at run time.
      if (a.subst || /\//.test(a.t)) col.evasive(a.subst ? 'command substitution builds a path argument' : 'a path argument the judge cannot evaluate');
      continue;
    }
    let t = a.t;
    let tilde = a.tilde;
    // `make prefix=~/x`: bash expands a ~ after the `=` of an assignment-like argument.
    const assign = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(t);
    if (assign) {
      t = t.slice(assign[0].length);
      tilde = t[0] === '~';
    } else if (t.length > 1 && t[0] === '-') {
      const eq = t.indexOf('=');
      if (eq > 0) t = t.slice(eq + 1);
      else if (t[1] !== '-' && t.length > 2 && (t[2] === '/' || t[2] === '~')) t = t.slice(2);
      else continue;
      tilde = t[0] === '~';
    }
    if (t.includes('://') || /^file:/i.test(t)) {
      const f = fileUrlPath(t);
      if (f) pathOf({ ...a, t: f, tilde: false }, env, c, 'read');
      else {
        // A URL given to a program Gatehouse does not know is not judged as the program's own
        // request (a test runner's --base-url names a dev server on localhost), except the cloud
        // metadata service and link-local addresses, which no such program has a reason to be
        // given: those are network operations, so the private-address rule denies them.
        // (`ffmpeg -i http://169.254.169.254/…` was allowed; a review found it.)
        hostsInText(t, (x) => {
          col.host(x);
          if (isMetadataHost(x)) col.op('network');
        });
      }
      continue;
    }
    if (tilde || t.includes('/') || a.globbed || (tree && (t === '.' || t === '..')) || (afterOption && t === a.t && FILE_NAME.test(t))) {
      col.op('read');
      col.op('write');
      paths++;
      pathOf({ ...a, t, tilde }, env, c, undefined, tree);
    }
  }
  if (unknown && paths > 0) col.evasive(`${unknown} is a program whose use of files Gatehouse does not know`);
}
