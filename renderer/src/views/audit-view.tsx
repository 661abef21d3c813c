// Incident review: search the audit log (FTS and facets) in a virtualized table, open an event
// with its call, open a session as a waterfall of its calls, verify the chain, export the filter as JSONL.
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../sync/client-context.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { JobStatus, useJob } from '../components/job-progress.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatAgo, formatDateTime, isoTime } from '../lib/format.ts';
import { chainStatus, useAuditStore } from '../stores/audit-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { closeEvent, exportFilter, openEvent, verifyChain } from '../sync/audit-actions.ts';
import { EventDetail } from './audit/event-detail.tsx';
import { ResultsTable, useAuditGrouping } from './audit/results-table.tsx';
import { SearchBar } from './audit/search-bar.tsx';
import { CallSteps, SessionTimeline } from './audit/session-timeline.tsx';
import '../styles/audit.css';
import { SafeText } from '../components/safe-text.tsx';
import { InlineError } from '../components/dialog-actions.tsx';

const statusLabel = { verified: 'Verified', broken: 'Broken', checking: 'Checking…', unknown: 'Not checked' } as const;

function ChainPanel() {
  const client = useClient();
  const { chain, verifying, verifyJob, verifyError, verifyNote, chainError } = useAuditStore(
    useShallow((s) => ({ chain: s.chain, verifying: s.verifying, verifyJob: s.verifyJob, verifyError: s.verifyError, verifyNote: s.verifyNote, chainError: s.chainError })),
  );
  const status = chainStatus({ chain, verifying });
  const job = useJob(verifyJob);

  return (
    <section className="panel audit-chain" aria-labelledby="chain-heading">
      <h2 id="chain-heading" className="panel-title">
        Hash chain{' '}
        <span className={`badge badge-${status}`} data-testid="audit-chain-badge" data-state={status}>
          {statusLabel[status]}
        </span>
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
          <button type="button" className="link-button" data-testid="audit-chain-first-bad" data-seq={chain.firstBad.seq} onClick={() => void openEvent(client, chain.firstBad!.seq)}>
            Row {chain.firstBad.seq}
          </button>{' '}
          does not match the chain: <SafeText text={chain.firstBad.reason} />. Events from this row on may have been edited or deleted.
        </p>
      ) : null}
      <InlineError error={chainError} prefix="Could not load the chain state" />
      <JobStatus job={job} note={verifyNote} testId="audit-verify" />
      <InlineError error={verifyError} prefix="Verification failed" />
    </section>
  );
}

function ResultsPanel() {
  const s = useAuditStore(
    useShallow((s) => ({
      loaded: s.eventsLoaded,
      count: s.events.length,
      total: s.total,
      capped: s.totalCapped,
      tookMs: s.tookMs,
      unavailable: s.searchUnavailable,
      tailError: s.tailError,
      searchError: s.searchError,
      searching: s.searching,
      exportResult: s.exportResult,
      exportError: s.exportError,
      exportNote: s.exportNote,
      exportJob: s.exportJob,
    })),
  );
  const exportJob = useJob(s.exportJob);
  const totalText = s.capped ? `${s.total.toLocaleString('en-US')}+` : s.total.toLocaleString('en-US');

  return (
    <section className="panel audit-results" aria-labelledby="events-heading" aria-busy={s.searching}>
      <h2 id="events-heading" className="panel-title">
        Events{' '}
        {s.loaded && !s.unavailable ? (
          <span className="panel-note">
            <span data-testid="audit-total" data-total={s.total} data-capped={s.capped}>
              {totalText} {s.total === 1 && !s.capped ? 'match' : 'matches'}
            </span>
            {s.tookMs !== null ? (
              <span data-testid="audit-took">
                {' '}
                in {s.tookMs < 10 ? s.tookMs.toFixed(1) : Math.round(s.tookMs)} ms
              </span>
            ) : null}
            , newest first
          </span>
        ) : null}
        <GroupToggle />
      </h2>
      {s.unavailable ? (
        <p className="audit-notice" role="status" data-testid="audit-unavailable">
          {s.unavailable} Showing the latest {s.count} events instead.
        </p>
      ) : null}
      <InlineError error={s.tailError} prefix="Could not load recent events" />
      {s.exportResult ? (
        <p className="audit-notice" role="status" data-testid="audit-export-result" data-count={s.exportResult.count}>
          Exported the {s.exportResult.count} {s.exportResult.count === 1 ? 'event' : 'events'} matching the current search and filters (only those) to {s.exportResult.file}
          {s.exportResult.truncated ? ' (truncated at the export limit)' : ''}.
        </p>
      ) : null}
      <JobStatus job={exportJob} note={s.exportNote} testId="audit-export" />
      <InlineError error={s.exportError} prefix="Export failed" testId="audit-export-error" />
      {s.loaded && s.count === 0 && !s.searchError ? (
        <EmptyState title="No events">{s.unavailable ? 'The audit log is empty.' : 'No event matches this search.'}</EmptyState>
      ) : !s.loaded && !s.tailError ? (
        <p className="muted">Events appear once the console is connected.</p>
      ) : s.count > 0 ? (
        <ResultsTable />
      ) : null}
    </section>
  );
}

