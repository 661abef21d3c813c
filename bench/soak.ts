// The approval loop under load (`npm run soak`; a 30-second version is test/soak.test.ts).
//
// A real host: `gatehouse serve` in its own process (its RSS read from /proc/PID/status), with a
// fake HOME (a dummy ~/.ssh/id_rsa) and a project folder, at supervised autonomy, hookAsk "inbox".
// Against it, at once:
//  - MCP agents: each its own @modelcontextprotocol/sdk client over Streamable HTTP at /mcp with
//    the agent token, calling the built-in shell tool;
//  - hook agents: Claude Code's HTTP hook (POST /hooks/claude/pre-tool-use), one session each;
//  - a scripted operator on the console WebSocket with the operator token: on approvals.changed it
//    lists the pending items and approves four in five, denies the fifth (approvals.approve/deny).
// Each agent loops until the time is up, picking from a mix: reads in the project folder
// (allowed), ~/.ssh reads and private hosts (denied), writes in the project folder (asked). In
// live mode allowed and approved shell commands really run (sandboxed, in a PTY): the realistic
// load; in dry-run nothing runs and only the decision path is measured.
//
// Afterwards the host is stopped (SIGTERM, as an operator would) and its audit log is checked:
// the chain verifies (and `gatehouse audit verify` says so), and every call has a complete trail.
//
// A call's trail is COMPLETE when, for its call id, the log holds exactly one call.received,
// exactly one call.decided whose decision closes the call (allow, deny, expired; never ask, since
// hookAsk is "inbox"), and exactly one closing event (call.result, or call.abandoned for a call its
// agent left); and, when an operator was asked (approval.requested), exactly one
// approval.decided or approval.expired for it. LOST: a call an agent sent that the log does not
// hold (counts per ingress), an MCP answer whose call id has no trail or a different decision, an
// operator decision the API acknowledged that the log does not hold.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openForVerify, verifyDatabase } from '../main/audit/audit-store.js';
import { homePaths } from '../main/home.js';
import { readServeFile, type ServeInfo } from '../main/shells/serve/serve-file.js';

// bench/soak.ts (under Vitest) or out/bench/soak.js (the built script): the package root either way.
const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = existsSync(join(here, '..', 'package.json')) ? join(here, '..') : join(here, '..', '..');
const cliPath = join(repoRoot, 'bin', 'gatehouse.js');

export interface SoakOptions {
  /** How long agents send calls (the run then waits for the calls in flight). */
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
  executed: boolean;
  /** Round trip as the agent saw it. */
  rtMs: number;
  /** The host's decision time: the pipeline's steps before the runner, without the operator's wait (MCP only). */
  decisionMs: number | null;
  /** Seconds since the load started, when the answer came. */
  at: number;
  call: string | null;
  error?: string;
}

export interface BucketRow {
  fromSec: number;
  toSec: number;
  calls: number;
  callsPerSec: number;
  decisionP50: number | null;
  decisionP99: number | null;
  hookRtP50: number | null;
  hookRtP99: number | null;
  loopP99: number | null;
  rssMb: number | null;
}

