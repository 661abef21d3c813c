// Build tools, compilers, test runners, linters and containers.
import { join } from 'node:path';
import { dockerContextAddress, dockerCurrentContext, podmanConnectionAddress, remoteAddress } from '../../container-contexts.js';
import { hostOfTarget, hostsOfUrlArg } from '../hosts.js';
import { optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import { type Ctx, type Env, type EW, type Feed, type Handler, literalEW } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { lookup } from '../shell/words.js';
import { STDIN_SCRIPT } from './interpreters.js';
import { pkgManager } from './packages.js';

/** make: `-f FILE` is the makefile (its recipes are shell code); `-f /dev/stdin` is unsure. */
function make(args: EW[], env: Env, c: Ctx): void {
  const p = parseArgs(args, 'fCIjlo', ['--file', '--makefile', '--directory', '--include-dir', '--jobs', '--load-average', '--old-file', '--eval']);
  for (const f of optVals(p, '-f', '--file', '--makefile')) {
    if (f.known && STDIN_SCRIPT.test(f.t)) c.col.evasive('make reads its makefile from its input');
    else pathOf(f, env, c, 'read');
  }
  for (const d of optVals(p, '-C', '--directory')) pathOf(d, env, c, 'read');
  unknownProgram(p.pos, env, c);
}

/**
 * Build tools, compilers, test runners and linters: they read and write the files they are given
 * (and run the project's code, as documented), which is what they are known to do — not unsure.
 */
function devTool(args: EW[], env: Env, c: Ctx): void {
  unknownProgram(args, env, c);
}

const DEV_TOOLS = [
  'go', 'pytest', 'py.test', 'jest', 'vitest', 'mocha', 'tsc', 'eslint', 'prettier', 'ruff', 'black', 'isort', 'mypy', 'flake8',
  'pylint', 'gcc', 'g++', 'clang', 'clang++', 'cc', 'c++', 'rustc', 'rustfmt', 'javac', 'java', 'mvn', 'gradle',
  'cmake', 'ninja', 'webpack', 'vite', 'esbuild', 'rollup', 'swc', 'babel', 'gofmt', 'clang-format', 'shellcheck',
  'biome', 'playwright', 'cypress', 'terraform', 'tofu', 'helm', 'gradlew', 'mvnw',
];

/** docker/podman: `-v SRC:DST` and `--mount source=SRC` give the container a host folder, whole. */
function container(netSubs: string[]): Handler {
  const pm = pkgManager(netSubs);
  return (all, env, c, feed, name) => {
    const args = afterGlobals(all, env, c, name, feed);
    pm(args, env, c, feed, name);
    // The registry an image comes from or goes to is its first component when that looks like a
    // host (`127.0.0.1:5000/x`, `registry.example/x`, `localhost/x`); `login` names it alone.
    const words = args.filter((a) => !a.t.startsWith('-'));
    const sub = words[0]?.t;
    const ref = words[1];
    if ((sub === 'pull' || sub === 'push' || sub === 'login') && ref?.known) {
      const first = sub === 'login' ? ref.t : ref.t.includes('/') ? ref.t.slice(0, ref.t.indexOf('/')) : '';
      if (first && (sub === 'login' || /[.:]/.test(first) || first === 'localhost')) {
        c.col.op('network');
        c.col.host(hostOfTarget(first.includes('://') ? first : first.replace(/:\d+$/, '')));
      }
    }
    for (let i = 0; i < args.length; i++) {
      const t = (args[i] as EW).t;
      let spec: string | undefined;
      if (t === '-v' || t === '--volume' || t === '--mount') spec = args[++i]?.t;
      else if (t.startsWith('--volume=') || t.startsWith('--mount=')) spec = t.slice(t.indexOf('=') + 1);
      else if (t.startsWith('-v') && t.length > 2) spec = t.slice(2);
      if (spec === undefined) continue;
      const src = t.includes('mount') ? /(?:^|,)(?:source|src)=([^,]+)/.exec(spec)?.[1] : spec.split(':')[0];
      if (src && (src.startsWith('/') || src.startsWith('~') || src.startsWith('.'))) {
        c.col.op('read');
        c.col.op('write');
        pathOf(literalEW(src), env, c, undefined, true);
      }
    }
    if (args.some((a) => a.t === '--privileged' || a.t.startsWith('--pid=host') || a.t.startsWith('--cap-add') || a.t.includes('docker.sock'))) c.col.evasive(`${name} gives a container the host`);
  };
}

/** docker's and podman's options before the subcommand that take a value (`docker -H HOST ps`). */
const GLOBAL_VALUE = new Set(['-H', '--host', '--url', '-c', '--context', '--connection', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey', '--identity', '--root', '--runroot']);
/** The options that name the daemon the client talks to: `-H 10.0.0.5:2375`, `--url ssh://host` (a unix socket, `fd://` or a Windows pipe is local). */
const DAEMON = new Set(['-H', '--host', '--url']);
/** The options that name a saved daemon: a Docker context, a Podman connection. */
const SAVED_DAEMON = new Set(['-c', '--context', '--connection']);

/**
 * The words after the client's global options, so the subcommand is found after `-H HOST`. The
 * daemon the client talks to, named on the command line, by a variable or by a saved context or
 * connection (container-contexts.ts), is a network operation to its host, with or without a scheme
 * (the client takes `HOST:PORT` as tcp); a unix socket is no host.
 */
function afterGlobals(args: EW[], env: Env, c: Ctx, name: string, feed: Feed): EW[] {
  let i = 0;
  let addressed = false;
  let saved: EW | undefined;
  let remote = name === 'podman-remote';
  const daemon = (what: string, v: EW): void => {
    if (!v.known) c.col.evasive(`${what} names a computed daemon`);
    else {
      const address = remoteAddress(v.t);
      if (address === null) return;
      hostsOfUrlArg(address, (h) => c.col.host(h));
      c.col.op('network');
    }
  };
  for (; i < args.length; i++) {
    const t = (args[i] as EW).t;
    if (!t.startsWith('-') || t === '--') break;
    if (name.startsWith('podman') && (t === '--remote' || t === '-r' || t === '--remote=true')) remote = true;
    const eq = t.indexOf('=');
    const opt = eq > 0 ? t.slice(0, eq) : t.startsWith('-H') && t.length > 2 ? '-H' : t;
    if (!GLOBAL_VALUE.has(opt)) continue;
    const v = eq > 0 ? literalEW(t.slice(eq + 1)) : opt !== t ? literalEW(t.slice(2)) : args[++i];
    if (!v) continue;
    if (DAEMON.has(opt)) {
      addressed = true;
      daemon(opt, v);
    } else if (SAVED_DAEMON.has(opt)) saved = v;
  }
  if (!addressed) savedDaemon(name, saved, remote, (v) => feed.assigns?.get(v) ?? lookup(v, env, c), c, daemon);
  return args.slice(i);
}

/**
 * The daemon a client without an address on its command line talks to, in the client's own order:
 * Docker's --context, then DOCKER_HOST, DOCKER_CONTEXT and the config's current context; Podman's
 * --connection, then CONTAINER_HOST, CONTAINER_CONNECTION and, with --remote, the default
 * connection. A variable set for the command itself was judged already (env-vars.ts); one the
 * agent's environment holds is judged here.
 */
function savedDaemon(name: string, saved: EW | undefined, remote: boolean, fromEnv: (name: string) => string | undefined, c: Ctx, daemon: (what: string, v: EW) => void): void {
  if (saved && !saved.known) {
    c.col.evasive(`${name} talks to a daemon named by a computed ${name.startsWith('podman') ? 'connection' : 'context'}`);
    return;
  }
  const address = (what: string, a: string | null): void => {
    if (a !== null) daemon(what, literalEW(a));
  };
  if (name.startsWith('podman')) {
    const configHome = fromEnv('XDG_CONFIG_HOME') || join(c.home, '.config');
    if (saved) return address(`--connection ${saved.t}`, podmanConnectionAddress(configHome, saved.t));
    const host = fromEnv('CONTAINER_HOST');
    if (host) return address('CONTAINER_HOST', host);
    const connection = fromEnv('CONTAINER_CONNECTION');
    if (connection) return address(`CONTAINER_CONNECTION ${connection}`, podmanConnectionAddress(configHome, connection));
    if (remote) address('the default connection', podmanConnectionAddress(configHome, null));
    return;
  }
  if (name === 'nerdctl') return;
  const configDir = fromEnv('DOCKER_CONFIG') || join(c.home, '.docker');
  if (saved) return address(`--context ${saved.t}`, dockerContextAddress(configDir, saved.t));
  const host = fromEnv('DOCKER_HOST');
  if (host) return address('DOCKER_HOST', host);
  const context = fromEnv('DOCKER_CONTEXT') || dockerCurrentContext(configDir);
  address(`the context ${context}`, dockerContextAddress(configDir, context));
}

/** Build tools, compilers, test runners, linters and containers. */
export const BUILD_PROGRAMS: Record<string, Handler> = {
  make, gmake: make,
  ...Object.fromEntries(DEV_TOOLS.map((n) => [n, devTool])),
  docker: container(['pull', 'push', 'login', 'build', 'run', 'create']), podman: container(['pull', 'push', 'login', 'build', 'run']), 'podman-remote': container(['pull', 'push', 'login', 'build', 'run']),
  nerdctl: container(['pull', 'push', 'login', 'build', 'run', 'create']), 'docker-compose': container(['pull', 'push', 'build', 'up', 'run', 'create']),
};
