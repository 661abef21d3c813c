// git: subcommands that reach the network, read or write, and settings whose value is a command.
import { gitObjectReads, printsContents, repoOf } from '../git-objects.js';
import { hostOfTarget, hostsOfUrl, scpHost } from '../hosts.js';
import { has, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';

const GIT_NETWORK = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote', 'archive']);

const GIT_READ = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'grep', 'describe', 'shortlog', 'reflog', 'cat-file', 'ls-tree', 'rev-list', 'whatchanged', 'version', 'help']);

/**
 * The host of a git remote written scp-like (`host:path`, `user@host:path`, `[host:port]:path`,
 * `user@[v6]:path`), or null. Git's own rule (connect.c, url_is_local_not_ssh): a name with a `:`
 * is a path on this machine only when a `/` comes before the first `:`; otherwise git runs ssh to
 * what is before the `:` (`git fetch 10.0.0.5:repo`, no user needed).
 */
export function gitScpHost(t: string): string | null {
  if (t.includes('://')) return null;
  if (t.startsWith('[')) {
    const end = t.indexOf(']');
    if (end > 0 && t[end + 1] === ':') return hostOfTarget(t.slice(1, end));
  }
  const colon = t.indexOf(':');
  if (colon <= 0) return null;
  const slash = t.indexOf('/');
  if (slash >= 0 && slash < colon) return null;
  return scpHost(t, false) ?? hostOfTarget(t.slice(0, colon));
}

/** An IPv4 literal or a bracketed address: no branch or refspec is written so. */
const ADDRESS_LIKE = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*)$/i;

/** Options of the remote-reaching subcommands that take the next word as their value (the remote is the first word after them). */
const REMOTE_OPTS: Record<string, [string, string[]]> = {
  fetch: ['jo', ['--depth', '--deepen', '--shallow-since', '--shallow-exclude', '--jobs', '--upload-pack', '--server-option', '--negotiation-tip', '--refmap', '--recurse-submodules-default', '--filter']],
  pull: ['josX', ['--depth', '--deepen', '--shallow-since', '--shallow-exclude', '--jobs', '--upload-pack', '--server-option', '--negotiation-tip', '--strategy', '--strategy-option', '--cleanup']],
  push: ['o', ['--repo', '--receive-pack', '--exec', '--push-option', '--recurse-submodules']],
  'ls-remote': ['o', ['--sort', '--upload-pack', '--exec', '--server-option']],
  clone: ['obcju', ['--origin', '--branch', '--config', '--depth', '--reference', '--reference-if-able', '--separate-git-dir', '--upload-pack', '--template', '--jobs', '--filter', '--shallow-since', '--shallow-exclude', '--server-option', '--bundle-uri', '--ref-format']],
  archive: ['o', ['--output', '--remote', '--exec', '--format', '--prefix', '--add-file', '--add-virtual-file', '--mtime']],
};

