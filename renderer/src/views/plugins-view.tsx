// Plugins: every plugin the host could run, its status, files, problems and scan findings, and
// the actions an operator takes on it. Live: the host's plugins.changed events refresh it.
import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../sync/client-context.ts';
import { JobStatus, useJob, useRunningJob } from '../components/job-progress.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { rescanPlugins } from '../sync/plugins-actions.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { isDirty, usePluginsStore } from '../stores/plugins-store.ts';
import { NewPluginDialog } from './plugins/new-plugin-dialog.tsx';
import { PluginDetail } from './plugins/plugin-detail.tsx';
import { PluginList } from './plugins/plugin-list.tsx';
import { UnsavedDialog } from './plugins/unsaved-dialog.tsx';
import { InlineError } from '../components/dialog-actions.tsx';

export function PluginsView() {
  const [creating, setCreating] = useState(false);
  const client = useClient();
  const connected = useConnectionStore((s) => s.state === 'connected');
  const { rescanJob, rescanNote, rescanError } = usePluginsStore(useShallow((s) => ({ rescanJob: s.rescanJob, rescanNote: s.rescanNote, rescanError: s.rescanError })));
  const ownScan = useJob(rescanJob);
  const anyScan = useRunningJob('plugins.scan');
  const scanning = rescanJob !== null || anyScan !== undefined;
  const scanShown = ownScan?.state === 'running' ? ownScan : anyScan;
  useUnloadGuard();

  return (
    <ViewFrame
      id="plugins"
      title="Plugins"
      subtitle="Tools, checkers and terminal adapters, with their manifests, validation and security-scan results."
      bodyClassName="view-body-fill"
      actions={
        <>
          <button
            type="button"
            className="button"
            data-testid="plugin-rescan"
            onClick={() => void rescanPlugins(client)}
            disabled={!connected || scanning}
            aria-busy={scanning}
            title={connected ? 'Discover, validate and security-scan every plugin folder again' : 'Available once the console is connected'}
          >
            {scanning ? 'Scanning…' : 'Rescan'}
          </button>
          <button
            type="button"
            className="button button-primary"
            data-testid="plugin-new"
            onClick={() => setCreating(true)}
            disabled={!connected}
            title={connected ? 'Scaffold a working tool in shell, Python or Node' : 'Available once the console is connected'}
          >
            New plugin
          </button>
        </>
      }
    >
      {scanShown || rescanNote || rescanError ? (
        <div className="view-strip">
          {/* This console's rescan, or one the host or another console is running (the first scan at start). */}
          <JobStatus job={scanShown} note={rescanNote} testId="plugin-rescan" />
          <InlineError error={rescanError} prefix="Rescan failed" testId="plugin-rescan-error" />
        </div>
      ) : null}
      <div className="plugins-layout">
        <PluginList />
        <PluginDetail />
      </div>
      {creating ? <NewPluginDialog onClose={() => setCreating(false)} /> : null}
      <UnsavedDialog />
    </ViewFrame>
  );
}

/** The browser asks before a reload or close would drop unsaved editor text. */
function useUnloadGuard(): void {
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!isDirty(usePluginsStore.getState().file)) return;
      e.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);
}
