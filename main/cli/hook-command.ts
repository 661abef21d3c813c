// `gatehouse hook`, the Claude Code PreToolUse hook in command form. Claude Code runs it before
// every tool call, so its start-up is on the agent's critical path: bin/gatehouse.js loads this
// module (built alone as out/main/hook.js) instead of the whole command line, and falls back to
// the full CLI only for help and usage mistakes, which then read like every other command's.
//
// What it loads is kept to Node's own modules: the input goes to the host as it came (the host
// checks it, as for the HTTP form), serve.json is read for the three fields used, the call goes
// over node:http rather than fetch (undici), and the settings (zod, the contract) are loaded only
// when the host cannot be asked. zod and undici were half of the hook's 260 ms here; it is now
// ~15 ms over a bare node start-up (bench/gateway.ts, "hook round trip, command form").
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { defaultHome, homePaths } from '../home.js';
import { isAlive, readExe, readStat } from '../core/proc-scan.js';
import { HOOK_CLIENT_HEADER, HOOK_COMMAND_TIMEOUT_S, HOOK_DEADLINE_HEADER, HOOK_SENT_AT_HEADER, hookAnswer, isNoDecision, NO_DECISION, unreachableAnswer, type HookReply } from '../gateway/hook-answer.js';
import { fromGeminiInput, toGeminiAnswer } from '../agents/gemini/hook-mapping.js';
import { fromOpencodeInput, toOpencodeAnswer } from '../agents/opencode/hook-mapping.js';
import { COPILOT_EVENTS, fromCopilotInput, toCopilotAnswer, type CopilotEvent } from '../agents/copilot/hook-mapping.js';
import { fromQwenInput, toQwenAnswer } from '../agents/qwen-code/hook-mapping.js';

