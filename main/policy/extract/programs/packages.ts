// Package managers and package runners.
import { hostsOfUrl } from '../hosts.js';
import { nested, runRest } from '../shell/script.js';
import { type Ctx, type Env, type EW, type Handler, literalEW, MAX_DEPTH } from '../shell/types.js';

export function pkgManager(netSubs: string[]): Handler {
  return (args, env, c, feed) => {
    const i = args.findIndex((a) => !a.t.startsWith('-'));
    const sub = args[i]?.t ?? '';
    if (netSubs.includes(sub)) {
      c.col.op('network');
      c.col.op('write');
    }
    // The server it talks to, whatever the subcommand: `npm ping --registry http://127.0.0.1:9229/`,
    // `pip download -i http://169.254.169.254/simple x`, a package given by its URL.
    for (const a of args) {
      if (!a.known || !a.t.includes('://')) continue;
      const eq = a.t.startsWith('-') ? a.t.indexOf('=') : -1;
      hostsOfUrl(eq > 0 ? a.t.slice(eq + 1) : a.t, (h) => c.col.host(h));
      c.col.op('network');
    }
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

/** Package managers: installing fetches from the network and writes; `exec` runs a command of its own. */
export const PACKAGE_PROGRAMS: Record<string, Handler> = {
  pip: pkgManager(NET_PKG), pip3: pkgManager(NET_PKG), uv: pkgManager(['pip', 'add', 'sync', 'run', 'tool']),
  npm: pkgManager(NET_PKG), pnpm: pkgManager(NET_PKG), yarn: pkgManager([...NET_PKG, '']),
  npx, pnpx: npx,
  'apt-get': pkgManager(['install', 'update', 'upgrade', 'download', 'source', 'dist-upgrade']), apt: pkgManager(['install', 'update', 'upgrade']),
  brew: pkgManager(['install', 'update', 'upgrade', 'tap', 'fetch']), gem: pkgManager(['install', 'update', 'fetch']), cargo: pkgManager(['install', 'add', 'fetch', 'update', 'publish']),
};
