// The approval loop under load, as agents see it (`npm run soak`; short versions are test/bench/soak.test.ts).
//
// A real host: `gatehouse serve` in its own process (its RSS read from /proc/PID/status), with a
// fake HOME (a dummy ~/.ssh/id_rsa) and a project folder, at supervised autonomy, hookAsk "inbox".
// Against it, at once:
//  - MCP agents: each its own @modelcontextprotocol/sdk client over Streamable HTTP at /mcp with
//    the agent token, calling the built-in shell tool;
//  - hook agents: Claude Code's HTTP hook (POST /hooks/claude/pre-tool-use), one session each,
//    each request with its own tool_use_id and a unique input; after an allow, the PostToolUse
//    report with the same tool_use_id, as Claude Code sends it once the tool ran;
//  - a scripted operator on the console WebSocket with the operator token: on approvals.changed it
//    lists the pending items and approves four in five, denies the fifth (approvals.approve/deny).
// Before the load, one hook agent alone makes 30 allowed-kind calls one at a time: the idle hook
// round trip, against which the load's p99 is judged (issue #29: at most 5× its p50; and the
// host's event-loop lag p99 at most 20 ms), printed as the report's "targets" line.
// Each agent loops until the time is up, picking from a mix: reads in the project folder
// (allowed), ~/.ssh reads and private hosts (denied), writes in the project folder (asked). In
// live mode allowed and approved shell commands really run (sandboxed, in a PTY): the realistic
// load; in dry-run nothing runs and only the decision path is measured. Fault phases (on by
// default, bench/soak-faults.ts): a second process holding the audit log's write lock, agents
// leaving while their calls wait, a full disk under the home (tmpfs, as root), a host restart;
// each with its expected outcome checked (judgePhase).
//
// Afterwards the host is stopped (SIGTERM, as an operator would) and its audit log is checked:
// the chain verifies (and `gatehouse audit verify` says so), and every call has a complete trail.
//
// A call's trail is COMPLETE when, for its call id, the log holds exactly one call.received,
// exactly one call.decided whose decision closes the call (allow, deny, expired; never ask, since
// hookAsk is "inbox"), and exactly one call.result (or, for a call closed at a host stop,
// call.abandoned, or call.interrupted when its tool ran); and, when an operator was asked (approval.requested), exactly one
// approval.decided, approval.expired or approval.withdrawn for it. LOST: a call an agent was
// answered that the log does not hold (counts per ingress), an answer (MCP by its call id, hook by
// its input) whose call has no trail or a different decision, an operator decision the API
// acknowledged that the log does not hold. A call denied because the log could not record it is
// counted apart (denied unrecorded), not as lost.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openForVerify, verifyDatabase } from '../main/audit/audit-store.js';
import { homePaths } from '../main/home.js';
import { readServeFile, type ServeInfo } from '../main/shells/serve/serve-file.js';
import { FAULT_NAMES, fillDisk, holdWriteLock, mountTmpfs, rawMcpSession, removeBallast, unmount, type FaultName, type FaultPhase } from './soak-faults.js';

// bench/soak.ts (under Vitest) or out/bench/soak.js (the built script): the package root either way.
const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = existsSync(join(here, '..', 'package.json')) ? join(here, '..') : join(here, '..', '..');
const cliPath = join(repoRoot, 'bin', 'gatehouse.js');

export interface SoakOptions {
  /** How long agents send calls (the run then waits for the calls in flight, and for the fault phases to end). */
  seconds: number;
  /** Agents in all; a fifth of them (at least one) are hook clients, the rest MCP clients. */
  agents: number;
  live: boolean;
  /** Pause between one agent's calls: uniform in [0, 2 × thinkMs] (a real agent thinks between calls). */
  thinkMs: number;
  /** Every Nth asked call the operator denies (the others it approves once). */
  denyEvery?: number;
  /** Length of one row of the over-time table. */
  bucketSeconds?: number;
  /** Fault phases: true (default) for all of them, false for none, or the ones named. */
  faults?: boolean | readonly FaultName[];
  /** How long the second process holds the write lock (default 8 s: longer than the writer's 5 s wait). */
  lockHoldMs?: number;
  /** How long the ballast keeps the tmpfs full (default 5 s). */
  diskFullMs?: number;
  /** Progress lines (stderr in the script). */
  log?: (line: string) => void;
  /** Keep the temporary folder (its path is in the report). */
  keep?: boolean;
}

type Kind = 'allow' | 'deny' | 'ask';
type Source = 'mcp' | 'hook';

interface CallRecord {
  source: Source;
  kind: Kind;
  /** What Gatehouse answered: allow, deny, expired, ask; "error" when the transport failed. */
  got: string;
  /** The operator's answer the agent should see for an asked call (allow or deny); else the kind. */
  want: string;
  /** Gatehouse's reason (MCP _meta, the hook's permissionDecisionReason). */
  reason: string;
  executed: boolean;
  /** Round trip as the agent saw it. */
  rtMs: number;
  /** The operator's share of it (the approval step, MCP only); null where it is not known (an asked hook call). */
  operatorMs: number | null;
  /** The host's decision time: the pipeline's steps before the runner, without the operator's wait (MCP only). */
  decisionMs: number | null;
  /** Seconds since the load started, when the call was sent and when the answer (or the error) came. */
  sentAt: number;
  at: number;
  /** MCP: the call id of the answer. */
  call: string | null;
  /** Hook: how the call is found in the log (hookKey), and its tool_use_id. */
  key?: string;
  toolUseId?: string;
  /** Still unanswered 60 s after the agents' time was up: aborted by the soak (a call the host never answered). */
  unanswered?: boolean;
  /** A transport error a host restart explains: the host was down, or the client's session was the old host's. */
  restartError?: boolean;
  /** Hook calls answered allow: the PostToolUse report was sent (false: the host was gone). */
  reported?: boolean;
  /** The report reached a host other than the one that answered the PreToolUse call. */
  reportedAcrossRestart?: boolean;
  error?: string;
}

export interface BucketRow {
  fromSec: number;
  toSec: number;
  calls: number;
  callsPerSec: number;
  decisionP50: number | null;
  decisionP99: number | null;
  agentRtP50: number | null;
  agentRtP99: number | null;
  loopP99: number | null;
  rssMb: number | null;
}

export interface SoakReport {
  mode: 'live' | 'dry-run';
  agents: { mcp: number; hook: number };
  seconds: number;
  elapsedSec: number;
  calls: {
    total: number;
    bySource: Record<Source, number>;
    byKind: Record<Kind, number>;
    /** Transport errors in all, and those a host restart explains (the host was down, or the client's session was the old host's). */
    transportErrors: number;
    restartErrors: number;
    /** Calls the host never answered (aborted 60 s after the agents' time was up): examples. */
    unanswered: number;
    unansweredExamples: string[];
    /** Transport errors neither a restart nor the run's end explains: examples, with the error. */
    unexplainedExamples: string[];
  };
  throughput: number;
  decision: { p50: number | null; p99: number | null; samples: number };
  /** Every answered call as its agent saw it (MCP and hook), without the operator's wait for asked MCP calls; asked hook calls only in askedRoundTrip. */
  agentRoundTrip: { p50: number | null; p99: number | null; samples: number };
  hookRoundTrip: { p50: number | null; p99: number | null };
  /** The same hook calls (allowed kind) made one at a time by one agent before the load: the baseline of the load's p99. */
  idleHookRoundTrip: { p50: number | null; calls: number; unexpected: number };
  askedRoundTrip: { p50: number | null; p99: number | null };
  /** Calls whose answer was not the one expected (the first few, described). */
  unexpected: { count: number; examples: string[]; deniedButAllowed: number };
  /** Denied because the log could not record them (a lock, a full disk): by design not in the log. */
  deniedUnrecorded: { count: number; outsideFaults: number; notInLog: number; lostEventsLogged: number; writeResumed: number };
  operator: { approved: number; denied: number; refused: number; reconnects: number };
  /** The worst over the host's lives (one per start): the host measures its own loop since it started. */
  eventLoop: { p50Ms: number; p99Ms: number; maxMs: number; lives: number } | null;
  rssMb: { start: number; end: number; peak: number };
  hostPids: number[];
  /** The host's CPU time during the load, as a share of one core (100 = one core busy all the time). */
  hostCpuPercent: number;
  /** The machine's 1-minute load average at the end, and its cores: a loaded machine delays everything. */
  machine: { loadAvg: number; cores: number };
  buckets: BucketRow[];
  faults: FaultPhase[];
  audit: {
    events: number;
    chainOk: boolean;
    chainMessage: string;
    cliVerify: { code: number | null; output: string };
    callsInLog: number;
    incompleteTrails: number;
    incompleteExamples: string[];
    /** Trails of calls denied unrecorded that lost events with the failed batch (expected, not counted as incomplete). */
    partialUnrecorded: number;
    /** Hook calls found in the log by their input, one by one: decision equal to the agent's answer. */
    hookTrails: { checked: number; matched: number; mismatched: number; examples: string[] };
    /** PostToolUse reports sent after an allow, and the call.outcome events whose call is null. */
    reports: { sent: number; outcomes: number; notInLog: number; unlinked: number; unlinkedAcrossRestart: number; wrongCall: number };
    lost: { received: number; answers: number; operatorDecisions: number };
    hostExit: number | null;
  };
  dir: string;
}

const pct = (xs: number[], p: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const round = (x: number | null, d = 2) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Math.round(Number(m[1]) / 102.4) / 10;
}

