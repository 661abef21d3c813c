// Database, cache and cluster clients: the server they reach is named by an option, a URL or a
// connection string.
import { hostOfTarget, hostsOfUrl } from '../hosts.js';
import { optVals, parseArgs } from '../shell/options.js';
import { pathOf } from '../shell/path-args.js';
import type { Ctx, Env, EW, Feed, Handler } from '../shell/types.js';
import { unknownProgram } from '../shell/unknown-program.js';
import { PSQL_LONG_VALUE, PSQL_VALUE, psqlCommands, sqlite3 } from './db-commands.js';
import { MONGO_LONG_VALUE, MONGO_VALUE, mongoshCommands, MYSQL_LONG_VALUE_ARGS, MYSQL_VALUE, mysqlCommands } from './mysql-mongosh.js';

/** Reads a client's own command language (psql's meta-commands, mysql's commands, mongosh's code); returns the arguments left to judge as paths. */
type Commands = (args: EW[], env: Env, c: Ctx, feed: Feed, name: string) => EW[];

/**
 * Database, cache and cluster clients: the server they reach is named by an option (`psql -h`,
 * `mysql --host=`, `redis-cli -h`, `kubectl --server`), a URL (`mongosh mongodb://…`, `redis-cli -u`)
 * or a libpq conninfo string (`psql "host=… dbname=…"`). Files they read or write (`psql -f`,
 * `--kubeconfig`) are judged as an unknown program's path-like arguments. `commands` reads the
 * client's own command language first.
 */
function serverClient(v: string, lv: string[], hostOpts: string[], urlOpts: string[] = [], firstIsAddress = false, commands?: Commands): Handler {
  return (args, env, c, feed, name) => {
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
    unknownProgram(commands ? commands(args, env, c, feed, name) : args, env, c);
  };
}

const psql = serverClient(PSQL_VALUE, PSQL_LONG_VALUE, ['-h', '--host'], ['-d', '--dbname'], false, psqlCommands);

const mysql = serverClient(MYSQL_VALUE, MYSQL_LONG_VALUE_ARGS, ['-h', '--host'], [], false, mysqlCommands);

const redisCli = serverClient('hpaunsri', [], ['-h'], ['-u']);

const mongosh = serverClient(MONGO_VALUE, MONGO_LONG_VALUE, ['--host'], [], true, mongoshCommands);

export const kubeServer = serverClient('s', ['--server', '--kubeconfig', '--context', '--cluster', '--namespace', '--user', '--token'], ['-s', '--server']);

/** grpcurl's flags (Go's flag package: `-name value`, `-name=value`, `--name`) that take a value. */
const GRPCURL_VALUE = new Set(['d', 'H', 'rpc-header', 'reflect-header', 'import-path', 'proto', 'protoset', 'protoset-out', 'authority', 'servername', 'cert', 'key', 'cacert', 'connect-timeout', 'max-time', 'keepalive-time', 'max-msg-sz', 'proto-out-dir', 'format', 'user-agent', 'alts-handshaker-service', 'alts-target-service-account']);

/**
 * grpcurl [flags] ADDRESS [list|describe|SERVICE/METHOD]: ADDRESS (`host:port`, gRPC's
 * `dns:///host:port`) is the server reached, `-alts-handshaker-service` another; with `-unix` it is
 * a socket on this machine. Proto and certificate files are read, `-protoset-out` written.
 */
function grpcurl(args: EW[], env: Env, c: Ctx, _feed: unknown, name: string): void {
  const col = c.col;
  col.op('network');
  let unix = false;
  let i = 0;
  const value = (flag: string, v: EW): void => {
    if (flag === 'import-path') pathOf(v, env, c, 'read', true);
    else if (flag === 'proto' || flag === 'protoset' || flag === 'cert' || flag === 'key' || flag === 'cacert') pathOf(v, env, c, 'read');
    else if (flag === 'protoset-out') pathOf(v, env, c, 'write');
    else if (flag === 'proto-out-dir') pathOf(v, env, c, 'write', true);
    else if (flag === 'alts-handshaker-service') {
      if (v.known) col.host(hostOfTarget(v.t));
      else col.evasive(`${name}: a server address Gatehouse cannot read`);
    }
  };
  // Go stops reading flags at the first word that is not one (or after `--`).
  for (; i < args.length; i++) {
    const a = args[i] as EW;
    if (a.t === '--') { i++; break; }
    if (!a.known || !a.t.startsWith('-') || a.t === '-') break;
    const body = a.t.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const flag = eq >= 0 ? body.slice(0, eq) : body;
    if (flag === 'unix') unix = eq < 0 || !/^(false|0|f)$/i.test(body.slice(eq + 1));
    if (!GRPCURL_VALUE.has(flag)) continue;
    const v = eq >= 0 ? { ...a, t: body.slice(eq + 1), tilde: body[eq + 1] === '~' } : args[++i];
    if (v) value(flag, v);
  }
  const addr = args[i];
  if (!addr) return;
  if (!addr.known) return col.evasive(`${name}: a server address Gatehouse cannot read`);
  if (unix || /^unix(-abstract)?:/.test(addr.t)) return pathOf({ ...addr, t: addr.t.replace(/^unix(-abstract)?:(\/\/)?/, '') }, env, c, 'write');
  // gRPC target syntax: `dns:///host:port`, `dns://resolver/host:port`, `passthrough:///host:port`.
  const target = addr.t.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i, '');
  col.host(hostOfTarget(target));
}

/** Database and cache clients. */
export const SERVER_CLIENT_PROGRAMS: Record<string, Handler> = {
  psql, mysql, mariadb: mysql, 'redis-cli': redisCli, 'valkey-cli': redisCli, mongosh, mongo: mongosh,
  grpcurl,
  // Not a server client: a database file, but a command language like psql's (db-commands.ts).
  sqlite3,
};
