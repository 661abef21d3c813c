// Enabling (or re-approving) a plugin that failed the security scan needs a reason, which the
// host writes to the audit log. The host refuses without one.
import { useState } from 'react';
import type { PluginSummaryView } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';

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
  const [reason, setReason] = useState('');
  const verb = action === 'enable' ? 'Enable' : 'Approve change';
  const ok = reason.trim().length > 0;
  return (
    <ModalDialog
      title={`${verb} despite a failed scan`}
      onCancel={onCancel}
      testId="override-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className="button button-danger"
            data-testid="override-confirm"
            disabled={!ok || busy}
            aria-busy={busy}
            onClick={() => onConfirm(reason.trim())}
          >
            {busy ? 'Working…' : `${verb} with this reason`}
          </button>
        </>
      }
    >
      <p>
        <strong>{plugin.name}</strong> failed the security scan ({plugin.findingCount} {plugin.findingCount === 1 ? 'finding' : 'findings'}, total weight {plugin.scanWeight}).
        Review its findings first. To go ahead anyway, say why; the reason and your name go into the audit log.
      </p>
      {message ? <p className="modal-host-message selectable">{message}</p> : null}
      <label className="field">
        <span className="field-label">Reason for the override</span>
        <textarea
          className="input textarea"
          data-testid="override-reason"
          rows={3}
          maxLength={2000}
          value={reason}
          autoFocus
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. eval only runs on the constant below; reviewed with the security team"
        />
      </label>
      {error ? (
        <p className="inline-error" role="alert">
          {error}
        </p>
      ) : null}
    </ModalDialog>
  );
}
