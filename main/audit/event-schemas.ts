// The audit event taxonomy: every event type the host appends, by its stable name, with the actor
// form and the payload fields it carries (docs/audit-events.md explains each). Payloads are loose
// objects: the fields named here are required and typed; an event may carry more (a later version
// adds a field without breaking readers of older logs). test/main/audit/audit-event-schemas.test.ts checks a
// realistic run against this table and fails on an event type that has no entry.
import { z } from 'zod';

const id = z.string().min(1);
const nullableString = z.string().nullable();
const int = z.number().int();
const decider = z.looseObject({ kind: z.enum(['rule', 'checker', 'autonomy', 'grant', 'operator', 'error']) });
const checkpoint = z.object({ seq: int, hash: z.string().regex(/^[0-9a-f]{64}$/) });
const problems = z.array(z.looseObject({ message: z.string() }));

/** Actor forms: who or what an event is attributed to. */
export const ACTOR = {
  host: /^host$/,
  operator: /^operator:.+$/,
  agent: /^agent(:.*)?$/,
  rule: /^rule:.+$/,
  checker: /^checker:.*$/,
  /** A decision's actor: the operator, rule, checker, grant or autonomy level that decided, or the host (errors). */
  decider: /^(host|operator:.+|rule:.+|checker:.*|grant:.+|autonomy:.+)$/,
  /** Who started or ran something: an agent, an operator (test runs, terminals) or the host. */
  initiator: /^(host|operator:.+|agent(:.*)?)$/,
} as const;

export interface EventSpec {
  actor: RegExp;
  payload: z.ZodType;
}

const spec = (actor: RegExp, shape: z.ZodRawShape): EventSpec => ({ actor, payload: z.looseObject(shape) });

