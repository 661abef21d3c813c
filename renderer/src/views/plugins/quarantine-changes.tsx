// What changed in a quarantined plugin since an operator approved it: each file, and its diff.
import type { PluginDetailView } from '../../../../shared/contract.ts';
import { DiffView } from './diff-view.tsx';

export function QuarantineChanges({ detail }: { detail: PluginDetailView }) {
  return (
    <section className="panel quarantine" data-testid="quarantine-changes" aria-labelledby="quarantine-heading">
      <h3 id="quarantine-heading" className="panel-title">
        Changed since it was approved <span className="panel-note">not runnable until an operator approves the change</span>
      </h3>
      {detail.kindInfo?.judgesCalls ? (
        <p className="inline-error" data-testid="quarantine-blocks">
          As an enabled {detail.kindInfo.label}, {detail.name} blocks every agent call until you approve the change or disable it: Gatehouse fails closed rather than let calls pass unchecked.
        </p>
      ) : null}
      {detail.changes.length === 0 ? (
        <p className="muted">The host reports no file-level changes (the pinned hash differs). Compare the files before approving.</p>
      ) : (
        <ul className="change-list">
          {detail.changes.map((c) => (
            <li key={c.path} className="change" data-path={c.path} data-change={c.change}>
              <div className="change-head">
                <span className="change-kind" data-change={c.change}>
                  {c.change}
                </span>
                <span className="mono selectable">{c.path}</span>
              </div>
              {c.diff ? (
                <DiffView diff={c.diff} />
              ) : (
                <p className="muted change-nodiff">
                  {c.change === 'mode' ? 'Only the file mode (executable bit) changed.' : 'No diff available (binary, too large, or no approved copy kept).'}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