export interface SoakReport {
  mode: 'live' | 'dry-run';
  agents: { mcp: number; hook: number };
  seconds: number;
  elapsedSec: number;
  calls: { total: number; bySource: Record<Source, number>; byKind: Record<Kind, number>; transportErrors: number };
  throughput: number;
  decision: { p50: number | null; p99: number | null; samples: number };
  hookRoundTrip: { p50: number | null; p99: number | null };
  askedRoundTrip: { p50: number | null; p99: number | null };
  /** Calls whose answer was not the one expected (the first few, described). */
  unexpected: { count: number; examples: string[]; deniedButAllowed: number };
  operator: { approved: number; denied: number; refused: number };
  eventLoop: { p50Ms: number; p99Ms: number; maxMs: number } | null;
  rssMb: { start: number; end: number; peak: number };
  /** The host's CPU time during the load, as a share of one core (100 = one core busy all the time). */
  hostCpuPercent: number;
  /** The machine's 1-minute load average at the end, and its cores: a loaded machine delays everything. */
  machine: { loadAvg: number; cores: number };
  buckets: BucketRow[];
  audit: {
    events: number;
    chainOk: boolean;
    chainMessage: string;
    cliVerify: { code: number | null; output: string };
    callsInLog: number;
    incompleteTrails: number;
    incompleteExamples: string[];
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
async function startHost(dir: string, env: NodeJS.ProcessEnv, ghHome: string, cwd: string, live: boolean): Promise<{ child: ChildProcess; info: ServeInfo; exited: Promise<number | null>; output: () => string }> {
  // SOAK_HOST_NODE_ARGS: Node options for the host alone (e.g. --cpu-prof to see what holds its loop).
  const nodeArgs = (process.env.SOAK_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [...nodeArgs, cliPath, 'serve', '--home', ghHome, '--port', '0', '--autonomy', 'supervised', ...(live ? ['--live'] : [])];
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)));
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

/** The scripted operator: the console WebSocket with the operator token. */
class Operator {
  private nextId = 1;
  private readonly replies = new Map<number, (frame: { ok: boolean; result?: unknown; error?: { message: string } }) => void>();
  private busy: Promise<void> | null = null;
  private again = false;
  private readonly handled = new Set<string>();
  private seen = 0;
  approved = 0;
  denied = 0;
  /** Answers the host refused (the item had already closed: its agent left or it expired). */
  refused = 0;
  /** What the operator chose for each item, set before the answer is sent (the agent may hear first). */
  readonly intent = new Map<string, 'approved' | 'denied'>();
  /** The answers the host acknowledged. */
  readonly decided: { id: string; state: 'approved' | 'denied' }[] = [];
  private closed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly denyEvery: number,
  ) {
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { id?: number; event?: string; ok: boolean; result?: unknown; error?: { message: string } };
      if (frame.event === 'approvals.changed') return this.poke();
      if (typeof frame.id === 'number') {
        this.replies.get(frame.id)?.(frame);
        this.replies.delete(frame.id);
      }
    });
    // A host that stops (or dies) answers nothing more: no call may wait for it forever.
    ws.on('close', () => {
      for (const r of this.replies.values()) r({ ok: false, error: { message: 'the console WebSocket closed' } });
      this.replies.clear();
    });
  }

  static async connect(info: ServeInfo, denyEvery: number): Promise<Operator> {
    const url = info.url.replace(/^http/, 'ws').replace(/\/$/, '') + '/ws';
    const ws = new WebSocket(url, ['gatehouse.v1', `gatehouse.token.${info.token}`], { headers: { origin: info.url.replace(/\/$/, '') } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`the console WebSocket was refused (${res.statusCode})`)));
      ws.once('error', reject);
    });
    const op = new Operator(ws, denyEvery);
    op.poke();
    return op;
  }

  call<T>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error(`${method}: the console WebSocket is closed`));
    return new Promise((resolve, reject) => {
      this.replies.set(id, (f) => (f.ok ? resolve(f.result as T) : reject(new Error(`${method}: ${f.error?.message ?? 'failed'}`))));
      this.ws.send(JSON.stringify({ id, method, params }));
    });
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
    let items: { id: string; argsHash: string }[];
    try {
      ({ items } = await this.call<{ items: { id: string; argsHash: string }[] }>('approvals.list', { state: 'pending' }));
    } catch {
      return;
    }
    await Promise.all(
      items
        .filter((i) => !this.handled.has(i.id))
        .map(async (item) => {
          this.handled.add(item.id);
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
  }

  /** Waits for the current pass (the run's last answers). */
  async settle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settle();
    for (const r of this.replies.values()) r({ ok: false, error: { message: 'closed' } });
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
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

function hookInput(kind: Kind, f: Fixture, agent: number, n: number): Record<string, unknown> {
  const base = { session_id: `soak-hook-${agent}`, transcript_path: join(f.fakeHome, 'transcript.jsonl'), cwd: f.project, hook_event_name: 'PreToolUse' };
  switch (kind) {
    case 'allow':
      return { ...base, tool_name: 'Read', tool_input: { file_path: join(f.project, 'README.md') } };
    case 'deny':
      return n % 2
        ? { ...base, tool_name: 'Read', tool_input: { file_path: join(f.fakeHome, '.ssh', 'id_rsa') } }
        : { ...base, tool_name: 'WebFetch', tool_input: { url: 'http://192.168.1.10/admin', prompt: 'read it' } };
    case 'ask':
      return { ...base, tool_name: 'Write', tool_input: { file_path: join(f.project, 'out', `hook-${agent}-${n}.txt`), content: `line ${n}\n` } };
  }
}

/** Half the calls read, a quarter are denied, a quarter ask. */
function pickKind(): Kind {
  const r = Math.random();
  return r < 0.5 ? 'allow' : r < 0.75 ? 'deny' : 'ask';
}

const think = (ms: number) => new Promise((r) => setTimeout(r, Math.random() * 2 * ms));

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const denyEvery = opts.denyEvery ?? 5;
  const bucketSec = opts.bucketSeconds ?? 60;
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

  log(`soak: starting gatehouse serve (${opts.live ? 'live' : 'dry-run'}) in ${dir}`);
  const host = await startHost(dir, env, ghHome, project, opts.live);
  const pid = host.child.pid!;
  const op = await Operator.connect(host.info, denyEvery);
  const health = async () => {
    try {
      return (await op.call<{ eventLoop?: { sinceStart: { p50Ms: number; p99Ms: number; maxMs: number }; lastWindow: { p99Ms: number } | null } }>('health.list')).eventLoop ?? null;
    } catch {
      return null;
    }
  };

  // Agents connect before the clock starts: the load is 50 agents at once, not a ramp.
  const mcpClients: Client[] = [];
  for (let i = 0; i < mcpAgents; i++) {
    const client = new Client({ name: `soak-mcp-${i}`, version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(host.info.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.info.agentToken}` } } }));
    mcpClients.push(client);
  }
  const rssStart = rssMb(pid);
  const cpuStart = cpuSeconds(pid);
  let rssPeak = rssStart;
  log(`soak: ${mcpAgents} MCP agents and ${hookAgents} hook agents connected; host pid ${pid}, RSS ${rssStart} MB; running ${opts.seconds} s`);

  const records: CallRecord[] = [];
  const samples: { at: number; rss: number; loopP99: number | null }[] = [];
  const t0 = performance.now();
  const deadline = t0 + opts.seconds * 1000;
  const now = () => (performance.now() - t0) / 1000;
  const sampler = setInterval(() => {
    // A host that died mid-run has no /proc entry: the run goes on to report it (its exit code).
    if (host.child.exitCode !== null || host.child.signalCode !== null) return;
    const rss = rssMb(pid);
    rssPeak = Math.max(rssPeak, rss);
    samples.push({ at: now(), rss, loopP99: null });
  }, 1000);
  const progress = setInterval(() => {
    const done = records.length;
    log(`soak: ${Math.round(now())} s, ${done} calls answered, ${(done / Math.max(1, now())).toFixed(1)}/s, operator ${op.approved} approved ${op.denied} denied, RSS ${samples.at(-1)?.rss ?? rssStart} MB`);
  }, 15_000);
  // The host's own lag over each of its minutes, sampled as the run goes.
  const lagSamples: { at: number; p99: number }[] = [];
  const lagTimer = setInterval(() => {
    void health().then((h) => h?.lastWindow && lagSamples.push({ at: now(), p99: h.lastWindow.p99Ms }));
  }, 10_000);

  const mcpAgent = async (i: number) => {
    const client = mcpClients[i]!;
    let n = 0;
    while (performance.now() < deadline) {
      const kind = pickKind();
      const command = mcpCommand(kind, f, i, n++);
      const t = performance.now();
      const rec: CallRecord = { source: 'mcp', kind, got: 'error', want: kind, executed: false, rtMs: 0, decisionMs: null, at: 0, call: null };
      try {
        // An asked call waits for the operator: longer than the SDK's default minute under load.
        const r = await client.callTool({ name: 'shell', arguments: { command } }, undefined, { timeout: 15 * 60_000 });
        const g = (r._meta as { gatehouse?: { call: string; decision: string; executed: boolean; approval?: string; steps: { step: string; ms: number }[] } } | undefined)?.gatehouse;
        rec.got = g?.decision ?? 'none';
        rec.executed = g?.executed ?? false;
        rec.call = g?.call ?? null;
        if (g) rec.decisionMs = g.steps.filter((s) => s.step !== 'runner' && s.step !== 'approval').reduce((a, s) => a + s.ms, 0);
        if (kind === 'ask' && g?.approval) rec.want = op.intent.get(g.approval) === 'denied' ? 'deny' : 'allow';
      } catch (err) {
        rec.error = (err as Error).message;
      }
      rec.rtMs = performance.now() - t;
      rec.at = now();
      records.push(rec);
      await think(opts.thinkMs);
    }
  };
  const hookAgent = async (i: number) => {
    let n = 0;
    while (performance.now() < deadline) {
      const kind = pickKind();
      const body = JSON.stringify(hookInput(kind, f, i, n++));
      const t = performance.now();
      const rec: CallRecord = { source: 'hook', kind, got: 'error', want: kind, executed: false, rtMs: 0, decisionMs: null, at: 0, call: null };
      try {
        const res = await fetch(host.info.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${host.info.agentToken}` }, body });
        const answer = (await res.json()) as { continue?: boolean; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
        // { continue: true } is "no objection" (Claude Code's own prompts decide): an allow here.
        rec.got = answer.hookSpecificOutput?.permissionDecision ?? (answer.continue === true ? 'allow' : `status ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`);
        // The operator's answer to an asked hook call is not named in the reply: judged by its reason.
        if (kind === 'ask') rec.want = rec.got === 'deny' && /operator/i.test(answer.hookSpecificOutput?.permissionDecisionReason ?? '') ? 'deny' : 'allow';
      } catch (err) {
        rec.error = (err as Error).message;
      }
      rec.rtMs = performance.now() - t;
      rec.at = now();
      records.push(rec);
      await think(opts.thinkMs);
    }
  };
  await Promise.all([...mcpClients.map((_, i) => mcpAgent(i)), ...Array.from({ length: hookAgents }, (_, i) => hookAgent(i))]);
  const elapsedSec = now();
  clearInterval(progress);
  clearInterval(lagTimer);
  clearInterval(sampler);
  await op.settle();
  const alive = host.child.exitCode === null && host.child.signalCode === null;
  const rssEnd = alive ? rssMb(pid) : NaN;
  const cpuUsed = alive ? cpuSeconds(pid) - cpuStart : NaN;
  rssPeak = Math.max(rssPeak, rssEnd);
  const loop = await health();
  log(`soak: load done after ${elapsedSec.toFixed(1)} s; stopping the host`);

  for (const c of mcpClients) await c.close().catch(() => {});
  await op.close();
  host.child.kill('SIGTERM');
  const hostExit = await host.exited;

  // ---- the audit log, after the host stopped -----------------------------------------------------
  const dbPath = homePaths(ghHome).auditDb;
  const db = openForVerify(dbPath);
  const verify = verifyDatabase(db);
  const rows = db.prepare("SELECT type, payload FROM events WHERE type IN ('call.received','call.decided','call.result','call.abandoned','approval.requested','approval.decided','approval.expired')").all() as { type: string; payload: string }[];
  const eventCount = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  db.close();
  interface Trail {
    source: string;
    received: number;
    decided: string[];
    closing: number;
    asked: number;
    answered: number;
    operatorState: string[];
  }
  const trails = new Map<string, Trail>();
  const trail = (call: string) => {
    let t = trails.get(call);
    if (!t) trails.set(call, (t = { source: '?', received: 0, decided: [], closing: 0, asked: 0, answered: 0, operatorState: [] }));
    return t;
  };
  const approvalsDecided = new Map<string, string>();
  for (const r of rows) {
    const p = JSON.parse(r.payload) as { call?: string; id?: string; source?: string; decision?: string; state?: string };
    if (!p.call) continue;
    const t = trail(p.call);
    if (r.type === 'call.received') {
      t.received++;
      t.source = p.source ?? '?';
    } else if (r.type === 'call.decided') t.decided.push(p.decision ?? '?');
    else if (r.type === 'call.result' || r.type === 'call.abandoned') t.closing++;
    else if (r.type === 'approval.requested') t.asked++;
    else {
      t.answered++;
      t.operatorState.push(p.state ?? '?');
      if (p.id && r.type === 'approval.decided') approvalsDecided.set(p.id, p.state ?? '?');
    }
  }
  const closingDecisions = new Set(['allow', 'deny', 'expired']);
  const incomplete: string[] = [];
  for (const [call, t] of trails) {
    const problems: string[] = [];
    if (t.received !== 1) problems.push(`${t.received} call.received`);
    if (t.decided.length !== 1 || !closingDecisions.has(t.decided[0]!)) problems.push(`call.decided ${JSON.stringify(t.decided)}`);
    if (t.closing !== 1) problems.push(`${t.closing} closing events`);
    if (t.asked > 0 && t.answered !== t.asked) problems.push(`${t.asked} approval.requested, ${t.answered} answered`);
    if (problems.length) incomplete.push(`${call} (${t.source}): ${problems.join(', ')}`);
  }
  const inLog = (source: string) => [...trails.values()].filter((t) => t.source === source).length;
  const sent = (source: Source) => records.filter((r) => r.source === source).length;
  // Every call an agent sent is in the log; a transport error may have lost the request before the host read it, so those are allowed for.
  const transportErrors = records.filter((r) => r.got === 'error').length;
  const lostReceived = Math.max(0, sent('mcp') - inLog('mcp')) + Math.max(0, sent('hook') - inLog('hook'));
  let lostAnswers = 0;
  for (const r of records) {
    if (r.source !== 'mcp' || !r.call) continue;
    const t = trails.get(r.call);
    if (!t || t.decided[0] !== r.got) lostAnswers++;
  }
  const lostOperator = op.decided.filter((d) => approvalsDecided.get(d.id) !== d.state).length;

  const cli = spawnSync(process.execPath, [cliPath, 'audit', 'verify', '--home', ghHome], { env, encoding: 'utf8' });

  // ---- what the agents saw ------------------------------------------------------------------------
  const unexpected = records.filter((r) => r.got !== 'error' && r.got !== r.want);
  const deniedButAllowed = records.filter((r) => r.kind === 'deny' && (r.got === 'allow' || r.executed)).length;
  const decisions = records.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!);
  const hookRt = records.filter((r) => r.source === 'hook' && r.kind !== 'ask' && r.got !== 'error').map((r) => r.rtMs);
  const askedRt = records.filter((r) => r.kind === 'ask' && r.got !== 'error').map((r) => r.rtMs);
  const buckets: BucketRow[] = [];
  const last = Math.max(elapsedSec, bucketSec / 1000);
  for (let from = 0; from < last; from += bucketSec) {
    const to = Math.min(from + bucketSec, last);
    const inB = records.filter((r) => r.at >= from && r.at < to);
    const lag = lagSamples.filter((s) => s.at >= from && s.at < to + 10).map((s) => s.p99);
    const rss = samples.filter((s) => s.at >= from && s.at < to).map((s) => s.rss);
    buckets.push({
      fromSec: from,
      toSec: round(to, 1)!,
      calls: inB.length,
      callsPerSec: round(inB.length / Math.max(0.001, to - from), 1)!,
      decisionP50: round(pct(inB.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!), 50)),
      decisionP99: round(pct(inB.filter((r) => r.decisionMs !== null).map((r) => r.decisionMs!), 99)),
      hookRtP50: round(pct(inB.filter((r) => r.source === 'hook' && r.kind !== 'ask' && r.got !== 'error').map((r) => r.rtMs), 50)),
      hookRtP99: round(pct(inB.filter((r) => r.source === 'hook' && r.kind !== 'ask' && r.got !== 'error').map((r) => r.rtMs), 99)),
      loopP99: lag.length ? Math.max(...lag) : null,
      rssMb: rss.length ? Math.max(...rss) : null,
    });
  }
  const count = <K extends string>(keys: readonly K[], key: (r: CallRecord) => K) => Object.fromEntries(keys.map((k) => [k, records.filter((r) => key(r) === k).length])) as Record<K, number>;
  const report: SoakReport = {
    mode: opts.live ? 'live' : 'dry-run',
    agents: { mcp: mcpAgents, hook: hookAgents },
    seconds: opts.seconds,
    elapsedSec: round(elapsedSec, 1)!,
    calls: { total: records.length, bySource: count(['mcp', 'hook'] as const, (r) => r.source), byKind: count(['allow', 'deny', 'ask'] as const, (r) => r.kind), transportErrors },
    throughput: round(records.length / elapsedSec, 1)!,
    decision: { p50: round(pct(decisions, 50), 3), p99: round(pct(decisions, 99), 3), samples: decisions.length },
    hookRoundTrip: { p50: round(pct(hookRt, 50)), p99: round(pct(hookRt, 99)) },
    askedRoundTrip: { p50: round(pct(askedRt, 50)), p99: round(pct(askedRt, 99)) },
    unexpected: { count: unexpected.length, deniedButAllowed, examples: unexpected.slice(0, 5).map((r) => `${r.source} ${r.kind}: wanted ${r.want}, got ${r.got}${r.error ? ` (${r.error})` : ''}`) },
    operator: { approved: op.approved, denied: op.denied, refused: op.refused },
    eventLoop: loop ? { p50Ms: loop.sinceStart.p50Ms, p99Ms: loop.sinceStart.p99Ms, maxMs: loop.sinceStart.maxMs } : null,
    rssMb: { start: rssStart, end: rssEnd, peak: rssPeak },
    hostCpuPercent: Math.round((cpuUsed / elapsedSec) * 100),
    machine: { loadAvg: Math.round(loadavg()[0]! * 10) / 10, cores: availableParallelism() },
    buckets,
    audit: {
      events: eventCount,
      chainOk: verify.ok,
      chainMessage: verify.ok ? `${verify.checked} events, head ${verify.head.seq}` : JSON.stringify(verify.firstBad),
      cliVerify: { code: cli.status, output: `${cli.stdout}${cli.stderr}`.trim() },
      callsInLog: trails.size,
      incompleteTrails: incomplete.length,
      incompleteExamples: incomplete.slice(0, 10),
      lost: { received: lostReceived, answers: lostAnswers, operatorDecisions: lostOperator },
      hostExit,
    },
    dir,
  };
  if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  return report;
}

