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

/** Request/response schemas of every method, keyed by the method's wire name. */
export const methods = {
  'host.info': {
    request: empty,
    response: z.object({
      version: z.string(),
      shell: z.enum(['electron', 'serve']),
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
} as const;

/** Payload schemas of every event the host pushes, keyed by the event's wire name. */
export const events = {
  'audit.chain': chainState,
  'audit.appended': z.object({ lastSeq: z.number().int(), count: z.number().int() }),
  'host.stopping': z.object({ reason: z.string() }),
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
export type ChainState = z.output<typeof chainState>;

/** Errors cross every boundary as data, never as exceptions. */
export interface WireError {
  code: 'bad_request' | 'unknown_method' | 'unauthorized' | 'forbidden' | 'internal' | 'unavailable';
  message: string;
  details?: unknown;
}
export type Envelope<T> = { ok: true; result: T } | { ok: false; error: WireError };

/** Electron IPC channel names; the preload and the Electron shell share them. */
export const ipcChannels = {
  invoke: 'gatehouse:invoke',
  event: 'gatehouse:event',
} as const;
