import type { SandboxStatus as Sandbox } from '../../stores/health-store.ts';

/** Whether plugin processes run inside bubblewrap. Unsandboxed is a warning, never a footnote. */
export function SandboxStatus({ sandbox }: { sandbox: Sandbox | null }) {
  if (!sandbox) return null;
  if (sandbox.kind === 'bwrap') {
    return (
      <>
        <p className="sandbox-status" data-testid="sandbox-status" data-kind="bwrap" role="status">
          <span className="badge badge-verified">Sandboxed</span>
          <span>Plugin processes run inside bubblewrap.</span>
          {sandbox.detail ? <span className="mono sandbox-detail">{sandbox.detail}</span> : null}
        </p>
        {sandbox.trusted.length > 0 ? (
          <p className="sandbox-status sandbox-status-warning" data-testid="sandbox-trusted" role="status">
            <span className="badge badge-checking">Unsandboxed</span>
            <span>
              <strong>Trusted, running without the sandbox: {sandbox.trusted.join(', ')}.</strong> Their manifests say <code>sandbox = "none"</code> and an operator
              marked them trusted; they can read and write what this operator account can.
            </span>
          </p>
        ) : null}
      </>
    );
  }
  // The host's reason says why (not installed, not usable here); without one, the common case.
  const reason = sandbox.detail.trim().replace(/\.$/, '') || 'bubblewrap (bwrap) was not found';
  return (
    <p className="sandbox-status sandbox-status-warning" data-testid="sandbox-status" data-kind="none" role="alert">
      <span className="badge badge-checking">Unsandboxed</span>
      <span>
        <strong>Plugins run unsandboxed: {reason}.</strong> Every plugin process can read and write what this operator account can, and reach the network.
        Install bubblewrap (<code>bwrap</code>) and restart Gatehouse to contain them.
      </span>
    </p>
  );
}
