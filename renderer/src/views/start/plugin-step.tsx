// Step 1: enable the example tool, after reading what its security scan found.
import { useEffect, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { GettingStartedView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { useConnectionStore } from '../../stores/connection-store.ts';
import { useGettingStartedStore } from '../../stores/getting-started-store.ts';
import { enableExample, loadExampleScan, openExampleInPlugins } from '../../sync/getting-started-actions.ts';
import { StatusBadge } from '../plugins/status-badge.tsx';
import { StepCard } from './step-card.tsx';
import { severityCounts, toDiagnostics } from '../../editor/diagnostics.ts';
import { countOf } from '../../lib/format.ts';

export function PluginStep({ plugin }: { plugin: GettingStartedView['plugin'] }) {
  const client = useClient();
  const home = useConnectionStore((s) => s.hostInfo?.home ?? null);
  const { scan, scanError, busy } = useGettingStartedStore(useShallow((s) => ({ scan: s.scan, scanError: s.scanError, busy: s.busy })));
  const { name, found, status } = plugin;

  useEffect(() => {
    if (found) void loadExampleScan(client, name);
  }, [client, name, found, status, plugin.dir]);

  const detail = scan?.name === name ? scan : null;
  const errors = detail?.problems.filter((p) => p.severity === 'error') ?? [];
  // The same count as the Plugins view's Problems: validation problems and scan findings alike.
  const counts = detail ? severityCounts(toDiagnostics(detail.problems, detail.findings)) : null;

  // The Enable button goes once the plugin is enabled: the focus it had moves to the new status,
  // which says what happened, instead of dropping to the page.
  const status_ = useRef<HTMLSpanElement>(null);
  const enabling = useRef(false);
  useEffect(() => {
    if (enabling.current && status !== 'disabled') {
      enabling.current = false;
      status_.current?.focus();
    }
  }, [status]);

  return (
    <StepCard step="plugin" n={1} title={`Enable the example tool ${name}`} done={plugin.done}>
      {!found ? (
        <p>
          {name} is not in your plugin folders. Copy <code>examples/plugins/{name}</code> from Gatehouse into <code className="selectable">{home ? `${home}/plugins` : 'your plugins folder'}</code>; it shows up here at once.
        </p>
      ) : (
        <>
          <p>
            <code>{name}</code> greets someone by name: a WraithRun tool, one JSON object in and one out. Enabling it pins its files by hash, so a
            changed file is quarantined instead of run.
          </p>
          <div className="start-scan" data-testid="start-scan" data-passed={detail ? String(detail.scanPassed) : ''}>
            <span className="start-scan-label">Security scan</span>{' '}
            {scanError ? (
              <span className="inline-error" role="alert">
                could not load it: {scanError}
              </span>
            ) : !detail ? (
              <span className="muted">loading…</span>
            ) : (
              <>
                {detail.scanPassed === null ? <span className="muted">not scanned</span> : detail.scanPassed ? <span className="ok-text">passed</span> : <span className="danger-text">failed</span>}{' '}
                <span className="muted" data-testid="start-scan-summary">
                  ({countOf(detail.findingCount, 'finding')}, total weight {detail.scanWeight}; {countOf(counts!.errors, 'error')}, {countOf(counts!.warnings, 'warning')})
                </span>
              </>
            )}
            {detail && detail.findings.length > 0 ? (
              <ul className="start-findings">
                {detail.findings.map((f, i) => (
                  <li key={i} data-testid="start-finding">
                    <span className="mono">
                      {f.file}:{f.line}
                    </span>{' '}
                    {f.message} <span className="mono muted">[{f.rule}, weight {f.weight}]</span>
                  </li>
                ))}
              </ul>
            ) : null}
            {errors.length > 0 ? (
              <ul className="start-findings">
                {errors.map((p, i) => (
                  <li key={i} className="danger-text">
                    <span className="mono">
                      {p.file}
                      {p.line ? `:${p.line}` : ''}
                    </span>{' '}
                    {p.message}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
          <div className="start-actions">
            {status ? (
              <span ref={status_} tabIndex={-1} className="start-status" aria-label={`${name} is ${status}`}>
                <StatusBadge status={status} testId="start-plugin-status" />
              </span>
            ) : null}
            {status === 'disabled' ? (
              <button
                type="button"
                className="button button-primary button-small"
                data-testid="start-enable"
                disabled={busy !== null || !detail}
                aria-busy={busy === 'enable'}
                onClick={() => {
                  enabling.current = true;
                  void enableExample(client, name);
                }}
              >
                Enable {name}
              </button>
            ) : null}
            {status === 'scan_failed' || status === 'invalid' || status === 'quarantined' ? (
              <span className="muted">Review it in the Plugins view: it cannot be enabled from here.</span>
            ) : null}
            <button type="button" className="button button-small" data-testid="start-open-plugin" onClick={() => openExampleInPlugins(client, name)}>
              Open in Plugins
            </button>
          </div>
        </>
      )}
    </StepCard>
  );
}
