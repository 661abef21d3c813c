// The host running for a data folder, as CLI commands find it: its serve.json, checked in full,
// and a process that still exists. The check (a zod schema) is loaded here, when a command asks,
// not with the command tree: zod is a tenth of a second of every command's start.
import { homePaths } from '../home.js';
import type { ServeInfo } from '../shells/serve/serve-file.js';
import { isAlive } from '../core/proc-scan.js';

/** The running host for this home, or why there is none. */
export async function runningHost(home: string): Promise<{ ok: true; info: ServeInfo } | { ok: false; why: string }> {
  const file = homePaths(home).serveJson;
  const { readServeFile } = await import('../shells/serve/serve-file.js');
  const info = readServeFile(file);
  if (!info) return { ok: false, why: `no ${file}` };
  if (!isAlive(info.pid)) return { ok: false, why: `the host recorded in ${file} (pid ${info.pid}) has exited` };
  return { ok: true, info };
}
