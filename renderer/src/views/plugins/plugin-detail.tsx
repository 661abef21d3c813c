// The right column: one plugin's header and actions, what changed (when quarantined), its
// files in the editor with problems, and a test run.
import { useState, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { PluginDetailView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { EmptyState } from '../../components/empty-state.tsx';
import { countOf, formatDateTime, isoTime } from '../../lib/format.ts';
import { severityCounts, toDiagnostics } from '../../editor/diagnostics.ts';
import { usePluginsStore } from '../../stores/plugins-store.ts';
import { runPluginAction, type PluginAction } from '../../sync/plugins-actions.ts';
import { OverrideDialog } from './override-dialog.tsx';
import { PluginFiles } from './plugin-files.tsx';
import { QuarantineChanges } from './quarantine-changes.tsx';
import { SandboxTrust } from './sandbox-trust.tsx';
import { WasmImports } from './wasm-imports.tsx';
import { StatusBadge } from './status-badge.tsx';
import { TestRunPanel } from './test-run-panel.tsx';
import { SafeText } from '../../components/safe-text.tsx';
import { InlineError } from '../../components/dialog-actions.tsx';

const originLabel = { home: 'home', project: 'project', cli: '--plugins-dir' } as const;
const formatLabel = { wraithrun: 'WraithRun tool.toml', triggerfish: 'Triggerfish mod.ts', gatehouse: 'Gatehouse manifest', ptywright: 'ptywright manifest.toml' } as const;

export function PluginDetail() {
  const { selected, detail, detailError } = usePluginsStore(useShallow((s) => ({ selected: s.selected, detail: s.detail, detailError: s.detailError })));
  if (!selected) {
    return (
      <div className="plugin-detail plugin-detail-empty">
        <EmptyState title="No plugin open">Pick a plugin on the left (↑/↓ and Enter work too) to see its manifest, files, problems and scan findings.</EmptyState>
      </div>
    );
  }
  if (!detail || detail.name !== selected) {
    return (
      <div className="plugin-detail plugin-detail-empty">
        {detailError ? (
          <p className="inline-error" role="alert">
            Could not load {selected}: {detailError}
          </p>
        ) : (
          <p className="muted">Loading {selected}…</p>
        )}
      </div>
    );
  }
  return (
    <div className="plugin-detail" aria-label={`Plugin ${detail.name}`} role="region">
      <DetailHeader detail={detail} />
      {detailError ? (
        <p className="inline-error" role="alert">
          Could not refresh {detail.name}: {detailError}
        </p>
      ) : null}
      {detail.status === 'quarantined' ? <QuarantineChanges detail={detail} /> : null}
      <PluginFiles detail={detail} />
      {detail.kindInfo?.callable ? <TestRunPanel detail={detail} /> : null}
    </div>
  );
}

function DetailHeader({ detail }: { detail: PluginDetailView }) {
  const client = useClient();
  const { busy, actionError } = usePluginsStore(useShallow((s) => ({ busy: s.busy, actionError: s.actionError })));
  const [override, setOverride] = useState<{ action: 'enable' | 'approve'; message: string | null; error: string | null } | null>(null);
  const working = busy === detail.name;
  const error = actionError?.plugin === detail.name ? actionError.message : null;

  const act = async (action: PluginAction) => {
    // The host refuses a scan-failed plugin without a reason: ask for one up front.
    // Rolling back restores files that were approved (scan and all): no reason to ask for.
    if ((action === 'enable' || action === 'approve') && detail.scanPassed === false) {
      setOverride({ action, message: null, error: null });
      return;
    }
    const r = await runPluginAction(client, action, detail.name);
    if (r.kind === 'needs-override' && (action === 'enable' || action === 'approve')) setOverride({ action, message: r.message, error: null });
  };

  const confirmOverride = async (reason: string) => {
    if (!override) return;
    const r = await runPluginAction(client, override.action, detail.name, reason);
    if (r.kind === 'done') setOverride(null);
    else setOverride({ ...override, error: r.message });
  };

  // A terminal adapter is usable unless held back: it is never enabled or disabled, only released
  // (Approve change, or Enable with a reason when its scan failed); its change is not rolled back here.
  const adapter = detail.adapter ?? null;
  const isAdapter = adapter !== null || detail.format === 'ptywright';
  const canEnable = isAdapter ? detail.status === 'scan_failed' : detail.status === 'disabled' || detail.status === 'scan_failed' || detail.status === 'invalid';
  const canDisable = !isAdapter && (detail.status === 'enabled' || detail.status === 'quarantined');
  // The same count as Problems under the editor: validation problems and scan findings alike.
  const counts = severityCounts(toDiagnostics(detail.problems, detail.findings));

  return (
    <section className="panel plugin-header" aria-labelledby="plugin-heading">
      <div className="plugin-header-top">
        <div className="plugin-title">
          <h2 id="plugin-heading" className="plugin-name" data-testid="plugin-name">
            {detail.name}
          </h2>
          <StatusBadge status={detail.status} testId="plugin-status" />
          <span className="plugin-meta">
            {detail.version ? <span className="mono">v{detail.version}</span> : null}
            <span>{detail.kind ?? 'unknown kind'}</span>
            {detail.format ? <span>{formatLabel[detail.format]}</span> : null}
          </span>
        </div>
        <div className="plugin-actions">
          {canEnable ? (
            <ActionButton testId="plugin-enable" primary working={working} blocked={detail.status === 'invalid'} title={detail.status === 'invalid' ? 'An invalid plugin cannot be enabled: fix the errors below first' : 'Pin the plugin’s files and let agents call it'} onClick={() => void act('enable')}>
              Enable
            </ActionButton>
          ) : null}
          {detail.status === 'quarantined' ? (
            <ActionButton testId="plugin-approve" primary working={working} title="Pin the files as they are now and let agents call the plugin again" onClick={() => void act('approve')}>
              Approve change
            </ActionButton>
          ) : null}
          {detail.status === 'quarantined' && !isAdapter ? (
            <ActionButton testId="plugin-rollback" working={working} title="Put the approved files back (undo the change on disk) and let agents call the plugin again" onClick={() => void act('rollback')}>
              Roll back
            </ActionButton>
          ) : null}
          {canDisable ? (
            <ActionButton testId="plugin-disable" working={working} onClick={() => void act('disable')}>
              Disable
            </ActionButton>
          ) : null}
        </div>
      </div>
      {detail.description ? <p className="plugin-description selectable">{detail.description}</p> : null}
      <dl className="facts plugin-facts">
        <dt>Folder</dt>
        <dd className="mono selectable">
          {detail.dir} <span className="muted">({originLabel[detail.origin]})</span>
        </dd>
        <dt>Agents see</dt>
        <dd>
          {isAdapter ? (
            <span className="muted">no tools: an operator runs it on a terminal (Terminals → Run with adapter)</span>
          ) : detail.toolNames.length === 0 ? (
            <span className="muted">{detail.kindInfo?.noTools ?? 'no tools'}</span>
          ) : (
            detail.toolNames.map((t) => (
              <code key={t} className="tool-name">
                {t}
              </code>
            ))
          )}
        </dd>
        <dt>Scan</dt>
        <dd>
          {detail.scanPassed === null ? (
            <span className="muted">not scanned</span>
          ) : detail.scanPassed ? (
            <span className="ok-text">passed</span>
          ) : (
            <span className="danger-text">failed</span>
          )}{' '}
          <span className="muted">
            ({countOf(detail.findingCount, 'finding')}, total weight {detail.scanWeight}; {countOf(counts.errors, 'error')}, {countOf(counts.warnings, 'warning')})
          </span>
        </dd>
        {detail.trust ? (
          <>
            <dt>Approved</dt>
            <dd>
              by {detail.trust.enabledBy},{' '}
              <time dateTime={isoTime(detail.trust.enabledAt)}>{formatDateTime(detail.trust.enabledAt)}</time>{' '}
              <span className="mono muted" title={detail.trust.hash}>
                sha256 {detail.trust.hash.slice(0, 12)}…
              </span>
              {detail.trust.scanOverride ? (
                <span className="override-note">
                  {' '}
                  — scan overridden by {detail.trust.scanOverride.by}: “{detail.trust.scanOverride.reason}”
                </span>
              ) : null}
            </dd>
          </>
        ) : null}
      </dl>
      {adapter ? <AdapterFacts adapter={adapter} /> : null}
      <SandboxTrust detail={detail} />
      <WasmImports detail={detail} />
      {detail.notes.length > 0 ? (
        <ul className="plugin-notes" aria-label="Notes">
          {detail.notes.map((n, i) => (
            <li key={i} className="note selectable">
              {n}
            </li>
          ))}
        </ul>
      ) : null}
      {detail.reloadProblems.length > 0 ? (
        <div className="inline-error" role="alert">
          The last change could not be loaded; the previous version keeps serving until it is fixed:
          <ul className="reload-problems">
            {detail.reloadProblems.map((p, i) => (
              <li key={i}>
                <span className="mono">
                  <SafeText text={p.file ?? ''} />
                  {p.line ? `:${p.line}` : ''}
                </span>{' '}
                <SafeText text={p.message} /> <span className="mono muted">[{p.code}]</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <InlineError error={error} testId="plugin-action-error" />
      {override ? (
        <OverrideDialog
          plugin={detail}
          action={override.action}
          message={override.message}
          busy={working}
          error={override.error}
          onConfirm={(reason) => void confirmOverride(reason)}
          onCancel={() => setOverride(null)}
        />
      ) : null}
    </section>
  );
}

/** What a terminal adapter's pinned manifest grants it and bounds it to, and why it is held back. */
function AdapterFacts({ adapter }: { adapter: NonNullable<PluginDetailView['adapter']> }) {
  return (
    <section className="adapter-facts" aria-label="Terminal adapter" data-testid="adapter-facts">
      <dl className="facts plugin-facts">
        <dt>Permissions</dt>
        <dd data-testid="adapter-permissions">
          {adapter.permissions.length === 0 ? (
            <span className="muted">none (it can be listed but do nothing)</span>
          ) : (
            adapter.permissions.map((p) => (
              <code key={p} className="tool-name">
                {p}
              </code>
            ))
          )}
        </dd>
        <dt>Limits</dt>
        <dd data-testid="adapter-limits">
          {adapter.limits.ops.toLocaleString()} Lua instructions per call, {adapter.limits.memoryMb} MiB, {adapter.limits.timeoutMs.toLocaleString()} ms
        </dd>
        <dt>Runs</dt>
        <dd className="mono selectable">
          {adapter.defaultTarget ? [adapter.defaultTarget.program, ...adapter.defaultTarget.args].join(' ') : <span className="muted">no default target: give a command when you run it</span>}
          {adapter.loaded ? <span className="muted"> (loaded at run time with plugin.load)</span> : null}
        </dd>
        {adapter.quarantined ? (
          <>
            <dt>Held back</dt>
            <dd className="danger-text selectable" data-testid="adapter-quarantined">
              <SafeText text={adapter.quarantined} />
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

// The plugin's lifecycle buttons: all of them wait while any one of them is in flight.
function ActionButton({ testId, primary, working, blocked = false, title, onClick, children }: { testId: string; primary?: boolean; working: boolean; blocked?: boolean; title?: string; onClick(): void; children: ReactNode }) {
  return (
    <button type="button" className={primary ? 'button button-primary button-small' : 'button button-small'} data-testid={testId} disabled={working || blocked} aria-busy={working} title={title} onClick={onClick}>
      {children}
    </button>
  );
}