export const EVENT_SCHEMAS: Record<string, EventSpec> = {
  // ---- host and consoles ----------------------------------------------------------------------
  'host.started': spec(ACTOR.host, { shell: z.enum(['electron', 'serve', 'cli']), pid: int, version: z.string(), operator: z.string() }),
  'host.stopped': spec(ACTOR.host, { reason: z.string() }),
  /** The host began to stop with calls waiting for an operator: each was denied and answered (call.abandoned). */
  'host.stopping': spec(ACTOR.host, { waiting: int }),
  'operator.connected': spec(ACTOR.operator, { console: z.string() }),
  'operator.disconnected': spec(ACTOR.operator, { console: z.string() }),
  'settings.changed': spec(ACTOR.operator, { changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })) }),
  'gateway.mode-changed': spec(ACTOR.operator, { from: z.enum(['dry-run', 'live']), to: z.enum(['dry-run', 'live']) }),
  'policy.saved': spec(ACTOR.operator, { file: z.string(), bytes: int, rules: int, diff: z.string() }),
  'policy.rule-added': spec(ACTOR.operator, { rule: z.string(), approval: id, file: z.string(), diff: z.string() }),
  /** policy.yaml changed on disk (an editor, a deploy): the diff, and whether it loaded or the last good policy stayed. */
  'policy.reloaded': spec(ACTOR.host, { file: z.string(), diff: z.string(), loaded: z.boolean(), error: nullableString }),
  /** "Write it for me" changed Claude Code's settings or MCP files (never the token). */
  'agent.config-written': spec(ACTOR.operator, {
    scope: z.enum(['user', 'project']),
    projectDir: nullableString,
    mcp: z.enum(['http', 'stdio', 'none']),
    hook: z.enum(['command', 'http', 'none']),
    files: z.array(z.object({ path: z.string(), created: z.boolean(), backup: nullableString, changes: z.array(z.string()) })).min(1),
  }),
  /** A named agent token was made or revoked (agent-tokens.ts; never the token or its hash). */
  'agent.token-created': spec(ACTOR.operator, { name: z.string() }),
  'agent.token-revoked': spec(ACTOR.operator, { name: z.string() }),
  /** The first event of a chain started by `gatehouse audit recover`: the damaged file kept aside, its size and SHA-256, and why. */
  'audit.chain-restarted': spec(ACTOR.initiator, { oldFile: z.string(), size: int, sha256: z.string(), reason: z.string() }),
  /** Appends work again after a write failure (a full disk): when it began, how many events were lost, and why. */
  'audit.write-resumed': spec(ACTOR.host, { failedSince: int, lostEvents: int, code: nullableString, error: z.string() }),
  /**
   * A host started over a log holding less history than the chain head kept beside it (audit.head)
   * recorded: the log was deleted, truncated or swapped. Verification fails at this row until `audit recover`.
   */
  'audit.history-missing': spec(ACTOR.host, { reason: z.string(), expected: checkpoint, found: checkpoint.nullable(), headFile: z.string() }),
  /** The link to the team database (team mode) came up, went down or found a fork: an outage is in the log itself. */
  'team.link': spec(ACTOR.host, { state: z.enum(['up', 'down', 'forked']), member: z.string(), shippedSeq: int.nullable(), lag: int }),
  /** A decision in the team database was not applied: no valid signature of a registered operator, or bound to other arguments. The item kept waiting. */
  'team.decision-refused': spec(ACTOR.host, { id, call: id, member: z.string(), operator: z.string(), console: z.string(), decision: z.string(), problem: z.string() }),
  /** A team policy version signed by a registered operator was put in force here. */
  'team.policy-applied': spec(ACTOR.host, { version: int, sha256: z.string(), operator: z.string(), console: z.string(), rules: int }),
  /** A team policy version was not applied (no valid signature, a text that does not match its digest or does not load, older than the one in force); the one in force stays. */
  'team.policy-refused': spec(ACTOR.host, { version: int, operator: z.string(), problem: z.string(), inForce: int.nullable() }),
  /** A team grant was not held here: no valid signature of a registered operator, or a value that does not hold on this machine. */
  'team.grant-refused': spec(ACTOR.host, { id, operator: z.string(), kind: z.string(), value: z.string(), problem: z.string() }),
  /** An operator decided another member's team ask from this host's console, signed as `operator` (the member records the decision it applies in its own chain). `outcome`: stored, or not (taken first, closed). */
  'team.decision-sent': spec(ACTOR.operator, { member: z.string(), id, decision: z.enum(['approved', 'denied']), operator: z.string(), outcome: z.enum(['stored', 'taken', 'closed']) }),
  'audit.pruned': spec(ACTOR.initiator, { pruned: int, fromSeq: int, toSeq: int, checkpoint, previousCheckpoint: checkpoint.nullable(), maxAgeDays: z.number(), maxEvents: int }),

  // ---- one tool call --------------------------------------------------------------------------
  /** An operator sent a test call from the console (Getting Started); the call's own events follow as agent console-test. */
  'gateway.test-call': spec(ACTOR.operator, { call: id, session: z.string(), tool: z.string(), agent: z.string(), console: z.string() }),
  'call.received': spec(ACTOR.agent, { call: id, agent: z.string(), session: z.string(), tool: z.string(), source: z.enum(['mcp', 'hook', 'api', 'console']), cwd: z.string() }),
  'call.extracted': spec(ACTOR.host, { call: id, operations: z.array(z.string()), paths: z.array(z.string()), hosts: z.array(z.string()), command: z.string(), evasive: z.boolean(), evasiveReasons: z.array(z.string()), programs: z.array(z.string()).optional() }),
  'rule.matched': spec(ACTOR.rule, { call: id, rule: z.string(), origin: z.string(), source: z.string(), decision: z.enum(['allow', 'deny', 'ask', 'log']), severity: z.string(), locked: z.boolean() }),
  'checker.verdict': spec(/^(host|checker:.*)$/, { call: id, decision: z.string(), failures: z.array(z.unknown()) }),
  /** `policy`: which policy judged it (the team policy version in team mode, a digest of policy.yaml); absent when the rules were never reached. */
  'call.decided': spec(ACTOR.decider, { call: id, decision: z.enum(['allow', 'deny', 'ask', 'expired']), decider, reason: z.string(), policy: z.object({ team: int.optional(), local: z.string() }).optional() }),
  /** A Claude Code hook request refused before it was judged (answered with a deny); never the token or the input. */
  'hook.refused': spec(ACTOR.host, { kind: z.enum(['malformed', 'empty', 'wrong-event', 'too-large', 'bad-token', 'bad-host', 'bad-origin', 'bad-method', 'unreadable', 'internal']), reason: z.string(), suppressed: int.optional() }),
  /**
   * A call the agent runs itself, let through without an operator reading it (full autonomy, a
   * grant): contained (the boxed command line the agent was told to run, the writable folders,
   * how many places were masked or kept read-only) or not (why not: no box on this machine).
   */
  'call.contained': spec(ACTOR.host, { call: id, contained: z.boolean(), box: z.enum(['bwrap', 'seatbelt']).nullable() }),
  /** A PreToolUse request read after its hook gave up (deadline passed, connection gone): answered without being judged. */
  'hook.expired': spec(ACTOR.agent, { agent: z.string(), session: z.string(), tool: z.string(), toolUseId: nullableString, reason: z.string() }),
  /** A hook-supervised call ran although Gatehouse did not answer allow (deny, ask, or never judged: expired). */
  'call.bypassed': spec(ACTOR.agent, { call: nullableString, agent: z.string(), session: z.string(), tool: z.string(), toolUseId: z.string(), decision: z.string(), outcome: z.enum(['executed', 'failed']) }),
  /** A report that came before its PreToolUse call was decided, linked to that call once it was. */
  'call.outcome-linked': spec(ACTOR.agent, { call: nullableString, toolUseId: z.string(), session: z.string(), outcome: z.enum(['executed', 'failed']), decision: z.string() }),
  'call.result': spec(ACTOR.host, { call: id, decision: z.enum(['allow', 'deny', 'ask', 'expired']), executed: z.boolean(), mode: z.enum(['dry-run', 'live']) }),
  /**
   * What became of a hook-supervised call, as Claude Code reported it (PostToolUse: executed,
   * PostToolUseFailure: failed); `call` is null when no PreToolUse call of that session and
   * tool_use_id is known. `summary`: the first 2 KB of the response, redacted.
   */
  'call.outcome': spec(ACTOR.agent, {
    call: nullableString,
    agent: z.string(),
    session: z.string(),
    tool: z.string(),
    toolUseId: z.string(),
    outcome: z.enum(['executed', 'failed']),
    decision: z.enum(['allow', 'deny', 'ask', 'expired']).nullable(),
    summary: z.string(),
    bytes: int,
    truncated: z.boolean(),
    durationMs: z.number().nullable(),
    interrupted: z.boolean(),
    /** The call was answered with the boxed command (call.contained); null when not known. */
    contained: z.boolean().nullable().optional(),
  }),

  // ---- approvals and grants -------------------------------------------------------------------
  'approval.requested': spec(ACTOR.host, { id, call: id, agent: z.string(), session: z.string(), tool: z.string(), argsHash: z.string(), askedBy: decider, reason: z.string(), expiresAt: int }),
  /** By an operator, by the host (shutdown), or by a grant made while the call waited (`grant:<id>`, with `grant`). */
  'approval.decided': spec(/^(host|operator:.+|grant:.+)$/, { id, call: id, agent: z.string(), session: z.string(), tool: z.string(), argsHash: z.string(), state: z.enum(['approved', 'denied']) }),
  'approval.expired': spec(ACTOR.host, { id, call: id, agent: z.string(), session: z.string(), tool: z.string(), state: z.literal('expired'), expiresAt: int }),
  /**
   * The agent is gone (MCP cancel, session or connection end, the caller's own deadline reached
   * first): the item closed as `gone`, it can no longer be approved, the call did not run.
   */
  'approval.withdrawn': spec(ACTOR.host, { id, call: id, agent: z.string(), session: z.string(), tool: z.string(), state: z.literal('gone'), reason: z.string() }),
  /**
   * A call that was waiting for an operator when the host stopped: at shutdown (`answered`: its
   * caller got a deny) or found at the next start after a crash (`answered` false).
   */
  'call.abandoned': spec(ACTOR.host, { call: id, approval: nullableString, agent: nullableString, session: nullableString, tool: nullableString, reason: z.enum(['host shut down', 'host stopped unexpectedly']), answered: z.boolean(), decision: z.enum(['allow', 'deny', 'ask', 'expired']) }),
  /** A tool that was running when the host was killed: closed at the next start with the decision that let it run. */
  'call.interrupted': spec(ACTOR.host, { call: id, agent: nullableString, session: nullableString, tool: nullableString, plugin: nullableString, decision: z.enum(['allow', 'deny', 'ask', 'expired']), reason: z.string(), answered: z.literal(false) }),
  /** Events of a call lost with a failed batch: its later events were left out, and this closes its trail. */
  'call.lost': spec(ACTOR.host, { call: id, agent: nullableString, session: nullableString, tool: nullableString, decision: nullableString, executed: z.boolean(), lost: z.array(z.string()), dropped: z.array(z.string()), reason: z.string() }),
  /** A session grant kept across a restart, live again until its own expiry. */
  'grant.restored': spec(ACTOR.host, { id, agent: z.string(), session: z.string(), tool: z.string(), operator: z.string(), expiresAt: int }),
  'grant.created': spec(ACTOR.operator, { id, agent: z.string(), session: z.string(), tool: z.string(), argumentPattern: nullableString, argsHash: nullableString, operator: z.string(), approval: nullableString, createdAt: int, expiresAt: int }),
  'grant.revoked': spec(ACTOR.operator, { id, agent: z.string(), session: z.string(), tool: z.string() }),
  'grant.expired': spec(ACTOR.host, { id, agent: z.string(), session: z.string(), tool: z.string(), expiresAt: int }),

  // ---- execution ------------------------------------------------------------------------------
  'execution.started': spec(ACTOR.initiator, { plugin: z.string(), tool: z.string(), sandboxed: z.boolean() }),
  'execution.ended': spec(ACTOR.initiator, { plugin: z.string(), tool: z.string(), ok: z.boolean(), durationMs: z.number(), failure: nullableString, error: nullableString, outputBytes: int, output: z.string(), outputTruncated: z.boolean() }),
  /** A WebAssembly plugin called a host function (read_file, write_file, http_request): what it asked and what was decided. */
  'wasm.host-call': spec(ACTOR.initiator, { plugin: z.string(), tool: z.string(), function: z.enum(['read_file', 'write_file', 'http_request']), argument: z.string(), decision: z.enum(['allow', 'deny']), decider: z.string(), reason: nullableString, bytes: int }),
  /** A module plugin (mod.ts) asked the host to fetch a URL: where, and what was decided (only declaredEndpoints, public addresses unless the operator allows the host). */
  'module.fetch': spec(ACTOR.initiator, { plugin: z.string(), tool: z.string(), method: z.string(), url: z.string(), host: z.string(), decision: z.enum(['allow', 'deny']), decider: z.string(), reason: nullableString }),
  'pty.started': spec(ACTOR.initiator, { id, tool: z.string(), command: z.string(), args: z.array(z.string()), cwd: z.string(), cols: int, rows: int }),
  'pty.transcript': spec(ACTOR.host, { id, seq: int, offset: int, data: z.string() }),
  'pty.transcript-capped': spec(ACTOR.host, { id, recordedChars: int, atOffset: int, maxChars: int }),
  'pty.take-over': spec(ACTOR.operator, { id, console: z.string(), previous: z.object({ operator: z.string(), console: z.string() }).nullable() }),
  'pty.killed': spec(/^(host|operator:.+|agent(:.*)?)$/, { id, pid: int, processes: z.unknown() }),
  'pty.exited': spec(ACTOR.host, { id, exitCode: int.nullable(), signal: z.union([int, z.string()]).nullable(), durationMs: z.number(), outputChars: int, transcriptChars: int, droppedChars: int }),
  // Terminal adapters (main/adapters/): an operator's (or a script's) adapter.* calls, and the host supervising.
  'adapter.started': spec(ACTOR.initiator, { session: id, plugin: z.string(), terminal: id, command: z.string(), args: z.array(z.string()), permissions: z.array(z.string()) }),
  'adapter.sent': spec(ACTOR.initiator, { session: id, plugin: z.string(), terminal: id, actions: int, chars: int }),
  /** A method or action the adapter's manifest does not grant (required_permission), or plugin.load/unload on a host without --allow-plugin-load (reason). */
  'adapter.denied': spec(ACTOR.initiator, { method: z.string() }),
  'adapter.limit-exceeded': spec(ACTOR.host, { session: id, plugin: z.string(), terminal: id, code: z.enum(['ops_exceeded', 'memory_exceeded', 'timeout']), ops: int }),
  'adapter.closed': spec(ACTOR.initiator, { session: id, plugin: z.string(), terminal: id, code: z.string() }),
  'adapter.failed': spec(ACTOR.initiator, { plugin: z.string(), code: z.string(), message: z.string() }),
  'adapter.answered': spec(ACTOR.host, { session: id, plugin: z.string(), terminal: id, question: z.string(), decision: z.enum(['allow', 'deny', 'none']), key: z.string().nullable(), typed: z.boolean() }),
  'adapter.loaded': spec(ACTOR.initiator, { plugin: z.string(), dir: z.string(), hash: z.string() }),
  'adapter.unloaded': spec(ACTOR.initiator, { plugin: z.string() }),
  'adapter.quarantined': spec(ACTOR.host, { plugin: z.string(), reason: z.string() }),
  'adapter.change-approved': spec(ACTOR.operator, { plugin: z.string(), hash: z.string(), scanOverride: z.string().nullable() }),

  // ---- plugins --------------------------------------------------------------------------------
  /** A new home was given the bundled example plugins (disabled until an operator enables them). */
  'plugin.examples-copied': spec(ACTOR.host, { names: z.array(z.string()), from: z.string(), to: z.string() }),
  'plugin.discovered': spec(ACTOR.host, { name: z.string(), dir: z.string(), origin: z.enum(['home', 'project', 'cli']) }),
  /** A name given to --allowed-plugins that could not be enabled for the run, and why. */
  'plugin.allow-refused': spec(ACTOR.host, { name: z.string(), reason: z.string() }),
  'plugin.invalid': spec(ACTOR.host, { name: z.string(), dir: z.string(), problems }),
  'plugin.scanned': spec(ACTOR.host, { name: z.string(), passed: z.boolean(), totalWeight: z.number(), findings: int }),
  'plugin.enabled': spec(ACTOR.operator, { name: z.string(), hash: z.string(), scanOverride: nullableString }),
  'plugin.disabled': spec(ACTOR.operator, { name: z.string() }),
  'plugin.trusted': spec(ACTOR.operator, { name: z.string(), hash: z.string(), reason: z.string() }),
  'plugin.untrusted': spec(ACTOR.operator, { name: z.string(), hash: z.string(), reason: nullableString }),
  'plugin.quarantined': spec(ACTOR.host, { name: z.string(), changes: z.array(z.unknown()), reason: z.string() }),
  'plugin.change-approved': spec(ACTOR.operator, { name: z.string(), hash: z.string(), scanOverride: nullableString }),
  'plugin.reloaded': spec(ACTOR.host, { name: z.string(), hash: z.string() }),
  'plugin.rolled-back': spec(ACTOR.operator, { name: z.string(), hash: z.string(), files: z.array(z.object({ path: z.string(), action: z.enum(['restored', 'deleted']) })).min(1) }),
  'plugin.reload-failed': spec(ACTOR.host, { name: z.string(), problems }),
  'plugin.removed': spec(ACTOR.host, { name: z.string(), dir: z.string() }),
  'plugin.created': spec(ACTOR.operator, { name: z.string(), lang: z.string(), dir: z.string() }),
  'plugin.file-saved': spec(ACTOR.operator, { name: z.string(), path: z.string(), bytes: int, console: z.string() }),
  'plugin.restart': spec(ACTOR.operator, { plugin: z.string() }),
  /** A plugin verified and installed from a signed catalog (main/catalog/); it is not enabled yet. The host when a scheduled refresh installed a same-or-narrower update. */
  'catalog.installed': spec(/^(host|operator:.+)$/, { catalog: z.string(), name: z.string(), version: z.string(), keyIds: z.array(z.string()), bundleSha256: z.string() }),
  /** A signed revocation moved an installed copy out of the plugins folder. */
  'catalog.quarantined': spec(ACTOR.host, { catalog: z.string(), name: z.string(), version: z.string(), reason: z.string() }),
  /** The operator confirmed a catalog root's key ids in the console and the source was added. */
  'catalog.source-added': spec(ACTOR.operator, { catalog: z.string(), location: z.string(), rootKeyIds: z.array(z.string()) }),
  /** A refresh found a version that widens permissions; it waits for the operator. */
  'catalog.update-waiting': spec(ACTOR.host, { catalog: z.string(), name: z.string(), from: z.string(), to: z.string(), widened: z.array(z.string()), narrowed: z.array(z.string()) }),
  /** The operator approved exactly these widened permissions (or chose a downgrade). */
  'catalog.update-approved': spec(ACTOR.operator, { catalog: z.string(), name: z.string(), from: z.string(), to: z.string(), widened: z.array(z.string()), narrowed: z.array(z.string()) }),
  /** A same-or-narrower update found by a refresh failed verification; nothing was installed. */
  'catalog.update-failed': spec(ACTOR.host, { catalog: z.string(), name: z.string(), from: z.string(), to: z.string(), error: z.string() }),

  // ---- health: breakers, checkers, upstream MCP servers ---------------------------------------
  'breaker.changed': spec(ACTOR.host, { plugin: z.string(), from: z.string(), to: z.string(), consecutiveFailures: int }),
  'breaker.reset': spec(ACTOR.operator, { plugin: z.string() }),
  'checker.spawned': spec(ACTOR.host, { checker: z.string(), slot: int, pid: int.nullable(), reason: z.string() }),
  'checker.ready': spec(ACTOR.host, { checker: z.string(), slot: int, pid: int.nullable(), ms: z.number() }),
  'checker.exited': spec(ACTOR.host, { checker: z.string(), slot: int, kind: z.string(), message: z.string() }),
  'checker.failed': spec(ACTOR.host, { checker: z.string(), slot: int, kind: z.string(), message: z.string() }),
  'mcp.connected': spec(ACTOR.host, { plugin: z.string(), sandboxed: z.boolean(), tools: int, exposed: int }),
  'mcp.connect-failed': spec(ACTOR.host, { plugin: z.string(), error: z.string() }),
  'mcp.disconnected': spec(ACTOR.host, { plugin: z.string() }),
  'mcp.tools-changed': spec(ACTOR.host, { plugin: z.string(), added: z.array(z.string()), removed: z.array(z.string()), tools: int, exposed: int }),
  'mcp.tool-flagged': spec(ACTOR.host, { plugin: z.string(), tool: z.string(), name: z.string(), findings: z.array(z.unknown()) }),
};

export interface EventProblem {
  seq?: number;
  type: string;
  message: string;
}

/** Checks one event against the taxonomy; null when it conforms. */
export function checkEvent(e: { seq?: number; type: string; actor: string; payload: unknown }): EventProblem | null {
  const s = EVENT_SCHEMAS[e.type];
  const at = e.seq !== undefined ? { seq: e.seq } : {};
  if (!s) return { ...at, type: e.type, message: `event type ${e.type} has no schema in main/audit/event-schemas.ts` };
  if (!s.actor.test(e.actor)) return { ...at, type: e.type, message: `actor ${JSON.stringify(e.actor)} does not have the form ${s.actor}` };
  const r = s.payload.safeParse(e.payload);
  if (!r.success) return { ...at, type: e.type, message: r.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ') };
  return null;
}
