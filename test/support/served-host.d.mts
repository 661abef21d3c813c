// Types for served-host.mjs (plain JavaScript so the real-CLI runners can load it without the test
// runner's transform), for the TypeScript tests that start a host with it too.
import type { ChildProcess } from 'node:child_process';
import type WebSocket from 'ws';
import type { ServeInfo } from '../../main/shells/serve/serve-file.js';

export interface ServedHost {
  host: ChildProcess;
  serve: ServeInfo;
  /** A console API call; throws with the method and the error when it is refused. */
  op(method: string, params?: unknown): Promise<unknown>;
}

export function startServe(cli: string, home: string, env: NodeJS.ProcessEnv, extraStdio?: Array<'pipe' | 'ignore' | number>): Promise<ServedHost>;
export function watchInbox(serve: ServeInfo, onAdded: (id: string) => void): Promise<WebSocket>;