/** The words of `git SUB …` that name a remote repository (a URL, a path, or scp-like). */
function remoteWords(sub: string, rest: EW[]): EW[] {
  const out: EW[] = [];
  const spec = REMOTE_OPTS[sub];
  if (spec) {
    const p = parseArgs(rest, spec[0], spec[1]);
    for (const o of p.opts) if ((o.name === '--repo' || o.name === '--remote') && o.value) out.push(o.value);
    if (sub === 'archive') return out;
    if (sub === 'fetch' && has(p, '--multiple')) out.push(...p.pos);
    else if (p.pos[0]) out.push(p.pos[0]);
  } else if (sub === 'submodule' || sub === 'remote') {
    const verb = rest.findIndex((a) => !a.t.startsWith('-'));
    const v = rest[verb]?.t;
    const after = rest.slice(verb + 1);
    if (sub === 'submodule' && v === 'add') {
      const url = parseArgs(after, 'b', ['--branch', '--name', '--reference', '--ref-format', '--depth']).pos[0];
      // A relative URL (`../lib.git`) is relative to the superproject's own remote.
      if (url && !/^\.\.?\//.test(url.t)) out.push(url);
    } else if (sub === 'remote' && (v === 'add' || v === 'set-url')) {
      const url = parseArgs(after, 'tm', []).pos[1];
      if (url) out.push(url);
    }
  }
  return out;
}

/** `git -c KEY=VALUE` keys whose value is a command git runs (or a path to code it loads). */
const GIT_EXEC_KEY = /^(core\.(fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy|alternaterefscommand)|pager\.|alias\.|diff\.|filter\.|merge\.|credential\.|sequence\.editor|gpg\.|ssh\.|uploadpack\.packobjectshook|sendemail\.|include\.|includeif\.|protocol\..*\.allow|remote\..*\.(uploadpack|receivepack|vcs)|url\.|http\..*proxy|https?\.proxy|core\.worktree|init\.templatedir|blame\.ignorerevsfile|mailmap\.|difftool\.|mergetool\.|web\.browser|browser\.|man\.|instaweb\.)/i;

/**
 * `git config` setting a key whose value git runs (core.fsmonitor, core.pager, an `!` alias) is a
 * write of the config file it lands in, so builtin.git-hooks denies it: the command runs later, at
 * the next `git status` in any shell, outside Gatehouse's sight. Reads (`--get`, `--list`) are not.
 */
function gitConfigWrite(rest: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(rest, 'f', ['--file', '--blob', '--type', '--default', '--comment', '--value']);
  const words = p.pos.filter((a) => a.known).map((a) => a.t);
  const verb = ['set', 'unset', 'get', 'list', 'rename-section', 'remove-section', 'edit'].includes(words[0] ?? '') ? words.shift() : undefined;
  const reads = verb === 'get' || verb === 'list' || p.opts.some((o) => /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--get-color|--get-colorbool)$/.test(o.name));
  const sets = !reads && (verb === undefined ? words.length >= 2 || p.opts.some((o) => /^(--(add|replace-all|unset|unset-all|rename-section|remove-section|edit)|-e)$/.test(o.name)) : verb !== 'get' && verb !== 'list');
  // `git config -f FILE` reads (and when setting, writes) that file, whatever it is: `git config -f
  // ~/.aws/credentials --list` prints the keys, `-f ~/.bashrc a.b c` writes into a start-up file.
  const file = optVal(p, '-f', '--file');
  if (file) pathOf(file, env, c, sets ? 'write' : 'read');
  if (reads || !words.some((w) => GIT_EXEC_KEY.test(w))) return;
  if (!sets) return;
  const col = c.col;
  col.op('write');
  if (file) return;
  if (p.opts.some((o) => o.name === '--global')) {
    for (const f of ['~/.gitconfig', '~/.config/git/config']) col.path(f, env.cwd);
  } else if (p.opts.some((o) => o.name === '--system')) col.path('/etc/gitconfig', env.cwd);
  else col.path(`${repoOf(env.cwd)?.gitDir ?? `${env.cwd}/.git`}/config`, env.cwd);
}

/** The last value given to one of `names`. */
function optVal(p: ReturnType<typeof parseArgs>, ...names: string[]): EW | undefined {
  let v: EW | undefined;
  for (const o of p.opts) if (o.value && names.includes(o.name)) v = o.value;
  return v;
}

/**
 * `git init --template=DIR`, `git clone --template DIR`: git copies the template folder into the new
 * repository's git folder, hooks included, and those hooks run at the next commit or checkout. That
 * is a write of the new repository's hooks folder (builtin.git-hooks); a git folder Gatehouse cannot
 * name, or one not called `.git` (a bare repository's), makes the call unsure.
 */
