// Database, cache and cluster clients: the server they reach is named by an option, a URL or a
// connection string.
import { hostOfTarget, hostsOfUrl } from '../hosts.js';
import { optVals, parseArgs } from '../shell/options.js';
import type { Handler } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';

/**
 * Database, cache and cluster clients: the server they reach is named by an option (`psql -h`,
 * `mysql --host=`, `redis-cli -h`, `kubectl --server`), a URL (`mongosh mongodb://…`, `redis-cli -u`)
 * or a libpq conninfo string (`psql "host=… dbname=…"`). Files they read or write (`psql -f`,
 * `--kubeconfig`) are judged as an unknown program's path-like arguments.
 */
function serverClient(v: string, lv: string[], hostOpts: string[], urlOpts: string[] = [], firstIsAddress = false): Handler {
  return (args, env, c, _feed, name) => {
    const col = c.col;
    const p = parseArgs(args, v, lv);
    const reach = (h: string | null): void => {
      col.op('network');
      col.host(h);
    };
    for (const h of optVals(p, ...hostOpts)) {
      if (!h.known) {
        col.op('network');
        col.evasive(`${name}: a server address Gatehouse cannot read`);
      } else if (!h.t.startsWith('/')) for (const one of h.t.split(',')) reach(hostOfTarget(one.trim()));
    }
    const words = [...optVals(p, ...urlOpts), ...p.pos];
    for (const w of words) {
      if (!w.known) continue;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(w.t)) {
        col.op('network');
        // mongodb://a:1,b:2/db names several hosts in one authority.
        const auth = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/?#]*)/i.exec(w.t)?.[1] ?? '';
        if (auth.includes(',')) for (const one of auth.split(',')) reach(hostOfTarget(one));
        else hostsOfUrl(w.t, (h) => col.host(h));
      }
      for (const m of w.t.matchAll(/(?:^|\s)host(?:addr)?\s*=\s*'?([^\s']+)/gi)) for (const one of (m[1] as string).split(',')) if (!one.startsWith('/')) reach(hostOfTarget(one));
    }
    const first = p.pos[0];
    if (firstIsAddress && first?.known && !first.t.includes('://') && !/\.(js|mjs|cjs)$/i.test(first.t) && /^[a-z0-9_.:%[\]-]+(\/|$)/i.test(first.t)
) reach(hostOfTarget(first.t.split('/')[0] as string));
    unknownProgram(args, env, c);
  };
}

const psql = serverClient('cdfhLoPpUvTFR', ['--command', '--dbname', '--file', '--host', '--log-file', '--output', '--port', '--pset', '--username', '--variable', '--set', '--field-separator', '--record-separator', '--table-attr'], ['-h', '--host'], ['-d', '--dbname']);

const mysql = serverClient('huPDeS', ['--host', '--user', '--port', '--database', '--execute', '--socket'], ['-h', '--host']);

const redisCli = serverClient('hpaunsri', [], ['-h'], ['-u']);

const mongosh = serverClient('up', ['--host', '--port', '--username', '--password', '--eval', '--file', '--authenticationDatabase'], ['--host'], [], true);

export const kubeServer = serverClient('s', ['--server', '--kubeconfig', '--context', '--cluster', '--namespace', '--user', '--token'], ['-s', '--server']);

/** Database and cache clients. */
export const SERVER_CLIENT_PROGRAMS: Record<string, Handler> = {
  psql, mysql, mariadb: mysql, 'redis-cli': redisCli, 'valkey-cli': redisCli, mongosh, mongo: mongosh,
};
