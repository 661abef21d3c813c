// The one table of everything that crosses between the host and a console.
// Both shells (Electron IPC and the served WebSocket), the preload and the renderer are driven
// from these two maps: adding an entry here is the whole job of adding a method or an event.
// The host validates every request and every response against these schemas at its boundary.
import { z } from 'zod';
import { OPERATIONS } from './operations.js';
import { AGENT_IDS, agentRequest, agentWriteRequest } from './agent-integrations.js';
import { kindInfoSchema } from './plugin-kind.js';

const auditEvent = z.object({
  seq: z.number().int().positive(),
  ts: z.number().int(),
  type: z.string(),
  actor: z.string(),
  payload: z.unknown(),
  hash: z.string(),
  /** The team member whose log holds it: set on events of a team search (seq is per member), absent on this host's own. */
  member: z.string().optional(),
});

/** A host's link to the team database (main/team/team-shipper.ts TeamLinkStatus). */
const teamLinkStatus = z.object({
  member: z.string(),
  link: z.enum(['connecting', 'up', 'down', 'forked', 'closed']),
  shippedSeq: z.number().int().nullable(),
  localHead: z.number().int(),
  lag: z.number().int(),
  lagMs: z.number(),
  lastError: z.string().nullable(),
  since: z.number(),
  nextRetryAt: z.number().nullable(),
  shipped: z.number().int(),
});
export type TeamLinkView = z.infer<typeof teamLinkStatus>;

/** A member as the team database knows it (main/team/team-members.ts TeamMember; `gatehouse team status`). */
const teamMember = z.object({
  name: z.string(),
  joinedAt: z.number(),
  lastSeenAt: z.number(),
  /** Since the last contact, by the database's clock. */
  seenAgoMs: z.number(),
  shippedSeq: z.number().int(),
  shippedHash: z.string().nullable(),
  shippedAt: z.number().nullable(),
  localHeadSeq: z.number().int(),
  lag: z.number().int(),
  version: z.string().nullable(),
  /** The team policy version the member applies (null: none yet). */
  policyVersion: z.number().int().nullable(),
});
export type TeamMemberView = z.infer<typeof teamMember>;

/** An ask another member published to the team inbox (main/team/team-decisions.ts TeamAsk). */
const teamAsk = z.object({
  member: z.string(),
  approvalId: z.string(),
  callId: z.string(),
  agent: z.string(),
  session: z.string(),
  tool: z.string(),
  /** The folder the call runs in, which decides where its relative paths land; null on an ask published before team migration 7 (it cannot be signed from here). */
  cwd: z.string().nullable(),
  /** The arguments' canonical JSON as the member published it (as the local inbox shows its own: the operator decides on what runs). */
  arguments: z.string(),
  argsHash: z.string(),
  reason: z.string(),
  askedAt: z.number(),
  deadline: z.number(),
});
export type TeamAskView = z.infer<typeof teamAsk>;

const chainState = z.object({
  state: z.enum(['verified', 'broken', 'checking']),
  checked: z.number().int().nonnegative(),
  head: z.object({ seq: z.number().int().nonnegative(), hash: z.string() }),
  firstBad: z.object({ seq: z.number().int(), reason: z.string() }).nullable(),
  verifiedAt: z.number().int().nullable(),
  /** Why the audit log cannot be written now (e.g. the disk is full; every call is denied meanwhile); null or absent while it can. */
  writeError: z.string().nullable().optional(),
  /** Events appended and not yet on disk: the writer's backlog (it grows while a lock or a slow disk holds writes up). */
  unwritten: z.number().int().nonnegative().optional(),
});

const empty = z.object({}).strict();
const catalogPermissions = z.object({ read: z.array(z.string()), write: z.array(z.string()), hosts: z.array(z.string()), env: z.array(z.string()) });
const catalogSource = z.object({ name: z.string(), location: z.string(), rootKeyIds: z.array(z.string()), expires: z.string().nullable(), lastRefresh: z.object({ at: z.string(), ok: z.boolean(), error: z.string().nullable() }).nullable().optional(), installed: z.array(z.object({ name: z.string(), version: z.string(), enabled: z.boolean(), quarantined: z.object({ reason: z.string(), at: z.string() }).nullable() })) });
const catalogSourceName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a source name: 1-40 lowercase letters, digits and dashes');
const catalogLimits = z.object({ timeoutSecs: z.number(), fuel: z.number().optional(), memoryMb: z.number().optional() });
const catalogScan = z.object({ passed: z.boolean(), totalWeight: z.number(), findings: z.number(), bundleSha256: z.string() });
/** What installing a catalog plugin would grant, shown on the consent screen before anything is written. */
const catalogConsent = z.object({
  name: z.string(),
  version: z.string(),
  publisher: z.string(),
  signerKeyIds: z.array(z.string()),
  reads: z.array(z.string()),
  writes: z.array(z.string()),
  reaches: z.array(z.string()),
  env: z.array(z.string()),
  limits: catalogLimits,
  scan: z.object({ signed: catalogScan, local: z.object({ passed: z.boolean(), totalWeight: z.number(), findings: z.number() }) }),
  source: z.object({ repository: z.string(), commit: z.string() }).nullable(),
  /** For an update: what this version adds to (widened) or drops from (narrowed) the installed one's permissions. */
  update: z.object({ from: z.string(), widened: z.array(z.string()), narrowed: z.array(z.string()) }).nullable(),
});
const catalogUpdate = z.object({ source: z.string(), name: z.string(), from: z.string(), to: z.string(), widened: z.array(z.string()), narrowed: z.array(z.string()), error: z.string().nullable() });
const catalogPage = z.object({
  source: z.string(), name: z.string(), publisher: z.string(), description: z.string(), kind: z.string(), version: z.string(), versions: z.array(z.string()), latest: z.string(),
  permissions: z.object({ read: z.array(z.string()), write: z.array(z.string()), hosts: z.array(z.string()), env: z.array(z.string()) }), limits: catalogLimits, wasmLog: z.boolean().nullable(), signerKeyIds: z.array(z.string()),
  scan: catalogScan, sourceRepo: z.object({ repository: z.string(), commit: z.string() }).nullable(), minGatehouse: z.string(), bundleSha256: z.string(), length: z.number(),
  installed: z.object({ version: z.string(), enabled: z.boolean(), quarantined: z.object({ reason: z.string(), at: z.string() }).nullable() }).nullable(),
});
const catalogResult = z.object({ source: z.string(), name: z.string(), publisher: z.string(), description: z.string(), kind: z.string(), latest: z.string(), versions: z.array(z.string()), permissions: catalogPermissions });

