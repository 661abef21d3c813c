// "Don't ask again for …": grants over a command prefix, a folder or a host, judged on the
// judge's extraction of each call (what policy saw), never on the agent's own description.
//
// The agent is the adversary: each kind matches only calls whose whole effect the operator can
// read off the grant, and everything the analysis is unsure of asks again.
//  - command: one plain command (simple-command.ts: no `;`, `&&`, `|`, `&`, substitution,
//    variables, env prefix, redirection except to /dev/null) whose first words are the prefix,
//    and whose other words are inert for that program (code-options.ts: `npm test -- --watch`
//    yes, `npm test --script-shell=x` or an option not known to be inert, no).
//  - path: a file tool (no shell command, no execute) whose every touched path is inside the
//    folder, and which reaches no host. A shell command's paths are only what its command line
//    names, not what the program does, so a folder never covers one.
//  - host: calls whose every destination is the host, that touch no local path and neither write
//    nor delete: a fetch tool, or a plain `curl`/`wget` of that host.
// Rules come before any grant (autonomy.ts: a deny or ask rule, the evasive rule, taint, read-only
// all decide first), so no grant reaches Gatehouse's tokens or keys.
import { posix } from 'node:path';
import { OperationError } from '../core/operation-error.js';
import { cleanHost } from '../policy/extract/hosts.js';
import { extraWordsInert, familyOf } from '../policy/extract/code-options.js';
import { normalisePath, resolveSymlinks } from '../policy/extract/paths.js';
import { simpleCommand } from '../policy/extract/simple-command.js';
import type { Extraction, Operation, ToolCall } from '../policy/types.js';

export const GRANT_KINDS = ['call', 'command', 'path', 'host'] as const;
/** `call`: today's exact-call (or argument-pattern) grant; the others match by what a call touches. */
export type GrantKind = (typeof GRANT_KINDS)[number];
export type TargetKind = Exclude<GrantKind, 'call'>;
export const GRANT_SCOPES = ['session', 'agent', 'everyone'] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

export type Coverage = { ok: true } | { ok: false; reason: string };

/**
 * Programs that run whatever their arguments say: a prefix of one of them alone would grant
 * everything (`sudo:*`, `bash:*`, `env:*`). Refused as the first word of a prefix.
 */
const RUNS_ITS_ARGUMENTS = new Set([
  'sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'eval', 'exec', 'env', 'sudo', 'doas', 'su', 'xargs',
  'nohup', 'timeout', 'nice', 'time', 'command', 'builtin', 'source', '.', 'watch', 'strace',
  'busybox', 'parallel', 'setsid', 'stdbuf', 'ionice', 'chroot', 'unshare', 'nsenter', 'runuser',
]);

/** Programs a host grant may cover when a shell command fetches (their other effects show as writes or paths). */
const FETCHERS = new Set(['curl', 'wget']);

function invalid(field: string, message: string): OperationError {
  return new OperationError('invalid', `${field}: ${message}`);
}

function quoteWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/**
 * The canonical form of what a grant of this kind names, or an OperationError naming `value`.
 * A command prefix is one plain command (`npm test`; a trailing `:*` is accepted), a folder an
 * absolute path (`~` expanded; symlinks resolved as the judge resolves the paths it compares),
 * a host a DNS name or IP literal (a URL gives its host).
 */
export function normaliseTarget(kind: TargetKind, raw: string, home: string): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid('value', `a ${kind} grant needs a value (${EXAMPLES[kind]}).`);
  const text = raw.trim();
  if (text.length > 1024) throw invalid('value', `at most 1024 characters; got ${text.length}.`);
  if (kind === 'command') {
    const prefix = text.endsWith(':*') ? text.slice(0, -2).trimEnd() : text;
    const check = simpleCommand(prefix);
    if (!check.simple) throw invalid('value', `the command prefix ${JSON.stringify(prefix)} is not one plain command (${check.reason}); give the first words of a command, like "npm test".`);
    const first = posix.basename(check.words[0] ?? '');
    if (RUNS_ITS_ARGUMENTS.has(first)) throw invalid('value', `${first} runs whatever its arguments say, so a prefix starting with it would allow any command; grant the command it runs instead.`);
    if (check.words.length > 16) throw invalid('value', 'a command prefix has at most 16 words.');
    return check.words.map(quoteWord).join(' ');
  }
  if (kind === 'path') {
    if (!/^(\/|~(\/|$))/.test(text)) throw invalid('value', `the folder ${JSON.stringify(text)} must be absolute (start with / or ~).`);
    const folder = resolveSymlinks(normalisePath(text, '/', home));
    if (folder === '/') throw invalid('value', 'the whole file system cannot be granted; choose the project folder or one inside it.');
    if (folder === posix.resolve(home)) throw invalid('value', 'the whole home folder cannot be granted; choose the project folder or one inside it.');
    return folder;
  }
  let host = text;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) {
    try {
      host = new URL(host).hostname;
    } catch {
      throw invalid('value', `${JSON.stringify(text)} is not a URL or host name.`);
    }
  }
  host = cleanHost(host);
  if (!/^([a-z0-9]([a-z0-9-]{0,62})?)(\.[a-z0-9]([a-z0-9-]{0,62})?)*$/.test(host) && !/^[0-9a-f:.]+$/.test(host)) {
    throw invalid('value', `${JSON.stringify(text)} is not a host name (like api.github.com) or an IP address; wildcards are not accepted.`);
  }
  return host;
}