/** CPU seconds (user + system) the process has used so far, from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name. Linux counts in 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts `gatehouse serve` and resolves once serve.json describes it. */
interface HostRun {
  child: ChildProcess;
  info: ServeInfo;
  exited: Promise<number | null>;
  output: () => string;
}

async function startHost(dir: string, env: NodeJS.ProcessEnv, ghHome: string, cwd: string, live: boolean, port = 0): Promise<HostRun> {
  // SOAK_HOST_NODE_ARGS: Node options for the host alone (e.g. --cpu-prof to see what holds its loop).
  const nodeArgs = (process.env.SOAK_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, cliPath, 'serve', '--home', ghHome, '--port', String(port), '--autonomy', 'supervised', ...(live ? ['--live'] : [])];
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // SOAK_HOST_LOG=file: all the host prints is also appended there (the report keeps the last 20 KB).
  const logFile = process.env.SOAK_HOST_LOG;
  const keep = (d: string) => {
    out = (out + d).slice(-20_000);
    if (logFile) appendFileSync(logFile, d);
  };
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr!.setEncoding('utf8').on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  const started = await new Promise<boolean>((resolve) => {
    const check = () => {
      if (/Agents: MCP at /.test(out)) {
        child.stdout!.off('data', check);
        resolve(true);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => resolve(false));
  });
  const info = readServeFile(homePaths(ghHome).serveJson);
  if (!started || !info) throw new Error(`gatehouse serve did not start (folder ${dir}):\n${out}`);
  return { child, info, exited, output: () => out };
}

/** The scripted operator: the console WebSocket with the operator token (connected again after a host restart). */
class Operator {
  private nextId = 1;
  private readonly replies = new Map<number, (frame: { ok: boolean; result?: unknown; error?: { message: string } }) => void>();
  private busy: Promise<void> | null = null;
  private again = false;
  private readonly handled = new Set<string>();
  private seen = 0;
  private ws: WebSocket | null = null;
  approved = 0;
  denied = 0;
  /** Answers the host refused (the item had already closed: its agent left or it expired). */
  refused = 0;
  /** Times the console WebSocket was connected again (after a host restart). */
  reconnects = 0;
  /** What the operator chose for each item, set before the answer is sent (the agent may hear first). */
  readonly intent = new Map<string, 'approved' | 'denied'>();
  /** The answers the host acknowledged. */
  readonly decided: { id: string; state: 'approved' | 'denied' }[] = [];
  /** Items of the agents-leaving phase (their arguments carry a soak-leaving-N marker): held, never decided in a pass. */
  readonly held = new Map<string, { id: string; argsHash: string }>();
  private changeWaiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly denyEvery: number) {}

  /** Connects (again) to the host described by `info`. */
  async attach(info: ServeInfo): Promise<void> {
    const url = info.url.replace(/^http/, 'ws').replace(/\/$/, '') + '/ws';
    const ws = new WebSocket(url, ['gatehouse.v1', `gatehouse.token.${info.token}`], { headers: { origin: info.url.replace(/\/$/, '') } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`the console WebSocket was refused (${res.statusCode})`)));
      ws.once('error', reject);
    });
    ws.on('message', (data, isBinary) => {
      // Binary frames carry terminal output (shared/event-frame.ts), which the operator does not read.
      if (isBinary) return;
      const frame = JSON.parse(String(data)) as { id?: number; event?: string; ok: boolean; result?: unknown; error?: { message: string } };
      if (frame.event === 'approvals.changed') {
        for (const w of this.changeWaiters.splice(0)) w();
        return this.poke();
      }
      if (typeof frame.id === 'number') {
        this.replies.get(frame.id)?.(frame);
        this.replies.delete(frame.id);
      }
    });
    // A host that stops (or dies) answers nothing more: no call may wait for it forever.
    ws.on('close', () => {
      for (const r of this.replies.values()) r({ ok: false, error: { message: 'the console WebSocket closed' } });
      this.replies.clear();
      for (const w of this.changeWaiters.splice(0)) w();
    });
    if (this.ws) this.reconnects++;
    this.ws = ws;
    this.poke();
  }

  call<T>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error(`${method}: the console WebSocket is closed`));
    return new Promise((resolve, reject) => {
      this.replies.set(id, (f) => (f.ok ? resolve(f.result as T) : reject(new Error(`${method}: ${f.error?.message ?? 'failed'}`))));
      ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** The next approvals.changed event (or the WebSocket closing), at most `ms` from now. */
  nextChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.changeWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves with the held item whose arguments carry `marker` once the inbox shows it pending (null after `ms`). */
  async heldItem(marker: string, ms: number): Promise<{ id: string; argsHash: string } | null> {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const h = this.held.get(marker);
      if (h) return h;
      await this.nextChange(until - performance.now());
    }
    return this.held.get(marker) ?? null;
  }

  /** One pass at a time; an event during a pass asks for another. */
  private poke(): void {
    if (this.closed) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.closed);
      this.busy = null;
    })();
  }

  private async pass(): Promise<void> {
    let items: { id: string; argsHash: string; call: { arguments?: unknown } }[];
    try {
      ({ items } = await this.call<{ items: { id: string; argsHash: string; call: { arguments?: unknown } }[] }>('approvals.list', { state: 'pending' }));
    } catch {
      return;
    }
    await Promise.all(
      items
        .filter((i) => !this.handled.has(i.id))
        .map(async (item) => {
          this.handled.add(item.id);
          const marker = /soak-leaving-\d+/.exec(JSON.stringify(item.call.arguments ?? null))?.[0];
          if (marker) {
            this.held.set(marker, { id: item.id, argsHash: item.argsHash });
            return;
          }
          const deny = ++this.seen % this.denyEvery === 0;
          this.intent.set(item.id, deny ? 'denied' : 'approved');
          try {
            if (deny) await this.call('approvals.deny', { id: item.id, reason: 'The soak operator denies every few asked calls.' });
            else await this.call('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'once' });
            this.decided.push({ id: item.id, state: deny ? 'denied' : 'approved' });
            if (deny) this.denied++;
            else this.approved++;
          } catch {
            this.refused++;
          }
        }),
    );
    for (const w of this.changeWaiters.splice(0)) w();
  }

  /** Waits for the current pass (the run's last answers). */
  async settle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settle();
    for (const r of this.replies.values()) r({ ok: false, error: { message: 'closed' } });
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close();
    });
  }
}

interface Fixture {
  project: string;
  fakeHome: string;
}

/** What an agent sends for each kind (`n` makes paths distinct). */
function mcpCommand(kind: Kind, f: Fixture, agent: number, n: number): string {
  switch (kind) {
    case 'allow':
      return n % 2 ? `cat ${f.project}/README.md` : `head -n 2 ${f.project}/src/notes-${agent % 5}.txt`;
    case 'deny':
      return n % 2 ? `cat ${f.fakeHome}/.ssh/id_rsa` : 'curl -s http://10.0.0.5/admin';
    case 'ask':
      return `echo "line ${n}" >> ${f.project}/out/mcp-${agent}.txt`;
  }
}

/**
 * Claude Code's PreToolUse input. Each call's tool_input is unique (a Read's offset, the id in a
 * fetch's prompt, a Write's path): call.received records the input, not the tool_use_id, so the
 * soak finds each hook call in the log by its input and checks its decision one by one.
 */
function hookInput(kind: Kind, f: Fixture, agent: number, n: number, toolUseId: string, unique: number): Record<string, unknown> {
  const base = { session_id: `soak-hook-${agent}`, transcript_path: join(f.fakeHome, 'transcript.jsonl'), cwd: f.project, hook_event_name: 'PreToolUse', tool_use_id: toolUseId };
  switch (kind) {
    case 'allow':
      return { ...base, tool_name: 'Read', tool_input: { file_path: join(f.project, 'README.md'), offset: unique } };
    case 'deny':
      return n % 2
        ? { ...base, tool_name: 'Read', tool_input: { file_path: join(f.fakeHome, '.ssh', 'id_rsa'), offset: unique } }
        : { ...base, tool_name: 'WebFetch', tool_input: { url: 'http://192.168.1.10/admin', prompt: `read it (${toolUseId})` } };
    case 'ask':
      return { ...base, tool_name: 'Write', tool_input: { file_path: join(f.project, 'out', `hook-${agent}-${n}.txt`), content: `line ${n} (${toolUseId})\n` } };
  }
}