const problem = z.object({
  file: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  path: z.string().optional(),
  severity: z.enum(['error', 'warning']),
  code: z.string(),
  message: z.string(),
});
const finding = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  rule: z.string(),
  weight: z.union([z.literal(1), z.literal(2), z.literal(3)]),
  message: z.string(),
});
const pluginStatus = z.enum(['enabled', 'disabled', 'invalid', 'quarantined', 'scan_failed']);
const pluginSummary = z.object({
  name: z.string(),
  /** adapter, macro and matcher: a terminal adapter folder (main/adapters/), listed beside the plugins. */
  kind: z.string().nullable(),
  /** What the console shows for the kind (from its provider, main/registry/kinds/): views render this rather than naming kinds. */
  kindInfo: kindInfoSchema.nullable(),
  description: z.string(),
  version: z.string().nullable(),
  dir: z.string(),
  origin: z.enum(['home', 'project', 'cli']),
  status: pluginStatus,
  format: z.enum(['wraithrun', 'gatehouse', 'triggerfish', 'ptywright']).nullable(),
  toolNames: z.array(z.string()),
  errors: z.number().int(),
  warnings: z.number().int(),
  findingCount: z.number().int(),
  scanPassed: z.boolean().nullable(),
  scanWeight: z.number(),
  notes: z.array(z.string()),
  reloadErrors: z.number().int(),
  /** The manifest's sandbox field (null without a valid manifest). */
  sandbox: z.enum(['strict', 'none']).nullable(),
  /** An operator trusted it: its sandbox = "none" takes effect, it runs without the OS sandbox. */
  trusted: z.boolean(),
});
const pluginDetail = pluginSummary.extend({
  manifestFile: z.string().nullable(),
  manifest: z.unknown(),
  problems: z.array(problem),
  findings: z.array(finding),
  files: z.array(z.object({ path: z.string(), size: z.number(), kind: z.enum(['f', 'x', 'l']) })),
  hash: z.string().nullable(),
  trust: z
    .object({
      hash: z.string(),
      enabledAt: z.number(),
      enabledBy: z.string(),
      scanOverride: z.object({ reason: z.string(), by: z.string(), at: z.number() }).nullable(),
      /** The operator's mark that lets sandbox = "none" take effect, for the pinned hash. */
      trusted: z.object({ reason: z.string(), by: z.string(), at: z.number() }).nullable(),
    })
    .nullable(),
  changes: z.array(z.object({ path: z.string(), change: z.string(), diff: z.string().nullable() })),
  reloadProblems: z.array(problem),
  /** wasm plugins: each import the module asks for, the permission that links it, and whether the manifest grants it. */
  wasmImports: z
    .object({
      imports: z.array(z.object({ module: z.string(), name: z.string(), kind: z.string(), grant: z.enum(['core', 'log', 'hosts', 'read', 'write']).nullable(), granted: z.boolean() })),
      /** How the module runs: the Extism ABI, a WASI preview 1 command (stdin → stdout), or Extism with WASI. */
      abi: z.enum(['extism', 'wasi', 'extism+wasi', 'agentzero']).optional(),
      error: z.string().nullable(),
    })
    .nullable()
    .optional(),
  /** Terminal adapters: what the pinned manifest grants and limits, and why it is held back. */
  adapter: z
    .object({
      permissions: z.array(z.string()),
      limits: z.object({ ops: z.number(), memoryMb: z.number(), timeoutMs: z.number() }),
      defaultTarget: z.object({ program: z.string(), args: z.array(z.string()) }).nullable(),
      /** Loaded at run time (plugin.load) rather than found in a plugins folder. */
      loaded: z.boolean(),
      quarantined: z.string().nullable(),
    })
    .nullable()
    .optional(),
});
const pluginName = z.string().min(1).max(200);

