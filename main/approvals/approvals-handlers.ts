// The approvals.* and grants.* methods of the contract that the inbox answers: listing and
// reading waiting calls, deciding them one at a time or in a batch, and the grants they leave.
// An "always" approval also adds a rule to policy.yaml: the rule is checked before the call is
// released, so a file that cannot take it changes nothing.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Clock } from '../core/clock.js';
import type { Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import type { PolicyEditor } from '../policy/policy-editor.js';
import { proposedRuleView } from '../policy/policy-file.js';
import { proposeAlwaysRule } from './always-rule.js';
import type { ApprovalQueue } from './approval-queue.js';
import { FileBeforeError, readFileBefore } from './file-before.js';

type ApprovalMethods = 'approvals.list' | 'approvals.get' | 'approvals.fileBefore' | 'approvals.proposeRule' | 'approvals.approve' | 'approvals.deny' | 'approvals.batch' | 'grants.list' | 'grants.revoke';
export type ApprovalHandlers = Pick<Handlers<GatehouseContract['methods']>, ApprovalMethods>;

export interface ApprovalHandlerDeps {
  approvals: ApprovalQueue;
  clock: Clock;
  policy: PolicyEditor;
  /** How long a session grant lasts when the operator does not say (settings.sessionGrantMinutes). */
  sessionGrantMinutes: () => number;
}

export function approvalHandlers(d: ApprovalHandlerDeps): ApprovalHandlers {
  const { approvals } = d;
  const itemOf = (id: string) => {
    const item = approvals.get(id);
    if (!item) throw new OperationError('not_found', `There is no approval ${id}.`);
    return item;
  };
  const ruleFor = (id: string, operator: string) => {
    const item = itemOf(id);
    return proposeAlwaysRule({ id, call: item.call, extraction: item.extraction, argsHash: item.argsHash, operator });
  };
  return {
    'approvals.list': (filter) => ({ items: approvals.list(filter), now: d.clock.now() }),
    'approvals.get': ({ id }) => itemOf(id),
    'approvals.fileBefore': async ({ id }) => {
      try {
        return await readFileBefore(approvals.get(id), id);
      } catch (err) {
        if (err instanceof FileBeforeError) throw new OperationError(err.reason, err.message);
        throw err;
      }
    },
    'approvals.proposeRule': ({ id }, ctx) => proposedRuleView(ruleFor(id, ctx.operator)),
    'approvals.approve': ({ id, argsHash, scope, sessionMinutes, argumentPattern }, ctx) => {
      // The rule is written before the call is released: if the file cannot take it, nothing changes.
      const nextText = scope === 'always' ? d.policy.withRule(ruleFor(id, ctx.operator)) : null;
      const r = approvals.approve(id, {
        operator: ctx.operator,
        argsHash,
        scope,
        ...(sessionMinutes !== undefined ? { sessionExpiresInMs: sessionMinutes * 60_000 } : scope === 'session' ? { sessionExpiresInMs: d.sessionGrantMinutes() * 60_000 } : {}),
        ...(argumentPattern !== undefined ? { argumentPattern } : {}),
      });
      if (nextText !== null && r.rule) d.policy.addRule(nextText, ctx.operator, { rule: r.rule.name, approval: id });
      return { item: r.item, grant: r.grant ?? null, rule: r.rule ? proposedRuleView(r.rule) : null };
    },
    'approvals.deny': ({ id, reason }, ctx) => approvals.deny(id, { operator: ctx.operator, reason }),
    'approvals.batch': ({ action, items, scope, reason }, ctx) => {
      if (action === 'deny') {
        if (!reason) throw new OperationError('invalid', 'A batch denial needs a reason; the agents are shown it.');
        return { results: approvals.denyMany(items.map((i) => i.id), { operator: ctx.operator, reason }) };
      }
      return { results: approvals.approveMany(items, { operator: ctx.operator, scope, sessionExpiresInMs: d.sessionGrantMinutes() * 60_000 }) };
    },
    'grants.list': () => ({ grants: approvals.grants.list(), now: d.clock.now() }),
    'grants.revoke': ({ id }, ctx) => {
      approvals.grants.revoke(id, ctx.operator);
      return { revoked: true };
    },
  };
}
