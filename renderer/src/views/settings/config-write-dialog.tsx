// The frame of the "write it for me" dialog (agent-config-dialog.tsx), for every agent: the choice and the
// diff until the operator applies, then what was written; Cancel and Apply, then only Close. Each
// agent's choices and preview come from its descriptor (shared/agent-integrations.ts).
import type { ReactNode } from 'react';
import { DialogActions } from '../../components/dialog-actions.tsx';
import { ModalDialog } from '../../components/modal-dialog.tsx';

export interface ConfigWriteDialogProps {
  /** The agent as the title names it: "Claude Code", "Codex". */
  agent: string;
  /** Prefix of the dialog's test ids: `${testIdPrefix}-dialog`, `-apply`, `-cancel`, `-close`. */
  testIdPrefix: string;
  onClose(): void;
  /** What was written, once applied; until then the children (the choice and its diff) show. */
  result: ReactNode | null;
  canApply: boolean;
  applying: boolean;
  applyTitle?: string;
  onApply(): void;
  children: ReactNode;
}

export function ConfigWriteDialog({ agent, testIdPrefix, onClose, result, canApply, applying, applyTitle, onApply, children }: ConfigWriteDialogProps) {
  return (
    <ModalDialog
      title={`Connect ${agent}: write it for me`}
      onCancel={onClose}
      testId={`${testIdPrefix}-dialog`}
      className="modal-connect"
      footer={
        result ? (
          <button type="button" className="button button-primary" data-testid={`${testIdPrefix}-close`} autoFocus onClick={onClose}>
            Close
          </button>
        ) : (
          <DialogActions
            onCancel={onClose}
            cancelTestId={`${testIdPrefix}-cancel`}
            tone="primary"
            confirmTestId={`${testIdPrefix}-apply`}
            confirmTitle={applyTitle}
            busy={applying}
            blocked={!canApply}
            label="Apply"
            busyLabel="Writing…"
            onConfirm={onApply}
          />
        )
      }
    >
      {result ?? children}
    </ModalDialog>
  );
}

/** One file's heading in the preview: its path, and whether applying changes or creates it. */
export function ConfigFileHead({ file }: { file: { path: string; changed: boolean; exists: boolean } }) {
  return (
    <h3 className="config-file-head">
      <span className="mono selectable">{file.path}</span>
      <span className={file.changed ? 'badge badge-checking' : 'badge badge-verified'}>{!file.changed ? 'already set' : file.exists ? 'will change' : 'new file'}</span>
    </h3>
  );
}

/** The host's notes about the chosen form (token variables, timeouts), one hint each. */
export function ConfigNotes({ notes, testId }: { notes: readonly string[]; testId: string }) {
  return (
    <ul className="config-notes" data-testid={testId}>
      {notes.map((n) => (
        <li key={n} className="field-hint">
          {n}
        </li>
      ))}
    </ul>
  );
}
