// Loads audit data from the host into the audit store.
import { errorMessage } from '../lib/error-message.ts';
import { AUDIT_TAIL_LIMIT, useAuditStore } from '../stores/audit-store.ts';
import type { GatehouseClient } from '../transport/client.ts';

export async function loadChainState(client: GatehouseClient): Promise<void> {
  try {
    const chain = await client.call('audit.chainState', {});
    useAuditStore.setState({ chain, chainError: null });
  } catch (err) {
    useAuditStore.setState({ chainError: errorMessage(err) });
  }
}

export async function loadTail(client: GatehouseClient): Promise<void> {
  try {
    const { events } = await client.call('audit.tail', { limit: AUDIT_TAIL_LIMIT });
    useAuditStore.setState({ events, eventsLoaded: true, tailError: null });
  } catch (err) {
    useAuditStore.setState({ tailError: errorMessage(err) });
  }
}

/** Re-checks the whole chain on the host. The host also pushes the result as `audit.chain`. */
export async function verifyChain(client: GatehouseClient): Promise<void> {
  if (useAuditStore.getState().verifying) return;
  useAuditStore.setState({ verifying: true, verifyError: null });
  try {
    const chain = await client.call('audit.verify', {});
    useAuditStore.setState({ chain, chainError: null, verifying: false });
  } catch (err) {
    useAuditStore.setState({ verifying: false, verifyError: errorMessage(err) });
  }
}