/** The printed report. */
export function formatReport(r: SoakReport): string {
  const ms = (x: number | null) => (x === null ? '-' : `${x} ms`);
  const lines = [
    `Gatehouse soak: ${r.agents.mcp + r.agents.hook} agents (${r.agents.mcp} MCP over the SDK, ${r.agents.hook} HTTP hook), ${r.mode} mode (${r.mode === 'live' ? 'allowed and approved shell commands really run, sandboxed' : 'nothing executes; the decision path only'}), ${r.elapsedSec} s.`,
    '',
    `calls answered        ${r.calls.total} (MCP ${r.calls.bySource.mcp}, hook ${r.calls.bySource.hook}; allowed-kind ${r.calls.byKind.allow}, denied-kind ${r.calls.byKind.deny}, asked ${r.calls.byKind.ask}); transport errors ${r.calls.transportErrors}`,
    `throughput            ${r.throughput} calls/s`,
    `decision (host)       p50 ${ms(r.decision.p50)}, p99 ${ms(r.decision.p99)} (pipeline steps before the runner, operator wait excluded; ${r.decision.samples} MCP calls)`,
    `hook round trip       p50 ${ms(r.hookRoundTrip.p50)}, p99 ${ms(r.hookRoundTrip.p99)} (allowed and denied calls, as the client saw them)`,
    `asked round trip      p50 ${ms(r.askedRoundTrip.p50)}, p99 ${ms(r.askedRoundTrip.p99)} (including the scripted operator)`,
    `operator              ${r.operator.approved} approved, ${r.operator.denied} denied, ${r.operator.refused} refused by the host`,
    `event-loop lag        ${r.eventLoop ? `p50 ${r.eventLoop.p50Ms} ms, p99 ${r.eventLoop.p99Ms} ms, max ${r.eventLoop.maxMs} ms (host, monitorEventLoopDelay, since start)` : 'not reported by the host'}`,
    `host RSS              start ${r.rssMb.start} MB, end ${r.rssMb.end} MB, peak ${r.rssMb.peak} MB`,
    `host CPU              ${r.hostCpuPercent}% of one core during the load (machine: load average ${r.machine.loadAvg} on ${r.machine.cores} cores)`,
    `unexpected answers    ${r.unexpected.count}${r.unexpected.deniedButAllowed ? ` (${r.unexpected.deniedButAllowed} that should be denied were ALLOWED)` : ''}${r.unexpected.examples.length ? `: ${r.unexpected.examples.join('; ')}` : ''}`,
    '',
    'over time:',
    '  from-to (s)   calls  calls/s  decision p50  decision p99  hook rt p50  hook rt p99  lag p99   RSS MB',
    ...r.buckets.map((b) =>
      `  ${`${b.fromSec}-${b.toSec}`.padEnd(12)} ${String(b.calls).padStart(6)} ${String(b.callsPerSec).padStart(8)} ${ms(b.decisionP50).padStart(13)} ${ms(b.decisionP99).padStart(13)} ${ms(b.hookRtP50).padStart(12)} ${ms(b.hookRtP99).padStart(12)} ${ms(b.loopP99).padStart(8)} ${String(b.rssMb ?? '-').padStart(8)}`,
    ),
    '',
    `audit log             ${r.audit.events} events; chain ${r.audit.chainOk ? 'verifies' : 'BROKEN'} (${r.audit.chainMessage}); gatehouse audit verify exit ${r.audit.cliVerify.code}`,
    `calls in the log      ${r.audit.callsInLog}`,
    `incomplete trails     ${r.audit.incompleteTrails}${r.audit.incompleteExamples.length ? `: ${r.audit.incompleteExamples.join('; ')}` : ''}`,
    `lost                  ${r.audit.lost.received} calls not in the log, ${r.audit.lost.answers} MCP answers not matching the log, ${r.audit.lost.operatorDecisions} operator decisions not in the log`,
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
  if (r.calls.transportErrors) p.push(`${r.calls.transportErrors} calls failed in transport`);
  if (r.unexpected.deniedButAllowed) p.push(`${r.unexpected.deniedButAllowed} calls that should be denied were allowed`);
  if (r.audit.hostExit !== 0) p.push(`the host exited ${r.audit.hostExit} on SIGTERM`);
  const growth = opts.maxRssGrowthMb ?? 300;
  if (r.rssMb.end > r.rssMb.start + growth) p.push(`host RSS grew from ${r.rssMb.start} MB to ${r.rssMb.end} MB (more than ${growth} MB)`);
  return p;
}
