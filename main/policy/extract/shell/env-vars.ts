// Assignments before a command (`LD_PRELOAD=x.so ls`) and options that make a program load or run
// other code: unsure whatever the autonomy level, because the judge cannot see that code.
import { codeEnvReason, codeOptionFindings } from '../code-options.js';
import { hostsOfUrlArg } from '../hosts.js';
import type { SimpleCommand } from '../shell-ir.js';
import { pathOf } from './path-args.js';
import type { Ctx, Env, EW } from './types.js';
import { evalWord } from './words.js';

/** Variables that make a program load or run other code: `LD_PRELOAD=x.so ls`, `GIT_PAGER='sh -c …' git log`. */
const CODE_VARS = new Set([
  'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'DYLD_LIBRARY_PATH', 'BASH_ENV', 'ENV', 'PROMPT_COMMAND',
  'PYTHONSTARTUP', 'PYTHONPATH', 'PYTHONHOME', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'RUBYOPT', 'RUBYLIB', 'NODE_OPTIONS', 'NODE_PATH',
  'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EXEC_PATH', 'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_TEMPLATE_DIR', 'LESSOPEN', 'LESSCLOSE', 'SHELLOPTS', 'BASHOPTS', 'IFS',
  // Prompts: bash runs the $(…) in them (PS4 before every command traced by -x, the others in an
  // interactive shell), so `PS4='$(cat ~/.ssh/id_rsa)' bash -xc :` reads a key no word names.
  'PS0', 'PS1', 'PS2', 'PS3', 'PS4',
  // Where a program reads its configuration or repository from, which can name commands: git's
  // core.fsmonitor in $XDG_CONFIG_HOME/git/config or $GIT_DIR/config, zsh's $ZDOTDIR/.zshrc.
  'XDG_CONFIG_HOME', 'GIT_DIR', 'GIT_COMMON_DIR', 'ZDOTDIR',
  // Docker's config folder: its credential helpers are programs it runs, its contexts name daemons.
  'DOCKER_CONFIG',
  // Code or commands given in the environment: glibc's gconv modules, vim's and ex's start-up
  // commands, tar's and man's options (--to-command, -P), perl -d's debugger.
  'GCONV_PATH', 'VIMINIT', 'EXINIT', 'TAR_OPTIONS', 'MANOPT', 'PERL5DB',
  // The MySQL and MariaDB client libraries load plugins (native code) from these at start.
  'LIBMYSQL_PLUGIN_DIR', 'LIBMYSQL_PLUGINS', 'MARIADB_PLUGIN_DIR',
  // Ansible's config and the folders it loads modules and plugins (Python code) from; the Pipfile
  // whose scripts `pipenv run` runs.
  'ANSIBLE_CONFIG', 'ANSIBLE_LIBRARY', 'ANSIBLE_MODULE_UTILS', 'ANSIBLE_ACTION_PLUGINS', 'ANSIBLE_CALLBACK_PLUGINS', 'ANSIBLE_CONNECTION_PLUGINS',
  'ANSIBLE_LOOKUP_PLUGINS', 'ANSIBLE_FILTER_PLUGINS', 'ANSIBLE_STRATEGY_PLUGINS', 'ANSIBLE_VARS_PLUGINS', 'ANSIBLE_COLLECTIONS_PATH', 'ANSIBLE_COLLECTIONS_PATHS',
  'ANSIBLE_ROLES_PATH', 'PIPENV_PIPFILE',
]);

/** Option variables that are harmless when they hold only flags (`LESS=-R`); `LESS='+!cmd'` runs cmd. */
const FLAG_VARS = new Set(['LESS']);

