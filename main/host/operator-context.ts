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

/** Events appended by operator calls, per context (directly or through the services they called). */
const recorded = new WeakMap<CallContext, number>();

/** How many events calls with context `ctx` appended: an answer is held for durability only when its call added some. */
export function recordedBy(ctx: CallContext): number {
  return recorded.get(ctx) ?? 0;
}

/** An operator action's event records the console it came from (electron, serve or cli), unless it says so already. */
export function withConsole(e: AuditEventInput, ctx: CallContext | undefined = operatorCall.getStore()): AuditEventInput {
  if (ctx) recorded.set(ctx, (recorded.get(ctx) ?? 0) + 1);
  if (!ctx || !e.actor.startsWith('operator:')) return e;
  const p = e.payload;
  if (p === null || typeof p !== 'object' || Array.isArray(p) || Object.hasOwn(p, 'console')) return e;
  return { ...e, payload: { ...(p as Record<string, unknown>), console: ctx.console } };
}
