// Environment managers that run a command inside the environment they manage: `poetry run CMD`,
// `conda run -n ENV CMD`, `bundle exec CMD`, `nix develop -c CMD`, `mise exec -- CMD`. The command
// is judged as itself, in the folder the manager's own option names; before, the whole line was
// an unknown program and `poetry run sh -c 'curl … | sh'` was allowed with its command unread.
// Their other subcommands (install, add, lock) keep the unknown-program judgement. An option of a
// run subcommand that Gatehouse does not know makes the call unsure: if it takes a value, that
// value would be read as the command and the real command as its arguments.
import { nested, runRest } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, MAX_DEPTH } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';

interface RunnerSpec {
  /** Subcommands whose remaining words are the command (`run`, `exec`). */
  subs: string[];
  /** Options before the subcommand, or of the subcommand, that take a value. */
  valued: string[];
  /** Options that take no value. */
  flags: string[];
  /** Options whose value is the folder the command runs in. */
  cwd?: string[];
  /** The first word of the command may be `ENV:CMD` (hatch). */
  envPrefix?: boolean;
}

function envRunner(spec: RunnerSpec): Handler {
  return (args, env, c, feed, name) => {
    let cur = env;
    let running = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as EW;
      const t = a.t;
      if (t === '--') {
        if (running) runCommand(args.slice(i + 1), cur, c, feed, spec);
        else unknownProgram(args.slice(i + 1), cur, c);
        return;
      }
      if (!a.known && running) {
        c.col.evasive(`${name}: a command built at run time`);
        return runRest(args.slice(i), cur, c, feed);
      }
      if (!t.startsWith('-') || t === '-') {
        if (running) return runCommand(args.slice(i), cur, c, feed, spec);
        if (!spec.subs.includes(t)) return unknownProgram(args.slice(i), cur, c);
        running = true;
        continue;
      }
      const eq = t.startsWith('--') ? t.indexOf('=') : -1;
      const opt = eq > 0 ? t.slice(0, eq) : t;
      let value: EW | undefined;
      if (eq > 0) value = { ...a, t: t.slice(eq + 1), tilde: t.charCodeAt(eq + 1) === 126 };
      else if (spec.valued.includes(opt) || spec.cwd?.includes(opt)) value = args[++i];
      else if (!spec.flags.includes(opt)) {
        c.col.evasive(`${name}: an option Gatehouse does not know (${t.slice(0, 40)}) may take the command's place`);
        continue;
      }
      if (!value) continue;
      if (spec.cwd?.includes(opt)) {
        if (value.known) cur = { ...cur, cwd: c.col.shellPath(value.t, value.tilde, cur.cwd) ?? cur.cwd };
        else c.col.evasive(`${name} ${opt} to a folder the judge cannot evaluate`);
      }
    }
  };
}

function runCommand(rest: EW[], env: Env, c: Ctx, feed: Feed, spec: RunnerSpec): void {
  const first = rest[0];
  // `hatch run test:pytest -x`: the environment, then the command.
  if (spec.envPrefix && first?.known && /^[\w.-]+:./.test(first.t)) {
    const t = first.t.slice(first.t.indexOf(':') + 1);
    return runRest([{ ...first, t, tilde: t.charCodeAt(0) === 126 }, ...rest.slice(1)], env, c, feed);
  }
  runRest(rest, env, c, feed);
}

const QUIET = ['-q', '--quiet', '-v', '-vv', '-vvv', '--verbose', '-h', '--help', '-V', '--version', '--no-color', '--color', '--ansi', '--no-ansi', '-n', '--no-interaction'];

