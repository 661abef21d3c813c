// The real spawn: node-pty. Kept apart so the manager can be given another (tests, a sandbox
// wrapper) and so node-pty's quirks are handled in one place.
import { closeSync, constants, openSync } from 'node:fs';
import * as nodePty from 'node-pty';
import type { PtyProcess, PtySpawn, PtySpawnOptions } from './types.js';

export interface NodePtySpawnOptions {
  /**
   * 'utf8' (the default): node-pty's stream decodes with a StringDecoder (a read that ends
   * inside a character keeps the bytes for the next one), and only then does the PTY get IUTF8,
   * which erase (Backspace) in canonical mode needs for multi-byte characters.
   * null: raw bytes, decoded by the session's own Utf8Stream.
   */
  encoding?: 'utf8' | null;
}

export function createNodePtySpawn(spawnOpts: NodePtySpawnOptions = {}): PtySpawn {
  return (command, args, opts) => spawnNodePty(command, args, opts, spawnOpts.encoding ?? 'utf8');
}

export const nodePtySpawn: PtySpawn = createNodePtySpawn();

function spawnNodePty(command: string, args: string[], opts: PtySpawnOptions, encoding: 'utf8' | null): PtyProcess {
  const pty = nodePty.spawn(command, args, {
    name: opts.env.TERM ?? 'xterm-256color',
    cols: opts.cols,
    rows: opts.rows,
    cwd: opts.cwd,
    env: opts.env,
    encoding,
  });
  // On Linux the master side can read EIO while output is still buffered when the last holder
  // of the slave side exits with it, and node-pty then drops that tail (microsoft/node-pty#726,
  // #85). Holding the slave open ourselves means the master never sees EIO in that race; the
  // session lets go (release) once it has seen the leader gone, by which time what it wrote has
  // reached the master side, and node-pty reports the exit as soon as that is read.
  // O_NOCTTY: it must not become our controlling terminal; libuv opens with O_CLOEXEC, so no
  // child inherits it.
  let slave: number | null = null;
  const ptsName = (pty as unknown as { ptsName?: unknown }).ptsName;
  if (process.platform === 'linux' && typeof ptsName === 'string') {
    try {
      slave = openSync(ptsName, constants.O_RDWR | constants.O_NOCTTY);
    } catch {
      slave = null;
    }
  }
  const release = () => {
    if (slave === null) return;
    try {
      closeSync(slave);
    } catch {
      // Already closed.
    }
    slave = null;
  };
  // node-pty gives up waiting 200 ms after the exit; by then nothing more will be read anyway.
  pty.onExit(release);
  return Object.assign(pty, { release }) as PtyProcess;
}
