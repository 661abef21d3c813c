// The host running for a data folder, as CLI commands find it: its serve.json, checked in full,
// and a process that still exists.
import { homePaths } from '../home.js';
import { readServeFile, type ServeInfo } from '../shells/serve/serve-file.js';
import { isAlive } from '../core/proc-scan.js';

/** The running host for this home, or why there is none. */
export function runningHost(home: string): { ok: true; info: ServeInfo } | { ok: false; why: string } {
  const file = homePaths(home).serveJson;
  const info = readServeFile(file);
  if (!info) return { ok: false, why: `no ${file}` };
  if (!isAlive(info.pid)) return { ok: false, why: `the host recorded in ${file} (pid ${info.pid}) has exited` };
  return { ok: true, info };
}
