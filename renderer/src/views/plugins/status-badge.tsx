import { statusLabel, type PluginStatus } from '../../stores/plugins-store.ts';

/** A plugin's status as a coloured badge; colour follows `data-status` in plugins.css. */
export function StatusBadge({ status, testId }: { status: PluginStatus; testId?: string }) {
  return (
    <span className="badge plugin-status" data-status={status} data-testid={testId}>
      {statusLabel[status]}
    </span>
  );
}