/** Whose hook input `gatehouse hook` reads and whose answer it gives (--agent). */
export const HOOK_AGENTS = ['claude-code', 'gemini-cli', 'opencode', 'qwen-code', 'copilot'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

/** What the hook needs of serve.json (written by the host: shells/serve/serve-file.ts). */
interface HookTarget {
  pid: number;
  hookUrl: string;
  agentToken: string;
}

/** The running host's hook address, or why there is none. */
function hookTarget(home: string): { ok: true; target: HookTarget } | { ok: false; why: string } {
  const file = homePaths(home).serveJson;
  let raw: Partial<Record<keyof HookTarget, unknown>>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as typeof raw;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, why: `no ${file}` };
    return { ok: false, why: `${file} could not be read: ${(err as Error).message}` };
  }
  const { pid, hookUrl, agentToken } = raw ?? {};
  if (!Number.isInteger(pid) || typeof hookUrl !== 'string' || typeof agentToken !== 'string') return { ok: false, why: `${file} has no pid, hookUrl and agentToken` };
  if (!isAlive(pid as number)) return { ok: false, why: `the host recorded in ${file} (pid ${pid}) has exited` };
  return { ok: true, target: { pid: pid as number, hookUrl, agentToken } };
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
function postHook(url: string, token: string, body: string, timeoutMs: number, client: HookAgent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // agent: false: one connection, closed after the answer; a kept-alive socket would hold the process open.
    // The deadline goes with the call: a call waiting in the inbox expires before this hook gives up.
    const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}`, [HOOK_DEADLINE_HEADER]: String(timeoutMs), [HOOK_SENT_AT_HEADER]: String(Date.now()), [HOOK_CLIENT_HEADER]: client };
    const req = request(url, { method: 'POST', agent: false, headers }, (res) => {
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

/**
 * A named agent token from a file (`--agent-token-file`), so the calls are filed under that
 * agent rather than "default"; kept in a file, not on the command line, where every process
 * could read it.
 */
function tokenFromFile(file: string): { ok: true; token: string } | { ok: false; why: string } {
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (!/^[A-Za-z0-9_-]{16,256}$/.test(token)) return { ok: false, why: `${file} does not hold an agent token (16 to 256 characters of A-Z, a-z, 0-9, "-" or "_")` };
    return { ok: true, token };
  } catch (err) {
    return { ok: false, why: `the agent token file ${file} could not be read: ${(err as Error).message}` };
  }
}

/** A PostToolUse or PostToolUseFailure report: the tool has run, so nothing is left to block. */
function isReport(text: string): boolean {
  try {
    const event = (JSON.parse(text) as { hook_event_name?: unknown } | null)?.hook_event_name;
    return event === 'PostToolUse' || event === 'PostToolUseFailure';
  } catch {
    return false;
  }
}

export interface HookRunOptions {
  unreachable?: 'deny' | 'ask' | undefined;
  timeoutMs: number;
  agentTokenFile?: string | undefined;
  /** Whose hook this is: the host files the call under that agent's client name. */
  client?: HookAgent | undefined;
}

export async function runHook(home: string, text: string, opts: HookRunOptions): Promise<HookReply> {
  // A report that cannot be delivered loses only the record (the call's outcome stays unknown):
  // answering "deny" to it would only put a confusing error in front of the model.
  if (isReport(text)) {
    const answer = await runPreToolUse(home, text, opts);
    return isNoDecision(answer) ? answer : NO_DECISION;
  }
  return runPreToolUse(home, text, opts);
}

async function runPreToolUse(home: string, text: string, opts: HookRunOptions): Promise<HookReply> {
  // A token file that cannot be read is a mistake in the hook's configuration: deny, whatever
  // the unreachable setting says, rather than fall back to another agent's token.
  const named = opts.agentTokenFile !== undefined ? tokenFromFile(opts.agentTokenFile) : null;
  if (named && !named.ok) return hookAnswer('deny', `Gatehouse cannot check this call: ${named.why}. Fix --agent-token-file in the hook command.`);
  const host = hookTarget(home);
  // Read only when the host cannot be asked: the settings are not on the answered path.
  const unreachable = async (): Promise<'deny' | 'ask'> => {
    if (opts.unreachable) return opts.unreachable;
    try {
      const { readSettingsFile } = await import('../gateway/settings-store.js');
      return readSettingsFile(homePaths(home).settings).settings.hookUnreachable;
    } catch {
      // Fail closed: without the setting, the answer is the default one, deny.
      return 'deny';
    }
  };
  if (!host.ok) return unreachableAnswer(await unreachable(), host.why);
  const { hookUrl } = host.target;
  const agentToken = named?.ok ? named.token : host.target.agentToken;
  let res: { status: number; text: string };
  try {
    if (!hookUrl.startsWith('http://')) throw new HookPostError(false, 'only a loopback http:// address is asked');
    res = await postHook(hookUrl, agentToken, text, opts.timeoutMs, opts.client ?? 'claude-code');
  } catch (err) {
    const e = err as HookPostError;
    if (e.timedOut) return hookAnswer('deny', `Gatehouse did not answer within ${Math.round(opts.timeoutMs / 1000)} s, so the call is denied.`);
    return unreachableAnswer(await unreachable(), `${hookUrl} did not answer: ${e.message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = null;
  }
  // "No decision" only as Gatehouse says it (autonomy alone let it through): Claude Code's own rules decide.
  if (res.status === 200 && isNoDecision(body)) return NO_DECISION;
  const out = (body as { hookSpecificOutput?: { permissionDecision?: unknown } } | null)?.hookSpecificOutput;
  if (res.status !== 200 || !out || !['allow', 'deny', 'ask'].includes(out.permissionDecision as string)) {
    return hookAnswer('deny', `Gatehouse answered the hook with HTTP ${res.status} and no decision; the call is denied.`);
  }
  return body as HookReply;
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
  agent?: string | undefined;
  event?: string | undefined;
  unreachable?: string | undefined;
  timeout: string;
  agentTokenFile?: string | undefined;
}

