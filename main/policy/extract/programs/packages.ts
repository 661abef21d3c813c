// Package managers and package runners.
import { hostsOfUrl } from '../hosts.js';
import { pathOf } from '../shell/path-args.js';
import { nested, runRest } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';

export function pkgManager(netSubs: string[]): Handler {
  return (args, env, c, feed) => {
    const i = args.findIndex((a) => !a.t.startsWith('-'));
    const sub = args[i]?.t ?? '';
    if (netSubs.includes(sub)) {
      c.col.op('network');
      c.col.op('write');
    }
    urlHosts(args, c);
    // `npm exec -c CMD`, `npm exec -- CMD`, `yarn exec CMD`, `pnpm exec CMD`: a command to judge.
    if (sub === 'exec' || sub === 'x' || sub === 'dlx') {
      const rest = args.slice(i + 1);
      for (let k = 0; k < rest.length; k++) {
        const t = (rest[k] as EW).t;
        const v = t === '-c' || t === '--call' ? rest[++k] : t.startsWith('--call=') ? literalEW(t.slice(7)) : undefined;
        if (v) {
          if (!v.known) c.col.evasive(`${sub} -c on a computed string`);
          else if (env.depth < MAX_DEPTH) nested(v.t, env, c);
          return;
        }
        if (t === '--') return runRest(rest.slice(k + 1), env, c, feed);
        if (t.startsWith('-')) {
          if (/^--(package|workspace|filter|shell)$/.test(t) || t === '-p' || t === '-w') k++;
          continue;
        }
        return runRest(rest.slice(k), env, c, feed);
      }
    }
  };
}

/**
 * The server a package tool talks to, whatever the subcommand: `npm ping --registry
 * http://127.0.0.1:9229/`, `pip download -i http://169.254.169.254/simple x`, a package given by its URL.
 */
function urlHosts(args: EW[], c: Ctx): void {
  for (const a of args) {
    if (!a.known || !a.t.includes('://')) continue;
    const eq = a.t.startsWith('-') ? a.t.indexOf('=') : -1;
    hostsOfUrl(eq > 0 ? a.t.slice(eq + 1) : a.t, (h) => c.col.host(h));
    c.col.op('network');
  }
}

export const NET_PKG = ['install', 'i', 'add', 'ci', 'update', 'upgrade', 'publish', 'download', 'fetch', 'pull', 'push', 'clone', 'get', 'exec', 'dlx', 'create', 'init'];

/** npx/pnpx: `-c CMD` is shell code; otherwise a package is fetched and run. */
function npx(args: EW[], env: Env, c: Ctx): void {
  c.col.op('network');
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    const v = t === '-c' || t === '--call' ? args[++i] : t.startsWith('--call=') ? literalEW(t.slice(7)) : undefined;
    if (!v) continue;
    if (!v.known) c.col.evasive('npx -c on a computed string');
    else if (env.depth < MAX_DEPTH) nested(v.t, env, c);
  }
}

// uv's options (global, `uv run`, `uv tool run`/`uvx`, `uv pip`, `uv add` …) that take a value, and
// its flags. An option in neither list makes the call unsure: read as a flag, a value it takes
// would be judged as the command and the real command as its arguments.
const UV_VALUE = new Set([
  '--directory', '--project', '--cache-dir', '--config-file', '--color', '--python-preference', '--allow-insecure-host',
  '--extra', '--no-extra', '--group', '--no-group', '--only-group', '--env-file', '--with', '--with-editable', '--with-requirements',
  '--package', '--index', '--default-index', '--index-url', '--extra-index-url', '--find-links', '--upgrade-package',
  '--reinstall-package', '--index-strategy', '--keyring-provider', '--resolution', '--prerelease', '--fork-strategy',
  '--exclude-newer', '--exclude-newer-package', '--no-build-isolation-package', '--config-setting', '--config-settings-package',
  '--link-mode', '--no-build-package', '--no-binary-package', '--only-binary-package', '--refresh-package', '--python',
  '--python-platform', '--python-version', '--from', '--constraints', '--overrides', '--build-constraints', '--requirements',
  '--target', '--prefix', '--output-file', '--dev-group', '--optional', '--branch', '--tag', '--rev', '--bounds', '--marker',
  '--editable', '--constraint', '--override', '--build-constraint', '--no-sources-package', '--torch-backend', '--pin',
  '-w', '-p', '-i', '-f', '-P', '-C', '-c', '-b', '-r', '-o', '-e', '-t',
]);
const UV_FLAG = new Set([
  '-q', '-v', '-n', '-U', '-s', '-m', '-h', '-V', '--quiet', '--verbose', '--no-cache', '--offline', '--native-tls', '--no-progress',
  '--no-python-downloads', '--no-config', '--help', '--version', '--all-extras', '--no-dev', '--only-dev', '--dev',
  '--no-default-groups', '--all-groups', '--no-editable', '--inexact', '--exact', '--no-env-file', '--isolated', '--active',
  '--no-active', '--no-sync', '--locked', '--frozen', '--script', '--gui-script', '--all-packages', '--no-project', '--no-index',
  '--upgrade', '--reinstall', '--no-sources', '--no-build-isolation', '--compile-bytecode', '--no-build', '--no-binary',
  '--refresh', '--system', '--break-system-packages', '--user', '--no-deps', '--managed-python', '--no-managed-python',
  '--preview', '--no-installer-metadata', '--strict', '--dry-run', '--force', '--module', '--raw', '--raw-sources', '--workspace',
]);