/** Folds the results under their calls (each group row says how its call ended). */
function GroupToggle() {
  const { byCall, set } = useAuditGrouping();
  const team = useAuditStore((s) => s.filter.scope === 'team');
  return (
    <button
      type="button"
      className="button button-small audit-group-switch"
      data-testid="audit-group-by-call"
      aria-pressed={byCall && !team}
      disabled={team}
      title={team ? "Calls fold in this host's own log only (scope Local)" : "Fold each call's events under one row with the call's outcome"}
      onClick={() => set(!byCall)}
    >
      Group by call
    </button>
  );
}

/**
 * Escape puts the open event away (in a narrow window it is a drawer over the table), unless
 * something nearer the keyboard used the key: a dialog, the palette, a field being edited.
 */
function useEscapeClosesEvent(open: boolean): void {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t?.closest('input, textarea, select, [role="dialog"], dialog')) return;
      closeEvent();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
}

export function AuditView() {
  const client = useClient();
  const { verifying, exporting, unavailable, hasSelected, hasTimeline, team } = useAuditStore(
    useShallow((s) => ({ verifying: s.verifying, exporting: s.exporting, unavailable: s.searchUnavailable, hasSelected: s.selected !== null, hasTimeline: s.timeline !== null, team: s.filter.scope === 'team' })),
  );
  // With a session open, the event detail sits beside its waterfall; otherwise beside the results.
  const detailBesideResults = hasSelected && !hasTimeline;
  const connected = useConnectionStore((s) => s.state === 'connected');
  useEscapeClosesEvent(detailBesideResults);

  return (
    <ViewFrame
      id="audit"
      title="Audit"
      subtitle="Every step of every tool call, chained by SHA-256 so that an edit or a deletion is detectable."
      bodyClassName={hasTimeline ? 'audit-body audit-body-scroll' : 'audit-body'}
      actions={
        <>
          <button
            type="button"
            className="button"
            data-testid="audit-export"
            onClick={() => void exportFilter(client)}
            disabled={exporting || !connected || !!unavailable || team}
            aria-busy={exporting}
            title={team ? "The export covers this host's own log: switch the scope to Local" : 'Download only the events that match the current search and filters, as redacted JSONL'}
          >
            {exporting ? 'Exporting…' : 'Export filtered JSONL'}
          </button>
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
        </>
      }
    >
      <ChainPanel />
      <SearchBar />
      {hasTimeline ? (
        <div className="audit-waterfall-split">
          <SessionTimeline />
          <div className="audit-side">
            <CallSteps />
            <EventDetail />
          </div>
        </div>
      ) : null}
      <div className={detailBesideResults ? 'audit-split audit-split-open' : 'audit-split'}>
        <ResultsPanel />
        {detailBesideResults ? (
          <div className="audit-side">
            <EventDetail />
          </div>
        ) : null}
      </div>
    </ViewFrame>
  );
}
