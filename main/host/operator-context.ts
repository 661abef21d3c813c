// Which console an operator action came from: the handler being run is remembered for the
// duration of its call (AsyncLocalStorage), so every event it appends, directly or through the
// services it calls, records the console without each service being told.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditEventInput } from '../audit/audit-store.js';
import type { CallContext } from './dispatcher.js';

/**
 * The operator call being handled, so the events it appends (directly or through the services
 * it calls) can say which console the action came from.
 */
const operatorCall = new AsyncLocalStorage<CallContext>();

export function inCallContext<H extends Record<string, (req: never, ctx: CallContext) => unknown>>(handlers: H): H {
  const out: Record<string, (req: never, ctx: CallContext) => unknown> = {};
  for (const [name, h] of Object.entries(handlers)) out[name] = (req, ctx) => operatorCall.run(ctx, () => h(req, ctx));
  return out as H;
}

/** Operator calls that appended events (directly or through the services they called). */
const recording = new WeakSet<CallContext>();

/** Whether the operator call `ctx` appended events: only then is its answer held until they are durable. */
export function recordedBy(ctx: CallContext): boolean {
  return recording.has(ctx);
}

/** An operator action's event records the console it came from (electron, serve or cli), unless it says so already. */
export function withConsole(e: AuditEventInput, ctx: CallContext | undefined = operatorCall.getStore()): AuditEventInput {
  if (ctx) recording.add(ctx);
  if (!ctx || !e.actor.startsWith('operator:')) return e;
  const p = e.payload;
  if (p === null || typeof p !== 'object' || Array.isArray(p) || Object.hasOwn(p, 'console')) return e;
  return { ...e, payload: { ...(p as Record<string, unknown>), console: ctx.console } };
}