const EXAMPLES: Record<TargetKind, string> = {
  command: 'the first words of a command, like "npm test"',
  path: 'a folder, like /home/me/project',
  host: 'a host, like api.github.com',
};

/** The words of a stored prefix (already canonical), or null when it no longer parses. */
function prefixWords(value: string): string[] | null {
  const check = simpleCommand(value);
  return check.simple ? check.words : null;
}

/** Is `p` the folder or inside it? Both are absolute and normalised. */
function inside(p: string, folder: string): boolean {
  return p === folder || p.startsWith(folder.endsWith('/') ? folder : folder + '/');
}

/**
 * Does a grant of this kind and value cover the call, as the judge extracted it? The reason says
 * why not (the grant dialog and the preview show it).
 */
export function targetCovers(kind: TargetKind, value: string, x: Extraction, granted?: readonly Operation[]): Coverage {
  // Unsure means ask: whatever a grant says, a call the judge cannot see through is never covered.
  if (x.evasive) return { ok: false, reason: `Gatehouse cannot tell what this call does (${x.evasiveReasons.join('; ') || 'unsure'})` };
  switch (kind) {
    case 'command': {
      if (x.command === '') return { ok: false, reason: 'the call runs no shell command' };
      const want = prefixWords(value);
      if (!want) return { ok: false, reason: 'the grant\'s prefix no longer parses' };
      const check = simpleCommand(x.command);
      if (!check.simple) return { ok: false, reason: `a prefix grant matches only one plain command, and ${check.reason}` };
      if (check.words.length < want.length || want.some((w, i) => check.words[i] !== w)) return { ok: false, reason: `the command does not start with ${value}` };
      // What follows the prefix must change nothing about what runs: `npm test:*` is not
      // `npm test --script-shell=/tmp/x` (that runs /tmp/x), nor an option nobody checked.
      const extra = extraWordsInert(check.words, want.length);
      if (!extra.ok) return extra;
      // A program without an option table (git, and every other): the extra words may not make it
      // do a kind of thing the granted call did not (`git log:*` does not cover `git log
      // --output=F`, which writes F). Reading more is not doing more: a read of something
      // protected is denied by the rules before any grant. (A program with a table is judged by
      // it above: its test paths count as writes, since such a tool may write what it is given.)
      // Grants kept from before this was recorded carry no operations.
      const program = posix.basename(check.words[0] ?? '');
      const more = granted && !familyOf(program) ? x.operations.filter((o) => o !== 'read' && !granted.includes(o)) : [];
      if (more.length > 0) return { ok: false, reason: `the call also does ${more.join(', ')}, which the call this grant was made from did not` };
      return { ok: true };
    }
    case 'path': {
      if (x.command !== '' || x.operations.includes('execute')) return { ok: false, reason: 'a folder grant never covers a program or shell command (it can do more than the paths it names)' };
      if (x.operations.includes('network') || x.hosts.length > 0) return { ok: false, reason: 'the call also reaches the network' };
      if (x.paths.length === 0) return { ok: false, reason: 'the call touches no path' };
      const outside = x.paths.find((p) => !inside(p, value));
      if (outside !== undefined) return { ok: false, reason: `${outside} is outside ${value}` };
      return { ok: true };
    }
    case 'host': {
      if (x.hosts.length === 0) return { ok: false, reason: 'the call reaches no host' };
      const other = x.hosts.find((h) => h !== value);
      if (other !== undefined) return { ok: false, reason: `the call also reaches ${other}` };
      const changes = x.operations.filter((o) => o === 'write' || o === 'delete' || o === 'move' || o === 'copy');
      if (changes.length > 0) return { ok: false, reason: `the call also ${changes.join(', ')}s local files` };
      if (x.paths.length > 0) return { ok: false, reason: 'the call also touches local paths' };
      // A tool Gatehouse does not know runs something it cannot see; a URL among its arguments
      // says nothing about what else it does.
      if (x.command === '' && x.operations.includes('execute')) return { ok: false, reason: 'the tool runs something besides the fetch' };
      if (x.command !== '') {
        const check = simpleCommand(x.command);
        if (!check.simple) return { ok: false, reason: `a host grant matches only one plain command, and ${check.reason}` };
        const program = posix.basename(check.words[0] ?? '');
        if (!FETCHERS.has(program)) return { ok: false, reason: `a host grant covers fetch tools, curl and wget, not ${program}` };
      }
      if (!x.operations.every((o) => o === 'network' || o === 'execute' || o === 'read')) return { ok: false, reason: 'the call does more than fetch' };
      return { ok: true };
    }
  }
}

/** Who a grant covers, by scope: this agent's session (through the same transport), this agent, or every agent. */
export function scopeCovers(g: { scope?: GrantScope | undefined; agent: string; session: string; source?: ToolCall['source'] | undefined }, call: Pick<ToolCall, 'agent' | 'session' | 'source'>): boolean {
  const scope = g.scope ?? 'session';
  if (scope === 'everyone') return true;
  if (g.agent !== call.agent) return false;
  if (scope === 'agent') return true;
  return g.session === call.session && (g.source === undefined || g.source === call.source);
}

/** How a grant reads in one line: "commands starting with `npm test`". */
export function describeTarget(kind: GrantKind, value: string | null | undefined, tool: string): string {
  if (kind === 'command') return `commands starting with ${value ?? ''} (${value ?? ''}:*)`;
  if (kind === 'path') return `file calls inside ${value ?? ''}`;
  if (kind === 'host') return `calls to ${value ?? ''} only`;
  return `${tool} with these arguments`;
}
