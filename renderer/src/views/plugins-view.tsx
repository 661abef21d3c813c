import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { usePluginsStore } from '../stores/plugins-store.ts';

export function PluginsView() {
  const count = usePluginsStore((s) => s.plugins.length);
  return (
    <ViewFrame id="plugins" title="Plugins" subtitle="Tools and checkers, with their manifests, validation and security-scan results.">
      {count === 0 ? (
        <EmptyState title="No plugins registered">
          This host has no plugins yet. Installed plugins appear here with their validation errors and scan findings.
        </EmptyState>
      ) : null}
    </ViewFrame>
  );
}