function templateHooks(template: EW, dir: EW | undefined, bare: boolean, sep: EW | undefined, env: Env, c: Ctx, unsure: (why: string) => void): void {
  pathOf(template, env, c, 'read', true);
  c.col.op('write');
  const base = sep ?? dir;
  if (!base?.known) return unsure('git --template copies hooks into a repository Gatehouse cannot name');
  const gitDir = sep || bare ? base.t : `${base.t.replace(/\/+$/, '')}/.git`;
  pathOf({ ...base, t: `${gitDir.replace(/\/+$/, '')}/hooks` }, env, c, 'write', true);
  if (!/(^|\/)\.git\/*$/.test(gitDir)) unsure('git --template copies hooks into a git folder not named .git');
}

/**
 * Subcommands that write a file or folder they are told: `format-patch -o DIR`, `bundle create
 * FILE`, `archive -o FILE`, `worktree add PATH`, `submodule add URL PATH`, `init DIR` (and the
 * template it copies hooks from). Each is a write of that path, so a locked rule on it decides
 * (`git format-patch -o ~/.config/autostart`, `git bundle create ~/.bashrc HEAD`).
 */
function namedOutputs(sub: string, rest: EW[], env: Env, c: Ctx, unsure: (why: string) => void): void {
  const verbAt = rest.findIndex((a) => !a.t.startsWith('-'));
  const verb = rest[verbAt]?.t;
  const after = rest.slice(verbAt + 1);
  if (sub === 'format-patch') {
    const d = optVal(parseArgs(rest, 'ovS', ['--output-directory', '--subject-prefix', '--in-reply-to', '--suffix', '--start-number', '--base', '--interdiff', '--range-diff', '--creation-factor', '--signature', '--signature-file', '--description-file', '--to', '--cc', '--from', '--add-header', '--attach', '--inline', '--notes', '--reroll-count']), '-o', '--output-directory');
    if (d) pathOf(d, env, c, 'write', true);
  } else if (sub === 'archive') {
    const f = optVal(parseArgs(rest, 'o', []), '-o');
    if (f) pathOf(f, env, c, 'write');
  } else if (sub === 'bundle' && verb !== undefined) {
    const file = parseArgs(after, '', ['--version']).pos[0];
    if (file && file.t !== '-') pathOf(file, env, c, verb === 'create' ? 'write' : 'read');
  } else if (sub === 'worktree') {
    const p = parseArgs(after, 'bB', ['--reason']).pos;
    if (verb === 'add' && p[0]) pathOf(p[0], env, c, 'write', true);
    else if (verb === 'move' && p[1]) {
      pathOf(p[1], env, c, 'write', true);
      if (p[0]) pathOf(p[0], env, c, 'move', true);
    } else if (verb === 'remove' && p[0]) pathOf(p[0], env, c, 'delete', true);
  } else if (sub === 'submodule' && verb === 'add') {
    const path = parseArgs(after, 'b', ['--branch', '--name', '--reference', '--ref-format', '--depth']).pos[1];
    if (path) pathOf(path, env, c, 'write', true);
  } else if (sub === 'init') {
    const p = parseArgs(rest, 'b', ['--template', '--separate-git-dir', '--object-format', '--ref-format', '--initial-branch']);
    const dir = p.pos[0];
    if (dir) pathOf(dir, env, c, 'write');
    const sep = optVal(p, '--separate-git-dir');
    if (sep) pathOf(sep, env, c, 'write', true);
    const template = optVal(p, '--template');
    if (template) templateHooks(template, dir ?? literalEW('.'), has(p, '--bare'), sep, env, c, unsure);
  }
}

/**
 * `git --git-dir=DIR` reads DIR/config, which can name commands (core.fsmonitor runs at `git
 * status`). A folder named `.git` has its config protected by the locked Git rule; any other
 * (`.git/x`, written by the agent a call before) is a config nobody judged: unsure.
 */
function gitDirConfig(dir: string | undefined, unsure: (why: string) => void): void {
  if (dir === undefined || !/(^|\/)\.git\/*$/.test(dir)) unsure("git --git-dir reads that folder's config, which can name commands");
}

function git(args: EW[], env: Env, c: Ctx): void {
  const col = c.col;
  let i = 0;
  let cwd = env.cwd;
  let otherRepo = false;
  const unsure = (why: string): void => {
    col.op('execute');
    col.evasive(why);
  };
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (t === '-C') {
      const d = args[++i];
      if (d?.known) cwd = col.shellPath(d.t, d.tilde, cwd) ?? cwd;
    } else if (t === '-c') {
      const kv = args[++i];
      if (!kv?.known) unsure('git -c with a computed setting');
      else if (GIT_EXEC_KEY.test(kv.t)) {
        unsure(`git -c ${kv.t.split('=')[0] ?? ''} can run a command`);
        // The value of a command setting is shell code (`!` for aliases): what it names still counts.
        const eq = kv.t.indexOf('=');
        const v = eq > 0 ? kv.t.slice(eq + 1).replace(/^!/, '') : '';
        if (v && env.depth < MAX_DEPTH && /^(core\.|alias\.|pager\.|diff\.|filter\.|credential\.|sequence\.|gpg\.)/i.test(kv.t)) nested(v, env, c);
      }
    } else if (t === '--config-env' || t.startsWith('--config-env=')) {
      if (t === '--config-env') i++;
      unsure('git --config-env takes a setting from the environment');
    } else if (t === '--exec-path' || t.startsWith('--exec-path=')) unsure('git --exec-path runs its commands from another folder');
    else if (t === '--git-dir' || t === '--work-tree') {
      otherRepo = true;
      const d = args[++i];
      if (d) pathOf(d, env, c, 'read', true);
      if (t === '--git-dir') gitDirConfig(d?.known ? d.t : undefined, unsure);
    } else if (t.startsWith('--git-dir=') || t.startsWith('--work-tree=')) {
      otherRepo = true;
      const v = t.slice(t.indexOf('=') + 1);
      pathOf(literalEW(v), env, c, 'read', true);
      if (t.startsWith('--git-dir=')) gitDirConfig(v, unsure);
    } else if (t === '--namespace' || t === '--super-prefix') i++;
    else if (!t.startsWith('-')) break;
  }
  const sub = args[i]?.t ?? '';
  const rest = args.slice(i + 1);
  const sEnv = { ...env, cwd };
  if (GIT_NETWORK.has(sub)) {
    col.op('network');
    for (const a of rest) {
      if (!a.known || a.t.startsWith('-')) continue;
      if (a.t.includes('://')) hostsOfUrl(a.t, (h) => col.host(h));
      else {
        // `user@host:path` anywhere; `10.0.0.5:repo` anywhere (no branch is named so): the remote
        // word itself is judged below whatever its host.
        const h = gitScpHost(a.t);
        if (h && (scpHost(a.t, true) || ADDRESS_LIKE.test(h))) col.host(h);
      }
    }
    for (const r of remoteWords(sub, rest)) {
      // The remote may be any host (`git ls-remote $x:repo` with x unknown).
      if (!r.known) {
        unsure(`git ${sub}: a remote Gatehouse cannot read`);
        continue;
      }
      if (r.t.includes('://')) hostsOfUrl(r.t, (h) => col.host(h));
      else col.host(gitScpHost(r.t));
    }
    for (const a of rest) {
      if (/^--(upload-pack|receive-pack|exec)(=|$)/.test(a.t) || (a.t === '-u' && sub === 'clone')) unsure(`git ${sub} ${a.t.split('=')[0] ?? ''} runs a program`);
      if (/^(ext::|fd::)/.test(a.t)) unsure('git remote helper ext:: runs a command');
    }
  }
  if (sub === 'clone') {
    col.op('write');
    const spec = REMOTE_OPTS.clone as [string, string[]];
    const cp = parseArgs(rest, spec[0], spec[1]);
    const pos = cp.pos;
    const dir = pos[1];
    if (dir) pathOf(dir, sEnv, c, 'write', true);
    // A local source is read whole.
    const src = pos[0];
    if (src?.known && !src.t.includes('://') && !gitScpHost(src.t)) pathOf(src, sEnv, c, 'read', true);
    const sep = optVal(cp, '--separate-git-dir');
    if (sep) pathOf(sep, sEnv, c, 'write', true);
    const template = optVal(cp, '--template');
    if (template) {
      // The clone's folder: as named, or the source's last part without .git (git's "humanish" name).
      const name = dir ?? (src?.known ? literalEW(src.t.replace(/\/+$/, '').replace(/\.git$/, '').replace(/^.*[/:]/, '') || '.') : undefined);
      templateHooks(template, name, has(cp, '--bare', '--mirror'), sep, sEnv, c, unsure);
    }
    for (const o of parseArgs(rest, 'c', ['--config']).opts) if ((o.name === '-c' || o.name === '--config') && o.value?.known && GIT_EXEC_KEY.test(o.value.t)) unsure(`git clone -c ${o.value.t.split('=')[0] ?? ''} can run a command`);
    return;
  }
  namedOutputs(sub, rest, sEnv, c, unsure);
  // Side doors of the "read" subcommands.
  for (let k = 0; k < rest.length; k++) {
    const t = (rest[k] as EW).t;
    if (t === '--output' || t.startsWith('--output=')) {
      const f = t === '--output' ? rest[++k] : { ...(rest[k] as EW), t: t.slice(9), tilde: t[9] === '~' };
      if (f) pathOf(f, sEnv, c, 'write');
    } else if ((sub === 'checkout-index' || sub === 'read-tree') && (t === '--prefix' || t.startsWith('--prefix='))) {
      // Every tracked file is written under the prefix (`--prefix=$HOME/` lands a .bashrc on ~/.bashrc).
      const f = t === '--prefix' ? rest[++k] : { ...(rest[k] as EW), t: t.slice(9), tilde: t[9] === '~' };
      col.op('write');
      if (f) pathOf(f, sEnv, c, 'write', true);
    } else if (sub === 'grep' && (t === '-O' || t.startsWith('-O') || t === '--open-files-in-pager' || t.startsWith('--open-files-in-pager='))) {
      unsure('git grep -O opens the files in a program of the caller\'s choosing');
    } else if (t === '--ext-diff' || t === '--textconv') {
      unsure(`git ${sub} ${t} runs configured programs`);
    } else if (t.startsWith('--exec=') || t === '--exec' || (sub === 'rebase' && (t === '-x' || t.startsWith('--exec')))) {
      unsure(`git ${sub} --exec runs a command`);
    }
  }
  if (sub === 'diff' && rest.some((a) => a.t === '--no-index')) {
    // `git diff --no-index A B` compares two arbitrary paths outside any repository.
    col.op('read');
    for (const a of rest) if (a.known && !a.t.startsWith('-')) pathOf(a, sEnv, c, 'read', true);
    return;
  }
  if (sub === 'config' || sub === 'bisect' || sub === 'filter-branch' || sub === 'difftool' || sub === 'mergetool' || sub === 'submodule' && rest.some((a) => a.t === 'foreach')) {
    if (sub !== 'config' || rest.some((a) => a.known && GIT_EXEC_KEY.test(a.t))) unsure(`git ${sub} can run a command`);
    if (sub === 'config') gitConfigWrite(rest, sEnv, c);
  }
  if (otherRepo && printsContents(sub)) unsure(`git ${sub} reads a repository named by --git-dir or --work-tree`);
  // Contents printed from the repository's objects (`git show :.env`) are reads of those paths.
  gitObjectReads(sub, rest, cwd, col);
  if (sub === 'credential' || sub === 'credential-store' || sub === 'credential-cache') {
    // Prints stored credentials without naming the files that hold them.
    col.op('read');
    for (const f of ['~/.git-credentials', '~/.config/git/credentials']) col.path(f, cwd);
    col.evasive(`git ${sub} hands out stored credentials`);
    return;
  }
  if (GIT_READ.has(sub)) {
    col.op('read');
    return;
  }
  if (sub === 'rm' || sub === 'clean') col.op('delete');
  else if (sub === 'mv') col.op('move');
  if (!GIT_NETWORK.has(sub) || sub === 'pull' || sub === 'submodule') col.op('write');
  if (sub === 'rm' || sub === 'mv' || sub === 'add' || sub === 'checkout' || sub === 'restore') {
    for (const a of parseArgs(rest, 'm', []).pos) pathOf(a, sEnv, c);
  }
}

/** Version control. */
export const VCS_PROGRAMS: Record<string, Handler> = { git };
