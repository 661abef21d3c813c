// A call of a `pty = true` tool: the tool's command runs in a terminal (PtyManager) that
// operators watch live in the Terminals view, instead of behind the one-shot runner's pipes.
// What stays the same: the plugin folder as working directory, the scrubbed environment, the
// plan's sandbox and limits, the timeout. What differs: stdin and stdout are a terminal, so the
// arguments are typed into it (and also passed in GATEHOUSE_INPUT), and the result is read from
// what the terminal showed — the last line when it is a JSON object, else the whole text.
import type { PtyManager } from '../pty/pty-manager.js';
import type { TypedPiece } from '../pty/typing.js';
import type { PtyFinished, PtyOrigin } from '../pty/types.js';
import { formatMs, prepareRun, STDERR_TAIL, type OneShotResult, type OneShotSpec } from './one-shot.js';

export interface PtyToolSpec extends Pick<OneShotSpec, 'plugin' | 'command' | 'args' | 'cwd' | 'input' | 'timeoutMs' | 'env' | 'wrap'> {
  ptys: PtyManager;
  /** What the Terminals list shows. */
  title: string;
  origin: PtyOrigin;
}

/** A one-shot-shaped result, plus the terminal the call ran in (null when it never started). */
export type PtyToolResult = OneShotResult & { terminal: string | null };

/**
 * The terminal's line discipline holds at most 4,095 bytes of a line that has not been read;
 * past that it drops input. The arguments go in pieces of at most 1,024 UTF-16 units (at most
 * 3,072 bytes of UTF-8), each flushed to the reader with Ctrl-D, so none is ever dropped; and
 * since the terminal echoes each piece, which must neither be lost nor land in the tool's own
 * output, a piece is typed only once the echo of the ones before it was read (main/pty/typing.ts).
 */
const INPUT_PIECE = 1024;
/** Ctrl-D: flushes a pending line to the reader; on an empty line, the reader sees end of file. */
const EOF = '\x04';
/** Larger inputs come only on the terminal: one environment string may not exceed 128 KiB. */
const MAX_ENV_INPUT = 64 * 1024;

/**
 * The JSON text as it is typed into the terminal: in pieces flushed with Ctrl-D, the last one
 * ended by a newline, then Ctrl-D on the empty line, which a program reading stdin sees as end of
 * file. DEL (which JSON leaves unescaped, and a terminal takes as Backspace) is written as \u007f.
 * Each piece comes with what the terminal echoes of it (not the Ctrl-Ds); `echo` is all of it, as
 * the terminal shows it before the program's output (with \r\n read as \n).
 */
export function terminalInput(json: string): { pieces: TypedPiece[]; echo: string } {
  const text = json.replace(/\x7f/g, '\\u007f');
  const parts: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(i + INPUT_PIECE, text.length);
    // Never between the halves of a surrogate pair.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    parts.push(text.slice(i, end));
    i = end;
  }
  const pieces = parts.map((p, i) => (i < parts.length - 1 ? { text: p + EOF, echo: p } : { text: `${p}\n`, echo: `${p}\n` }));
  pieces.push({ text: EOF, echo: '' });
  return { pieces, echo: `${text}\n` };
}

/** The agent's output: the last non-empty line when it is a JSON object, else the whole text. */
export function ptyToolOutput(text: string): Record<string, unknown> {
  const last = text.split('\n').map((l) => l.trim()).filter(Boolean).at(-1);
  if (last?.startsWith('{')) {
    try {
      const v: unknown = JSON.parse(last);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // Text that only looks like JSON is text.
    }
  }
  return { output: text };
}

export async function runPtyTool(spec: PtyToolSpec): Promise<PtyToolResult> {
  const started = performance.now();
  const none = { stdout: '', stderr: '', exitCode: null, signal: null, pid: null, queuedMs: 0, terminal: null };
  const refuse = (message: string, sandboxed: boolean): PtyToolResult => ({ ok: false, failure: 'spawn', message, ...none, sandboxed, durationMs: performance.now() - started });

  const prepared = prepareRun(spec);
  if (!prepared.ok) return refuse(prepared.message, false);
  const { inputText, wrapped } = prepared;
  const sandboxed = wrapped.sandboxed === true;
  const env = { ...spec.env, ...(Buffer.byteLength(inputText) <= MAX_ENV_INPUT ? { GATEHOUSE_INPUT: inputText } : {}) };
  let id: string;
  let pid: number | null;
  try {
    ({ id, pid } = await spec.ptys.start({ command: wrapped.command, args: wrapped.args, cwd: spec.cwd, env, title: spec.title, origin: spec.origin }));
  } catch (err) {
    await wrapped.finish?.();
    return refuse(`${spec.plugin}: ${(err as Error).message}`, sandboxed);
  }
  const input = terminalInput(inputText);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void spec.ptys.kill(id, 'host:timeout').catch(() => {});
  }, spec.timeoutMs);
  let finished: PtyFinished;
  try {
    spec.ptys.typeInput(id, input.pieces);
  } catch {
    // It already ended: what it printed says why.
  }
  try {
    // Its output is read as it exits: by the end of the clean-up below it may be forgotten (PtyManager.exitWithOutput).
    finished = await spec.ptys.exitWithOutput(id);
  } finally {
    clearTimeout(timer);
    wrapped.kill?.();
  }
  const report = (await wrapped.finish?.()) ?? { processLimitHit: false };

  const { exit } = finished;
  let text = finished.output.replace(/\r\n/g, '\n');
  if (text.startsWith(input.echo)) text = text.slice(input.echo.length);
  const tail = text.trim().slice(-STDERR_TAIL);
  const common = { stdout: text, stderr: '', durationMs: performance.now() - started, sandboxed, pid, queuedMs: 0, terminal: id };
  const fail = (failure: 'timeout' | 'crash' | 'limit', message: string): PtyToolResult => ({ ok: false, failure, message, exitCode: exit.exitCode, signal: exit.signal, ...(failure === 'limit' ? { limit: 'processes' as const } : {}), ...common });
  if (timedOut) return fail('timeout', `${spec.plugin} did not finish within ${formatMs(spec.timeoutMs)} and was stopped (terminal ${id}).`);
  if (report.processLimitHit) return fail('limit', `${spec.plugin} reached its process limit (a fork was refused) and was stopped, with every process it started (terminal ${id}).`);
  if (exit.signal || exit.exitCode !== 0) {
    const why = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`;
    return fail('crash', `${spec.plugin} ${why}${tail ? `: ${tail}` : ' (its terminal showed nothing)'}`);
  }
  return { ok: true, output: ptyToolOutput(text), exitCode: 0, ...common };
}
