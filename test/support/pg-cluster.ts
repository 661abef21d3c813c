// A throwaway PostgreSQL cluster for one test file: Debian's `postgresql` binaries (initdb, pg_ctl)
// over a data folder in a temp directory, listening on a free loopback port and a socket folder of
// its own, so it never touches a system cluster. PostgreSQL refuses to run as root: when the tests
// run as root (CI does), the folder is given to the `postgres` user and the binaries run as it.
// Stopped through its pid file (pg_ctl stop), and started again on the same port for outage tests.
import { spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where initdb and pg_ctl are, or why the tests that need them cannot run. */
export function findPgBin(): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return { bin };
  }
  return { missing: `PostgreSQL's server binaries are not installed (no ${root}/*/bin/initdb; install Debian's postgresql package, as .ci/run does)` };
}

/** The uid and gid to run PostgreSQL as: ours, or the `postgres` user's when we are root. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('the tests run as root and there is no postgres user to run PostgreSQL as (Debian\'s postgresql package creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(cmd: string, args: string[], user: { uid: number; gid: number } | null): Promise<string> {
  return new Promise((resolve, reject) => {
    // cwd: a folder the postgres user can enter (the checkout may not be one).
    const child = spawn(cmd, args, { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'], ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  /** The superuser's URL (trust on loopback: no password), database `postgres`. */
  readonly url: string;
  readonly port: number;
  /** A URL for another database of the cluster (made by createDatabase). */
  urlOf(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: connections cut, data kept); start() brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it if running and removes its folder: for afterAll. */
  destroy(): Promise<void>;
  /**
   * A hot standby of this cluster (pg_basebackup -R over streaming replication) on a port of its
   * own, read-only. Commits on this cluster then wait until the standby has applied them
   * (synchronous_commit = remote_apply), so a test reads there what it wrote here without polling.
   */
  startReplica(): Promise<PgCluster>;
}

/** initdb a cluster in a new temp folder and start it; throws when the binaries are missing (check findPgBin first). */
export async function startPgCluster(): Promise<PgCluster> {
  const found = findPgBin();
  if ('missing' in found) throw new Error(found.missing);
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  const data = join(dir, 'data');
  if (user) chownSync(dir, user.uid, user.gid);
  const port = await freePort();
  // trust on loopback only (replication too): the cluster lives as long as the test file, in a folder only its owner reads.
  await run(join(found.bin, 'initdb'), ['-D', data, '-U', 'gatehouse', '--auth=trust', '--no-sync', '--no-locale', '-E', 'UTF8'], user);
  return clusterAt(found.bin, dir, port, user);
}

/** The cluster whose data folder is `dir`/data, started on `port`. */
async function clusterAt(bin: string, dir: string, port: number, user: { uid: number; gid: number } | null): Promise<PgCluster> {
  const data = join(dir, 'data');
  const pg = (name: string) => join(bin, name);
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off`;
  let running = false;
  const cluster: PgCluster = {
    url: `postgres://gatehouse@127.0.0.1:${port}/postgres`,
    port,
    urlOf: (database) => `postgres://gatehouse@127.0.0.1:${port}/${database}`,
    async createDatabase(name) {
      const { default: pgClient } = await import('pg');
      const client = new pgClient.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } finally {
        await client.end();
      }
      return cluster.urlOf(name);
    },
    async start() {
      // -w: returns once the server accepts connections.
      await run(pg('pg_ctl'), ['start', '-w', '-D', data, '-l', join(dir, 'server.log'), '-o', options], user);
      running = true;
    },
    async stop() {
      // pg_ctl finds the server by data/postmaster.pid and waits (-w) until it has exited.
      await run(pg('pg_ctl'), ['stop', '-w', '-D', data, '-m', 'fast'], user);
      running = false;
    },
    async destroy() {
      if (running || existsSync(join(data, 'postmaster.pid'))) {
        try {
          await cluster.stop();
        } catch {
          // A server that will not stop by pg_ctl: its pid file names it.
          const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
          if (pid > 0) process.kill(pid, 'SIGKILL');
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async startReplica() {
      const replicaDir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-replica-'));
      if (user) chownSync(replicaDir, user.uid, user.gid);
      // -R: the copy starts as a standby streaming from this cluster; -X stream: with the WAL it needs.
      await run(pg('pg_basebackup'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'gatehouse', '-D', join(replicaDir, 'data'), '-R', '-X', 'stream', '--no-sync'], user);
      const replica = await clusterAt(bin, replicaDir, await freePort(), user);
      const { default: pgClient } = await import('pg');
      const client = new pgClient.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        await client.query("ALTER SYSTEM SET synchronous_standby_names = '*'");
        await client.query("ALTER SYSTEM SET synchronous_commit = 'remote_apply'");
        await client.query('SELECT pg_reload_conf()');
      } finally {
        await client.end();
      }
      return replica;
    },
  };
  try {
    await cluster.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return cluster;
}
