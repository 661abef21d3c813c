// The problems under the editor: validation problems and scan findings, the open file's as the
// author types (from plugins.check), the other files' as saved. A click shows the place.
import { diagnosticLocation, severityCounts, type Diagnostic } from '../../editor/diagnostics.ts';
import { SafeText } from '../../components/safe-text.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

const severityLabel = { error: 'Error', warning: 'Warning', info: 'Info' } as const;

export interface ProblemsListProps {
  diagnostics: readonly Diagnostic[];
  /** The file open in the editor, whose rows reflect unsaved text. */
  currentPath: string | null;
  checking: boolean;
  checkError: string | null;
  onSelect(d: Diagnostic): void;
}

export function ProblemsList({ diagnostics, currentPath, checking, checkError, onSelect }: ProblemsListProps) {
  const { errors, warnings, infos } = severityCounts(diagnostics);
  return (
    <section className="problems" aria-labelledby="problems-heading" data-testid="problems">
      <h3 id="problems-heading" className="problems-title">
        Problems
        <span className="problems-counts" aria-live="polite">
          {diagnostics.length === 0 ? (
            'none'
          ) : (
            <>
              <span className="sev sev-error">{errors}</span> {errors === 1 ? 'error' : 'errors'} · <span className="sev sev-warning">{warnings}</span> {warnings === 1 ? 'warning' : 'warnings'} ·{' '}
              <span className="sev sev-info">{infos}</span> info
            </>
          )}
        </span>
        {checking ? <span className="problems-checking muted">checking…</span> : null}
      </h3>
      <InlineError error={checkError} prefix="Could not check the unsaved text" className="problems-error" />
      {diagnostics.length > 0 ? (
        <ul className="problem-rows">
          {diagnostics.map((d, i) => (
            <li key={`${d.file}:${d.line}:${d.column}:${d.id}:${i}`}>
              <button
                type="button"
                className="problem-row"
                data-testid="problem-row"
                data-rule={d.id}
                data-line={d.line}
                data-file={d.file}
                data-severity={d.severity}
                data-source={d.source}
                title={d.file === currentPath ? 'Show in the editor' : `Open ${d.file} at this place`}
                onClick={() => onSelect(d)}
              >
                <span className={`sev-icon sev-${d.severity}`} aria-label={severityLabel[d.severity]} role="img" />
                <span className="problem-loc mono">
                  <SafeText text={diagnosticLocation(d)} />
                </span>
                <span className="problem-id mono">
                  {d.id}
                  {d.weight ? ` ·${d.weight}` : ''}
                </span>
                {/* Messages quote the plugin's code and names: its hidden characters shown as tokens. */}
                <span className="problem-msg">
                  <SafeText text={d.message} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
