// A plugin whose manifest says sandbox = "none" runs sandboxed anyway until an operator trusts
// it. This block says which of the two is true and holds the switch; trusting asks for a
// reason (audited) in a confirm dialog that says what the plugin can do without the sandbox.
import { useState } from 'react';
import type { PluginDetailView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { formatDateTime, isoTime } from '../../lib/format.ts';
import { usePluginsStore } from '../../stores/plugins-store.ts';
import { setPluginTrust } from '../../sync/plugins-actions.ts';
import { ReasonDialog } from './reason-dialog.tsx';

export function SandboxTrust({ detail }: { detail: PluginDetailView }) {
  const client = useClient();
  const busy = usePluginsStore((s) => s.busy === detail.name);
  const [confirming, setConfirming] = useState<{ error: string | null } | null>(null);
  if (detail.sandbox !== 'none') return null;
  const mark = detail.trust?.trusted ?? null;

  if (detail.trusted && mark) {
    return (
      <div className="sandbox-status sandbox-status-warning sandbox-trust" data-testid="plugin-sandbox-trust" data-trusted="true" role="status">
        <p>
          <strong>Runs without the OS sandbox.</strong> Trusted by {mark.by}, <time dateTime={isoTime(mark.at)}>{formatDateTime(mark.at)}</time>:{' '}
          <span className="selectable">“{mark.reason}”</span>. It can read and write whatever this operator account can, and reach the network.
        </p>
        <button type="button" className="button button-small" data-testid="plugin-untrust" disabled={busy} aria-busy={busy} onClick={() => void setPluginTrust(client, detail.name, false)}>
          Remove trust
        </button>
      </div>
    );
  }

  const pinned = detail.status === 'enabled' && detail.trust !== null;
  const confirm = async (reason: string) => {
    const r = await setPluginTrust(client, detail.name, true, reason);
    setConfirming(r.kind === 'done' ? null : { error: r.message });
  };
  return (
    <div className="sandbox-status sandbox-trust" data-testid="plugin-sandbox-trust" data-trusted="false">
      <p>
        Its manifest asks to run without the sandbox (<code>sandbox = "none"</code>). Until an operator trusts it, it runs sandboxed anyway.
      </p>
      <button
        type="button"
        className="button button-small"
        data-testid="plugin-trust"
        disabled={busy || !pinned}
        title={pinned ? 'Let it run without the OS sandbox (asks for a reason)' : 'Enable the plugin first: trust is given for the files it pins'}
        onClick={() => setConfirming({ error: null })}
      >
        Trust to run unsandboxed…
      </button>
      {confirming ? <TrustDialog name={detail.name} busy={busy} error={confirming.error} onConfirm={(reason) => void confirm(reason)} onCancel={() => setConfirming(null)} /> : null}
    </div>
  );
}

function TrustDialog({ name, busy, error, onConfirm, onCancel }: { name: string; busy: boolean; error: string | null; onConfirm(reason: string): void; onCancel(): void }) {
  return (
    <ReasonDialog
      title={`Run ${name} without the sandbox?`}
      reasonLabel="Why it must run unsandboxed (recorded in the audit log)"
      placeholder="e.g. drives the local Docker socket; reviewed the code with the security team"
      confirmLabel="Trust and run unsandboxed"
      testId="trust"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        <strong>{name} will run without the OS sandbox.</strong> Every call can read and write whatever this operator account can (your home, <code>~/.ssh</code>,
        other projects), use the network, and start processes outside the sandbox's reach. Limits and the timeout still apply.
      </p>
      <p>The trust holds for the files as they are now: any change quarantines the plugin, and approving the change drops the trust.</p>
    </ReasonDialog>
  );
}
