// A path argument counted as what the command does to it: through links the same command made,
// `/dev/tcp` sockets, and process substitutions (which are pipes, not files).
import type { Operation } from '../../types.js';
import { hostOfTarget } from '../hosts.js';
import { normalisePath } from '../paths.js';
import { has, optVals, parseArgs } from './options.js';
import type { Ctx, Env, EW } from './types.js';

/** `<(cmd)` / `>(cmd)`: a pipe to a command the judge analyses on its own, not a file. */
export function processSubst(a: EW): boolean {
  return a.subst && (a.t.startsWith('<(') || a.t.startsWith('>(')) && a.t.endsWith(')');
}

export function pathOf(a: EW, env: Env, c: Ctx, op?: Operation, tree = false): void {
  if (!a.known) {
    if (processSubst(a)) return;
    // `cat $f`, `cat $(echo ~/.ssh/id_rsa)`: the file is chosen at run time, out of the judge's sight.
    if (op) c.col.op(op);
    c.col.evasive(a.subst ? 'command substitution builds a path argument' : 'a path argument the judge cannot evaluate');
    return;
  }
  if (op) c.col.op(op);
  if (devTcp(a.t, c)) return;
  const abs = c.col.shellPath(a.t, a.tilde, env.cwd);
  if (abs && tree) c.col.markRecursive(abs);
  if (abs && c.links.size) viaLinks(abs, tree, c);
  // `rm -rf ~/*` removes every child of ~: counted as removing ~ itself (a glob that ends in a
  // bare wildcard names its parent folder, whatever it matched).
  if (op === 'delete' && a.globbed?.bareLast) {
    c.col.shellPath(a.globbed.prefix, false, env.cwd);
    if (tree) c.col.markRecursive(a.globbed.prefix);
  }
}

/** bash opens a socket for `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT`. */
export function devTcp(p: string, c: Ctx): boolean {
  const m = /^\/dev\/(tcp|udp)\/([^/]+)/.exec(p);
  if (!m || !m[2]) return false;
  c.col.op('network');
  c.col.host(hostOfTarget(m[2]));
  return true;
}

/**
 * A path through a link the same command created earlier (`ln -s ~ h; cat h/.ssh/id_rsa`): the
 * link does not exist yet when the call is judged, so the file system cannot resolve it.
 */
export function viaLinks(abs: string, tree: boolean, c: Ctx): void {
  for (let hop = 0; hop < 8; hop++) {
    let next: string | null = null;
    for (const [link, target] of c.links) {
      if (abs === link) next = target;
      else if (abs.startsWith(link + '/')) next = (target === '/' ? '' : target) + abs.slice(link.length);
      if (next) break;
    }
    if (!next || next === abs) return;
    const real = c.col.shellPath(next, false, '/');
    if (real && tree) c.col.markRecursive(real);
    abs = next;
  }
}

/** `ln [-s] TARGET… LINK`: remembered for the paths named after it in the same command. */
export function recordLinks(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args, 'St', ['--target-directory', '--suffix']);
  const dirs = optVals(p, '-t', '--target-directory');
  const targets = dirs.length ? p.pos : p.pos.slice(0, -1);
  const dest = dirs[0] ?? (p.pos.length > 1 ? p.pos[p.pos.length - 1] : undefined);
  if (!dest?.known) return;
  const destAbs = normalisePath(dest.tilde ? dest.t : dest.t.startsWith('~') ? './' + dest.t : dest.t, env.cwd, c.home);
  const symbolic = has(p, '-s', '--symbolic');
  for (const t of targets.slice(0, 64)) {
    if (!t.known) continue;
    const name = t.t.replace(/\/+$/, '').split('/').pop() ?? '';
    const linkAbs = targets.length > 1 || dest.t.endsWith('/') || dirs.length ? destAbs + '/' + name : destAbs;
    // A relative symbolic link is relative to the folder it is in, not to the working folder.
    const base = symbolic && !t.tilde && !t.t.startsWith('/') ? linkAbs.slice(0, linkAbs.lastIndexOf('/')) || '/' : env.cwd;
    const targetAbs = normalisePath(t.tilde ? t.t : t.t.startsWith('~') ? './' + t.t : t.t, base, c.home);
    if (targetAbs !== linkAbs) c.links.set(linkAbs, targetAbs);
  }
}
