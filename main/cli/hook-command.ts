// `gatehouse hook`, the Claude Code PreToolUse hook in command form. Claude Code runs it before
// every tool call, so its start-up is on the agent's critical path: bin/gatehouse.js loads this
// module (built alone as out/main/hook.js) instead of the whole command line, and falls back to
// the full CLI only for help and usage mistakes, which then read like every other command's.
// The bundle carries its dependencies (zod) inside it, and the call goes out over node:http, not
// fetch: resolving zod's ~100 module files and starting fetch's undici were 40% of the hook's
// start-up (bench/gateway.ts, "hook round trip, command form").
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { defaultHome, homePaths } from '../home.js';
import { readServeFile, type ServeInfo } from '../shells/serve/serve-file.js';
import { processAlive } from '../host/host-lock.js';
import { hookAnswer, parseHookInput, unreachableAnswer, type HookAnswer } from '../gateway/claude-hook.js';
import { readSettingsFile } from '../gateway/settings-store.js';

/** The running host for this home, or why there is none. */
export function runningHost(home: string): { ok: true; info: ServeInfo } | { ok: false; why: string } {
  const file = homePaths(home).serveJson;
  const info = readServeFile(file);
  if (!info) return { ok: false, why: `no ${file}` };
  if (!processAlive(info.pid)) return { ok: false, why: `the host recorded in ${file} (pid ${info.pid}) has exited` };
  return { ok: true, info };
}

/** Why the host could not be asked: it did not answer in time, or it could not be reached. */
class HookPostError extends Error {
  constructor(
    readonly timedOut: boolean,
    message: string,
  ) {
    super(message);
  }
}

/** POSTs the hook input to the host and reads the whole answer, within `timeoutMs` in all. */
function postHook(url: string, token: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // agent: false: one connection, closed after the answer; a kept-alive socket would hold the process open.
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text });
      });
      res.on('error', fail);
    });
    const timer = setTimeout(() => fail(new HookPostError(true, 'timeout')), timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      req.destroy();
      reject(err instanceof HookPostError ? err : new HookPostError(false, err.message));
    }
    req.on('error', fail);
    req.end(body);
  });
}

export async function runHook(home: string, text: string, opts: { unreachable?: 'deny' | 'ask' | undefined; timeoutMs: number }): Promise<HookAnswer> {
  const parsed = parseHookInput(text);
  if (!parsed.ok) return hookAnswer('deny', `Gatehouse could not check this call: ${parsed.message}`);
  const host = runningHost(home);
  // Read only when the host cannot be asked: the settings file is not on the answered path.
  const unreachable = () => opts.unreachable ?? readSettingsFile(homePaths(home).settings).settings.hookUnreachable;
  if (!host.ok) return unreachableAnswer(unreachable(), host.why);
  let res: { status: number; text: string };
  try {
    if (!host.info.hookUrl.startsWith('http://')) throw new HookPostError(false, 'only a loopback http:// address is asked');
    res = await postHook(host.info.hookUrl, host.info.agentToken, text, opts.timeoutMs);
  } catch (err) {
    const e = err as HookPostError;
    if (e.timedOut) return hookAnswer('deny', `Gatehouse did not answer within ${Math.round(opts.timeoutMs / 1000)} s, so the call is denied.`);
    return unreachableAnswer(unreachable(), `${host.info.hookUrl} did not answer: ${e.message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = null;
  }
  const out = (body as HookAnswer | null)?.hookSpecificOutput;
  if (res.status !== 200 || !out || !['allow', 'deny', 'ask'].includes(out.permissionDecision)) {
    return hookAnswer('deny', `Gatehouse answered the hook with HTTP ${res.status} and no decision; the call is denied.`);
  }
  return body as HookAnswer;
}

export function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d: string) => (text += d));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

export interface HookOptions {
  home?: string | undefined;
  unreachable?: string | undefined;
  timeout: string;
}

/** The options' meaning, or the sentence of the usage mistake. */
export function hookSettings(o: HookOptions): { ok: true; home: string; unreachable: 'deny' | 'ask' | undefined; timeoutMs: number } | { ok: false; message: string } {
  if (o.unreachable !== undefined && o.unreachable !== 'deny' && o.unreachable !== 'ask') return { ok: false, message: `--unreachable must be deny or ask, not "${o.unreachable}".` };
  const timeout = Number(o.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) return { ok: false, message: `--timeout must be a positive number of seconds, not "${o.timeout}".` };
  return { ok: true, home: o.home ?? defaultHome(), unreachable: o.unreachable, timeoutMs: timeout * 1000 };
}

export async function hookAnswerFor(s: { home: string; unreachable: 'deny' | 'ask' | undefined; timeoutMs: number }): Promise<void> {
  const input = await readStdin();
  const answer = await runHook(s.home, input, { unreachable: s.unreachable, timeoutMs: s.timeoutMs });
  process.stdout.write(JSON.stringify(answer) + '\n');
}

/**
 * The fast path: `args` are what follows `gatehouse hook`. Returns false, having done nothing,
 * when they are not a plain hook invocation (help, an unknown flag, a bad value): the full CLI
 * then handles them.
 */
export async function hookMain(args: string[]): Promise<boolean> {
  let values: { home?: string; unreachable?: string; timeout?: string };
  try {
    ({ values } = parseArgs({ args, options: { home: { type: 'string' }, unreachable: { type: 'string' }, timeout: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch {
    return false;
  }
  const s = hookSettings({ home: values.home, unreachable: values.unreachable, timeout: values.timeout ?? '55' });
  if (!s.ok) return false;
  await hookAnswerFor(s);
  return true;
}