/** The options' meaning, or the sentence of the usage mistake. */
export function hookSettings(o: HookOptions): { ok: true; home: string; agent: HookAgent; event: CopilotEvent; unreachable: 'deny' | 'ask' | undefined; timeoutMs: number; agentTokenFile: string | undefined } | { ok: false; message: string } {
  const agent = o.agent ?? 'claude-code';
  if (!(HOOK_AGENTS as readonly string[]).includes(agent)) return { ok: false, message: `--agent must be ${HOOK_AGENTS.join(' or ')}, not "${agent}".` };
  const event = o.event ?? 'preToolUse';
  if (o.event !== undefined && agent !== 'copilot') return { ok: false, message: '--event is for --agent copilot only (the others\' input names its event).' };
  if (!(COPILOT_EVENTS as readonly string[]).includes(event)) return { ok: false, message: `--event must be ${COPILOT_EVENTS.join(', ')}, not "${event}".` };
  if (o.unreachable !== undefined && o.unreachable !== 'deny' && o.unreachable !== 'ask') return { ok: false, message: `--unreachable must be deny or ask, not "${o.unreachable}".` };
  const timeout = Number(o.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) return { ok: false, message: `--timeout must be a positive number of seconds, not "${o.timeout}".` };
  if (o.agentTokenFile === '') return { ok: false, message: '--agent-token-file needs the path of a file holding a token from `gatehouse agent token create`.' };
  return { ok: true, home: o.home ?? defaultHome(), agent: agent as HookAgent, event: event as CopilotEvent, unreachable: o.unreachable, timeoutMs: timeout * 1000, agentTokenFile: o.agentTokenFile };
}

export async function hookAnswerFor(s: { home: string; agent?: HookAgent; event?: CopilotEvent; unreachable: 'deny' | 'ask' | undefined; timeoutMs: number; agentTokenFile?: string | undefined }): Promise<void> {
  if (s.agent !== undefined && s.agent !== 'claude-code') return mappedHook(s, MAPPINGS[s.agent]);
  const input = await readStdin();
  const answer = await runHook(s.home, input, { unreachable: s.unreachable, timeoutMs: s.timeoutMs, agentTokenFile: s.agentTokenFile });
  // No decision is exit 0 with nothing on stdout: Claude Code then goes on as if no hook had spoken.
  if (!isNoDecision(answer)) process.stdout.write(JSON.stringify(answer) + '\n');
}

/** What the agent's hook does: its exit code and output. */
interface MappedResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/** An agent whose hook input and answer are not Claude Code's: both mapped (agents/<id>/hook-mapping.ts). */
interface HookMapping {
  client: HookAgent;
  /** `event`: the one --event names, for an agent whose input does not (Copilot CLI). */
  from: (text: string, event: CopilotEvent) => { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };
  to: (reply: unknown, original: { tool: string; toolInput: Record<string, unknown> } | null) => MappedResult;
  /**
   * The agent itself starts the command (no shell between): when it is gone (its pid is no longer
   * the parent), the command exits and its closed connection withdraws the call from the inbox.
   */
  parentIsAgent?: boolean;
  /**
   * The agent starts the command through a shell that outlives it (measured: Gemini CLI and Qwen
   * Code `bash -c`, Copilot CLI `bash --norc --noprofile -c` in a process group of its own): the
   * agent is the shell's parent. When it is gone, the command answers deny and exits, and its
   * closed connection withdraws the call.
   */
  agentBehindShell?: boolean;
}

/**
 * The parent links that hold while the agent that started this command (through a shell) lives:
 * the shell is this process's parent and the agent the shell's. A link breaks when the parent
 * exits (its children are re-parented at once), which, unlike a pid looked up again later, cannot
 * be fooled by a new process reusing the pid. The agent's own parent is watched too when it runs
 * the same program: Gemini CLI's gemini.js and Qwen Code's cli.js relaunch themselves, and the
 * relaunched Qwen Code, once its launcher is gone, cancels the waiting hook about 60 s later and
 * runs the tool (measured). Another parent (the user's shell, a wrapper that may exit on purpose)
 * is not the agent, and not watched.
 */
export function agentChain(self = process.pid, shell = process.ppid): { child: number; parent: number }[] {
  const agent = readStat(shell)?.ppid;
  if (agent === undefined || agent <= 1) return [];
  const chain = [{ child: self, parent: shell }, { child: shell, parent: agent }];
  const launcher = readStat(agent)?.ppid;
  const exe = readExe(agent);
  if (launcher !== undefined && launcher > 1 && exe !== null && readExe(launcher) === exe) chain.push({ child: agent, parent: launcher });
  return chain;
}

