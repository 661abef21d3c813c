// The console's "Don't ask again for …": approvals.grant (approve this call and keep a
// command-prefix, folder or host grant that covers it) and grants.preview (what that grant would
// have matched in the last hour of recorded calls, before it is saved).
import type { GatehouseContract } from '../../shared/contract.js';
import { recentCalls } from '../audit/recent-calls.js';
import { redactText } from '../audit/redact.js';
import type { Clock } from '../core/clock.js';
import type { Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import { initExtractor } from '../policy/extract/index.js';
import type { Extraction } from '../policy/types.js';
import type { ApprovalQueue } from './approval-queue.js';
import { normaliseTarget, scopeCovers, targetCovers, type GrantScope, type TargetKind } from './grant-match.js';
import type { ApprovalItem } from './types.js';

type GrantMethods = 'approvals.grant' | 'grants.preview';
export type GrantHandlers = Pick<Handlers<GatehouseContract['methods']>, GrantMethods>;

export interface GrantHandlerDeps {
  approvals: ApprovalQueue;
  /** The audit log, flushed before a preview reads it so the newest calls count. */
  audit: { readonly db: import('better-sqlite3').Database; settle(): Promise<void> };
  clock: Clock;
  /** The home folder `~` means in a folder grant (the judge's). */
  home: string;
}

/** How far back a preview looks. */
export const PREVIEW_WINDOW_MS = 60 * 60_000;
const PREVIEW_EXAMPLES = 5;
const PREVIEW_BATCH = 250;

export function grantHandlers(deps: GrantHandlerDeps): GrantHandlers {
  const { approvals } = deps;

  const itemOf = (id: string): ApprovalItem => {
    const item = approvals.get(id);
    if (!item) throw new OperationError('not_found', `There is no approval ${id}; it may have left the inbox's history.`);
    return item;
  };

  // The prefix is parsed by the judge's grammar, which loads once per process.
  const candidate = async (item: ApprovalItem, kind: TargetKind, raw: string) => {
    await initExtractor();
    const value = normaliseTarget(kind, raw, deps.home);
    return { value, covers: targetCovers(kind, value, item.extraction, item.extraction.operations) };
  };

  return {
    'approvals.grant': async ({ id, argsHash, kind, value: raw, scope, minutes, uncontained }, ctx) => {
      const item = itemOf(id);
      // Checked before anything changes, so a refused grant leaves the call waiting as it was.
      if (item.argsHash !== argsHash) {
        throw new OperationError('stale', `Approval ${id} was not approved: the arguments you saw are not this call's. Reload the item and decide again.`);
      }
      const { value, covers } = await candidate(item, kind, raw);
      if (!covers.ok) {
        throw new OperationError('invalid', `value: a ${kind} grant for ${value} would not cover this call (${covers.reason}); approve it once instead, or choose another ${kind === 'path' ? 'folder' : kind}.`);
      }
      const approved = approvals.approve(id, { operator: ctx.operator, argsHash, scope: 'once' });
      // Everything that can be refused was checked above; what is left is the store failing to
      // keep the grant, after the call was released: say exactly that.
      const create = () => approvals.grants.create({
        agent: item.call.agent,
        session: item.call.session,
        tool: item.call.tool,
        operator: ctx.operator,
        expiresInMs: minutes * 60_000,
        approval: id,
        source: item.call.source,
        target: { kind, value },
        scope: scope as GrantScope,
        uncontained,
        operations: item.extraction.operations,
      });
      let grant;
      try {
        grant = create();
      } catch (err) {
        throw new OperationError('failed', `Approval ${id} was approved once, but the grant could not be saved (${err instanceof Error ? err.message : String(err)}); the next such call will ask again.`);
      }
      return { item: approved.item, grant };
    },

    'grants.preview': async ({ id, kind, value: raw, scope }) => {
      const item = itemOf(id);
      const { value, covers } = await candidate(item, kind, raw);
      const since = deps.clock.now() - PREVIEW_WINDOW_MS;
      await deps.audit.settle();
      const who = { scope: scope as GrantScope, agent: item.call.agent, session: item.call.session, source: item.call.source };
      const filter = scope === 'everyone' ? {} : scope === 'agent' ? { agent: item.call.agent } : { agent: item.call.agent, session: item.call.session };
      const calls = recentCalls(deps.audit.db, since, filter).filter((c) => c.call.id !== item.call.id && scopeCovers(who, c.call));
      // A call still in the inbox has no decision recorded yet: it is waiting (and saving the
      // grant would release it, unless a rule still asks about it).
      const waitingCalls = new Set(approvals.list({ state: 'pending' }).map((i) => i.call.id));
      let count = 0;
      let waiting = 0;
      const examples: Array<{ call: string; ts: number; agent: string; session: string; tool: string; summary: string; decision: string }> = [];
      let seen = 0;
      for (const c of calls) {
        // Judging a command costs a parse (about 0.2 ms): the event loop is given back between
        // batches, so a preview over thousands of calls never holds up the calls being judged.
        if (++seen % PREVIEW_BATCH === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        if (!c.extraction || !targetCovers(kind, value, c.extraction, item.extraction.operations).ok) continue;
        count++;
        const isWaiting = waitingCalls.has(c.call.id);
        if (isWaiting) waiting++;
        if (examples.length < PREVIEW_EXAMPLES) {
          examples.push({ call: c.call.id, ts: c.ts, agent: c.call.agent, session: c.call.session, tool: c.call.tool, summary: summaryOf(c.extraction), decision: isWaiting ? 'waiting' : (c.decision ?? 'unknown') });
        }
      }
      return { value, coversCall: covers.ok, reason: covers.ok ? null : covers.reason, since, examined: calls.length, count, waiting, examples };
    },
  };
}

/** One line for an example: the command, else the first path or host; secrets masked. */
function summaryOf(x: Extraction): string {
  const text = x.command || x.paths[0] || x.hosts[0] || x.operations.join(', ');
  const line = redactText(text);
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
