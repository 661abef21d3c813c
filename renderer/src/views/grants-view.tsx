// Grants: the session permissions operators gave ("approve for this session"), live. Each one
// lets one agent session repeat one tool call (exact arguments, or an argument pattern) until it
// expires or an operator revokes it. Refetched on grants.changed; nothing here polls.
import { useShallow } from 'zustand/react/shallow';
import type { GrantView } from '../../../shared/contract.ts';
import { useClient } from '../sync/client-context.ts';
import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatDateTime, isoTime } from '../lib/format.ts';
import { revokeGrant } from '../sync/approvals-actions.ts';
import { useGrantsStore } from '../stores/grants-store.ts';
import { formatCountdown } from '../stores/health-store.ts';
import { useSecondTick } from './health/use-second-tick.ts';
import '../styles/approvals.css';
import { SafeText, safeTitle } from '../components/safe-text.tsx';
import { LoadStatus } from '../components/load-status.tsx';

export function GrantsView() {
  const client = useClient();
  const { grants, loaded, listError, clockOffset, busy, actionError } = useGrantsStore(
    useShallow((s) => ({ grants: s.grants, loaded: s.loaded, listError: s.listError, clockOffset: s.clockOffset, busy: s.busy, actionError: s.actionError })),
  );
  const now = useSecondTick(grants.length > 0);

  return (
    <ViewFrame id="grants" title="Grants" subtitle="Permissions operators gave from the inbox: a call repeated in one session, or a command prefix, folder or host for a session, an agent or every agent, until it expires or is revoked.">
      <LoadStatus loaded={loaded} error={listError} failed="Could not load the grants" waiting="Grants appear once the console is connected." />
      {loaded && grants.length === 0 ? (
        <EmptyState title="No live grants">Approving a call “for this session” in the inbox creates a grant; it shows here until it expires or you revoke it.</EmptyState>
      ) : null}
      {grants.length > 0 ? (
        <section className="panel panel-table" aria-labelledby="grants-heading">
          <h2 id="grants-heading" className="panel-title">
            Live grants <span className="panel-note">{grants.length}</span>
          </h2>
          <div className="table-scroll">
            <table className="data-table grants-table" data-testid="grants-table">
              {/* Fixed layout: long agents, sessions and patterns ellipsize (full text in the title)
                  instead of widening the table, so Revoke stays on screen at any width. */}
              <colgroup>
                <col className="col-grant-agent" />
                <col className="col-grant-session" />
                <col className="col-grant-tool" />
                <col />
                <col className="col-grant-operator" />
                <col className="col-grant-expires" />
                <col className="col-grant-actions" />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Session</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Matches</th>
                  <th scope="col">Operator</th>
                  <th scope="col">Expires in</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {grants.map((g) => (
                  <GrantRow key={g.id} grant={g} now={now} clockOffset={clockOffset} busy={busy === g.id} error={actionError?.id === g.id ? actionError.message : null} onRevoke={() => void revokeGrant(client, g.id)} />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
    </ViewFrame>
  );
}

/** How each kind of grant reads in the Matches column. */
const KIND_TEXT = { command: 'command', path: 'folder', host: 'host', call: 'exact' } as const;

function GrantRow({ grant: g, now, clockOffset, busy, error, onRevoke }: { grant: GrantView; now: number; clockOffset: number; busy: boolean; error: string | null; onRevoke(): void }) {
  const expiresAt = g.expiresAt + clockOffset;
  const ms = expiresAt - now;
  const kind = g.kind ?? 'call';
  const scope = g.scope ?? 'session';
  return (
    <tr data-testid="grant-row" data-id={g.id} data-tool={g.tool} data-agent={g.agent} data-kind={kind} data-scope={scope}>
      <td title={scope === 'everyone' ? 'Every agent' : safeTitle(g.agent)}>
        {scope === 'everyone' ? <span className="muted">every agent</span> : <SafeText text={g.agent} />}
      </td>
      <td className="mono" title={scope === 'session' ? safeTitle(g.session) : 'Every session'} data-testid="grant-scope">
        {scope === 'session' ? <SafeText text={g.session} /> : <span className="muted">every session</span>}
      </td>
      <td className="mono" title={kind === 'call' ? safeTitle(g.tool) : `Granted from a ${safeTitle(g.tool)} call; covers any tool`}>
        {kind === 'call' ? <SafeText text={g.tool} /> : <span className="muted">any</span>}
      </td>
      <td className="mono" data-testid="grant-match" title={kind !== 'call' ? `${KIND_TEXT[kind]} ${safeTitle(g.value ?? '')}` : g.argumentPattern ? `Arguments matching ${safeTitle(g.argumentPattern)}` : g.argsHash ? `Exactly the arguments with hash ${g.argsHash}` : 'Any arguments'}>
        {kind !== 'call' ? (
          <>
            <span className="muted">{KIND_TEXT[kind]} </span>
            <SafeText text={kind === 'command' ? `${g.value ?? ''}:*` : (g.value ?? '')} />
            {g.uncontained ? (
              <span className="badge badge-checking" data-testid="grant-uncontained" title="The operator let the commands this grant allows run outside the box (containment).">
                uncontained
              </span>
            ) : null}
          </>
        ) : g.argumentPattern ? (
          <>
            <span className="muted">pattern </span>
            <SafeText text={g.argumentPattern} />
          </>
        ) : g.argsHash ? (
          <>
            <span className="muted">exact </span>
            {g.argsHash.slice(0, 12)}…
          </>
        ) : (
          <span className="muted">any</span>
        )}
      </td>
      <td title={g.operator}>{g.operator}</td>
      <td>
        <time className="mono" dateTime={isoTime(expiresAt)} title={`Expires ${formatDateTime(expiresAt)}; created ${formatDateTime(g.createdAt + clockOffset)}`} data-testid="grant-countdown">
          {ms > 0 ? formatCountdown(ms) : 'expiring…'}
        </time>
      </td>
      <td className="grant-actions">
        <button type="button" className="button button-small button-danger" data-testid="grant-revoke" disabled={busy} aria-busy={busy} onClick={onRevoke}>
          {busy ? 'Revoking…' : 'Revoke'}
        </button>
        {error ? (
          <span className="danger-text" role="alert">
            {' '}
            {error}
          </span>
        ) : null}
      </td>
    </tr>
  );
}
