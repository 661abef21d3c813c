// The faults the soak (bench/soak.ts) puts the host through, each a real one: a second process
// holding audit.db's write lock, a tmpfs under the Gatehouse home filled by a ballast file, and
// MCP requests whose HTTP connection an agent drops without a cancel.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export type FaultName = 'lock' | 'leaving' | 'disk-full' | 'restart';
export const FAULT_NAMES: readonly FaultName[] = ['lock', 'leaving', 'disk-full', 'restart'];

/** One fault phase as the report prints it. */
export interface FaultPhase {
  name: FaultName;
  /** Seconds since the load started; null when the phase was skipped. */
  from: number | null;
  to: number | null;
  /** Calls sent or answered inside the window. */
  calls: number;
  outcome: string;
  /** Null: skipped (outcome says why). */
  ok: boolean | null;
}

/**
 * A second process that takes audit.db's write lock (BEGIN IMMEDIATE, as a sqlite3 shell or a
 * backup tool would) and keeps it until release() is called.
 */
export async function holdWriteLock(repoRoot: string, dbPath: string): Promise<{ release: () => Promise<void>; child: ChildProcess }> {
  const sqlite = createRequire(join(repoRoot, 'package.json')).resolve('better-sqlite3');
  const script = [
    `const Database = require(${JSON.stringify(sqlite)});`,
    `const db = new Database(${JSON.stringify(dbPath)});`,
    "db.pragma('busy_timeout = 20000');",
    "db.exec('BEGIN IMMEDIATE');",
    "process.stdout.write('locked\\n');",
    "process.stdin.on('data', () => { db.exec('ROLLBACK'); db.close(); process.stdout.write('released\\n'); process.exit(0); });",
  ].join('\n');
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const line = (want: string) =>
    new Promise<void>((resolve, reject) => {
      const on = (d: string) => {
        out += d;
        if (out.includes(want)) {
          child.stdout!.off('data', on);
          resolve();
        }
      };
      child.stdout!.on('data', on);
      void exited.then((code) => reject(new Error(`the lock holder exited ${code} before "${want}": ${out.trim()}`)));
    });
  await line('locked');
  return {
    child,
    release: async () => {
      const released = line('released');
      child.stdin!.write('go\n');
      await released;
      await exited;
    },
  };
}

/**
 * Mounts a tmpfs of `sizeMb` on `dir` (an empty folder). Null when mounted; else why not (the
 * disk-full phase is then skipped with that sentence).
 */
export function mountTmpfs(dir: string, sizeMb: number): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform}): no tmpfs to fill`;
  if (process.getuid?.() !== 0) return 'not root: mounting a tmpfs needs root (run the soak as root, or inside `unshare --user --map-root-user --mount`)';
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.error) return `mount could not run (${r.error.message})`;
  if (r.status !== 0) return `mount -t tmpfs failed (exit ${r.status}: ${(r.stderr || r.stdout).trim()})`;
  return null;
}

export function unmount(dir: string): void {
  // Lazy: a process that still has a file open there (the host just stopped) must not leave the mount behind.
  spawnSync('umount', ['-l', dir]);
}

/** Fills the file system holding `dir` with `file` until a write fails with ENOSPC; returns the bytes written. */
export function fillDisk(file: string, dir: string): number {
  const s = statfsSync(dir);
  const free = Number(s.bavail) * Number(s.bsize);
  // fallocate takes the space at once; the writes after it take what is left to the last block.
  spawnSync('fallocate', ['-l', String(Math.max(0, free - 1024 * 1024)), file]);
  const fd = openSync(file, 'a');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  const after = statfsSync(dir);
  return free - Number(after.bavail) * Number(after.bsize);
}

export function removeBallast(file: string): void {
  rmSync(file, { force: true });
}

const PROTOCOL = '2025-06-18';

/**
 * An MCP session over plain fetch (initialize, initialized), for a tools/call whose connection the
 * agent drops without a cancel: what a killed client or an aborted fetch does.
 */
export async function rawMcpSession(mcpUrl: string, token: string): Promise<{ call: (args: Record<string, unknown>, signal: AbortSignal) => Promise<unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
  const init = await fetch(mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'soak-leaving', version: '1.0.0' } } }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !session) throw new Error(`MCP initialize over fetch failed (${init.status}, session ${session})`);
  const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL };
  const ack = await fetch(mcpUrl, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await ack.text();
  return {
    call: async (args, signal) => {
      const res = await fetch(mcpUrl, { method: 'POST', headers: withSession, signal, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'shell', arguments: args } }) });
      return res.text();
    },
  };
}