/** How a hook call is found in the log: its tool and its exact input (unique per call, see hookInput). */
const hookKey = (tool: string, input: unknown) => `${tool} ${canonical(input)}`;
/** JSON with object keys sorted, as the audit log stores payloads. */
const canonical = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : v !== null && typeof v === 'object' ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}` : JSON.stringify(v);

/** Half the calls read, a quarter are denied, a quarter ask. */
function pickKind(): Kind {
  const r = Math.random();
  return r < 0.5 ? 'allow' : r < 0.75 ? 'deny' : 'ask';
}

const think = (ms: number) => new Promise((r) => setTimeout(r, Math.random() * 2 * ms));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Hook calls of the idle baseline (one agent, one at a time, before the load). */
const IDLE_HOOK_CALLS = 30;
/** Issue #29's targets for the load: the host's event-loop lag, and the agents' hook round trip against the idle one. */
export const SOAK_TARGETS = { lagP99Ms: 20, hookP99OverIdleP50: 5 };
/** A deny because the audit log could not record the call (a lock, a full disk, a lost file). */
const UNRECORDED = /the audit log (is locked by another process|cannot be written)/;
const LOCKED = /locked by another process/;
const DISK_FULL = /disk full/;
const SHUTTING_DOWN = /shutting down|shut down/i;

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const denyEvery = opts.denyEvery ?? 5;
  const bucketSec = opts.bucketSeconds ?? 60;
  const faults = new Set<FaultName>(opts.faults === false ? [] : opts.faults === undefined || opts.faults === true ? FAULT_NAMES : opts.faults);
  const hookAgents = Math.max(1, Math.round(opts.agents / 5));
  const mcpAgents = Math.max(0, opts.agents - hookAgents);
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-soak-'));
  const fakeHome = join(dir, 'home');
  const ghHome = join(fakeHome, '.gatehouse');
  const project = join(dir, 'project');
  const f: Fixture = { project, fakeHome };
  mkdirSync(join(fakeHome, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(fakeHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsoak-dummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
  mkdirSync(ghHome, { recursive: true, mode: 0o700 });
  // The disk-full phase: the Gatehouse home on a tmpfs of its own, which a ballast file fills.
  let diskSkipped: string | null = null;
  let tmpfs = false;
  if (faults.has('disk-full')) {
    diskSkipped = mountTmpfs(ghHome, 1024);
    tmpfs = diskSkipped === null;
  }
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'out'), { recursive: true });
  writeFileSync(join(project, 'README.md'), '# soak project\nA folder the agents read and write.\n');
  for (let i = 0; i < 5; i++) writeFileSync(join(project, 'src', `notes-${i}.txt`), `notes ${i}\nsecond line\nthird line\n`);
  // hookAsk "inbox": an asked hook call waits for the scripted operator like an MCP call does.
  // hookAutonomyAllow "allow": a read the level allows is answered allow (not "no objection").
  writeFileSync(join(ghHome, 'settings.json'), JSON.stringify({ mode: opts.live ? 'live' : 'dry-run', autonomy: 'supervised', hookAsk: 'inbox', hookAutonomyAllow: 'allow' }));
  // Every shell command executes, so supervised asks about all of them: the operator has allowed
  // these exact reads of the project (an allow rule bound to the shell tool and the commands).
  const reads = Array.from({ length: 10 }, (_, n) => mcpCommand('allow', f, n, n)).filter((c, i, all) => all.indexOf(c) === i);
  writeFileSync(
    join(ghHome, 'policy.yaml'),
    ['version: 1', 'rules:', '  - name: soak-project-reads', '    description: The reads the soak agents make in their project', '    decision: allow', '    actions: [read, execute]', `    block_paths: [${JSON.stringify(`${project}/**`)}]`, '    tools: [shell]', `    commands: [${reads.map((c) => JSON.stringify(c)).join(', ')}]`, ''].join('\n'),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: fakeHome, GATEHOUSE_HOME: ghHome, XDG_CONFIG_HOME: join(fakeHome, '.config'), NO_COLOR: '1' };
  delete env.GATEHOUSE_TOKEN;
  delete env.GATEHOUSE_AGENT_TOKEN;
  const dbPath = homePaths(ghHome).auditDb;

  try {
    log(`soak: starting gatehouse serve (${opts.live ? 'live' : 'dry-run'}) in ${dir}${tmpfs ? ' (its home on a 1 GiB tmpfs)' : ''}`);
    let host = await startHost(dir, env, ghHome, project, opts.live);
    const port = Number(new URL(host.info.url).port);
    const hostPids = [host.child.pid!];
    const hostExits: (number | null)[] = [];
    /** Bumped when a host stop begins: a client connected before it talks to a host that is gone. */
    let generation = 0;
    let down: Promise<void> | null = null;
    const op = new Operator(denyEvery);
    await op.attach(host.info);
    const health = async () => {
      try {
        return (await op.call<{ eventLoop?: { sinceStart: { p50Ms: number; p99Ms: number; maxMs: number }; lastWindow: { p99Ms: number } | null } }>('health.list')).eventLoop ?? null;
      } catch {
        return null;
      }
    };
    const lives: { p50Ms: number; p99Ms: number; maxMs: number }[] = [];

    // The run stops by itself: a call still unanswered a minute after the agents' time is aborted and reported.
    const hardStop = new AbortController();
    // Every agent's request listens on it at once (Node warns past 10 listeners).
    setMaxListeners(0, hardStop.signal);
    const connectMcp = async (i: number): Promise<{ client: Client; gen: number }> => {
      const gen = generation;
      const client = new Client({ name: `soak-mcp-${i}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(host.info.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.info.agentToken}` } } }), { signal: hardStop.signal });
      return { client, gen };
    };
    // Agents connect before the clock starts: the load is all agents at once, not a ramp.
    const mcpClients: { client: Client; gen: number }[] = [];
    for (let i = 0; i < mcpAgents; i++) mcpClients.push(await connectMcp(i));
    let pid = host.child.pid!;
    const rssStart = rssMb(pid);
    let cpuBase = cpuSeconds(pid);
    let cpuUsed = 0;
    let rssPeak = rssStart;
    /** One PreToolUse hook request: the decision it answered ({ continue: true } is "no objection": an allow here) and its reason. */
    const askHook = async (input: Record<string, unknown>): Promise<{ got: string; reason: string }> => {
      const res = await fetch(host.info.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${host.info.agentToken}` }, body: JSON.stringify(input), signal: hardStop.signal });
      const answer = (await res.json()) as { continue?: boolean; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
      return {
        got: answer.hookSpecificOutput?.permissionDecision ?? (answer.continue === true ? 'allow' : `status ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`),
        reason: answer.hookSpecificOutput?.permissionDecisionReason ?? '',
      };
    };
    // The baseline of the load's hook round trip: one agent alone, its calls one at a time, no
    // think time (issue #29 asks the load's p99 to stay within 5× of this p50). Real calls, checked
    // in the log with the others.
    const idleRecords: CallRecord[] = [];
    for (let n = 0; n < IDLE_HOOK_CALLS; n++) {
      const toolUseId = `toolu_soak_idle_${n}`;
      const input = hookInput('allow', f, hookAgents, n, toolUseId, 1_000_000_000 + n);
      const rec: CallRecord = { source: 'hook', kind: 'allow', got: 'error', want: opts.live ? 'allow' : 'ask', reason: '', executed: false, rtMs: 0, operatorMs: null, decisionMs: null, sentAt: 0, at: 0, call: null, key: hookKey(input.tool_name as string, input.tool_input), toolUseId };
      const t = performance.now();
      Object.assign(rec, await askHook(input));
      rec.rtMs = performance.now() - t;
      idleRecords.push(rec);
    }
    const idleHook = idleRecords.filter((r) => r.got === r.want).map((r) => r.rtMs);
    log(`soak: idle hook round trip p50 ${round(pct(idleHook, 50))} ms (one agent, ${idleHook.length} of ${IDLE_HOOK_CALLS} calls answered as expected)`);
    const before = await health();
    log(`soak: ${mcpAgents} MCP agents and ${hookAgents} hook agents connected; host pid ${pid}, RSS ${rssStart} MB; running ${opts.seconds} s; fault phases: ${[...faults].join(', ') || 'none'}${before ? `; loop lag before the load p99 ${before.sinceStart.p99Ms} ms max ${before.sinceStart.maxMs} ms` : ''}`);

    const records: CallRecord[] = [];
    const samples: { at: number; rss: number }[] = [];
    const t0 = performance.now();
    const deadline = t0 + opts.seconds * 1000;
    const now = () => (performance.now() - t0) / 1000;
    const hostAlive = () => host.child.exitCode === null && host.child.signalCode === null;
    const sampler = setInterval(() => {
      // A host that is restarting or died has no /proc entry: the run goes on to report it.
      if (!hostAlive()) return;
      try {
        const rss = rssMb(pid);
        rssPeak = Math.max(rssPeak, rss);
        samples.push({ at: now(), rss });
      } catch {
        // Gone between the check and the read.
      }
    }, 1000);
    const progress = setInterval(() => {
      const done = records.length;
      void health().then((h) => {
        // The host's worst stall so far: whether it came before the load or in it.
        const lag = h ? `, loop lag p99 ${h.sinceStart.p99Ms} ms max ${h.sinceStart.maxMs} ms so far` : '';
        log(`soak: ${Math.round(now())} s, ${done} calls answered, ${(done / Math.max(1, now())).toFixed(1)}/s, operator ${op.approved} approved ${op.denied} denied, RSS ${samples.at(-1)?.rss ?? rssStart} MB${lag}`);
      });
    }, 15_000);
    // The host's own lag over each of its minutes, sampled as the run goes.
    const lagSamples: { at: number; p99: number }[] = [];
    const lagTimer = setInterval(() => {
      void health().then((h) => h?.lastWindow && lagSamples.push({ at: now(), p99: h.lastWindow.p99Ms }));
    }, 10_000);

    // ---- fault phases ------------------------------------------------------------------------------
    const phases: FaultPhase[] = [];
    /** Seconds since start when the last phase ended (agents go on a few seconds past it); null while phases run. */
    let phasesDoneAt: number | null = faults.size === 0 ? 0 : null;
    const leaving: Leaving[] = [];
    const window = (name: FaultName, from: number) => ({ name, from, to: from, calls: 0, outcome: '', ok: false as boolean | null });

    const lockPhase = async (): Promise<FaultPhase> => {
      const p = window('lock', now());
      const holder = await holdWriteLock(repoRoot, dbPath);
      p.from = now();
      log(`soak: ${p.from.toFixed(1)} s: a second process holds audit.db's write lock for ${(opts.lockHoldMs ?? 8000) / 1000} s`);
      await wait(opts.lockHoldMs ?? 8000);
      await holder.release();
      p.to = now();
      return p;
    };
    const diskPhase = async (): Promise<FaultPhase> => {
      const p = window('disk-full', now());
      const ballast = join(ghHome, 'soak-ballast');
      const filled = fillDisk(ballast, ghHome);
      p.from = now();
      log(`soak: ${p.from.toFixed(1)} s: the home's tmpfs is full (ballast ${Math.round(filled / 1048576)} MiB)`);
      // SQLite first fills the room left in its pages and its WAL (reused after each checkpoint),
      // so a full disk bites only after some writes: the window is timed from the first call
      // denied for it (at most 30 s later), as an operator whose disk filled up would see it.
      const bitten = () => records.some((r) => r.at >= p.from! && DISK_FULL.test(r.reason));
      for (const until = now() + 30; !bitten() && now() < until; ) await wait(100);
      log(`soak: ${now().toFixed(1)} s: ${bitten() ? 'calls are denied "disk full"' : 'no call was denied "disk full" within 30 s'}; full for ${(opts.diskFullMs ?? 5000) / 1000} s more`);
      await wait(opts.diskFullMs ?? 5000);
      removeBallast(ballast);
      p.to = now();
      return p;
    };
    const leavingPhase = async (): Promise<FaultPhase> => {
      const p = window('leaving', now());
      log(`soak: ${p.from.toFixed(1)} s: agents leave while their asked calls wait (SDK abort, dropped fetch, aborted hook)`);
      const hows = ['mcp-sdk-abort', 'mcp-fetch-dropped', 'hook-aborted'] as const;
      await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (k) => {
          const how = hows[k % 3]!;
          const marker = `soak-leaving-${k}`;
          const entry: Leaving = { marker, how, item: null, withdrawn: null, approveRefused: null };
          leaving.push(entry);
          const abort = new AbortController();
          let request: Promise<unknown>;
          try {
            if (how === 'hook-aborted') {
              const body = JSON.stringify({ session_id: `soak-leaving-${k}`, transcript_path: join(fakeHome, 'transcript.jsonl'), cwd: project, hook_event_name: 'PreToolUse', tool_use_id: `toolu_${marker}`, tool_name: 'Write', tool_input: { file_path: join(project, 'out', `${marker}.txt`), content: `${marker}\n` } });
              request = fetch(host.info.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${host.info.agentToken}` }, body, signal: abort.signal }).then((r) => r.text());
            } else if (how === 'mcp-sdk-abort') {
              const { client } = await connectMcp(100 + k);
              request = client.callTool({ name: 'shell', arguments: { command: `echo ${marker} >> ${project}/out/${marker}.txt` } }, undefined, { signal: abort.signal, timeout: 120_000 }).finally(() => void client.close().catch(() => {}));
            } else {
              const raw = await rawMcpSession(host.info.mcpUrl, host.info.agentToken);
              request = raw.call({ command: `echo ${marker} >> ${project}/out/${marker}.txt` }, abort.signal);
            }
            const settled = request.then(
              () => 'answered',
              () => 'aborted',
            );
            const item = await op.heldItem(marker, 30_000);
            if (!item) {
              entry.error = `no pending item appeared within 30 s (${await Promise.race([settled, Promise.resolve('still waiting')])})`;
              abort.abort();
              return;
            }
            entry.item = item.id;
            abort.abort();
            await settled;
            // The item closes as the agent leaves: wait for it (approvals.changed), at most 15 s.
            const until = performance.now() + 15_000;
            while (performance.now() < until) {
              const view = await op.call<{ item?: { state: string }; state?: string }>('approvals.get', { id: item.id }).catch(() => null);
              const state = view?.item?.state ?? view?.state ?? null;
              if (state && state !== 'pending') {
                entry.withdrawn = state;
                break;
              }
              await op.nextChange(until - performance.now());
            }
            // The operator now tries to approve it: the host must refuse.
            try {
              await op.call('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'once' });
              entry.approveRefused = false;
            } catch {
              entry.approveRefused = true;
            }
          } catch (err) {
            entry.error = (err as Error).message;
          }
        }),
      );
      p.to = now();
      return p;
    };
    const restartPhase = async (): Promise<FaultPhase> => {
      const p = window('restart', now());
      log(`soak: ${p.from.toFixed(1)} s: stopping the host (SIGTERM) and starting it again on the same home and port`);
      const h = await health();
      if (h) lives.push(h.sinceStart);
      try {
        cpuUsed += cpuSeconds(pid) - cpuBase;
      } catch {
        // Already gone.
      }
      let up!: () => void;
      down = new Promise<void>((r) => (up = r));
      generation++;
      host.child.kill('SIGTERM');
      hostExits.push(await host.exited);
      try {
        host = await startHost(dir, env, ghHome, project, opts.live, port);
      } finally {
        up();
        down = null;
      }
      pid = host.child.pid!;
      hostPids.push(pid);
      cpuBase = cpuSeconds(pid);
      await op.attach(host.info);
      p.to = now();
      log(`soak: ${p.to.toFixed(1)} s: the host is back (pid ${pid}, exit of the old one ${hostExits.at(-1)})`);
      return p;
    };
    const runPhases = async () => {
      // Sequential, each at its fraction of the run or 8 s after the previous one (to see calls work again).
      const plan: [FaultName, number, () => Promise<FaultPhase>][] = [
        ['lock', 0.15, lockPhase],
        ['leaving', 0.35, leavingPhase],
        ['disk-full', 0.55, diskPhase],
        ['restart', 0.75, restartPhase],
      ];
      let last = 0;
      for (const [name, at, run] of plan) {
        if (!faults.has(name)) continue;
        if (name === 'disk-full' && !tmpfs) {
          phases.push({ name, from: null, to: null, calls: 0, outcome: `skipped: ${diskSkipped}`, ok: null });
          continue;
        }
        const start = Math.max(at * opts.seconds, last + 8);
        if (now() < start) await wait((start - now()) * 1000);
        try {
          phases.push(await run());
        } catch (err) {
          phases.push({ name, from: now(), to: now(), calls: 0, outcome: `the phase failed: ${(err as Error).message}`, ok: false });
        }
        last = now();
      }
      phasesDoneAt = now();
    };
    const phasesRun = runPhases();

    // Agents go on until the time is up and a few seconds past the last fault phase (to show calls work again).
    const going = () => performance.now() < deadline || phasesDoneAt === null || now() < phasesDoneAt + 5;
    /** After a transport error: wait for a restarting host, and say whether a restart explains the error. */
    const afterError = async (since: number): Promise<boolean> => {
      const explained = down !== null || generation !== since;
      if (down) await down;
      return explained;
    };

    /** An error with what undici's "fetch failed" wraps (its cause: ECONNRESET, a socket closed, …). */
    const errorText = (err: unknown): string => {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return `${(err as Error).message}${cause ? ` (${[cause.code, cause.message].filter(Boolean).join(': ')})` : ''}`;
    };
    /** A call's answer (or error) is in: its round trip, when, whether the run's end cut it off. */
    const finish = (rec: CallRecord, t: number) => {
      rec.rtMs = performance.now() - t;
      rec.at = now();
      rec.unanswered = hardStop.signal.aborted && rec.got === 'error';
      records.push(rec);
    };
    const mcpAgent = async (i: number) => {
      let n = 0;
      while (going()) {
        const kind = pickKind();
        const command = mcpCommand(kind, f, i, n++);
        const t = performance.now();
        const rec: CallRecord = { source: 'mcp', kind, got: 'error', want: kind, reason: '', executed: false, rtMs: 0, operatorMs: null, decisionMs: null, sentAt: now(), at: 0, call: null };
        const c = mcpClients[i]!;
        try {
          // An asked call waits for the operator: longer than the SDK's default minute under load.
          const r = await c.client.callTool({ name: 'shell', arguments: { command } }, undefined, { timeout: 15 * 60_000, signal: hardStop.signal });
          const g = (r._meta as { gatehouse?: { call: string; decision: string; reason: string; executed: boolean; approval?: string; steps: { step: string; ms: number }[] } } | undefined)?.gatehouse;
          rec.got = g?.decision ?? 'none';
          rec.reason = g?.reason ?? '';
          rec.executed = g?.executed ?? false;
          rec.call = g?.call ?? null;
          if (g) {
            rec.decisionMs = g.steps.filter((s) => s.step !== 'runner' && s.step !== 'approval').reduce((a, s) => a + s.ms, 0);
            rec.operatorMs = g.steps.filter((s) => s.step === 'approval').reduce((a, s) => a + s.ms, 0);
          }
          if (kind === 'ask' && g?.approval) rec.want = op.intent.get(g.approval) === 'denied' ? 'deny' : 'allow';
        } catch (err) {
          rec.error = errorText(err);
        }
        finish(rec, t);
        if (rec.got === 'error' && !rec.unanswered) {
          rec.restartError = await afterError(c.gen);
          // The old session is gone with the old host (or the transport broke): a new one, as a client would.
          void c.client.close().catch(() => {});
          try {
            mcpClients[i] = await connectMcp(i);
          } catch {
            // Tried again after the next call fails.
          }
        }
        await think(opts.thinkMs);
      }
    };
    let toolUses = 0;
    const hookAgent = async (i: number) => {
      let n = 0;
      while (going()) {
        const kind = pickKind();
        const unique = ++toolUses;
        const toolUseId = `toolu_soak_${i}_${n}_${unique}`;
        const input = hookInput(kind, f, i, n++, toolUseId, unique);
        const headers = { 'content-type': 'application/json', authorization: `Bearer ${host.info.agentToken}` };
        const t = performance.now();
        const gen = generation;
        const rec: CallRecord = { source: 'hook', kind, got: 'error', want: kind, reason: '', executed: false, rtMs: 0, operatorMs: null, decisionMs: null, sentAt: now(), at: 0, call: null, key: hookKey(input.tool_name as string, input.tool_input), toolUseId };
        try {
          Object.assign(rec, await askHook(input));
          // The operator's answer to an asked hook call is not named in the reply: judged by its reason.
          if (kind === 'ask') rec.want = rec.got === 'deny' && /operator/i.test(rec.reason) ? 'deny' : 'allow';
          // In dry-run the hook lets nothing through and blocks nothing: every call is handed to
          // Claude Code's own prompt ("ask"), with what Gatehouse would have done as the reason.
          if (!opts.live) rec.want = 'ask';
        } catch (err) {
          rec.error = errorText(err);
        }
        finish(rec, t);
        if (rec.unanswered) break;
        if (rec.got === 'error') rec.restartError = await afterError(gen);
        else if (rec.got === 'allow') {
          // Claude Code ran the tool: it reports so (PostToolUse) with the same tool_use_id.
          const post = { ...input, hook_event_name: 'PostToolUse', tool_response: kind === 'ask' ? { success: true } : { type: 'text', file: { content: '# soak project\n' } } };
          const reportGen = generation;
          try {
            const res = await fetch(host.info.hookUrl, { method: 'POST', headers: { ...headers, authorization: `Bearer ${host.info.agentToken}` }, body: JSON.stringify(post), signal: hardStop.signal });
            await res.text();
            rec.reported = res.ok;
            rec.reportedAcrossRestart = reportGen !== gen;
          } catch {
            rec.reported = false;
            await afterError(reportGen);
          }
        }
        await think(opts.thinkMs);
      }
    };
    void phasesRun.then(() => {
      const stopAt = Math.max(deadline, t0 + (phasesDoneAt ?? 0) * 1000) + 60_000;
      setTimeout(() => hardStop.abort(new Error('still unanswered 60 s after the agents stopped')), stopAt - performance.now()).unref();
    });
    await Promise.all([...mcpClients.map((_, i) => mcpAgent(i)), ...Array.from({ length: hookAgents }, (_, i) => hookAgent(i))]);
    await phasesRun;
    const elapsedSec = now();
    clearInterval(progress);
    clearInterval(lagTimer);
    clearInterval(sampler);
    await op.settle();
    const alive = hostAlive();
    const rssEnd = alive ? rssMb(pid) : NaN;
    if (alive) cpuUsed += cpuSeconds(pid) - cpuBase;
    rssPeak = Math.max(rssPeak, rssEnd);
    const loop = await health();
    if (loop) lives.push(loop.sinceStart);
    log(`soak: load done after ${elapsedSec.toFixed(1)} s; stopping the host`);

    for (const c of mcpClients) await c.client.close().catch(() => {});
    await op.close();
    host.child.kill('SIGTERM');
    hostExits.push(await host.exited);
    const hostExit = hostExits.find((c) => c !== 0) ?? 0;

    for (const l of leaving) l.ran = existsSync(join(project, 'out', `${l.marker}.txt`));
    const audit = checkLog(dbPath, [...idleRecords, ...records], op, leaving);
    const cli = spawnSync(process.execPath, [cliPath, 'audit', 'verify', '--home', ghHome], { env, encoding: 'utf8' });

    // ---- what the agents saw ------------------------------------------------------------------------
    const inPhase = (r: CallRecord, p: FaultPhase) => p.from !== null && p.to !== null && r.sentAt <= p.to && r.at >= p.from;
    const normal = (r: CallRecord) => r.got !== 'error' && r.got === r.want;
    // A call waiting for the operator when the host stopped is denied "shutting down" (call.abandoned): expected then.
    const stopped = (r: CallRecord) => r.got === 'deny' && SHUTTING_DOWN.test(r.reason) && phases.some((p) => p.name === 'restart' && inPhase(r, p));
    const unrecorded = records.filter((r) => r.got === 'deny' && UNRECORDED.test(r.reason));
    const unexpected = records.filter((r) => r.got !== 'error' && r.got !== r.want && !unrecorded.includes(r) && !stopped(r));
    const deniedButAllowed = records.filter((r) => r.kind === 'deny' && (r.got === 'allow' || r.executed)).length;
    for (const p of phases) judgePhase(p, records, phases, { inPhase, normal, leaving, unrecorded, hostExits, operatorReconnects: op.reconnects, hasTrail: audit.hasTrail });
    const faultWindow = (r: CallRecord) => phases.some((p) => (p.name === 'lock' || p.name === 'disk-full') && p.from !== null && r.sentAt <= p.to! + 3 && r.at >= p.from);
    const decisions = records.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!);
    // What an agent waits for: the whole round trip, less the operator's time for an asked MCP call.
    const agentRt = (rs: CallRecord[]) => rs.filter((r) => r.got !== 'error' && (r.kind !== 'ask' || r.operatorMs !== null)).map((r) => r.rtMs - (r.operatorMs ?? 0));
    const hookRt = records.filter((r) => r.source === 'hook' && r.kind !== 'ask' && r.got !== 'error').map((r) => r.rtMs);
    const askedRt = records.filter((r) => r.kind === 'ask' && r.got !== 'error').map((r) => r.rtMs);
    const allAgentRt = agentRt(records);
    const buckets: BucketRow[] = [];
    const last = Math.max(elapsedSec, bucketSec / 1000);
    for (let from = 0; from < last; from += bucketSec) {
      const to = Math.min(from + bucketSec, last);
      const inB = records.filter((r) => r.at >= from && r.at < to);
      const lag = lagSamples.filter((s) => s.at >= from && s.at < to + 10).map((s) => s.p99);
      const rss = samples.filter((s) => s.at >= from && s.at < to).map((s) => s.rss);
      const rt = agentRt(inB);
      buckets.push({
        fromSec: from,
        toSec: round(to, 1)!,
        calls: inB.length,
        callsPerSec: round(inB.length / Math.max(0.001, to - from), 1)!,
        decisionP50: round(pct(inB.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!), 50)),
        decisionP99: round(pct(inB.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!), 99)),
        agentRtP50: round(pct(rt, 50)),
        agentRtP99: round(pct(rt, 99)),
        loopP99: lag.length ? Math.max(...lag) : null,
        rssMb: rss.length ? Math.max(...rss) : null,
      });
    }
    const count = <K extends string>(keys: readonly K[], key: (r: CallRecord) => K) => Object.fromEntries(keys.map((k) => [k, records.filter((r) => key(r) === k).length])) as Record<K, number>;
    const worst = (k: 'p50Ms' | 'p99Ms' | 'maxMs') => Math.max(...lives.map((l) => l[k]));
    return {
      mode: opts.live ? 'live' : 'dry-run',
      agents: { mcp: mcpAgents, hook: hookAgents },
      seconds: opts.seconds,
      elapsedSec: round(elapsedSec, 1)!,
      calls: {
        total: records.length,
        bySource: count(['mcp', 'hook'] as const, (r) => r.source),
        byKind: count(['allow', 'deny', 'ask'] as const, (r) => r.kind),
        transportErrors: records.filter((r) => r.got === 'error').length,
        restartErrors: records.filter((r) => r.got === 'error' && r.restartError).length,
        unanswered: records.filter((r) => r.unanswered).length,
        unansweredExamples: records.filter((r) => r.unanswered).slice(0, 5).map((r) => `${r.source} ${r.kind} sent at ${r.sentAt.toFixed(1)} s${r.toolUseId ? ` (${r.toolUseId})` : ''}`),
        unexplainedExamples: records
          .filter((r) => r.got === 'error' && !r.restartError && !r.unanswered)
          .slice(0, 5)
          .map((r) => `${r.source} ${r.kind} sent at ${r.sentAt.toFixed(1)} s, failed after ${r.rtMs.toFixed(0)} ms: ${(r.error ?? '').slice(0, 200)}`),
      },
      throughput: round(records.length / elapsedSec, 1)!,
      decision: { p50: round(pct(decisions, 50), 3), p99: round(pct(decisions, 99), 3), samples: decisions.length },
      agentRoundTrip: { p50: round(pct(allAgentRt, 50)), p99: round(pct(allAgentRt, 99)), samples: allAgentRt.length },
      hookRoundTrip: { p50: round(pct(hookRt, 50)), p99: round(pct(hookRt, 99)) },
      idleHookRoundTrip: { p50: round(pct(idleHook, 50)), calls: idleRecords.length, unexpected: idleRecords.length - idleHook.length },
      askedRoundTrip: { p50: round(pct(askedRt, 50)), p99: round(pct(askedRt, 99)) },
      unexpected: { count: unexpected.length, deniedButAllowed, examples: unexpected.slice(0, 5).map((r) => `${r.source} ${r.kind} at ${r.sentAt.toFixed(1)} s: wanted ${r.want}, got ${r.got}${r.reason ? ` (${r.reason.slice(0, 160)})` : ''}${r.error ? ` (${r.error})` : ''}`) },
      deniedUnrecorded: {
        count: unrecorded.length,
        outsideFaults: unrecorded.filter((r) => !faultWindow(r)).length,
        notInLog: audit.unrecordedNotInLog(unrecorded),
        lostEventsLogged: audit.lostEventsLogged,
        writeResumed: audit.writeResumed,
      },
      operator: { approved: op.approved, denied: op.denied, refused: op.refused, reconnects: op.reconnects },
      eventLoop: lives.length ? { p50Ms: worst('p50Ms'), p99Ms: worst('p99Ms'), maxMs: worst('maxMs'), lives: lives.length } : null,
      rssMb: { start: rssStart, end: rssEnd, peak: rssPeak },
      hostPids,
      hostCpuPercent: Math.round((cpuUsed / elapsedSec) * 100),
      machine: { loadAvg: Math.round(loadavg()[0]! * 10) / 10, cores: availableParallelism() },
      buckets,
      faults: phases,
      audit: {
        events: audit.events,
        chainOk: audit.verify.ok,
        chainMessage: audit.verify.ok ? `${audit.verify.checked} events, head ${audit.verify.head.seq}` : JSON.stringify(audit.verify.firstBad),
        cliVerify: { code: cli.status, output: `${cli.stdout}${cli.stderr}`.trim() },
        callsInLog: audit.callsInLog,
        incompleteTrails: audit.incomplete.length,
        incompleteExamples: audit.incomplete.slice(0, 10),
        partialUnrecorded: audit.partialUnrecorded,
        hookTrails: audit.hookTrails,
        reports: audit.reports,
        lost: audit.lost,
        hostExit,
      },
      dir,
    };
  } finally {
    if (tmpfs) {
      // The home (audit log included) lives on the tmpfs: kept as a copy when asked, then unmounted.
      if (opts.keep) cpSync(ghHome, join(dir, 'gatehouse-home-copy'), { recursive: true });
      unmount(ghHome);
    }
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

interface Leaving {
  marker: string;
  how: string;
  /** The inbox item the operator saw pending, its state after the agent left, and whether the approve after it was refused. */
  item: string | null;
  withdrawn: string | null;
  approveRefused: boolean | null;
  /** The command's file exists: the call ran (live mode). */
  ran?: boolean;
  /** What its trail in the log shows. */
  trail?: { closedAs: string | null; approved: boolean; executed: boolean };
  error?: string;
}

interface Trail {
  source: string;
  key: string | null;
  received: number;
  decided: string[];
  results: number;
  abandoned: number;
  executed: boolean;
  asked: number;
  answered: number;
  operatorState: string[];
  gone: string | null;
  /** The trail's event types in log order: an incomplete trail is reported with them. */
  types: string[];
}

/** Whether the log's decision is the one an agent was answered (a hook is told deny for an expired call; in dry-run "ask"). */
function sameDecision(got: string, logged: string | undefined, source: Source): boolean {
  if (got === logged) return true;
  return source === 'hook' && ((got === 'deny' && logged === 'expired') || got === 'ask');
}

/** Reads the audit log after the host stopped: the chain, every call's trail, and what the agents were told, call by call. */
function checkLog(dbPath: string, records: CallRecord[], op: Operator, leaving: Leaving[]) {
  const db = openForVerify(dbPath);
  const verify = verifyDatabase(db);
  const rows = db
    .prepare("SELECT type, payload FROM events WHERE type IN ('call.received','call.decided','call.result','call.abandoned','call.interrupted','call.lost','execution.started','execution.ended','approval.requested','approval.decided','approval.expired','approval.withdrawn','call.outcome','audit.write-resumed')")
    .all() as { type: string; payload: string }[];
  const events = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  db.close();
  const trails = new Map<string, Trail>();
  const byKey = new Map<string, string>();
  const leavingCalls = new Map<string, string>();
  const trail = (call: string) => {
    let t = trails.get(call);
    if (!t) trails.set(call, (t = { source: '?', key: null, received: 0, decided: [], results: 0, abandoned: 0, executed: false, asked: 0, answered: 0, operatorState: [], gone: null, types: [] }));
    return t;
  };
  const approvalsDecided = new Map<string, string>();
  const outcomes: { call: string | null; toolUseId: string }[] = [];
  let lostEventsLogged = 0;
  let writeResumed = 0;
  for (const r of rows) {
    const p = JSON.parse(r.payload) as { call?: string | null; id?: string; source?: string; decision?: string; state?: string; tool?: string; arguments?: unknown; executed?: boolean; toolUseId?: string; lostEvents?: number; reason?: string };
    if (r.type === 'audit.write-resumed') {
      writeResumed++;
      lostEventsLogged += p.lostEvents ?? 0;
      continue;
    }
    if (r.type === 'call.outcome') {
      outcomes.push({ call: p.call ?? null, toolUseId: p.toolUseId ?? '' });
      continue;
    }
    if (!p.call) continue;
    const t = trail(p.call);
    t.types.push(r.type);
    if (r.type === 'execution.started' || r.type === 'execution.ended') continue;
    if (r.type === 'call.received') {
      t.received++;
      t.source = p.source ?? '?';
      const marker = /soak-leaving-\d+/.exec(JSON.stringify(p.arguments ?? null))?.[0];
      if (marker) leavingCalls.set(marker, p.call);
      if (p.source === 'hook') {
        t.key = hookKey(p.tool ?? '', p.arguments);
        byKey.set(t.key, p.call);
      }
    } else if (r.type === 'call.decided') t.decided.push(p.decision ?? '?');
    else if (r.type === 'call.result') {
      t.results++;
      if (p.executed) t.executed = true;
    } else if (r.type === 'call.abandoned' || r.type === 'call.interrupted' || r.type === 'call.lost') {
      // Closed by the host at a stop (or the next start): abandoned while judged or waiting,
      // interrupted while running; or closed as lost once writes resumed after a failed batch.
      t.abandoned++;
      t.gone = 'abandoned';
    } else if (r.type === 'approval.requested') t.asked++;
    else {
      t.answered++;
      t.operatorState.push(p.state ?? '?');
      if (r.type === 'approval.withdrawn') t.gone = 'withdrawn';
      if (p.id && r.type === 'approval.decided') approvalsDecided.set(p.id, p.state ?? '?');
    }
  }
  const trailOf = (r: CallRecord) => {
    const call = r.source === 'mcp' ? r.call : byKey.get(r.key ?? '');
    return call ? trails.get(call) : undefined;
  };
  const isUnrecorded = (r: CallRecord) => r.got === 'deny' && UNRECORDED.test(r.reason);
  // A call its agent was told the log could not record may have lost part of its trail with the
  // failed batch (by design: audit.write-resumed counts the lost events); never two decisions.
  const unrecordedCalls = new Set(records.filter(isUnrecorded).map((r) => (r.source === 'mcp' ? r.call : byKey.get(r.key ?? ''))).filter((c): c is string => !!c));
  const closingDecisions = new Set(['allow', 'deny', 'expired']);
  const incomplete: string[] = [];
  const partialUnrecorded: string[] = [];
  for (const [call, t] of trails) {
    // A trail closed by call.lost is whole as far as the log kept it: a failed batch took some of
    // its events, the later ones were left out (at most one of each, never a second decision).
    if (t.types.includes('call.lost')) {
      if (t.types.filter((x) => x === 'call.lost').length > 1 || t.decided.length > 1 || t.received > 1 || t.results > 1) incomplete.push(`${call} (${t.source}): closed as lost, with [${t.types.join(' ')}]`);
      continue;
    }
    const problems: string[] = [];
    if (t.received !== 1) problems.push(`${t.received} call.received`);
    if (t.decided.length !== 1 || !closingDecisions.has(t.decided[0]!)) problems.push(`call.decided ${JSON.stringify(t.decided)}`);
    // Closed by its call.result; a call abandoned at a stop has call.abandoned (and, answered, a call.result too).
    if (!(t.results === 1 || (t.results === 0 && t.abandoned === 1)) || t.abandoned > 1) problems.push(`${t.results} call.result, ${t.abandoned} call.abandoned`);
    if (t.asked > 0 && t.answered !== t.asked) problems.push(`${t.asked} approval.requested, ${t.answered} answered`);
    if (!problems.length) continue;
    const line = `${call} (${t.source}): ${problems.join(', ')} [${t.types.join(' ')}]`;
    if (unrecordedCalls.has(call) && t.decided.length <= 1 && t.received <= 1 && t.results <= 1) partialUnrecorded.push(line);
    else incomplete.push(line);
  }
  const answered = records.filter((r) => r.got !== 'error' && !isUnrecorded(r));
  const inLog = (source: string) => [...trails.values()].filter((t) => t.source === source).length;
  const lostReceived = (['mcp', 'hook'] as const).reduce((n, s) => n + Math.max(0, answered.filter((r) => r.source === s).length - inLog(s)), 0);
  const lostAnswers = answered.filter((r) => r.source === 'mcp' && !sameDecision(r.got, trailOf(r)?.decided[0], 'mcp')).length;
  const hookChecked = answered.filter((r) => r.source === 'hook');
  const hookBad = hookChecked.filter((r) => !sameDecision(r.got, trailOf(r)?.decided[0], 'hook'));
  const lostOperator = op.decided.filter((d) => approvalsDecided.get(d.id) !== d.state).length;
  // Reports: every call.outcome names its call; and the call it names is the one of its tool_use_id.
  const byToolUse = new Map(records.filter((r) => r.toolUseId).map((r) => [r.toolUseId!, r]));
  const unlinked = outcomes.filter((o) => o.call === null);
  const wrongCall = outcomes.filter((o) => {
    const r = byToolUse.get(o.toolUseId);
    return o.call !== null && r !== undefined && byKey.get(r.key ?? '') !== o.call;
  }).length;
  const reported = new Set(outcomes.map((o) => o.toolUseId));
  for (const l of leaving) {
    const call = leavingCalls.get(l.marker);
    const t = call ? trails.get(call) : undefined;
    if (t) l.trail = { closedAs: t.gone, approved: t.operatorState.includes('approved'), executed: t.executed };
  }
  return {
    verify,
    events,
    callsInLog: trails.size,
    incomplete,
    partialUnrecorded: partialUnrecorded.length,
    lost: { received: lostReceived, answers: lostAnswers + hookBad.length, operatorDecisions: lostOperator },
    hookTrails: {
      checked: hookChecked.length,
      matched: hookChecked.length - hookBad.length,
      mismatched: hookBad.length,
      examples: hookBad.slice(0, 5).map((r) => `${r.toolUseId}: answered ${r.got}, log ${trailOf(r)?.decided.join('/') ?? 'has no such call'}`),
    },
    reports: {
      sent: records.filter((r) => r.reported).length,
      outcomes: outcomes.length,
      notInLog: records.filter((r) => r.reported && !reported.has(r.toolUseId!)).length,
      unlinked: unlinked.length,
      unlinkedAcrossRestart: unlinked.filter((o) => byToolUse.get(o.toolUseId)?.reportedAcrossRestart).length,
      wrongCall,
    },
    lostEventsLogged,
    writeResumed,
    unrecordedNotInLog: (rs: CallRecord[]) => rs.filter((r) => !trailOf(r)).length,
    hasTrail: (r: CallRecord) => trailOf(r) !== undefined,
  };
}

interface JudgeContext {
  inPhase: (r: CallRecord, p: FaultPhase) => boolean;
  normal: (r: CallRecord) => boolean;
  leaving: Leaving[];
  unrecorded: CallRecord[];
  hostExits: (number | null)[];
  operatorReconnects: number;
  hasTrail: (r: CallRecord) => boolean;
}

/** Fills in a phase's calls, outcome and ok from what the agents saw and what the log holds. */
function judgePhase(p: FaultPhase, records: CallRecord[], phases: FaultPhase[], x: JudgeContext): void {
  if (p.from === null || p.to === null || p.ok === null || p.outcome.startsWith('the phase failed')) return;
  const inside = records.filter((r) => x.inPhase(r, p));
  p.calls = inside.length;
  // Calls work again: those sent from 1 s after the window until the next phase that disturbs calls (leaving does not).
  const next = phases.find((q) => q.from !== null && q.from > p.to! && q.name !== 'leaving')?.from ?? Infinity;
  const after = records.filter((r) => r.sentAt >= p.to! + 1 && r.sentAt < next);
  const normalAfter = after.filter(x.normal).length;
  const afterText = `after it ${normalAfter}/${after.length} answered normally`;
  const denied = (re: RegExp) => inside.filter((r) => x.unrecorded.includes(r) && re.test(r.reason)).length;
  const normalIn = inside.filter(x.normal).length;
  const unrecordedIn = inside.filter((r) => x.unrecorded.includes(r)).length;
  const allowedNoTrail = inside.filter((r) => r.got === 'allow' && !x.hasTrail(r)).length;
  const others = (extra: (r: CallRecord) => boolean) => inside.filter((r) => !x.normal(r) && !x.unrecorded.includes(r) && !extra(r));
  const other = (extra: (r: CallRecord) => boolean) => others(extra).length;
  /** The first call that was neither answered normally nor denied as expected, described. */
  const example = (rs: CallRecord[]) => (rs[0] ? ` (e.g. ${rs[0].source} ${rs[0].kind}: wanted ${rs[0].want}, got ${rs[0].got}: ${(rs[0].reason || rs[0].error || '').slice(0, 140)})` : '');
  switch (p.name) {
    case 'lock': {
      const locked = denied(LOCKED);
      const odd = other(() => false) + (unrecordedIn - locked);
      const oddOnes = [...others(() => false), ...inside.filter((r) => x.unrecorded.includes(r) && !LOCKED.test(r.reason))];
      p.outcome = `${normalIn} answered normally, ${locked} denied "locked by another process", ${odd} other${example(oddOnes)}, ${allowedNoTrail} allowed without a trail; ${afterText}`;
      p.ok = odd === 0 && allowedNoTrail === 0 && normalAfter > 0;
      return;
    }
    case 'disk-full': {
      const full = denied(DISK_FULL);
      const odd = other(() => false) + (unrecordedIn - full);
      const oddOnes = [...others(() => false), ...inside.filter((r) => x.unrecorded.includes(r) && !DISK_FULL.test(r.reason))];
      p.outcome = `${normalIn} answered normally, ${full} denied "disk full", ${odd} other${example(oddOnes)}, ${allowedNoTrail} allowed without a trail; ${afterText} (no restart)`;
      // The window must have bitten: otherwise the phase showed nothing.
      p.ok = full > 0 && odd === 0 && allowedNoTrail === 0 && normalAfter > 0;
      return;
    }
    case 'leaving': {
      const l = x.leaving;
      const ok = (e: Leaving) => e.item !== null && e.withdrawn === 'gone' && e.approveRefused === true && e.trail?.closedAs === 'withdrawn' && !e.trail.approved && !e.trail.executed && !e.ran;
      const hows = [...new Set(l.map((e) => e.how))].map((h) => `${l.filter((e) => e.how === h).length} ${h}`).join(', ');
      const bad = l.filter((e) => !ok(e)).map((e) => `${e.marker} (${e.how}): ${e.error ?? `item ${e.item ?? 'never pending'}, state ${e.withdrawn}, approve ${e.approveRefused ? 'refused' : 'ACCEPTED'}, trail ${e.trail ? `${e.trail.closedAs}${e.trail.approved ? ' APPROVED' : ''}${e.trail.executed ? ' EXECUTED' : ''}` : 'missing'}${e.ran ? ', its command RAN' : ''}`}`);
      p.outcome = `${l.length} asked calls whose agents left (${hows}): ${l.filter((e) => e.withdrawn === 'gone').length} withdrawn as gone, approve refused ${l.filter((e) => e.approveRefused).length}/${l.length}, trail closed withdrawn ${l.filter((e) => e.trail?.closedAs === 'withdrawn').length}/${l.length}, approved or run ${l.filter((e) => e.trail?.approved || e.trail?.executed || e.ran).length}${bad.length ? `; ${bad.join('; ')}` : ''}`;
      p.ok = l.length > 0 && bad.length === 0;
      return;
    }
    case 'restart': {
      const exit = x.hostExits[0] ?? null;
      const transport = inside.filter((r) => r.got === 'error');
      const shut = inside.filter((r) => r.got === 'deny' && SHUTTING_DOWN.test(r.reason)).length;
      const odd = other((r) => r.got === 'error' || (r.got === 'deny' && SHUTTING_DOWN.test(r.reason)));
      p.outcome = `old host exit ${exit}, down ${(p.to - p.from).toFixed(1)} s; ${transport.length} calls failed at the transport (expected; ${transport.filter((r) => !r.restartError).length} not explained by it), ${shut} waiting calls denied "shutting down", ${odd} other${example(others((r) => r.got === 'error' || (r.got === 'deny' && SHUTTING_DOWN.test(r.reason))))}; operator reconnected ${x.operatorReconnects}×; ${afterText}`;
      p.ok = exit === 0 && odd === 0 && transport.every((r) => r.restartError) && x.operatorReconnects > 0 && normalAfter > 0;
      return;
    }
  }
}

/** Issue #29's two targets for the load, each with its figure and whether it is met. */
export function soakTargets(r: SoakReport): string {
  const lag = r.eventLoop?.p99Ms ?? null;
  const idle = r.idleHookRoundTrip.p50;
  const ratio = idle && r.hookRoundTrip.p99 !== null ? r.hookRoundTrip.p99 / idle : null;
  const met = (ok: boolean | null) => (ok === null ? 'not measured' : ok ? 'met' : 'MISSED');
  return [
    `event-loop lag p99 ${lag ?? '-'} ms ≤ ${SOAK_TARGETS.lagP99Ms} ms: ${met(lag === null ? null : lag <= SOAK_TARGETS.lagP99Ms)}`,
    `hook round trip p99 ${ratio === null ? '-' : `${ratio.toFixed(1)}×`} the idle p50 ≤ ${SOAK_TARGETS.hookP99OverIdleP50}×: ${met(ratio === null ? null : ratio <= SOAK_TARGETS.hookP99OverIdleP50)}`,
  ].join('; ');
}

/** The printed report. */
export function formatReport(r: SoakReport): string {
  const ms = (x: number | null) => (x === null ? '-' : `${x} ms`);
  const s = (x: number | null) => (x === null ? '-' : `${x.toFixed(1)}`);
  const lines = [
    `Gatehouse soak: ${r.agents.mcp + r.agents.hook} agents (${r.agents.mcp} MCP over the SDK, ${r.agents.hook} HTTP hook), ${r.mode} mode (${r.mode === 'live' ? 'allowed and approved shell commands really run, sandboxed' : 'nothing executes; the decision path only'}), ${r.elapsedSec} s, fault phases: ${r.faults.length ? r.faults.map((f) => f.name).join(', ') : 'none'}.`,
    '',
    `calls                 ${r.calls.total} (MCP ${r.calls.bySource.mcp}, hook ${r.calls.bySource.hook}; allowed-kind ${r.calls.byKind.allow}, denied-kind ${r.calls.byKind.deny}, asked ${r.calls.byKind.ask}); transport errors ${r.calls.transportErrors} (${r.calls.restartErrors} while the host restarted, expected); never answered ${r.calls.unanswered}${r.calls.unansweredExamples.length ? `: ${r.calls.unansweredExamples.join('; ')}` : ''}`,
    `throughput            ${r.throughput} calls/s`,
    `agent round trip      p50 ${ms(r.agentRoundTrip.p50)}, p99 ${ms(r.agentRoundTrip.p99)} (what the agents waited, MCP and hook, ${r.agentRoundTrip.samples} calls; an asked MCP call without the operator's wait, asked hook calls below)`,
    `host decision         p50 ${ms(r.decision.p50)}, p99 ${ms(r.decision.p99)} (the host's pipeline steps before the runner, operator wait excluded; ${r.decision.samples} MCP calls)`,
    `hook round trip       p50 ${ms(r.hookRoundTrip.p50)}, p99 ${ms(r.hookRoundTrip.p99)} (allowed and denied hook calls); idle p50 ${ms(r.idleHookRoundTrip.p50)} (one agent alone before the load, ${r.idleHookRoundTrip.calls} calls${r.idleHookRoundTrip.unexpected ? `, ${r.idleHookRoundTrip.unexpected} NOT answered as expected` : ''})`,
    `asked round trip      p50 ${ms(r.askedRoundTrip.p50)}, p99 ${ms(r.askedRoundTrip.p99)} (including the scripted operator)`,
    `operator              ${r.operator.approved} approved, ${r.operator.denied} denied, ${r.operator.refused} refused by the host; reconnected ${r.operator.reconnects}×`,
    `event-loop lag        ${r.eventLoop ? `p50 ${r.eventLoop.p50Ms} ms, p99 ${r.eventLoop.p99Ms} ms, max ${r.eventLoop.maxMs} ms (host: how late its 10 ms timer ran, monitorEventLoopDelay since its start; the worst of its ${r.eventLoop.lives} lives)` : 'not reported by the host'}`,
    `targets               ${soakTargets(r)}`,
    `host RSS              start ${r.rssMb.start} MB, end ${r.rssMb.end} MB, peak ${r.rssMb.peak} MB (pids ${r.hostPids.join(', ')})`,
    `host CPU              ${r.hostCpuPercent}% of one core during the load (machine: load average ${r.machine.loadAvg} on ${r.machine.cores} cores)`,
    `unexpected answers    ${r.unexpected.count}${r.unexpected.deniedButAllowed ? ` (${r.unexpected.deniedButAllowed} that should be denied were ALLOWED)` : ''}${r.unexpected.examples.length ? `: ${r.unexpected.examples.join('; ')}` : ''}`,
    `denied unrecorded     ${r.deniedUnrecorded.count} (the log could not record them: expected in the lock and disk-full windows; ${r.deniedUnrecorded.outsideFaults} outside them; ${r.deniedUnrecorded.notInLog} not in the log, covered by audit.write-resumed lostEvents ${r.deniedUnrecorded.lostEventsLogged} in ${r.deniedUnrecorded.writeResumed} events)`,
    '',
    'fault phases:',
    '  phase       window (s)     calls  ok      outcome',
    ...(r.faults.length
      ? r.faults.map((f) => `  ${f.name.padEnd(11)} ${(f.from === null ? '-' : `${s(f.from)}-${s(f.to)}`).padEnd(14)} ${String(f.calls).padStart(5)}  ${(f.ok === null ? 'skipped' : f.ok ? 'ok' : 'FAILED').padEnd(7)} ${f.outcome}`)
      : ['  (none: --no-faults)']),
    '',
    'over time:',
    '  from-to (s)   calls  calls/s  decision p50  decision p99  agent rt p50  agent rt p99  lag p99   RSS MB',
    ...r.buckets.map((b) =>
      `  ${`${b.fromSec}-${b.toSec}`.padEnd(12)} ${String(b.calls).padStart(6)} ${String(b.callsPerSec).padStart(8)} ${ms(b.decisionP50).padStart(13)} ${ms(b.decisionP99).padStart(13)} ${ms(b.agentRtP50).padStart(13)} ${ms(b.agentRtP99).padStart(13)} ${ms(b.loopP99).padStart(8)} ${String(b.rssMb ?? '-').padStart(8)}`,
    ),
    '',
    `audit log             ${r.audit.events} events; chain ${r.audit.chainOk ? 'verifies' : 'BROKEN'} (${r.audit.chainMessage}); gatehouse audit verify exit ${r.audit.cliVerify.code}`,
    `calls in the log      ${r.audit.callsInLog}`,
    `incomplete trails     ${r.audit.incompleteTrails}${r.audit.incompleteExamples.length ? `: ${r.audit.incompleteExamples.join('; ')}` : ''} (besides: ${r.audit.partialUnrecorded} partial trails of calls denied unrecorded, expected)`,
    `hook trails           ${r.audit.hookTrails.matched} of ${r.audit.hookTrails.checked} hook calls found in the log one by one with the decision the agent got; ${r.audit.hookTrails.mismatched} not${r.audit.hookTrails.examples.length ? `: ${r.audit.hookTrails.examples.join('; ')}` : ''}`,
    `unlinked reports      ${r.audit.reports.unlinked} (PostToolUse reports sent ${r.audit.reports.sent}, call.outcome events ${r.audit.reports.outcomes}, ${r.audit.reports.notInLog} reports not in the log, ${r.audit.reports.wrongCall} linked to another call; ${r.audit.reports.unlinkedAcrossRestart} of the unlinked sent to the restarted host)`,
    `lost                  ${r.audit.lost.received + r.audit.lost.answers + r.audit.lost.operatorDecisions} (${r.audit.lost.received} acknowledged calls not in the log, ${r.audit.lost.answers} answers not matching their call's logged decision, ${r.audit.lost.operatorDecisions} operator decisions not in the log)`,
    `host exit             ${r.audit.hostExit}`,
  ];
  return lines.join('\n');
}

/** Problems that fail the run (and the test): correctness only, never a time. */
export function soakProblems(r: SoakReport, opts: { maxRssGrowthMb?: number } = {}): string[] {
  const p: string[] = [];
  if (r.audit.incompleteTrails) p.push(`${r.audit.incompleteTrails} incomplete audit trails`);
  if (!r.audit.chainOk) p.push('the audit chain does not verify');
  if (r.audit.cliVerify.code !== 0) p.push(`gatehouse audit verify exited ${r.audit.cliVerify.code}: ${r.audit.cliVerify.output}`);
  const lost = r.audit.lost;
  if (lost.received || lost.answers || lost.operatorDecisions) p.push(`lost events: ${JSON.stringify(lost)}`);
  if (r.audit.hookTrails.mismatched) p.push(`${r.audit.hookTrails.mismatched} hook calls whose logged decision is not the agent's answer`);
  if (r.audit.reports.unlinked > r.audit.reports.unlinkedAcrossRestart) p.push(`${r.audit.reports.unlinked - r.audit.reports.unlinkedAcrossRestart} unlinked PostToolUse reports`);
  if (r.audit.reports.wrongCall) p.push(`${r.audit.reports.wrongCall} PostToolUse reports linked to another call`);
  if (r.audit.reports.notInLog > r.deniedUnrecorded.lostEventsLogged) p.push(`${r.audit.reports.notInLog} PostToolUse reports are not in the log (more than the ${r.deniedUnrecorded.lostEventsLogged} events the log says it lost)`);
  if (r.calls.unanswered) p.push(`${r.calls.unanswered} calls never answered (aborted 60 s after the agents' time was up)`);
  const unexplained = r.calls.transportErrors - r.calls.restartErrors - r.calls.unanswered;
  if (unexplained) p.push(`${unexplained} calls failed in transport outside a host restart (${r.calls.unexplainedExamples.join('; ')})`);
  const u = r.deniedUnrecorded;
  if (u.outsideFaults) p.push(`${u.outsideFaults} calls denied unrecorded outside the lock and disk-full windows`);
  if (u.notInLog && (u.writeResumed === 0 || u.lostEventsLogged < u.notInLog)) p.push(`${u.notInLog} calls denied unrecorded are not covered by audit.write-resumed (lostEvents ${u.lostEventsLogged} in ${u.writeResumed} events)`);
  if (r.idleHookRoundTrip.unexpected) p.push(`${r.idleHookRoundTrip.unexpected} of the ${r.idleHookRoundTrip.calls} idle hook calls were not answered as expected`);
  if (r.unexpected.deniedButAllowed) p.push(`${r.unexpected.deniedButAllowed} calls that should be denied were allowed`);
  for (const f of r.faults) if (f.ok === false) p.push(`fault phase ${f.name} FAILED: ${f.outcome}`);
  if (r.audit.hostExit !== 0) p.push(`the host exited ${r.audit.hostExit} on SIGTERM`);
  const growth = opts.maxRssGrowthMb ?? 300;
  if (!(r.rssMb.end <= r.rssMb.start + growth)) p.push(`host RSS grew from ${r.rssMb.start} MB to ${r.rssMb.end} MB (more than ${growth} MB)`);
  return p;
}
