// git: subcommands that reach the network, read or write, and settings whose value is a command.
import { gitObjectReads, printsContents, repoOf } from '../git-objects.js';
import { hostsOfUrl, scpHost } from '../hosts.js';
import { parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { nested } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';

const GIT_NETWORK = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule', 'remote', 'archive']);

const GIT_READ = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'grep', 'describe', 'shortlog', 'reflog', 'cat-file', 'ls-tree', 'rev-list', 'whatchanged', 'version', 'help']);

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
  if (reads || !words.some((w) => GIT_EXEC_KEY.test(w))) return;
  if (verb === undefined && words.length < 2 && !p.opts.some((o) => /^--(add|replace-all|unset|unset-all)$/.test(o.name))) return;
  const col = c.col;
  col.op('write');
  const file = p.opts.find((o) => o.name === '-f' || o.name === '--file')?.value;
  if (file) return pathOf(file, env, c, 'write');
  if (p.opts.some((o) => o.name === '--global')) {
    for (const f of ['~/.gitconfig', '~/.config/git/config']) col.path(f, env.cwd);
  } else if (p.opts.some((o) => o.name === '--system')) col.path('/etc/gitconfig', env.cwd);
  else col.path(`${repoOf(env.cwd)?.gitDir ?? `${env.cwd}/.git`}/config`, env.cwd);
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
      else col.host(scpHost(a.t, true));
    }
    for (const a of rest) {
      if (/^--(upload-pack|receive-pack|exec)(=|$)/.test(a.t) || a.t === '-u') unsure(`git ${sub} ${a.t.split('=')[0] ?? ''} runs a program`);
      if (/^(ext::|fd::)/.test(a.t)) unsure('git remote helper ext:: runs a command');
    }
  }
  if (sub === 'clone') {
    col.op('write');
    const pos = parseArgs(rest, 'obcju', ['--origin', '--branch', '--config', '--depth', '--reference', '--separate-git-dir', '--upload-pack', '--template', '--jobs', '--filter']).pos;
    const dir = pos[1];
    if (dir) pathOf(dir, sEnv, c, 'write', true);
    // A local source is read whole.
    const src = pos[0];
    if (src?.known && !src.t.includes('://') && !scpHost(src.t, true)) pathOf(src, sEnv, c, 'read', true);
    for (const o of parseArgs(rest, 'c', ['--config']).opts) if ((o.name === '-c' || o.name === '--config') && o.value?.known && GIT_EXEC_KEY.test(o.value.t)) unsure(`git clone -c ${o.value.t.split('=')[0] ?? ''} can run a command`);
    return;
  }
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
