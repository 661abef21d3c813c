// The one table of everything that crosses between the host and a console.
// Both shells (Electron IPC and the served WebSocket), the preload and the renderer are driven
// from these two maps: adding an entry here is the whole job of adding a method or an event.
// The host validates every request and every response against these schemas at its boundary.
import { z } from 'zod';

const auditEvent = z.object({
  seq: z.number().int().positive(),
  ts: z.number().int(),
  type: z.string(),
  actor: z.string(),
  payload: z.unknown(),
  hash: z.string(),
});

const chainState = z.object({
  state: z.enum(['verified', 'broken', 'checking']),
  checked: z.number().int().nonnegative(),
  head: z.object({ seq: z.number().int().nonnegative(), hash: z.string() }),
  firstBad: z.object({ seq: z.number().int(), reason: z.string() }).nullable(),
  verifiedAt: z.number().int().nullable(),
});

const empty = z.object({}).strict();

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
  kind: z.enum(['tool', 'checker', 'mcp']).nullable(),
  description: z.string(),
  version: z.string().nullable(),
  dir: z.string(),
  origin: z.enum(['home', 'project', 'cli']),
  status: pluginStatus,
  format: z.enum(['wraithrun', 'gatehouse']).nullable(),
  toolNames: z.array(z.string()),
  errors: z.number().int(),
  warnings: z.number().int(),
  findingCount: z.number().int(),
  scanPassed: z.boolean().nullable(),
  scanWeight: z.number(),
  notes: z.array(z.string()),
  reloadErrors: z.number().int(),
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
    })
    .nullable(),
  changes: z.array(z.object({ path: z.string(), change: z.string(), diff: z.string().nullable() })),
  reloadProblems: z.array(problem),
});
const pluginName = z.string().min(1).max(200);
const relPath = z.string().min(1).max(4096);

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
  'audit.verify': {
    request: empty,
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
  'plugins.list': {
    request: empty,
    response: z.object({ plugins: z.array(pluginSummary), sources: z.array(z.object({ dir: z.string(), origin: z.enum(['home', 'project', 'cli']) })) }),
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
    request: z.object({ name: z.string().regex(/^[a-zA-Z0-9-]{1,40}$/, 'use 1-40 letters, digits or "-"'), lang: z.enum(['sh', 'py', 'node']) }).strict(),
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
    }),
  },
} as const;

/** Payload schemas of every event the host pushes, keyed by the event's wire name. */
export const events = {
  'audit.chain': chainState,
  'audit.appended': z.object({ lastSeq: z.number().int(), count: z.number().int() }),
  'host.stopping': z.object({ reason: z.string() }),
  /** The plugin list changed (discovery, hot reload, enable, quarantine…): refetch these. */
  'plugins.changed': z.object({ names: z.array(z.string()) }),
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
export type ChainState = z.output<typeof chainState>;

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
