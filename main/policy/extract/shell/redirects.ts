// Redirections: files read and written, here-documents fed to a shell, and the visible text a
// command writes to a file it may run later in the same call.
import type { Redirect } from '../shell-ir.js';
import { devTcp, processSubst, viaLinks } from './path-args.js';
import { nested } from './script.js';
import { type Ctx, type Env, type EW, MAX_DEPTH } from './types.js';
import { evalWord, expandPattern } from './words.js';

/** What `echo`, `printf` (no formats) or `cat <<'EOF'` print, when all of it is visible. */
export function printedText(name: string, words: EW[], rs: Redirect[]): string | undefined {
  if (name === 'echo' || name === 'printf') {
    const args = words.slice(1);
    if (!args.every((w) => w.known)) return undefined;
    let i = 0;
    if (name === 'echo') while (i < args.length && /^-[neE]+$/.test((args[i] as EW).t)) i++;
    const out = args.slice(i).map((w) => w.t);
    const only = out.length === 1 ? out[0] : undefined;
    if (name === 'printf') return only !== undefined && !/%/.test(only) ? only.replace(/\\n/g, '\n') : undefined;
    return out.join(' ');
  }
  if (name === 'cat' && words.length === 1) {
    const h = rs.find((r) => r.op === '<<' || r.op === '<<-');
    if (h?.bodyLiteral && h.body !== undefined) return h.body;
  }
  return undefined;
}

export const DEVICE_SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/zero']);

/**
 * `text`: what the command prints, when it is visible (`echo …`, `printf '…'` without formats,
 * `cat <<'EOF'`) — remembered for a file it goes to, in case the same command then runs that file.
 */
export function redirects(rs: Redirect[], env: Env, c: Ctx, toShell: boolean, text?: string): void {
  for (const r of rs) {
    if (r.op === '<<' || r.op === '<<-' || r.op === '<<<') {
      if (r.op !== '<<<') c.col.addContent(r.body ?? '');
      if (toShell) {
        c.col.evasive(r.op === '<<<' ? 'here-string fed to a shell' : 'here-document fed to a shell');
        // Still look inside a literal body: its paths and hosts are worth reporting.
        if (r.bodyLiteral && r.body && env.depth < MAX_DEPTH) nested(r.body, env, c);
      }
      continue;
    }
    if (!r.target) continue;
    const t0 = evalWord(r.target, env, c);
    // `>&2`, `2>&1`, `<&-`: duplicating descriptors touches no file.
    if ((r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(t0.t)) continue;
    const writes = r.op !== '<';
    const reads = r.op === '<' || r.op === '<>';
    if (!t0.known) {
      if (processSubst(t0)) continue;
      c.col.evasive(t0.subst ? 'command substitution builds a redirection target' : 'a redirection target the judge cannot evaluate');
      continue;
    }
    // bash globs a redirection target too (`> ~/.b?shrc` writes ~/.bashrc).
    const targets: EW[] = [];
    if (r.target.glob !== undefined) expandPattern(r.target.glob, r.target.tilde, t0, env, c, targets);
    else targets.push(t0);
    for (const t of targets) {
      if (DEVICE_SINKS.has(t.t)) continue;
      if (devTcp(t.t, c)) continue;
      if (writes) c.col.op('write');
      if (reads) c.col.op('read');
      const abs = c.col.shellPath(t.t, t.tilde, env.cwd);
      if (abs && c.links.size) viaLinks(abs, false, c);
      if (abs && writes && text !== undefined && c.written.size < 64) c.written.set(abs, (r.op === '>>' ? (c.written.get(abs) ?? '') + '\n' : '') + text);
    }
  }
}