const breakerSnapshot = z.object({
  state: z.enum(['closed', 'open', 'half_open', 'disabled']),
  consecutiveFailures: z.number().int(),
  cycle: z.number().int(),
  openedAt: z.number().nullable(),
  nextProbeAt: z.number().nullable(),
  lastFailure: z.string().nullable(),
});
const metricsSnapshot = z.object({
  calls: z.number().int(),
  successes: z.number().int(),
  failures: z.object({ timeout: z.number().int(), crash: z.number().int(), bad_output: z.number().int(), limit: z.number().int(), spawn: z.number().int(), error: z.number().int() }),
  blocks: z.number().int(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  p99: z.number().nullable(),
  recent: z.array(z.number()),
  /** wasm plugins: fuel of the latest call, its limit, and the mean over the calls counted. */
  fuel: z.object({ last: z.number().int(), limit: z.number().int(), mean: z.number() }).optional(),
});
const loopDelayStats = z.object({ p50Ms: z.number(), p99Ms: z.number(), maxMs: z.number(), meanMs: z.number() });
const eventLoopSnapshot = z.object({
  sinceStart: loopDelayStats,
  /** The last full window that ended (null until one has). */
  lastWindow: loopDelayStats.extend({ endedAt: z.number() }).nullable(),
  windowMs: z.number(),
});
/** One minute of a plugin's last hour (main/runner/health-history.ts). */
const healthMinute = z.object({
  at: z.number(),
  calls: z.number().int(),
  errors: z.number().int(),
  meanMs: z.number().nullable(),
  maxMs: z.number().nullable(),
  breaker: breakerSnapshot.shape.state,
});
const healthRow = z.object({
  name: z.string(),
  kind: z.string().nullable(),
  kindInfo: kindInfoSchema.nullable(),
  status: pluginStatus,
  breaker: breakerSnapshot,
  metrics: metricsSnapshot,
  /** Checkers: processes running and ready; null for one-shot tools. */
  processes: z.object({ running: z.number().int(), ready: z.number().int() }).nullable(),
  /** The last hour, a minute a bucket, oldest first, the current minute last. */
  history: z.array(healthMinute).optional(),
});
const relPath = z.string().min(1).max(4096);

// ---- terminals: PTY sessions (main/pty). Sizes and chars are UTF-16 code units, as xterm.js counts.
const adapterSessionId = z.string().regex(/^adapter-[0-9a-f]{10}$/, 'an adapter session id looks like adapter-0123456789');
const adapterClassification = z.object({
  state: z.enum(['ready', 'busy', 'waiting_for_permission', 'done', 'unknown']),
  confidence: z.number().min(0).max(1),
  evidence: z.string(),
  question: z.string().optional(),
  options: z.array(z.object({ key: z.string(), label: z.string() })).optional(),
});
/** One adapter session: its PTY (a terminal in the Terminals view) and the adapter's last classify. */
const adapterSession = z.object({
  session: adapterSessionId,
  plugin: z.string(),
  terminal: z.string(),
  state: z.enum(['running', 'ended']),
  ended: z.object({ code: z.string(), message: z.string(), ops: z.number() }).nullable(),
  lastIntent: z.string().nullable(),
  classification: adapterClassification.nullable(),
  startedAt: z.number(),
  /** The adapter watches the screen and sends permission questions to the inbox. */
  supervised: z.boolean(),
  /** The question waiting for a decision now (its inbox item once it has one). */
  asking: z.object({ question: z.string(), approval: z.string().nullable() }).nullable(),
});
const terminalId = z.string().regex(/^pty-[0-9a-f]{10}$/, 'a terminal id looks like pty-0123456789');
const terminalSize = { cols: z.number().int().min(2).max(1000), rows: z.number().int().min(1).max(500) };
const terminalSession = z.object({
  id: z.string(),
  title: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string(),
  /** "shell" (built-in) or the plugin tool that runs in it. */
  tool: z.string(),
  /** Who started it, as the audit log names actors. */
  actor: z.string(),
  callId: z.string().nullable(),
  state: z.enum(['running', 'exited']),
  pid: z.number().int().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  cols: z.number().int(),
  rows: z.number().int(),
  /** Who may type (after an audited take-over); null: nobody. */
  controller: z.object({ operator: z.string(), console: z.string(), at: z.number() }).nullable(),
  /** Whether the asking console is the controller. */
  youControl: z.boolean(),
  /** Reading is paused until the slowest watching console catches up (flow control). */
  paused: z.boolean(),
  outputChars: z.number().int(),
  killedBy: z.string().nullable(),
  watchers: z.number().int(),
});


// ---- the gateway: agents' calls, the approval inbox, grants, settings and the policy file ------
const operation = z.enum(OPERATIONS);
const decider = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('rule'), rule: z.string(), origin: z.string() }),
  z.object({ kind: z.literal('checker'), checker: z.string(), rule: z.string() }),
  z.object({ kind: z.literal('autonomy'), level: z.string() }),
  z.object({ kind: z.literal('grant'), grant: z.string() }),
  z.object({ kind: z.literal('operator'), operator: z.string() }),
  z.object({ kind: z.literal('error'), message: z.string() }),
]);
const extraction = z.object({
  operations: z.array(operation),
  paths: z.array(z.string()),
  hosts: z.array(z.string()),
  command: z.string(),
  content: z.string(),
  evasive: z.boolean(),
  evasiveReasons: z.array(z.string()),
});
const toolCall = z.object({
  id: z.string(),
  agent: z.string(),
  session: z.string(),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()).nullable(),
  cwd: z.string(),
  source: z.enum(['mcp', 'hook', 'api', 'console']),
  receivedAt: z.number(),
  /** What the client said it is (MCP clientInfo.name, "claude-code", the API's `agent`): a label; `agent` is the token's name. */
  client: z.string().optional(),
});
const agentTokenName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an agent name is 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" or "-", starting with a letter or digit');
const agentTokenInfo = z.object({ name: z.string(), createdAt: z.number(), createdBy: z.string(), isDefault: z.boolean(), lastUsedAt: z.number().nullable() });
/** `gone`: the agent stopped waiting (cancelled, disconnected, its own timeout first); shown as "agent gone". */
const approvalState = z.enum(['pending', 'approved', 'denied', 'expired', 'gone']);
const grant = z.object({
  id: z.string(),
  agent: z.string(),
  session: z.string(),
  tool: z.string(),
  argumentPattern: z.string().nullable(),
  argsHash: z.string().nullable(),
  operator: z.string(),
  approval: z.string().nullable(),
  /** The transport of the approved call; the grant covers calls through it only. */
  source: z.enum(['mcp', 'hook', 'api', 'console']).optional(),
  /** What it matches: `call` (absent: older grants) these arguments; `command`, `path`, `host` what the judge extracted, against `value`. */
  kind: z.enum(['call', 'command', 'path', 'host']).optional(),
  /** Whom it covers (absent: session). */
  scope: z.enum(['session', 'agent', 'everyone']).optional(),
  /** The command prefix, folder or host. */
  value: z.string().optional(),
  /** The operator let the Bash commands it allows run outside the box (containment); absent: contained. */
  uncontained: z.boolean().optional(),
  /** A command grant: the operations of the call it was made from; it covers no call that does others. */
  operations: z.array(operation).optional(),
  createdAt: z.number(),
  expiresAt: z.number(),
});
/** "Don't ask again for …": a command prefix (`npm test`), a folder, or a host, and whom it covers. */
const grantTarget = {
  kind: z.enum(['command', 'path', 'host'], { error: 'kind must be command (a command prefix), path (a folder) or host' }),
  value: z.string().trim().min(1, 'value is the command prefix, folder or host to grant').max(1024),
  scope: z.enum(['session', 'agent', 'everyone'], { error: 'scope must be session, agent or everyone' }).default('session'),
};
const proposedRule = z.object({
  name: z.string(),
  description: z.string(),
  actions: z.array(operation),
  block_paths: z.array(z.string()),
  block_hosts: z.array(z.string()),
  decision: z.string(),
  message: z.string(),
  /** The YAML that `always` appends to policy.yaml, shown before saving. */
  yaml: z.string(),
});
const approvalItem = z.object({
  id: z.string(),
  state: approvalState,
  call: toolCall,
  extraction,
  askedBy: decider,
  reason: z.string(),
  argsHash: z.string(),
  requestedAt: z.number(),
  expiresAt: z.number(),
  /** The nearest deadline (host clock, epoch ms): the approval expiry or the caller's own timeout, whichever comes first. */
  deadline: z.number(),
  /** Whose deadline it is: "approval expiry", "the hook's own timeout", "the MCP client's own timeout". */
  deadlineReason: z.string(),
  decidedAt: z.number().nullable(),
  operator: z.string().nullable(),
  scope: z.enum(['once', 'session', 'always']).nullable(),
  outcome: z.object({ state: z.enum(['approved', 'denied', 'expired', 'gone']), decider, reason: z.string() }).nullable(),
});
const approvalId = z.string().min(1).max(200);
const argsHash = z.string().regex(/^[0-9a-f]{64}$/, 'the argsHash of the item you were shown (64 hex digits)');
const batchResult = z.union([
  z.object({ id: z.string(), ok: z.literal(true), item: approvalItem }),
  z.object({ id: z.string(), ok: z.literal(false), error: z.object({ reason: z.string(), message: z.string() }) }),
]);
const toolGlobs = z.array(z.string().min(1).max(200)).max(500);
/** When a let-through Bash command is contained: autonomy levels, and "grants" (a grant or an allow rule). */
export const CONTAIN_WHEN = ['read-only', 'supervised', 'full', 'grants'] as const;
export type ContainWhen = (typeof CONTAIN_WHEN)[number];
export const DEFAULT_CONTAINMENT: readonly ContainWhen[] = ['full', 'grants'];
const settings = z.object({
  /** dry-run: calls are evaluated and shown, never executed. New installs start here. */
  mode: z.enum(['dry-run', 'live']),
  autonomy: z.enum(['read-only', 'supervised', 'full']),
  /** Tool-name globs that run without asking (unless a rule denies or asks). */
  autoApprove: toolGlobs,
  /** Tool-name globs that always ask (unless a rule denies). */
  alwaysAsk: toolGlobs,
  approvalExpiryMinutes: z.number().min(0.05).max(24 * 60),
  sessionGrantMinutes: z.number().min(1).max(7 * 24 * 60),
  /** Refuse to run any plugin when no OS sandbox is available. */
  requireSandbox: z.boolean(),
  /** A Claude Code hook call that policy asks about: answer `ask` at once (Claude Code asks its user), or wait in this inbox. */
  hookAsk: z.enum(['agent', 'inbox']),
  /**
   * A Claude Code hook call that only autonomy let through: "defer" answers with no decision, so
   * Claude Code's own permission prompts still apply; "allow" answers allow (Claude Code then skips them).
   */
  hookAutonomyAllow: z.enum(['defer', 'allow']),
  /** What `gatehouse hook` answers when no host is running. */
  hookUnreachable: z.enum(['deny', 'ask']),
  /**
   * Team mode, while the team database is unreachable: a call that would wait for an operator
   * waits in this machine's inbox ("local", the default) or is denied at once with the reason ("deny").
   */
  teamOutageAsks: z.enum(['local', 'deny']),
  /**
   * When a Bash command Gatehouse lets through runs in the box (main/runner/box.ts): allowed by
   * autonomy at these levels, or by a grant or an allow rule ("grants"). Default: full and grants.
   */
  containment: z.array(z.enum(CONTAIN_WHEN)).max(CONTAIN_WHEN.length).optional(),
  desktopNotifications: z.boolean(),
  /** Show audit events with secrets unmasked (console, search, export). Off: API keys, tokens, passwords are redacted. */
  auditRaw: z.boolean(),
  /** Audit retention: delete events older than this many days (0 keeps all). Pruned logs verify from a checkpoint. */
  auditRetentionDays: z.number().min(0).max(100 * 365),
  /** Audit retention: keep at most this many events (0 keeps all). */
  auditMaxEvents: z.number().int().min(0),
  /** MCP clients' tool-call timeouts in seconds, by clientInfo.name (codex-mcp-client: its tool_timeout_sec); an approval for that client expires 5 s before. */
  mcpClientTimeouts: z.record(z.string().min(1).max(64), z.number().min(1).max(7 * 24 * 3600)).optional(),
  /** How often the host refreshes every catalog source, in hours (0: only when asked). Default 6. */
  catalogRefreshHours: z.number().min(0).max(24 * 30).optional(),
  /** Hosts a module plugin's fetch may reach although they resolve to private or loopback addresses (a local test server, an intranet API); the host must still be under the plugin's declaredEndpoints. */
  modulePrivateHosts: z.array(z.string().min(1).max(253)).max(100).optional(),
});
const settingsView = settings.extend({
  /** Fields set for this run only (`gatehouse serve --live --autonomy …`); saving them changes the file, not this run. */
  overridden: z.array(z.string()),
  file: z.string(),
  /** The settings file could not be read; the safe defaults are used. */
  error: z.string().nullable(),
});
const policyProblem = z.object({ file: z.string(), line: z.number().int(), column: z.number().int(), message: z.string(), rule: z.string().optional(), example: z.string().optional() });
const exampleResult = z.object({ rule: z.string(), example: z.string(), expected: z.enum(['match', 'not_match']), ok: z.boolean(), line: z.number().int(), column: z.number().int(), detail: z.string() });
const ruleView = z.object({
  name: z.string(),
  description: z.string(),
  source: z.enum(['builtin', 'user', 'cli']),
  origin: z.string(),
  actions: z.array(operation),
  decision: z.string(),
  severity: z.string(),
  priority: z.number(),
  locked: z.boolean(),
  enabled: z.boolean(),
  hits: z.number().int(),
  /** What the rule matches, so a locked built-in can be read in full (its text is in no file). */
  paths: z.array(z.string()),
  except: z.array(z.string()),
  hosts: z.array(z.string()),
  /** What the agent is told when the rule decides. */
  message: z.string(),
});
const policyView = z.object({
  file: z.string(),
  text: z.string(),
  version: z.number().int(),
  error: z.string().nullable(),
  problems: z.array(policyProblem),
  examples: z.array(exampleResult),
  rules: z.array(ruleView),
});
// ---- agents' own configuration files: "write it for me" (main/agents/*, shared/agent-integrations.ts) ----
const claudeConfigFile = z.object({
  path: z.string(),
  /** settings: a settings.json (the hook); mcp: ~/.claude.json or .mcp.json (the MCP server). */
  kind: z.enum(['settings', 'mcp']),
  exists: z.boolean(),
  changed: z.boolean(),
  /** Unified diff, current → new; empty when the file already has what was asked. */
  diff: z.string(),
  /** SHA-256 of the current bytes ("absent" for no file); writeConfig refuses if the file no longer has it. */
  baseHash: z.string(),
  after: z.string(),
  /** What Gatehouse adds or replaces, in words. */
  changes: z.array(z.string()),
});