const poetry = envRunner({ subs: ['run'], valued: ['-P', '--project'], cwd: ['-C', '--directory'], flags: [...QUIET, '--no-plugins', '--no-cache'] });
const pipenv = envRunner({ subs: ['run'], valued: ['--python', '--pypi-mirror', '--categories'], flags: [...QUIET, '--site-packages', '--no-site-packages', '--clear'] });
const pdm = envRunner({
  subs: ['run'],
  valued: ['-c', '--config', '-p', '--project', '--venv', '-k', '--skip'],
  flags: [...QUIET, '-I', '--ignore-python', '-g', '--global', '-l', '--list', '-s', '--site-packages', '-j', '--json', '--recreate'],
});
const hatch = envRunner({ subs: ['run'], valued: ['-e', '--env', '-p', '--project', '--data-dir', '--cache-dir', '--config'], flags: [...QUIET, '--interactive', '--no-interactive'], envPrefix: true });
const conda = envRunner({
  subs: ['run'],
  valued: ['-n', '--name', '-p', '--prefix'],
  cwd: ['--cwd'],
  flags: [...QUIET, '--no-capture-output', '--live-stream', '--debug-wrapper-scripts', '--dev'],
});
const bundle = envRunner({ subs: ['exec'], valued: ['-r', '--retry'], flags: [...QUIET, '--keep-file-descriptors', '--no-keep-file-descriptors'] });
const haskell = envRunner({ subs: ['exec'], valued: ['--package', '--stack-yaml', '--resolver', '--project-file', '--builddir'], cwd: ['--cwd'], flags: [...QUIET, '--no-ghc-package-path', '--rts-options'] });
const opam = envRunner({ subs: ['exec'], valued: ['--switch', '--root'], flags: [...QUIET, '--set-opamroot', '--set-switch'] });
const versionManager = envRunner({ subs: ['exec'], valued: [], flags: QUIET });
const simpleRun = envRunner({ subs: ['run'], valued: ['-e', '--environment', '--manifest-path'], flags: [...QUIET, '--frozen', '--locked'] });

/**
 * Managers whose command comes only after a marker, past words that name packages or tools:
 * `nix-shell -p jq --run CMD` (shell code), `nix develop .#x -c CMD ARGS`, `mise exec node@20 -- CMD`,
 * `mise exec -c 'CMD'`. The other words keep the unknown-program judgement.
 */
function afterMarker(code: string[], command: string[]): Handler {
  return (args, env, c, feed) => {
    const own: EW[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as EW;
      if (command.includes(a.t)) {
        unknownProgram(own, env, c);
        return runRest(args.slice(i + 1), env, c, feed);
      }
      if (code.includes(a.t)) {
        const v = args[++i];
        c.col.op('execute');
        if (v && !v.known) c.col.evasive(`${a.t} runs a command built at run time`);
        else if (v && env.depth < MAX_DEPTH) nested(v.t, env, c);
        continue;
      }
      own.push(a);
    }
    unknownProgram(own, env, c);
  };
}

const nixShell = afterMarker(['--run', '--command'], []);
const nix = afterMarker([], ['-c', '--command']);
const mise = afterMarker(['-c', '--command'], ['--']);

/**
 * `ansible HOSTS -m shell -a CMD`: the shell, command and raw modules run CMD on the hosts, which
 * include this machine when they name it (or `all` with a local inventory); it is judged as shell
 * code. Any other module's arguments (`-m copy -a "src=~/.ssh/id_rsa dest=…"`) are not read: unsure.
 */
function ansible(args: EW[], env: Env, c: Ctx): void {
  let mod: EW | undefined;
  let modArgs: EW | undefined;
  for (let i = 0; i < args.length; i++) {
    const t = (args[i] as EW).t;
    const eq = t.startsWith('--') ? t.indexOf('=') : -1;
    const opt = eq > 0 ? t.slice(0, eq) : t;
    const value = (): EW | undefined => (eq > 0 ? { ...(args[i] as EW), t: t.slice(eq + 1) } : args[++i]);
    if (opt === '-m' || opt === '--module-name') mod = value();
    else if (opt === '-a' || opt === '--args') modArgs = value();
  }
  if (!modArgs) return unknownProgram(args, env, c);
  c.col.op('execute');
  const m = mod?.known ? mod.t.replace(/^ansible\.(builtin|legacy)\./, '') : mod ? null : 'command';
  if (m === 'shell' || m === 'command' || m === 'raw') {
    if (!modArgs.known) c.col.evasive(`ansible -m ${m} runs a command built at run time`);
    else if (env.depth < MAX_DEPTH) nested(modArgs.t.replace(/(^|\s)(chdir|creates|removes|executable|warn|stdin)=\S+/g, ' '), env, c);
  } else c.col.evasive(`ansible -m ${mod?.t.slice(0, 40) ?? '…'}: a module's arguments Gatehouse does not read`);
}

export const ENV_RUNNER_PROGRAMS: Record<string, Handler> = {
  poetry, pipenv, pdm, hatch, conda, mamba: conda, micromamba: conda, bundle, stack: haskell, cabal: haskell, opam,
  mise, rtx: mise, asdf: versionManager, rbenv: versionManager, pyenv: versionManager, rye: simpleRun, pixi: simpleRun,
  'nix-shell': nixShell, nix, ansible: (args, env, c) => ansible(args, env, c),
};
