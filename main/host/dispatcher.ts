// Turns one untrusted (method, params) pair into a validated handler call and an Envelope.
// Generic over the contract table, so neither shell knows any method by name.
import type { Envelope, MethodTable, WireError } from '../../shared/contract.js';
import { describeIssues, type CallContext, type Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';

// Re-exported so the shells and the composition root keep one import for the dispatcher's types.
export { describeIssues, type CallContext, type Handlers };

export interface Dispatcher {
  dispatch(method: unknown, params: unknown, ctx: CallContext): Promise<Envelope<unknown>>;
  readonly methodNames: readonly string[];
}

export function fail(code: WireError['code'], message: string, details?: unknown): Envelope<never> {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } };
}

/** The audit log's durability (AuditStore fits): an operator's action is acknowledged only once its events are on disk. */
export interface DispatchDurability {
  readonly headSeq: number;
  mark(): number;
  whenDurable(mark: number): Promise<void>;
  /** Why appends fail now; while they do, what was just recorded is not on disk either. */
  writeError(): string | null;
  /**
   * How many events calls with this context appended (compared before and after a call). Without
   * it, any append while the handler ran counts (the head moved), so a read could wait on agents'
   * writes, and under a lock held elsewhere fail for them.
   */
  recordedBy?(ctx: CallContext): number;
}

export function createDispatcher<M extends MethodTable>(methods: M, handlers: Handlers<M>, log: (msg: string, err: unknown) => void = console.error, durability?: DispatchDurability): Dispatcher {
  const names = Object.keys(methods);
  return {
    methodNames: names,
    async dispatch(method, params, ctx) {
      if (typeof method !== 'string' || !Object.hasOwn(methods, method)) {
        return fail('unknown_method', `Unknown method ${JSON.stringify(method)}. Known methods: ${names.join(', ')}.`);
      }
      const spec = methods[method as keyof M]!;
      const parsed = spec.request.safeParse(params ?? {});
      if (!parsed.success) {
        const { message, issues } = describeIssues(parsed.error);
        return fail('bad_request', `Invalid request for ${method}: ${message}.`, { issues });
      }
      let result: unknown;
      const head = durability?.headSeq;
      // A count, not a flag: a transport may hand every request of a connection the same context
      // (and services tell consoles apart by it), so what this call recorded is what the count gained.
      const own = durability?.recordedBy?.(ctx);
      const mark = durability?.mark();
      try {
        result = await handlers[method as keyof M](parsed.data as never, ctx);
        // Acknowledged means durable: an action that recorded events (an approval, a grant, a
        // setting) is answered only once they are committed, so "approved" on screen is never an
        // approval the log lost. A read that recorded nothing does not wait for other writers.
        // Or an event failed meanwhile (one left out of a lost call's trail never reaches recordedBy):
        // then the action is not acknowledged unless the log proves it.
        const recorded = durability?.recordedBy ? durability.recordedBy(ctx) !== own || durability.mark() !== mark : durability?.headSeq !== head;
        if (durability && mark !== undefined && recorded) {
          try {
            await durability.whenDurable(mark);
            const failing = durability.writeError();
            if (failing !== null) throw new Error(failing);
          } catch (err) {
            return fail('unavailable', `${method} was not recorded in the audit log (${err instanceof Error ? err.message : String(err)}); whatever it changed is not acknowledged, and calls are denied until the log can be written.`);
          }
        }
      } catch (err) {
        if (err instanceof OperationError) return fail('rejected', err.message, { reason: err.reason, ...err.data });
        log(`handler ${method} failed`, err);
        const message = err instanceof Error ? err.message : String(err);
        return fail('internal', `${method} failed: ${message}`);
      }
      const checked = spec.response.safeParse(result);
      if (!checked.success) {
        // The host broke its own contract: report it rather than hand the renderer bad data.
        log(`handler ${method} returned a response outside the contract`, checked.error);
        return fail('internal', `${method} returned a malformed response: ${describeIssues(checked.error).message}.`);
      }
      return { ok: true, result: checked.data };
    },
  };
}
