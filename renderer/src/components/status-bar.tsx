import { useShallow } from 'zustand/react/shallow';
import { chainSentence, chainStatus, useAuditStore } from '../stores/audit-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import type { ConnectionState } from '../transport/types.ts';
import { viewRegistry } from '../views/view-registry.ts';
import { ModeIndicator } from './mode-indicator.tsx';

export const connectionLabel: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Unauthorized',
};

export function StatusBar() {
  const { state, detail, shell, hostInfo } = useConnectionStore(
    useShallow((s) => ({ state: s.state, detail: s.detail, shell: s.shell, hostInfo: s.hostInfo })),
  );
  const { chain, verifying } = useAuditStore(useShallow((s) => ({ chain: s.chain, verifying: s.verifying })));
  const chainState = chainStatus({ chain, verifying });
  const chainTitle =
    chain?.state === 'broken' && chain.firstBad ? `Row ${chain.firstBad.seq}: ${chain.firstBad.reason}` : `Open the Audit view (Alt+${viewRegistry.find((v) => v.id === 'audit')?.shortcut ?? '?'}) to verify again`;

  return (
    <footer className="status-bar">
      <span className="status-item status-connection" data-testid="status-connection" data-state={state} title={detail ?? undefined} aria-live="polite">
        {connectionLabel[state]}
      </span>
      <span className="status-item status-chain" data-testid="status-chain" data-state={chainState} title={chainTitle} aria-live="polite">
        {chainSentence({ chain, verifying })}
      </span>
      <ModeIndicator />
      <span className="status-spacer" />
      {hostInfo ? (
        <span className="status-item status-muted" title={`Host process ${hostInfo.pid}, operator ${hostInfo.operator}`}>
          {hostInfo.operator} · v{hostInfo.version}
        </span>
      ) : null}
      <span className="status-item status-muted">
        <span className="status-label">Shell</span>{' '}
        <span data-testid="status-shell" data-shell={shell ?? ''}>
          {shell ?? '—'}
        </span>
      </span>
    </footer>
  );
}
