// The line protocol between the host and a module plugin's child process: one JSON object per
// line, host -> child on the child's stdin, child -> host on its stdout. The child's own
// console output is sent to stderr (see module-child.ts), so a stray console.log cannot be read
// as a message; a line that is not a message is counted and dropped, never obeyed.

/** What the child reports after loading the module: its exports as plain data. */
export interface ReportedExports {
  /** Names of every export, so a missing one is named exactly. */
  names: string[];
  manifest: unknown;
  toolDefinitions: unknown;
  systemPrompt: unknown;
  /** typeof createExecutor, so "not a function" can be said. */
  createExecutor: string;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  /** Body as text (module plugins talk to REST APIs; binary bodies are out of scope). */
  body: string | null;
}

export type HostToChild =
  | { t: 'call'; id: number; name: string; input: unknown }
  | { t: 'fetch-reply'; fid: number; ok: true; status: number; statusText: string; headers: Record<string, string>; body: string }
  | { t: 'fetch-reply'; fid: number; ok: false; error: string };

export type ChildToHost =
  | { t: 'loaded'; exports: ReportedExports }
  | { t: 'load-error'; error: string }
  | { t: 'result'; id: number; ok: true; handled: boolean; value: unknown }
  | { t: 'result'; id: number; ok: false; error: string }
  | { t: 'log'; id: number | null; level: string; message: string }
  /** The call logged past the cap (the child stopped sending its lines). */
  | { t: 'log-flood'; id: number | null; lines: number; bytes: number }
  | { t: 'fetch'; id: number | null; fid: number; url: string; init: FetchInit }
  /** context.escalateTaint(level) during a call: the call's data is at least this classification. */
  | { t: 'taint'; id: number | null; level: string };

/** Longest line either side accepts (a result or a fetch body); longer is a protocol error. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Splits a byte stream into lines; `onLine` gets each complete line, `onOverflow` once if a line exceeds the cap. */
export function lineReader(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let buf = '';
  let overflowed = false;
  return (chunk) => {
    if (overflowed) return;
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
    if (buf.length > MAX_LINE_BYTES) {
      overflowed = true;
      buf = '';
      onOverflow();
    }
  };
}
