// The audit.* methods of the contract: the chain's state and verification, search, export and
// replay. Long reads run as jobs (progress, cancel); events leave redacted unless the operator
// opted into raw values.
import type { GatehouseContract, ParsedRequestOf, ResponseOf } from '../../shared/contract.js';
import { OperationError } from '../core/operation-error.js';
import type { Handlers } from '../core/handlers.js';
import type { JobRunner } from '../core/job-runner.js';
import type { AuditQuery } from './audit-query.js';
import { READ_SETTLE_MS, type AuditStore } from './audit-store.js';
import type { ChainMonitor } from './chain-monitor.js';
import { redactEvent } from './redact.js';
import { replayCalls, type ReplayDeps } from './replay.js';

type AuditMethods = 'audit.verify' | 'audit.chainState' | 'audit.tail' | 'audit.search' | 'audit.get' | 'audit.session' | 'audit.export' | 'audit.replay';
export type AuditHandlers = Pick<Handlers<GatehouseContract['methods']>, AuditMethods>;

export interface AuditHandlerDeps {
  audit: AuditStore;
  query: AuditQuery;
  chain: ChainMonitor;
  jobs: JobRunner;
  /** The operator opted into unredacted values (settings.auditRaw). */
  raw: () => boolean;
  /** Replay judges recorded calls with today's policy (or a draft) and autonomy. */
  policy: ReplayDeps['policy'];
  autonomy: ReplayDeps['autonomy'];
  /** Team mode: the search over every member's shipped events (scope 'team'); absent outside team mode. */
  teamSearch?: (req: ParsedRequestOf<'audit.search'>) => Promise<ResponseOf<'audit.search'>>;
}

export function auditHandlers(d: AuditHandlerDeps): AuditHandlers {
  return {
    'audit.verify': ({ job }, ctx) => d.jobs.run({ id: job, kind: 'audit.verify', title: 'Verifying the audit chain', unit: 'events', by: `operator:${ctx.operator}` }, (j) => d.chain.verifyChunked(j)),
    'audit.chainState': () => d.chain.state(),
    'audit.tail': ({ limit }) => {
      const events = d.audit.tail(limit, READ_SETTLE_MS);
      return { events: d.raw() ? events : events.map(redactEvent) };
    },
    'audit.search': (req) => {
      if (req.scope === 'team') {
        if (!d.teamSearch) throw new OperationError('not-team', 'This host is not in team mode, so there is no team trail to search: start it with gatehouse serve --team URL, or search its own log (scope Local).');
        return d.teamSearch(req);
      }
      // This host's own events carry no member: a member facet here would match nothing, silently.
      if (req.member) throw new OperationError('team-facet', 'The member facet applies to the team scope: switch the scope to Team, or clear it.');
      return d.query.search(req);
    },
    'audit.get': ({ seq }) => d.query.get(seq),
    'audit.session': ({ session, limit }) => d.query.session(session, limit),
    'audit.export': ({ job, ...req }, ctx) => d.jobs.run({ id: job, kind: 'audit.export', title: 'Exporting audit events', unit: 'events', by: `operator:${ctx.operator}` }, (j) => d.query.export(req, j)),
    'audit.replay': ({ job, ...req }, ctx) =>
      d.jobs.run({ id: job, kind: 'audit.replay', title: 'Replaying the policy over recorded calls', unit: 'calls', by: `operator:${ctx.operator}` }, async (j) => {
        await d.audit.settle();
        return replayCalls({ db: d.audit.db, policy: d.policy, autonomy: d.autonomy }, req, j);
      }),
  };
}
