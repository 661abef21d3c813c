// GATEHOUSE_HOME/serve.json tells CLI commands where a running host is and how to reach it.
// It holds the operator token, so it is created owner-only and removed on a clean exit.
import { readFileSync, rmSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { writeSecretFile } from '../../home.js';

export const serveInfoSchema = z.object({
  url: z.string(),
  host: z.string(),
  port: z.number().int(),
  pid: z.number().int(),
  token: z.string(),
  /** Opens only the agents' routes. */
  agentToken: z.string(),
  mcpUrl: z.string(),
  hookUrl: z.string(),
  startedAt: z.number().int(),
});
export type ServeInfo = z.output<typeof serveInfoSchema>;

export function writeServeFile(path: string, info: ServeInfo): void {
  writeSecretFile(path, JSON.stringify(info, null, 2) + '\n');
}

/** Removes the file only if it still describes this process (a newer host may own it). */
export function removeServeFile(path: string, pid = process.pid): void {
  const info = readServeFile(path);
  if (info && info.pid !== pid) return;
  rmSync(path, { force: true });
}

export function readServeFile(path: string): ServeInfo | null {
  if (!existsSync(path)) return null;
  try {
    return serveInfoSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return null;
  }
}