/** Pager and editor variables: harmless when they name a plain pager. */
const PAGER_VARS = new Set(['PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'EDITOR', 'VISUAL', 'GIT_EDITOR', 'SUDO_ASKPASS', 'BROWSER']);

/** Variables that change what a later word means to the shell itself. */
const MEANING_VARS: Record<string, string> = {
  CDPATH: 'CDPATH changes the folder cd enters',
  HOME: 'HOME reassigned: ~ no longer means the home folder',
  BASH_ALIASES: 'aliases set through BASH_ALIASES',
  BASH_CMDS: 'command paths set through BASH_CMDS',
};

/**
 * Proxy variables (a client sends the request to the proxy's host) and the servers tools reach
 * through a variable (the Docker daemon, a Go module proxy, a package index): setting one for a
 * command is a network operation to that host (`DOCKER_HOST=tcp://127.0.0.1:2375 docker ps`).
 */
const PROXY_VARS = new Set([
  'http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'all_proxy', 'ftp_proxy', 'FTP_PROXY',
  'DOCKER_HOST', 'CONTAINER_HOST', 'GOPROXY', 'npm_config_registry', 'NPM_CONFIG_REGISTRY', 'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'UV_INDEX_URL',
]);

/**
 * Variables naming a file a program reads or writes on its own: a client's password, key or
 * credentials file, a file of commands it runs at start, a history or key log it writes. Before,
 * `PGPASSFILE=~/.ssh/id_rsa psql` and `AWS_SHARED_CREDENTIALS_FILE=… aws s3 ls` named no path the
 * rules could see. A folder (`tree`) is read whole.
 */
const FILE_VARS: Record<string, { op: 'read' | 'write'; tree?: boolean; runs?: string }> = {
  PGPASSFILE: { op: 'read' }, PGSSLKEY: { op: 'read' }, PGSSLCERT: { op: 'read' }, PGSSLROOTCERT: { op: 'read' }, PGSSLCRL: { op: 'read' },
  PGSERVICEFILE: { op: 'read' }, PGSYSCONFDIR: { op: 'read', tree: true },
  PSQLRC: { op: 'read', runs: 'PSQLRC names a file of psql commands (\\! runs shell commands)' },
  PSQL_HISTORY: { op: 'write' }, MYSQL_HISTFILE: { op: 'write' }, SQLITE_HISTORY: { op: 'write' }, REDISCLI_HISTFILE: { op: 'write' },
  REDISCLI_RCFILE: { op: 'read' }, NODE_REPL_HISTORY: { op: 'write' }, PYTHON_HISTORY: { op: 'write' }, HISTFILE: { op: 'write' },
  LESSHISTFILE: { op: 'write' }, SSLKEYLOGFILE: { op: 'write' },
  MYSQL_TEST_LOGIN_FILE: { op: 'read' },
  KUBECONFIG: { op: 'read', runs: 'KUBECONFIG names a kubeconfig, whose exec credential plugins are programs kubectl runs' },
  AWS_SHARED_CREDENTIALS_FILE: { op: 'read' },
  AWS_CONFIG_FILE: { op: 'read', runs: 'AWS_CONFIG_FILE names an AWS config, whose credential_process is a program the CLI runs' },
  GOOGLE_APPLICATION_CREDENTIALS: { op: 'read' }, CLOUDSDK_CONFIG: { op: 'read', tree: true }, AZURE_CONFIG_DIR: { op: 'read', tree: true },
  NETRC: { op: 'read' }, CURL_HOME: { op: 'read', tree: true }, WGETRC: { op: 'read' },
  GNUPGHOME: { op: 'read', tree: true }, PASSWORD_STORE_DIR: { op: 'read', tree: true },
  NPM_CONFIG_USERCONFIG: { op: 'read' }, npm_config_userconfig: { op: 'read' }, PIP_CONFIG_FILE: { op: 'read' },
  VAULT_CONFIG_PATH: { op: 'read' }, TF_CLI_CONFIG_FILE: { op: 'read' }, DOCKER_CERT_PATH: { op: 'read', tree: true },
  GH_CONFIG_DIR: { op: 'read', tree: true }, SSH_AUTH_SOCK: { op: 'read' },
};

/**
 * One variable set for a command (`NAME=V cmd`, `env NAME=V cmd`, `tmux new -e NAME=V`): unsure
 * when it makes the program load or run other code, a network operation when it names a server,
 * a read or write of the file it names. `value` is the word after `=`.
 */
export function judgeAssignment(name: string, value: EW, env: Env, c: Ctx): void {
  if (PROXY_VARS.has(name)) networkVar(name, value, c);
  fileVar(name, value, env, c);
  const why = codeVarReason(name);
  if (why) c.col.evasive(why);
  else if (FLAG_VARS.has(name)) {
    if (!value.known || !/^[-A-Za-z0-9 ]*$/.test(value.t)) c.col.evasive(`${name} holds commands for the program`);
  } else if (PAGER_VARS.has(name)) {
    if (!value.known || !/^(cat|less|more|less -[A-Za-z]+|true|)$/.test(value.t.trim())) c.col.evasive(`${name} names a program that runs`);
  } else if (/^GIT_CONFIG_(KEY|VALUE)_\d+$|^GIT_CONFIG_COUNT$/.test(name)) c.col.evasive('git settings passed in the environment');
}

/** A FILE_VARS variable set to `value`: the file it names is read or written (`export` too: assign.ts). */
export function fileVar(name: string, value: EW, env: Env, c: Ctx): void {
  const spec = Object.hasOwn(FILE_VARS, name) ? FILE_VARS[name] : undefined;
  if (!spec || (value.known && value.t === '')) return;
  if (spec.runs) c.col.evasive(spec.runs);
  // KUBECONFIG is a list of files.
  const parts = value.known && name === 'KUBECONFIG' ? value.t.split(':').filter(Boolean).map((t) => ({ ...value, t, tilde: t[0] === '~' })) : [value];
  for (const p of parts) {
    c.col.op(spec.op);
    pathOf(p, env, c, spec.op, spec.tree ?? false);
  }
}

/** Why setting this variable for a command makes it load or run other code (code-options.ts has the build tools' own). */
export function codeVarReason(name: string): string | undefined {
  return CODE_VARS.has(name) ? `${name} makes a program load or run other code` : codeEnvReason(name);
}

/**
 * A variable that points the command at a server (PROXY_VARS), set to `v`: a network operation to
 * that host; `env NAME=…` too (wrappers.ts). Not a PROXY_VARS name: nothing.
 */
export function networkVar(name: string, v: { known: boolean; t: string }, c: Ctx): void {
  if (!PROXY_VARS.has(name)) return;
  if (v.known && v.t) {
    // GOPROXY is a list (`http://a,direct`, `http://a|http://b`); the others hold one address.
    for (const u of v.t.split(/[,|]/).filter((x) => x && x !== 'direct' && x !== 'off')) hostsOfUrlArg(u, (h) => c.col.host(h));
    c.col.op('network');
  } else if (!v.known) c.col.evasive(`${name} set to a computed proxy`);
}

/**
 * What assigning `name` (an element `NAME[SUB]` too) means to the shell itself: MEANING_VARS make
 * the call unsure, and a path put in BASH_CMDS (`BASH_CMDS[ls]=…/gatehouse.js`) is a program the
 * call starts (by the name hashed), like `hash -p` (builtins.ts).
 */
export function shellMeaningVar(name: string, v: { known: boolean; t: string; tilde?: boolean }, env: Env, c: Ctx): void {
  const sub = name.indexOf('[');
  const base = sub < 0 ? name : name.slice(0, sub);
  const meaning = Object.hasOwn(MEANING_VARS, base) ? MEANING_VARS[base] : undefined;
  if (meaning) c.col.evasive(meaning);
  if (base === 'BASH_CMDS' && v.known && v.t) c.col.program(v.t, v.tilde ?? false, env.cwd);
}

export function codeVars(cmd: SimpleCommand, env: Env, c: Ctx): void {
  for (const a of cmd.assigns) {
    const sub = a.name.indexOf('[');
    const name = sub < 0 ? a.name : a.name.slice(0, sub);
    shellMeaningVar(a.name, name === 'BASH_CMDS' ? evalWord(a.value, env, c) : { known: false, t: '' }, env, c);
    // A bare `IFS=x` (no command) is the shell's own splitting, which the shell model follows.
    if (name === 'IFS' && cmd.words.length === 0) continue;
    judgeAssignment(name, evalWord(a.value, env, c), env, c);
  }
}

/**
 * Build tools and interpreters run code named in their own options (`npm test --script-shell=x`,
 * `pytest -p plugin`, `make SHELL=x`): unsure, whatever the autonomy level or a grant says.
 */
export function codeOptions(program: string, args: EW[], c: Ctx, env: Env): void {
  const { reasons, reads } = codeOptionFindings(program, args);
  for (const why of reasons) {
    c.col.op('execute');
    c.col.evasive(why);
  }
  // `node --env-file ~/.aws/credentials app.js`: the file is read, and a rule protecting it decides.
  for (const r of reads) {
    const w = args[r.index] as EW;
    pathOf(r.from === 0 ? w : { ...w, t: w.t.slice(r.from), tilde: w.t.charCodeAt(r.from) === 126 }, env, c, 'read');
  }
}
