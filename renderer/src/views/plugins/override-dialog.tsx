// Enabling (or re-approving) a plugin that failed the security scan needs a reason, which the
// host writes to the audit log. The host refuses without one.
import type { PluginSummaryView } from '../../../../shared/contract.ts';
import { ReasonDialog } from './reason-dialog.tsx';

export interface OverrideDialogProps {
  plugin: PluginSummaryView;
  action: 'enable' | 'approve';
  /** The host's sentence when it refused, else our own explanation. */
  message: string | null;
  busy: boolean;
  error: string | null;
  onConfirm(reason: string): void;
  onCancel(): void;
}

export function OverrideDialog({ plugin, action, message, busy, error, onConfirm, onCancel }: OverrideDialogProps) {
  const verb = action === 'enable' ? 'Enable' : 'Approve change';
  return (
    <ReasonDialog
      title={`${verb} despite a failed scan`}
      reasonLabel="Reason for the override"
      placeholder="e.g. eval only runs on the constant below; reviewed with the security team"
      confirmLabel={`${verb} with this reason`}
      testId="override"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        <strong>{plugin.name}</strong> failed the security scan ({plugin.findingCount} {plugin.findingCount === 1 ? 'finding' : 'findings'}, total weight {plugin.scanWeight}).
        Review its findings first. To go ahead anyway, say why; the reason and your name go into the audit log.
      </p>
      {message ? <p className="modal-host-message selectable">{message}</p> : null}
    </ReasonDialog>
  );
}
