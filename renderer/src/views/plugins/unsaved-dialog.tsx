// Asked before leaving a file with unsaved changes for another file or plugin.
import { useClient } from '../../sync/client-context.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { isDirty, usePluginsStore } from '../../stores/plugins-store.ts';
import { cancelPending, discardAndContinue, saveFile } from '../../sync/plugins-actions.ts';

export function UnsavedDialog() {
  const client = useClient();
  const pending = usePluginsStore((s) => s.pending);
  const file = usePluginsStore((s) => s.file);
  const saving = usePluginsStore((s) => s.saving);
  if (!pending || !file) return null;
  const target = pending.kind === 'plugin' ? `the plugin ${pending.name}` : pending.path;

  const saveAndContinue = async () => {
    await saveFile(client);
    if (!isDirty(usePluginsStore.getState().file)) discardAndContinue(client);
  };

  return (
    <ModalDialog
      title="Unsaved changes"
      onCancel={cancelPending}
      testId="unsaved-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={cancelPending} data-testid="unsaved-cancel">
            Keep editing
          </button>
          <button type="button" className="button button-danger" onClick={() => discardAndContinue(client)} data-testid="unsaved-discard">
            Discard changes
          </button>
          <button type="button" className="button button-primary" onClick={() => void saveAndContinue()} disabled={saving} data-testid="unsaved-save">
            Save and continue
          </button>
        </>
      }
    >
      <p>
        <span className="mono">{file.path}</span> of {file.plugin} has unsaved changes. Open {target} anyway?
      </p>
    </ModalDialog>
  );
}