/**
 * uv: installing and syncing fetch and write; `uv run CMD`, `uv tool run CMD` and `uvx CMD` run a
 * command, judged as that command (`uv run bash -c '…'` was only "runs something"), in the folder
 * `--directory` names. `uv run -m MOD` and `uv run x.py` run python. Files uv reads for the command
 * (`--env-file ~/.aws/credentials` puts them in its environment) are reads.
 */
function uv(args: EW[], env: Env, c: Ctx, feed: Feed, runs = false): void {
  const col = c.col;
  urlHosts(args, c);
  let cur = env;
  let module = false;
  let script = false;
  const subs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as EW;
    const t = a.t;
    if (t === '--') {
      if (runs) run(args.slice(i + 1));
      return;
    }
    if (!t.startsWith('-') || t === '-') {
      if (runs) return run(args.slice(i));
      subs.push(t);
      // `uv run`, `uv tool run`, `uv tool uvx`: what follows the options is the command.
      if (t === 'run' && (subs.length === 1 || subs[0] === 'tool')) runs = true;
      else if (t === 'uvx' && subs[0] === 'tool') runs = true;
      if (subs.length === 1 && ['pip', 'add', 'sync', 'run', 'tool', 'lock', 'venv', 'python', 'build', 'publish', 'init', 'export', 'tree'].includes(t)) {
        col.op('network');
        col.op('write');
      }
      continue;
    }
    const eq = t.startsWith('--') ? t.indexOf('=') : -1;
    const name = eq > 0 ? t.slice(0, eq) : t.startsWith('--') ? t : t.slice(0, 2);
    let value: EW | undefined;
    if (eq > 0) value = { ...a, t: t.slice(eq + 1), tilde: t.charCodeAt(eq + 1) === 126 };
    else if (!t.startsWith('--') && t.length > 2) {
      // A short cluster: `-qU`, or an option with its value attached (`-p3.12`).
      if (UV_VALUE.has(name)) value = { ...a, t: t.slice(2), tilde: t.charCodeAt(2) === 126 };
      else if (![...t.slice(1)].every((ch) => UV_FLAG.has(`-${ch}`))) col.evasive(`uv: an option Gatehouse does not know (${t})`);
    } else if (UV_VALUE.has(name)) value = args[++i];
    else if (!UV_FLAG.has(name)) col.evasive(`uv: an option Gatehouse does not know (${t})`);
    if (name === '--module' || (name === '-m' && runs)) module = true;
    if (name === '--script' || name === '--gui-script' || name === '-s') script = true;
    if (!value) continue;
    if (name === '--directory') {
      if (value.known) cur = { ...cur, cwd: col.shellPath(value.t, value.tilde, cur.cwd) ?? cur.cwd };
      else col.evasive('uv --directory to a folder the judge cannot evaluate');
    } else if (name === '--env-file' || name === '--with-requirements' || name === '--config-file' || name === '--requirements' || name === '-r') {
      pathOf(value, cur, c, 'read');
    } else if (name === '--python' || name === '-p') {
      // A path names the python uv runs, not a version to find.
      if (!value.known || value.t.includes('/')) col.evasive('uv --python names the program it runs');
    } else if (name === '--target' || name === '--prefix' || name === '-t') {
      col.evasive(`uv ${name} installs into a folder of the caller's choosing (code imported from there runs)`);
    }
  }

  function run(rest: EW[]): void {
    if (!rest.length) return;
    col.op('network');
    col.op('write');
    const first = rest[0] as EW;
    if (module) return runRest([literalEW('python'), literalEW('-m'), ...rest], cur, c, feed);
    if (script || (first.known && /\.pyw?$/i.test(first.t))) return runRest([literalEW('python'), ...rest], cur, c, feed);
    runRest(rest, cur, c, feed);
  }
}

/** Package managers: installing fetches from the network and writes; `exec` runs a command of its own. */
export const PACKAGE_PROGRAMS: Record<string, Handler> = {
  pip: pkgManager(NET_PKG), pip3: pkgManager(NET_PKG), uv: (args, env, c, feed) => uv(args, env, c, feed), uvx: (args, env, c, feed) => uv(args, env, c, feed, true),
  npm: pkgManager(NET_PKG), pnpm: pkgManager(NET_PKG), yarn: pkgManager([...NET_PKG, '']),
  npx, pnpx: npx,
  'apt-get': pkgManager(['install', 'update', 'upgrade', 'download', 'source', 'dist-upgrade']), apt: pkgManager(['install', 'update', 'upgrade']),
  brew: pkgManager(['install', 'update', 'upgrade', 'tap', 'fetch']), gem: pkgManager(['install', 'update', 'fetch']), cargo: pkgManager(['install', 'add', 'fetch', 'update', 'publish']),
};
