// One event: its payload as pretty JSON, its chain hash, and links to the other events of its
// call, to its session's timeline and to its plugin.
import { JsonView } from '../../components/json-view.tsx';
import { useClient } from '../../sync/client-context.ts';
import { pluginOf, summarize } from '../../lib/audit-summary.ts';
import { formatDateTime, isoTime } from '../../lib/format.ts';
import { useAuditStore } from '../../stores/audit-store.ts';
import { useUiStore } from '../../stores/ui-store.ts';
import { closeEvent, openEvent, openSession, sessionOf } from '../../sync/audit-actions.ts';
import { requestPlugin } from '../../sync/plugins-actions.ts';
import { SafeText } from '../../components/safe-text.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

export function EventDetail() {
  const client = useClient();
  const selected = useAuditStore((s) => s.selected);
  if (!selected) return null;
  const { event, related, loading, error } = selected;
  const session = sessionOf(event, related);
  const plugin = event ? (pluginOf(event) ?? related.map(pluginOf).find(Boolean) ?? null) : null;
  // A team event is another machine's (or this one's, as shipped): its session and plugin are not
  // in this host's log or registry, so they are shown, not linked.
  const member = selected.member;

  return (
    <section className="panel audit-detail" data-testid="audit-detail" data-seq={selected.seq} data-member={member} aria-labelledby="audit-detail-heading" aria-busy={loading}>
      <h2 id="audit-detail-heading" className="panel-title">
        {member !== undefined ? (
          <>
            <SafeText text={member} /> event #{selected.seq}
          </>
        ) : (
          <>Event #{selected.seq}</>
        )}
        {event ? <span className="mono panel-note">{event.type}</span> : null}
        <button type="button" className="button button-small audit-close" onClick={closeEvent} aria-label="Close the event">
          Close
        </button>
      </h2>
      <InlineError error={error} prefix="Could not load the event's call" testId="audit-detail-error" />
      {event ? (
        <>
          <dl className="facts">
            {member !== undefined ? (
              <>
                <dt>Member</dt>
                <dd className="mono" data-testid="audit-detail-member">
                  <SafeText text={member} />
                </dd>
              </>
            ) : null}
            <dt>Time</dt>
            <dd>
              <time dateTime={isoTime(event.ts)}>{formatDateTime(event.ts)}</time>
            </dd>
            <dt>Actor</dt>
            <dd>
              <SafeText text={event.actor} />
            </dd>
            <dt>Summary</dt>
            <dd>
              <SafeText text={summarize(event)} />
            </dd>
            <dt>Chain hash</dt>
            <dd className="mono audit-hash" data-testid="audit-detail-hash">
              {event.hash}
            </dd>
            {session && member !== undefined ? (
              <>
                <dt>Session</dt>
                <dd className="mono">
                  <SafeText text={session} />
                </dd>
              </>
            ) : null}
            {session && member === undefined ? (
              <>
                <dt>Session</dt>
                <dd>
                  <button type="button" className="link-button mono" data-testid="audit-session-link" onClick={() => void openSession(client, session)}>
                    <SafeText text={session} />
                  </button>{' '}
                  <span className="muted">(opens its timeline)</span>
                </dd>
              </>
            ) : null}
            {plugin && member !== undefined ? (
              <>
                <dt>Plugin</dt>
                <dd>
                  <SafeText text={plugin} />
                </dd>
              </>
            ) : null}
            {plugin && member === undefined ? (
              <>
                <dt>Plugin</dt>
                <dd>
                  <button
                    type="button"
                    className="link-button"
                    data-testid="audit-plugin-link"
                    onClick={() => {
                      useUiStore.getState().setView('plugins');
                      requestPlugin(client, plugin);
                    }}
                  >
                    <SafeText text={plugin} />
                  </button>
                </dd>
              </>
            ) : null}
          </dl>
          <JsonView value={event.payload} testId="audit-detail-json" className="audit-json" label="Payload" />
        </>
      ) : loading ? (
        <p className="muted">Loading…</p>
      ) : null}
      {related.length > 0 ? (
        <>
          <h3 className="audit-subtitle">The same call</h3>
          <ol className="audit-related">
            {related.map((r) => (
              <li key={r.seq}>
                <button
                  type="button"
                  className="link-button"
                  data-testid="audit-related-link"
                  data-seq={r.seq}
                  aria-current={r.seq === selected.seq ? 'true' : undefined}
                  onClick={() => void openEvent(client, r.seq)}
                >
                  <span className="mono">#{r.seq}</span>{' '}
                  <span className="mono">
                    <SafeText text={r.type} />
                  </span>
                </button>{' '}
                <span className="muted">
                  <SafeText text={summarize(r)} />
                </span>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}
