// The inbox's other machines (team mode): the asks other members published to the team inbox, each
// with its machine, decided here as `gatehouse approvals approve|deny ID --team` decides them:
// signed on the host with this home's operator key, bound to the arguments on screen. The member
// that asked applies the decision once the signature checks, and the ask leaves every list.
// Agent-supplied text (tool, arguments, folder, agent, session, reason) goes through SafeText. The
// folder is part of what an operator signs: it decides where the arguments' relative paths land.
import { useState } from 'react';
import type { TeamAskView } from '../../../../shared/contract.ts';
import { EmptyState } from '../../components/empty-state.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { useClient } from '../../sync/client-context.ts';
import { decideTeamAsk } from '../../sync/team-actions.ts';
import { askKey } from '../../stores/team-store.ts';
import { ExpiryCountdown } from './countdown.tsx';
import { DenyDialog } from './deny-dialog.tsx';

export interface TeamAsksProps {
  asks: TeamAskView[];
  /** Every other member's asks before the machine filter (to say what the filter hides). */
  total: number;
  error: string | null;
  clockOffset: number;
  now: number;
  deciding: string | null;
  decided: { key: string; ok: boolean; message: string } | null;
}

/** Arguments as one line: the whole JSON is in the title. */
const oneLine = (args: string) => (args.length > 160 ? `${args.slice(0, 159)}…` : args);

export function TeamAsks({ asks, total, error, clockOffset, now, deciding, decided }: TeamAsksProps) {
  const client = useClient();
  const [denying, setDenying] = useState<TeamAskView | null>(null);
  const denyError = denying && decided && !decided.ok && decided.key === askKey(denying) ? decided.message : null;

  return (
    <section className="panel panel-table team-asks" aria-labelledby="team-asks-heading" data-testid="team-asks">
      <h2 id="team-asks-heading" className="panel-title">
        Other machines
        <span className="panel-note" data-testid="team-asks-count" data-count={asks.length}>
          {asks.length} waiting{asks.length < total ? ` · ${total} in the team inbox` : ''}
        </span>
      </h2>
      <p className="muted team-note">Decisions here are signed with this home's operator key; the machine that asked applies one only once it has checked the signature.</p>
      <InlineError error={error} prefix="Could not read the team inbox" className="team-note" />
      {decided && !denying ? (
        <p className={decided.ok ? 'muted team-note' : 'inline-error team-note'} role={decided.ok ? 'status' : 'alert'} data-testid="team-ask-result" data-ok={decided.ok}>
          <SafeText text={decided.message} />
        </p>
      ) : null}
      {asks.length === 0 ? (
        <EmptyState title="Nothing waiting on other machines">Calls other members' agents are asked about appear here while they wait.</EmptyState>
      ) : (
        <div className="table-scroll">
          <table className="data-table team-asks-table">
            <thead>
              <tr>
                <th scope="col">Machine</th>
                <th scope="col">Tool</th>
                <th scope="col">Arguments</th>
                <th scope="col">Runs in</th>
                <th scope="col">Agent · session</th>
                <th scope="col">Why</th>
                <th scope="col">Time left</th>
                <th scope="col">
                  <span className="visually-hidden">Decide</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {asks.map((a) => {
                const key = askKey(a);
                const busy = deciding === key;
                return (
                  <tr key={key} data-testid="team-ask" data-member={a.member} data-id={a.approvalId}>
                    <td className="mono" data-testid="team-ask-machine">
                      <SafeText text={a.member} />
                    </td>
                    <td className="mono" data-testid="team-ask-tool">
                      <SafeText text={a.tool} />
                    </td>
                    <td className="mono team-ask-args" title={safeTitle(a.arguments)} data-testid="team-ask-arguments">
                      <SafeText text={oneLine(a.arguments)} />
                    </td>
                    {a.cwd !== null ? (
                      <td className="mono" title={safeTitle(a.cwd)} data-testid="team-ask-cwd">
                        <SafeText text={a.cwd} />
                      </td>
                    ) : (
                      <td className="muted" data-testid="team-ask-cwd" title="Published before the team database was upgraded, without its folder: decide it on its own machine.">
                        not published
                      </td>
                    )}
                    <td title={safeTitle(`${a.agent} / ${a.session}`)}>
                      <SafeText text={a.agent} /> <span className="muted mono">/ <SafeText text={a.session} /></span>
                    </td>
                    <td title={safeTitle(a.reason)}>
                      <SafeText text={a.reason} />
                    </td>
                    <td>
                      <ExpiryCountdown expiresAt={a.deadline} clockOffset={clockOffset} now={now} testId="team-ask-countdown" compact />
                    </td>
                    <td className="team-ask-actions">
                      <button type="button" className="button button-small button-primary" data-testid="team-ask-approve" disabled={deciding !== null || a.cwd === null} aria-busy={busy} onClick={() => void decideTeamAsk(client, a, 'approved')}>
                        Approve
                      </button>
                      <button type="button" className="button button-small button-danger" data-testid="team-ask-deny" disabled={deciding !== null || a.cwd === null} onClick={() => setDenying(a)}>
                        Deny…
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {denying ? (
        <DenyDialog
          what={`${safeTitle(denying.tool)} on ${safeTitle(denying.member)}`}
          busy={deciding !== null}
          error={denyError}
          onCancel={() => setDenying(null)}
          onConfirm={(reason) => void decideTeamAsk(client, denying, 'denied', reason).then((ok) => ok && setDenying(null))}
        />
      ) : null}
    </section>
  );
}