/** How often the command looks whether the agent that started it is still there. */
const AGENT_GONE_POLL_MS = 500;

const MAPPINGS: Record<Exclude<HookAgent, 'claude-code'>, HookMapping> = {
  'gemini-cli': { client: 'gemini-cli', from: fromGeminiInput, to: toGeminiAnswer, agentBehindShell: true },
  opencode: { client: 'opencode', from: fromOpencodeInput, to: toOpencodeAnswer, parentIsAgent: true },
  // Claude Code's answers, Gemini CLI's tool names (agents/qwen-code/hook-mapping.ts).
  'qwen-code': { client: 'qwen-code', from: fromQwenInput, to: toQwenAnswer, agentBehindShell: true },
  copilot: { client: 'copilot', from: fromCopilotInput, to: toCopilotAnswer, agentBehindShell: true },
};

/**
 * Gemini CLI's BeforeTool and AfterTool hooks, opencode's plugin, Qwen Code's PreToolUse hook and
 * Copilot CLI's preToolUse hook (and their reports): the input mapped to the one the host judges,
 * the answer mapped back. Any failure here is the agent's deny (exit 2, with a sentence): every
 * other way out would let the agent run the tool.
 */
async function mappedHook(s: { home: string; event?: CopilotEvent; unreachable: 'deny' | 'ask' | undefined; timeoutMs: number; agentTokenFile?: string | undefined }, m: HookMapping): Promise<void> {
  let r: MappedResult;
  if (m.parentIsAgent) {
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) process.exit(2);
    }, AGENT_GONE_POLL_MS).unref();
  }
  // Linux only (/proc): elsewhere the call waits until its deadline.
  const chain = m.agentBehindShell ? agentChain() : [];
  if (chain.length > 0) {
    setInterval(() => {
      const gone = chain.find((l) => readStat(l.child)?.ppid !== l.parent);
      if (gone === undefined) return;
      // Whatever ended, it is answered with a deny, never a bare exit: an exit without an answer
      // lets Qwen Code run the tool.
      const r = m.to(hookAnswer('deny', `The agent that ran this hook (pid ${gone.parent}) has exited; the call is withdrawn.`), null);
      process.stdout.write(r.stdout);
      process.stderr.write(r.stderr);
      process.exit(r.code);
    }, AGENT_GONE_POLL_MS).unref();
  }
  try {
    const g = m.from(await readStdin(), s.event ?? 'preToolUse');
    if ('invalid' in g) r = m.to(hookAnswer('deny', g.invalid), null);
    else if ('skip' in g) r = m.to(NO_DECISION, null);
    else r = m.to(await runHook(s.home, g.judge, { unreachable: s.unreachable, timeoutMs: s.timeoutMs, agentTokenFile: s.agentTokenFile, client: m.client }), g);
  } catch (err) {
    r = m.to(hookAnswer('deny', `Gatehouse's hook failed (${(err as Error).message}), so the call is blocked.`), null);
  }
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.code;
}

/**
 * The fast path: `args` are what follows `gatehouse hook`. Returns false, having done nothing,
 * when they are not a plain hook invocation (help, an unknown flag, a bad value): the full CLI
 * then handles them.
 */
export async function hookMain(args: string[]): Promise<boolean> {
  let values: { home?: string; agent?: string; event?: string; unreachable?: string; timeout?: string; 'agent-token-file'?: string };
  try {
    ({ values } = parseArgs({ args, options: { home: { type: 'string' }, agent: { type: 'string' }, event: { type: 'string' }, unreachable: { type: 'string' }, timeout: { type: 'string' }, 'agent-token-file': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch {
    return false;
  }
  const s = hookSettings({ home: values.home, agent: values.agent, event: values.event, unreachable: values.unreachable, timeout: values.timeout ?? String(HOOK_COMMAND_TIMEOUT_S), agentTokenFile: values['agent-token-file'] });
  if (!s.ok) return false;
  await hookAnswerFor(s);
  return true;
}
