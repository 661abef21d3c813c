// Plugins: every plugin the host could run, its status, files, problems and scan findings, and
// the actions an operator takes on it. Live: the host's plugins.changed events refresh it.
import { useEffect, useState } from 'react';
import { ViewFrame } from '../components/view-frame.tsx';
import { useConnectionStore } from '../stores/connection-store.ts';
import { isDirty, usePluginsStore } from '../stores/plugins-store.ts';
import { NewPluginDialog } from './plugins/new-plugin-dialog.tsx';
import { PluginDetail } from './plugins/plugin-detail.tsx';
import { PluginList } from './plugins/plugin-list.tsx';
import { UnsavedDialog } from './plugins/unsaved-dialog.tsx';

export function PluginsView() {
  const [creating, setCreating] = useState(false);
  const connected = useConnectionStore((s) => s.state === 'connected');
  useUnloadGuard();

  return (
    <ViewFrame
      id="plugins"
      title="Plugins"
      subtitle="Tools and checkers, with their manifests, validation and security-scan results."
      bodyClassName="view-body-fill"
      actions={
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
      }
    >
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