const agentTool = z.object({
  name: z.string(),
  description: z.string(),
  plugin: z.string().nullable(),
  kind: z.enum(['builtin', 'tool', 'mcp']),
});

// ---- first run: the Getting Started panel and the console's test call ---------------------------
const testCallView = z.object({
  call: z.string(),
  session: z.string(),
  tool: z.string(),
  /** "console-test": the agent name test calls carry (their source is "console"). */
  agent: z.string(),
  operator: z.string(),
  sentAt: z.number(),
  /** The plugin that provides the tool (for its Health row); null for a built-in or unknown tool. */
  plugin: z.string().nullable(),
  /** sent → waiting (in the inbox) → decided → finished (the result is recorded), read from the audit log. */
  stage: z.enum(['sent', 'waiting', 'decided', 'finished']),
  /** Audit events recorded for the call so far. */
  recorded: z.number().int(),
  approval: z.string().nullable(),
  approvalState: approvalState.nullable(),
  /** The operator who approved or denied it in the inbox (or "host" when the host denied it on stop). */
  approvedBy: z.string().nullable(),
  decision: z.enum(['allow', 'deny', 'ask', 'expired']).nullable(),
  /** Who decided, in the words agents are given ("operator alice", "autonomy supervised"). */
  decidedBy: z.string().nullable(),
  reason: z.string().nullable(),
  executed: z.boolean().nullable(),
  mode: z.enum(['dry-run', 'live']).nullable(),
  ok: z.boolean().nullable(),
  /** What the tool printed (first 4,096 characters, redacted like the audit view). */
  output: z.string().nullable(),
});
const gettingStartedView = z.object({
  dismissed: z.boolean(),
  /** Every step was done once; the panel no longer opens by itself. */
  completed: z.boolean(),
  /** The bundled examples this home was given on its first run (null: none were offered). */
  examples: z.object({ from: z.string(), copied: z.array(z.string()) }).nullable(),
  plugin: z.object({
    name: z.string(),
    found: z.boolean(),
    status: pluginStatus.nullable(),
    dir: z.string().nullable(),
    scanPassed: z.boolean().nullable(),
    findingCount: z.number().int(),
    done: z.boolean(),
  }),
  agent: z.object({
    done: z.boolean(),
    /** The operator marked the step done without an agent call on record. */
    skipped: z.boolean(),
    /** The first agent call (MCP, hook or API) the audit log shows. */
    seen: z.object({ agent: z.string(), source: z.string(), at: z.number() }).nullable(),
  }),
  testCall: testCallView.nullable(),
  testCallDone: z.boolean(),
  mode: z.enum(['dry-run', 'live']),
});

