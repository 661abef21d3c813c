import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../app/client-context.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatAgo, formatDateTime, formatEventTime, isoTime } from '../lib/format.ts';
import { AUDIT_TAIL_LIMIT, chainStatus, useAuditStore } from '../stores/audit-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { verifyChain } from '../sync/audit-actions.ts';

const statusLabel = { verified: 'Verified', broken: 'Broken', checking: 'Checking…', unknown: 'Not checked' } as const;

function ChainPanel() {
  const { chain, verifying, verifyError, chainError } = useAuditStore(
    useShallow((s) => ({ chain: s.chain, verifying: s.verifying, verifyError: s.verifyError, chainError: s.chainError })),
  );
  const status = chainStatus({ chain, verifying });

  return (
    <section className="panel" aria-labelledby="chain-heading">
      <h2 id="chain-heading" className="panel-title">
        Hash chain <span className={`badge badge-${status}`}>{statusLabel[status]}</span>
      </h2>
      {chain ? (
        <dl className="facts facts-inline">
          <dt>Events checked</dt>
          <dd className="mono">{chain.checked}</dd>
          <dt>Head</dt>
          <dd className="mono" title={chain.head.hash || undefined}>
            #{chain.head.seq} {chain.head.hash.length > 16 ? `${chain.head.hash.slice(0, 16)}…` : chain.head.hash}
          </dd>
          <dt>Last verified</dt>
          <dd>
            {chain.verifiedAt !== null ? (
              <time dateTime={isoTime(chain.verifiedAt)} title={formatAgo(chain.verifiedAt)}>
                {formatDateTime(chain.verifiedAt)}
              </time>
            ) : (
              'never'
            )}
          </dd>
        </dl>
      ) : chainError ? null : (
        <p className="muted">The chain state appears once the console is connected.</p>
      )}
      {chain?.state === 'broken' && chain.firstBad ? (
        <p className="inline-error" role="alert">
          Row {chain.firstBad.seq} does not match the chain: {chain.firstBad.reason}. Events from this row on may have been edited or deleted.
        </p>
      ) : null}
      {chainError ? (
        <p className="inline-error" role="alert">
          Could not load the chain state: {chainError}
        </p>
      ) : null}
      {verifyError ? (
        <p className="inline-error" role="alert">
          Verification failed: {verifyError}
        </p>
      ) : null}
    </section>
  );
}

function EventsTable() {
  const { events, loaded, tailError } = useAuditStore(useShallow((s) => ({ events: s.events, loaded: s.eventsLoaded, tailError: s.tailError })));
  const now = Date.now();

  return (
    <section className="panel panel-table" aria-labelledby="events-heading">
      <h2 id="events-heading" className="panel-title">
        Recent events <span className="panel-note">newest first, last {AUDIT_TAIL_LIMIT}</span>
      </h2>
      {tailError ? (
        <p className="inline-error" role="alert">
          Could not load recent events: {tailError}
        </p>
      ) : null}
      {loaded && events.length === 0 ? (
        <EmptyState title="No events">The audit log is empty.</EmptyState>
      ) : !loaded && !tailError ? (
        <p className="muted">Recent events appear once the console is connected.</p>
      ) : (
        <div className="table-scroll">
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col" className="col-seq">
                  Seq
                </th>
                <th scope="col" className="col-time">
                  Time
                </th>
                <th scope="col">Type</th>
                <th scope="col">Actor</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.seq} data-testid="audit-row" data-seq={e.seq}>
                  <td className="mono col-seq">{e.seq}</td>
                  <td className="mono col-time">
                    <time dateTime={isoTime(e.ts)} title={formatDateTime(e.ts)}>
                      {formatEventTime(e.ts, now)}
                    </time>
                  </td>
                  <td className="mono">{e.type}</td>
                  <td>{e.actor}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function AuditView() {
  const client = useClient();
  const verifying = useAuditStore((s) => s.verifying);
  const connected = useConnectionStore((s) => s.state === 'connected');

  return (
    <ViewFrame
      id="audit"
      title="Audit"
      subtitle="Every step of every tool call, chained by SHA-256 so that an edit or a deletion is detectable."
      actions={
        <button
          type="button"
          className="button button-primary"
          data-testid="audit-verify"
          onClick={() => void verifyChain(client)}
          disabled={verifying || !connected}
          aria-busy={verifying}
          title={connected ? 'Recompute every hash in the audit log and compare it with the stored chain' : 'Available once the console is connected'}
        >
          {verifying ? 'Verifying…' : 'Verify chain'}
        </button>
      }
    >
      <ChainPanel />
      <EventsTable />
    </ViewFrame>
  );
}