// ---- long work: progress and cancel (main/host/jobs.ts). A console names the job it starts
// (`job` in the request), follows its jobs.progress events and may cancel it while it runs.
const jobId = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'a job id is 1-100 letters, digits, "_", ".", ":" or "-"');
const jobView = z.object({
  id: z.string(),
  kind: z.enum(['audit.verify', 'audit.export', 'audit.replay', 'plugins.scan']),
  /** What is being done: "Verifying the audit chain". */
  title: z.string(),
  /** What done and total count: events, calls, plugins. */
  unit: z.string(),
  state: z.enum(['running', 'done', 'failed', 'cancelled']),
  done: z.number().int().nonnegative(),
  /** null while the size is not known yet. */
  total: z.number().int().nonnegative().nullable(),
  /** Who started it, as the audit log names actors ("operator:alice", "host"). */
  by: z.string(),
  /** False for work the host cannot do without (its first plugin scan). */
  cancellable: z.boolean(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  /** Why it failed or how far it got before it was cancelled. */
  message: z.string().nullable(),
});

/** Request/response schemas of every method, keyed by the method's wire name. */
export const methods = {
  'host.info': {
    request: empty,
    response: z.object({
      version: z.string(),
      shell: z.enum(['electron', 'serve', 'cli']),
      home: z.string(),
      pid: z.number().int(),
      startedAt: z.number().int(),
      operator: z.string(),
    }),
  },
  /**
   * This host's link to the team database (`gatehouse serve --team`): shipping state, lag, the last
   * error; null when the host is not in team mode.
   */
  'team.status': {
    request: empty,
    response: teamLinkStatus.nullable(),
  },
  /**
   * The Team view: this host's link and the team's members as `gatehouse team status` lists them,
   * read with this host's own team URL (a member's database role sees only its own member:
   * `ownMemberOnly`). Not in team mode: `team` null. `error`: the database could not be read.
   */
  'team.members': {
    request: empty,
    response: z.object({
      team: z
        .object({
          member: z.string(),
          /** The team URL without its password. */
          url: z.string(),
          link: teamLinkStatus,
          members: z.array(teamMember).nullable(),
          ownMemberOnly: z.boolean(),
          error: z.string().nullable(),
        })
        .nullable(),
    }),
  },
  /**
   * The inbox's other machines: the pending asks other members published to the team inbox (this
   * host's own are in approvals.list), as `gatehouse approvals list --team` lists them. Not in team
   * mode: `asks` null. `error`: the team database could not be read.
   */
  'team.asks': {
    request: empty,
    response: z.object({ asks: z.array(teamAsk).nullable(), now: z.number(), error: z.string().nullable() }),
  },
  /**
   * OPERATOR ACTION: decides another member's team ask, signed with this home's operator key, as
   * `gatehouse approvals approve|deny ID --team` does; bound to the arguments hash the operator saw.
   * `stored`: the member applies it once the signature checks; `taken`/`closed`: not stored, `message` says why.
   */
  'team.decide': {
    request: z
      .object({
        member: z.string().min(1).max(64),
        approvalId,
        argsHash,
        decision: z.enum(['approved', 'denied']),
        reason: z.string().trim().max(2000).optional(),
        /** The operator to sign as, when this home holds several keys. */
        operator: z.string().min(1).max(64).optional(),
      })
      .strict(),
    response: z.object({ outcome: z.enum(['stored', 'taken', 'closed']), operator: z.string(), message: z.string() }),
  },
  /** Re-checks the whole chain as a job (progress in events, cancellable); the result is also pushed as audit.chain. */
  'audit.verify': {
    request: z.object({ job: jobId.optional() }).strict(),
    response: chainState,
  },
  'audit.chainState': {
    request: empty,
    response: chainState,
  },
  'audit.tail': {
    request: z.object({ limit: z.number().int().min(1).max(1000).default(100) }).strict(),
    response: z.object({ events: z.array(auditEvent) }),
  },
  // ---- incident review (issue #6). Events leave the host redacted (secrets masked) unless the
  // operator opted in to raw values in Settings.
  /** FTS5 query over tool names, arguments, reasons, outputs and transcripts, plus facets; newest first, paged by seq. */
  'audit.search': {
    request: z
      .object({
        /** FTS5 syntax ("rm AND tmp", "\"exact phrase\"", prefix*); empty: every event. */
        query: z.string().max(2000).default(''),
        from: z.number().int().optional(),
        to: z.number().int().optional(),
        agent: z.string().max(500).optional(),
        session: z.string().max(500).optional(),
        plugin: z.string().max(500).optional(),
        decision: z.string().max(50).optional(),
        severity: z.string().max(50).optional(),
        types: z.array(z.string().max(200)).max(100).optional(),
        /** Cursor: only events with seq below this (the previous page's last seq). */
        before: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(1000).default(200),
        /**
         * 'local': this host's own log (FTS5). 'team' (team mode): every member's shipped events in the
         * team database (PostgreSQL web-search syntax: words, "a phrase", OR, -word), as
         * `gatehouse audit search --team`, each event with its `member`; no severity facet or paging yet.
         */
        scope: z.enum(['local', 'team']).default('local'),
        /** Team scope: one member's events. */
        member: z.string().max(64).optional(),
      })
      .strict(),
    response: z.object({
      events: z.array(auditEvent),
      /** Matching events, counted up to `countCap`. */
      total: z.number().int(),
      totalCapped: z.boolean(),
      nextBefore: z.number().int().nullable(),
      tookMs: z.number(),
    }),
  },
  /** One event, and the other events of the same call (by payload.call) in order. */
  'audit.get': {
    request: z.object({ seq: z.number().int().positive() }).strict(),
    response: z.object({ event: auditEvent, related: z.array(auditEvent) }),
  },
  /** A session's whole story in order: calls, decisions, approvals, executions, outputs, PTY transcript. */
  'audit.session': {
    request: z.object({ session: z.string().min(1).max(500), limit: z.number().int().min(1).max(100_000).default(10_000) }).strict(),
    response: z.object({ events: z.array(auditEvent), truncated: z.boolean() }),
  },
  /** The current filter as redacted JSONL (one event per line), at most `limit` lines. */
  'audit.export': {
    request: z
      .object({
        query: z.string().max(2000).default(''),
        from: z.number().int().optional(),
        to: z.number().int().optional(),
        agent: z.string().max(500).optional(),
        session: z.string().max(500).optional(),
        plugin: z.string().max(500).optional(),
        decision: z.string().max(50).optional(),
        severity: z.string().max(50).optional(),
        types: z.array(z.string().max(200)).max(100).optional(),
        limit: z.number().int().min(1).max(1_000_000).default(100_000),
        job: jobId.optional(),
      })
      .strict(),
    response: z.object({ jsonl: z.string(), count: z.number().int(), truncated: z.boolean() }),
  },
  /**
   * Shadow mode: today's policy (or `policyText`, a draft) over the recorded calls of a session or
   * a time range; which decisions would change and why. Changes nothing.
   */
  'audit.replay': {
    request: z
      .object({
        session: z.string().max(500).optional(),
        from: z.number().int().optional(),
        to: z.number().int().optional(),
        policyText: z.string().max(1 << 20).optional(),
        limit: z.number().int().min(1).max(100_000).default(10_000),
        job: jobId.optional(),
      })
      .strict(),
    response: z.object({
      calls: z.array(
        z.object({
          call: z.string(),
          seq: z.number().int(),
          ts: z.number().int(),
          agent: z.string(),
          session: z.string(),
          tool: z.string(),
          /** The shell command, or a short summary of the arguments: which call this row is. */
          command: z.string(),
          /** Asked and not answered yet when replayed: `recorded` is the ask. */
          waiting: z.boolean(),
          recorded: z.object({ decision: z.string(), decider: z.unknown(), reason: z.string() }).nullable(),
          replayed: z.object({ decision: z.string(), decider: z.unknown(), reason: z.string() }),
          changed: z.boolean(),
        }),
      ),
      changed: z.number().int(),
      policyProblems: z.array(z.object({ line: z.number().int(), column: z.number().int(), message: z.string() })),
    }),
  },
  'plugins.list': {
    request: empty,
    response: z.object({ plugins: z.array(pluginSummary), sources: z.array(z.object({ dir: z.string(), origin: z.enum(['home', 'project', 'cli']) })) }),
  },
  /** Discovers, validates and scans every plugin folder again, as a job; a cancelled rescan changes nothing. */
  'plugins.rescan': {
    request: z.object({ job: jobId.optional() }).strict(),
    response: z.object({ plugins: z.number().int(), tookMs: z.number() }),
  },
  'plugins.get': {
    request: z.object({ name: pluginName }).strict(),
    response: pluginDetail,
  },
  'plugins.readFile': {
    request: z.object({ name: pluginName, path: relPath }).strict(),
    response: z.object({ path: z.string(), content: z.string() }),
  },
  'plugins.writeFile': {
    request: z.object({ name: pluginName, path: relPath, content: z.string().max(1 << 20) }).strict(),
    response: z.object({ path: z.string(), bytes: z.number().int() }),
  },
  /** Validation problems and scan findings for unsaved editor text. */
  'plugins.check': {
    request: z.object({ name: pluginName, path: relPath, content: z.string().max(1 << 20) }).strict(),
    response: z.object({ problems: z.array(problem), findings: z.array(finding) }),
  },
  'plugins.create': {
    request: z.object({ name: z.string().regex(/^[a-zA-Z0-9-]{1,40}$/, 'use 1-40 letters, digits or "-"'), lang: z.enum(['sh', 'py', 'node', 'ts-module']) }).strict(),
    response: z.object({ name: z.string(), dir: z.string(), files: z.array(z.string()) }),
  },
  'plugins.enable': {
    request: z.object({ name: pluginName, overrideReason: z.string().max(2000).optional() }).strict(),
    response: pluginSummary,
  },
  'plugins.disable': {
    request: z.object({ name: pluginName }).strict(),
    response: pluginSummary,
  },
  'plugins.approveChange': {
    request: z.object({ name: pluginName, overrideReason: z.string().max(2000).optional() }).strict(),
    response: pluginSummary,
  },
  /** OPERATOR ACTION: puts a quarantined plugin's approved files back (undoes the change); audited. */
  'plugins.rollBack': {
    request: z.object({ name: pluginName }).strict(),
    response: pluginSummary,
  },
  /**
   * OPERATOR ACTION: lets a plugin's sandbox = "none" take effect (it then runs without the OS
   * sandbox), or takes that back. Bound to the plugin's pinned files; audited with the reason.
   */
  'plugins.setTrusted': {
    request: z
      .object({ name: pluginName, trusted: z.boolean(), reason: z.string().max(2000).optional() })
      .strict()
      .refine((r) => !r.trusted || (r.reason ?? '').trim() !== '', { message: 'trusting a plugin needs a reason (it is recorded in the audit log)', path: ['reason'] }),
    response: pluginSummary,
  },
  /** Catalog sources (main/catalog/), each with until when its verified metadata is valid and what was installed from it. */
  'catalog.sources': {
    request: empty,
    response: z.object({ sources: z.array(catalogSource) }),
  },
  /** Refreshes every source (tuf-js verification) and searches the signed indexes; a source that fails verification is listed with its error. */
  'catalog.search': {
    request: z.object({ query: z.string().max(200) }).strict(),
    response: z.object({ results: z.array(catalogResult), errors: z.array(z.object({ source: z.string(), message: z.string() })) }),
  },
  /**
   * OPERATOR ACTION: verifies a plugin from a source; with consent false it only answers the consent
   * (nothing written), with consent true it installs (disabled) and is audited. A wider update also
   * needs allowWider.
   */
  'catalog.install': {
    request: z.object({ source: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a source name: lowercase letters, digits and dashes'), spec: z.string().min(1).max(200), consent: z.boolean(), allowWider: z.boolean().optional() }).strict(),
    response: z.object({ consent: catalogConsent.nullable(), installed: z.unknown().nullable() }),
  },
  /** Reads a root file the operator was given and answers its key ids, writing nothing: the console shows them for confirmation before catalog.addSource. */
  'catalog.previewSource': {
    request: z.object({ location: z.string().min(1).max(2000), rootJson: z.string().min(1).max(1 << 20) }).strict(),
    response: z.object({ rootKeyIds: z.array(z.string()), threshold: z.number().int().nullable(), expires: z.string().nullable() }),
  },
  /** OPERATOR ACTION: trusts a root for a new source; confirmKeyIds must equal the root's key ids the operator was shown. Refreshes once; audited. */
  'catalog.addSource': {
    request: z.object({ name: catalogSourceName, location: z.string().min(1).max(2000), rootJson: z.string().min(1).max(1 << 20), confirmKeyIds: z.array(z.string()).min(1) }).strict(),
    response: z.object({ name: z.string(), rootKeyIds: z.array(z.string()), expires: z.string().nullable(), error: z.string().nullable() }),
  },
  /** A plugin page: one version's signed record (description, permissions, limits, signer key ids, scan, source), the latest by default. */
  'catalog.plugin': {
    request: z.object({ source: catalogSourceName, name: z.string().min(1).max(100), version: z.string().max(50).optional() }).strict(),
    response: catalogPage,
  },
  /** Refreshes every source now (the scheduled refresh does the same): revocations quarantine, same-or-narrower updates go to the plugins' approve-change flow, wider ones wait. */
  'catalog.refresh': {
    request: empty,
    response: z.object({ sources: z.array(z.object({ source: z.string(), ok: z.boolean(), error: z.string().nullable(), expires: z.string().nullable() })) }),
  },
  /** Newer signed versions of installed plugins, with what each widens or narrows; an update that widens waits for catalog.approveUpdate. */
  'catalog.updates': {
    request: empty,
    response: z.object({ updates: z.array(catalogUpdate) }),
  },
  /**
   * OPERATOR ACTION: installs an update (or, named by version, a downgrade). `widened` must list
   * exactly what the signed version widens, as the operator was shown it; audited.
   */
  'catalog.approveUpdate': {
    request: z.object({ source: catalogSourceName, name: z.string().min(1).max(100), version: z.string().min(1).max(50), widened: z.array(z.string()) }).strict(),
    response: z.object({ installed: z.object({ name: z.string(), version: z.string() }), widened: z.array(z.string()), narrowed: z.array(z.string()) }),
  },
  'health.list': {
    request: empty,
    response: z.object({
      plugins: z.array(healthRow),
      /** The host's clock, so a console can count down to nextProbeAt without trusting its own. */
      now: z.number(),
      sandbox: z.object({
        kind: z.enum(['bwrap', 'none']),
        detail: z.string(),
        /** Plugins that run without the sandbox because an operator trusted them (sandbox = "none"). */
        trusted: z.array(z.string()),
        /** Whether Bash commands let through without an operator reading them run in the box (runner/containment.ts). */
        containment: z.object({ available: z.boolean(), box: z.enum(['bwrap', 'seatbelt']).nullable(), detail: z.string(), when: z.array(z.enum(CONTAIN_WHEN)), scoped: z.boolean().optional() }).optional(),
      }),
      /** How late the host's event loop runs, in ms past when it was due (0 on an idle loop; main/host/event-loop-monitor.ts): a blocked loop delays every call. */
      eventLoop: eventLoopSnapshot.optional(),
    }),
  },
  /** An operator reset: the breaker closes and its counters clear. */
  'health.reset': {
    request: z.object({ name: pluginName }).strict(),
    response: healthRow,
  },
  /** Restarts a checker's processes (init replayed); for a tool it resets the breaker. */
  'health.restart': {
    request: z.object({ name: pluginName }).strict(),
    response: healthRow,
  },
  'plugins.testRun': {
    request: z.object({ name: pluginName, tool: z.string().optional(), input: z.record(z.string(), z.unknown()) }).strict(),
    response: z.object({
      ok: z.boolean(),
      stdout: z.string(),
      stderr: z.string(),
      exitCode: z.number().int().nullable(),
      durationMs: z.number(),
      error: z.string().nullable(),
      failure: z.string().nullable(),
      sandboxed: z.boolean(),
      /** wasm plugins: the fuel the call burnt, of its limit. */
      fuelUsed: z.number().int().optional(),
      fuelLimit: z.number().int().optional(),
    }),
  },
  // ---- terminals: PTY sessions. Output goes to attached consoles as terminals.output events;
  // each console acknowledges (terminals.ack) what its xterm.js has parsed, and the host pauses
  // the program while the slowest attached console is too far behind (main/pty/limits.ts).
  'terminals.list': {
    request: empty,
    response: z.object({ sessions: z.array(terminalSession) }),
  },
  /**
   * OPERATOR ACTION: opens a shell (default: the operator's login shell) or a command in a PTY
   * on the host, as the operator, recorded as such. Agents' PTY tools (the built-in `shell`
   * tool, `pty = true` plugins) are started by the runner after policy, never through this.
   */
  'terminals.start': {
    request: z.object({ command: z.string().min(1).max(4096).optional(), args: z.array(z.string().max(4096)).max(256).optional(), ...terminalSize }).strict(),
    response: terminalSession,
  },
  /** Starts sending this console the output; returns the scrollback and the seq it ends at (later events have higher seqs). */
  'terminals.attach': {
    request: z.object({ id: terminalId }).strict(),
    response: z.object({ session: terminalSession, buffer: z.string(), seq: z.number().int().nonnegative(), truncated: z.boolean() }),
  },
  'terminals.detach': {
    request: z.object({ id: terminalId }).strict(),
    response: empty,
  },
  /** Chars of terminals.output this console's terminal has written (call in xterm's write callback). */
  'terminals.ack': {
    request: z.object({ id: terminalId, chars: z.number().int().min(0).max(2 ** 31) }).strict(),
    response: empty,
  },
  /** Keystrokes or a paste; refused unless this console took the session over. */
  'terminals.input': {
    request: z.object({ id: terminalId, data: z.string().min(1).max(65536) }).strict(),
    response: empty,
  },
  /** The console's terminal was resized; applied for the controller, or any watcher while nobody has taken over. */
  'terminals.resize': {
    request: z.object({ id: terminalId, ...terminalSize }).strict(),
    response: z.object({ applied: z.boolean() }),
  },
  /** Audited (pty.take-over): from now on this console, and only it, may type. */
  'terminals.takeOver': {
    request: z.object({ id: terminalId }).strict(),
    response: terminalSession,
  },
  /** The controlling console stops typing: the terminal is read-only for everyone until a new take-over (audited). */
  'terminals.release': {
    request: z.object({ id: terminalId }).strict(),
    response: terminalSession,
  },
  /** SIGKILL to every process of the session; answers once the exit is recorded. */
  'terminals.kill': {
    request: z.object({ id: terminalId }).strict(),
    response: terminalSession,
  },

  // ---- terminal adapters (main/adapters/): ptywright's plugin.* and adapter.* methods. A refusal
  // is `rejected` with details { code: -32004, method, required_permission } (or reason
  // "server_did_not_grant_plugin_load"), the same data `gatehouse adapters --stdio` answers with.
  'plugin.capabilities': { request: z.object({}).strict(), response: z.record(z.string(), z.unknown()) },
  'plugin.validate_manifest': {
    request: z.object({ manifest: z.record(z.string(), z.unknown()) }).strict(),
    response: z.object({ valid: z.boolean(), problems: z.array(z.looseObject({ message: z.string(), code: z.string() })) }),
  },
  'plugin.load': { request: z.object({ manifest_path: z.string().min(1).max(4096) }).strict(), response: z.looseObject({ name: z.string() }) },
  'plugin.unload': { request: z.object({ plugin: z.string().min(1).max(64) }).strict(), response: empty },
  'adapter.list': { request: z.object({}).strict(), response: z.object({ plugins: z.array(z.looseObject({ name: z.string(), permissions: z.array(z.string()), quarantined: z.string().nullable() })) }) },
  'adapter.live': { request: z.object({}).strict(), response: z.object({ sessions: z.array(adapterSession) }) },
  'adapter.start': {
    request: z.object({ plugin: z.string().min(1).max(64), command: z.string().min(1).max(4096).optional(), args: z.array(z.string().max(4096)).max(256).optional(), cwd: z.string().min(1).max(4096).optional(), cols: terminalSize.cols.optional(), rows: terminalSize.rows.optional(), supervise: z.boolean().optional() }).strict(),
    response: adapterSession,
  },
  'adapter.send': { request: z.object({ session: adapterSessionId, prompt: z.string().max(65536) }).strict(), response: z.object({ actions: z.array(z.looseObject({ type: z.string() })), last_intent: z.string().nullable() }) },
  'adapter.wait': { request: z.object({ session: adapterSessionId, timeout_ms: z.number().int().min(1).max(120_000).optional() }).strict(), response: z.object({ matched: z.boolean(), matcher: z.unknown(), waited_ms: z.number() }) },
  'adapter.snapshot': {
    request: z.object({ session: adapterSessionId }).strict(),
    response: z.object({ cols: z.number(), rows: z.number(), lines: z.array(z.string()), cursor: z.object({ row: z.number(), col: z.number() }) }),
  },
  'adapter.state': { request: z.object({ session: adapterSessionId }).strict(), response: adapterClassification },
  'adapter.inspect': { request: z.object({ session: adapterSessionId }).strict(), response: z.record(z.string(), z.unknown()) },
  'adapter.transcript': { request: z.object({ session: adapterSessionId }).strict(), response: z.object({ text: z.string(), truncated: z.boolean() }) },
  'adapter.close': { request: z.object({ session: adapterSessionId }).strict(), response: adapterSession },

  // ---- gateway (operator side). Agents never reach these: they hold the agent token, which
  // opens only /mcp and the hook route.
  /** Where agents connect, and the agent token to give them (operators only). */
  'gateway.info': {
    request: empty,
    response: z.object({
      mcpUrl: z.string().nullable(),
      hookUrl: z.string().nullable(),
      agentToken: z.string().nullable(),
      /** How the hook command starts Gatehouse by absolute path (node and entry, or the sh client); null: `gatehouse` from the PATH. */
      hookLauncher: z.object({ node: z.string(), entry: z.string(), env: z.record(z.string(), z.string()).optional(), shClient: z.string().optional() }).nullable().optional(),
      tools: z.array(agentTool),
      pending: z.number().int(),
    }),
  },
  /**
   * OPERATOR ACTION: sends one call through the real gateway (policy, approval, runner, audit) as
   * the agent "console-test" in a new session, with source "console". Answers once the call waits
   * in the inbox or is done; its progress is then read with gettingStarted.get.
   */
  'gateway.testCall': {
    request: z.object({ tool: z.string().min(1).max(64), arguments: z.record(z.string(), z.unknown()).default({}) }).strict(),
    response: testCallView,
  },
  'approvals.list': {
    request: z.object({ state: approvalState.optional(), agent: z.string().optional(), session: z.string().optional(), tool: z.string().optional() }).strict(),
    response: z.object({ items: z.array(approvalItem), now: z.number() }),
  },
  'approvals.get': {
    request: z.object({ id: approvalId }).strict(),
    response: approvalItem,
  },
  /**
   * The file on disk a waiting Write/Edit/MultiEdit call would change, for a diff. Names the
   * approval, never a path: the host reads only that call's own file_path, up to 512 KB, while it waits.
   */
  'approvals.fileBefore': {
    request: z.object({ id: approvalId }).strict(),
    response: z.object({ path: z.string(), exists: z.boolean(), size: z.number(), content: z.string().nullable(), note: z.string().nullable() }),
  },
  /** The user rule an `always` approval would write, for the operator to read before saving. */
  'approvals.proposeRule': {
    request: z.object({ id: approvalId }).strict(),
    response: proposedRule,
  },
  /** Bound to the arguments the operator saw: a different argsHash is refused. */
  'approvals.approve': {
    request: z
      .object({
        id: approvalId,
        argsHash,
        scope: z.enum(['once', 'session', 'always']).default('once'),
        sessionMinutes: z.number().min(1).max(7 * 24 * 60).optional(),
        argumentPattern: z.string().min(1).max(4096).optional(),
      })
      .strict(),
    response: z.object({ item: approvalItem, grant: grant.nullable(), rule: proposedRule.nullable() }),
  },
  'approvals.deny': {
    request: z.object({ id: approvalId, reason: z.string().trim().min(1, 'a denial needs a reason; the agent is shown it').max(2000) }).strict(),
    response: approvalItem,
  },
  /** A filtered selection at once; each item is checked on its own (its hash, its state). */
  'approvals.batch': {
    request: z
      .object({
        action: z.enum(['approve', 'deny']),
        items: z.array(z.object({ id: approvalId, argsHash })).min(1).max(1000),
        scope: z.enum(['once', 'session']).default('once'),
        reason: z.string().trim().max(2000).optional(),
      })
      .strict(),
    response: z.object({ results: z.array(batchResult) }),
  },
  'grants.list': {
    request: empty,
    response: z.object({ grants: z.array(grant), now: z.number() }),
  },
  'grants.revoke': {
    request: z.object({ id: z.string().min(1).max(200) }).strict(),
    response: z.object({ revoked: z.boolean() }),
  },
  /**
   * OPERATOR ACTION: approves this waiting call once and saves a command-prefix, folder or host
   * grant that covers it (refused, changing nothing, when it would not). Bound to the arguments
   * the operator saw, like approvals.approve; audited (approval.decided, grant.created).
   */
  'approvals.grant': {
    request: z
      .object({
        id: approvalId,
        argsHash,
        ...grantTarget,
        minutes: z.number().int('minutes is a whole number').min(1, 'minutes is at least 1').max(30 * 24 * 60, 'minutes is at most 43200 (30 days)'),
        /** Let the Bash commands it allows run outside the box (containment). Default: contained. */
        uncontained: z.boolean().optional(),
      })
      .strict(),
    response: z.object({ item: approvalItem, grant }),
  },
  /**
   * What a candidate grant, made from a waiting call, would have matched in the last hour of
   * recorded calls (the audit log's calls and their extractions): a count and a few examples;
   * also whether it covers the call itself and, if not, why. Changes nothing.
   */
  'grants.preview': {
    request: z.object({ id: approvalId, ...grantTarget }).strict(),
    response: z.object({
      /** The value as the grant would keep it (a canonical prefix, a resolved folder, a host). */
      value: z.string(),
      coversCall: z.boolean(),
      reason: z.string().nullable(),
      since: z.number(),
      /** Recorded calls looked at (the last hour, within the grant's scope). */
      examined: z.number().int(),
      count: z.number().int(),
      /** Of those, the calls waiting in the inbox now: saving the grant releases them (unless a rule still asks). */
      waiting: z.number().int(),
      /** `decision` is the recorded one (allow, deny, ask, expired), or `waiting` for a call still in the inbox. */
      examples: z.array(z.object({ call: z.string(), ts: z.number(), agent: z.string(), session: z.string(), tool: z.string(), summary: z.string(), decision: z.string() })),
    }),
  },
  /** The agents Gatehouse writes configuration for (main/agents/index.ts): whether each is found on this host, and what it cannot guarantee. */
  'agents.integrations': {
    request: empty,
    response: z.object({
      agents: z.array(z.object({ id: z.enum(AGENT_IDS as [string, ...string[]]), displayName: z.string(), found: z.boolean(), evidence: z.array(z.string()), limits: z.array(z.string()) })),
    }),
  },
  /** What "write it for me" would change in one agent's files, one diff per file; changes nothing. */
  'agents.preview': {
    request: agentRequest,
    response: z.object({ files: z.array(claudeConfigFile), notes: z.array(z.string()) }),
  },
  /**
   * OPERATOR ACTION: writes what the preview showed, only if every file still has the hash the
   * preview was computed from (else nothing is written); keeps a backup of each changed file;
   * audited (agent.config-written, never the token).
   */
  'agents.write': {
    request: agentWriteRequest,
    response: z.object({ files: z.array(z.object({ path: z.string(), written: z.boolean(), created: z.boolean(), backup: z.string().nullable() })) }),
  },
  /** Named agent tokens (main/gateway/agent-tokens.ts): the agent name calls are filed under comes from the token. */
  'agents.tokens.list': {
    request: empty,
    response: z.object({ tokens: z.array(agentTokenInfo) }),
  },
  /** OPERATOR ACTION: a new token for a new agent; the token is in this answer only (Gatehouse keeps its SHA-256). Audited (agent.token-created). */
  'agents.tokens.create': {
    request: z.object({ name: agentTokenName }).strict(),
    response: z.object({ name: z.string(), token: z.string(), createdAt: z.number() }),
  },
  /** OPERATOR ACTION: the token is refused from the next request on. Audited (agent.token-revoked). */
  'agents.tokens.revoke': {
    request: z.object({ name: agentTokenName }).strict(),
    response: z.object({ revoked: z.boolean() }),
  },
  'settings.get': {
    request: empty,
    response: settingsView,
  },
  /** Audited; switching the mode is its own audit event. */
  'settings.update': {
    request: settings.partial().strict(),
    response: settingsView,
  },
  'policy.get': {
    request: empty,
    response: policyView,
  },
  /** Problems and example results for unsaved editor text; changes nothing. */
  'policy.check': {
    request: z.object({ text: z.string().max(1 << 20) }).strict(),
    response: z.object({ problems: z.array(policyProblem), examples: z.array(exampleResult), broken: z.boolean() }),
  },
  /** Saves policy.yaml when it has no errors (otherwise nothing is written and the problems come back). */
  'policy.save': {
    request: z.object({ text: z.string().max(1 << 20) }).strict(),
    response: z.object({ saved: z.boolean(), problems: z.array(policyProblem), examples: z.array(exampleResult), policy: policyView }),
  },
  /** Running jobs, then the most recent finished ones. */
  'jobs.list': {
    request: empty,
    response: z.object({ jobs: z.array(jobView) }),
  },
  /** Stops a running job at its next chunk; its request then fails with reason "cancelled". */
  'jobs.cancel': {
    request: z.object({ id: jobId }).strict(),
    response: z.object({ cancelled: z.boolean(), job: jobView.nullable() }),
  },
  /** The Getting Started panel: each step's state as the host sees it (registry, audit log, settings). */
  'gettingStarted.get': {
    request: empty,
    response: gettingStartedView,
  },
  /** Dismiss the panel (or bring it back), or mark the connect-an-agent step done without an agent. */
  'gettingStarted.update': {
    request: z.object({ dismissed: z.boolean().optional(), agentSkipped: z.boolean().optional() }).strict(),
    response: gettingStartedView,
  },
} as const;

/** Payload schemas of every event the host pushes, keyed by the event's wire name. */
export const events = {
  'audit.chain': chainState,
  /** Team mode: an ask in the team inbox was published, decided or closed: refetch team.asks. */
  'team.asksChanged': z.object({}),
  /** Team mode: this host's link moved (up, down, forked; its lag or shipped seq, at most every 250 ms). */
  'team.link': teamLinkStatus,
  'audit.appended': z.object({ lastSeq: z.number().int(), count: z.number().int() }),
  'host.stopping': z.object({ reason: z.string() }),
  /** The plugin list changed (discovery, hot reload, enable, quarantine…): refetch these. */
  'plugins.changed': z.object({ names: z.array(z.string()) }),
  /** A plugin's breaker or metrics changed: refetch health.list (consoles throttle this). */
  'health.changed': z.object({ name: z.string(), breaker: breakerSnapshot.nullable() }),
  /**
   * Terminal output, to attached consoles. seq grows by one per batch; drop seq <= the one attach
   * returned. `data` is the batch as UTF-8 bytes (xterm.js takes them as they are; on the
   * WebSocket a binary frame, shared/event-frame.ts); `chars` is its length as a string (UTF-16
   * code units), the unit terminals.ack counts in.
   */
  'terminals.output': z.object({ id: z.string(), seq: z.number().int().positive(), chars: z.number().int().nonnegative(), data: z.instanceof(Uint8Array) }),
  /** A terminal started, exited or changed hands (take-over): refetch terminals.list. */
  'terminals.changed': z.object({ id: z.string(), change: z.enum(['started', 'exited', 'controller']) }),
  /** A terminal adapter session started, classified its screen, asked, or ended: the row to show. */
  'adapters.changed': adapterSession,
  /** The inbox changed (new item, decision, expiry): refetch approvals.list. `added` names new items, for notifications. */
  'approvals.changed': z.object({ pending: z.number().int(), added: z.array(z.object({ id: z.string(), agent: z.string(), tool: z.string() })) }),
  /** A grant was created, revoked or expired: refetch grants.list. */
  'grants.changed': z.object({ count: z.number().int() }),
  'settings.changed': settingsView,
  /** policy.yaml was reloaded (good or broken): refetch policy.get. */
  'policy.changed': z.object({ version: z.number().int(), error: z.string().nullable() }),
  /** A job started, moved on (throttled) or ended. */
  'jobs.progress': jobView,
  /** A catalog source was added or refreshed, or something was installed or quarantined from one: refetch catalog.sources and catalog.updates. */
  'catalog.changed': z.object({ source: z.string() }),
  /** The tools agents see changed (tools/list_changed went to MCP clients). */
  'gateway.toolsChanged': z.object({ count: z.number().int() }),
} as const;

export type MethodSpec = { request: z.ZodType; response: z.ZodType };
export type MethodTable = Record<string, MethodSpec>;
export type EventTable = Record<string, z.ZodType>;
export interface Contract<M extends MethodTable = MethodTable, E extends EventTable = EventTable> {
  methods: M;
  events: E;
}

export const contract = { methods, events } satisfies Contract;
export type GatehouseContract = typeof contract;

export type Methods = typeof methods;
export type MethodName = keyof Methods;
/** What a caller passes: defaults may be omitted. */
export type RequestOf<M extends MethodName> = z.input<Methods[M]['request']>;
/** What a handler receives after validation: defaults are filled in. */
export type ParsedRequestOf<M extends MethodName> = z.output<Methods[M]['request']>;
export type ResponseOf<M extends MethodName> = z.output<Methods[M]['response']>;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

export type AuditEventView = z.output<typeof auditEvent>;
export type ProblemView = z.output<typeof problem>;
export type FindingView = z.output<typeof finding>;
export type PluginSummaryView = z.output<typeof pluginSummary>;
export type PluginDetailView = z.output<typeof pluginDetail>;
export type HealthRowView = z.output<typeof healthRow>;
export type BreakerSnapshotView = z.output<typeof breakerSnapshot>;
export type HealthMinuteView = z.output<typeof healthMinute>;
export type ChainState = z.output<typeof chainState>;
export type TerminalSessionView = z.output<typeof terminalSession>;
export type ApprovalItemView = z.output<typeof approvalItem>;
export type GrantView = z.output<typeof grant>;
export type CatalogSourceView = z.output<typeof catalogSource>;
export type CatalogResultView = z.output<typeof catalogResult>;
export type CatalogPageView = z.output<typeof catalogPage>;
export type CatalogUpdateView = z.output<typeof catalogUpdate>;
export type SettingsView = z.output<typeof settingsView>;
export type Settings = z.output<typeof settings>;
export type PolicyView = z.output<typeof policyView>;
export type DeciderView = z.output<typeof decider>;
export type ProposedRuleView = z.output<typeof proposedRule>;
export type GettingStartedView = z.output<typeof gettingStartedView>;
export type TestCallView = z.output<typeof testCallView>;
export type JobView = z.output<typeof jobView>;
export const settingsSchema = settings;

/** Errors cross every boundary as data, never as exceptions. */
export interface WireError {
  code: 'bad_request' | 'unknown_method' | 'unauthorized' | 'forbidden' | 'rejected' | 'internal' | 'unavailable';
  message: string;
  details?: unknown;
}
export type Envelope<T> = { ok: true; result: T } | { ok: false; error: WireError };

/** Electron IPC channel names; the preload and the Electron shell share them. */
export const ipcChannels = {
  invoke: 'gatehouse:invoke',
  event: 'gatehouse:event',
} as const;
