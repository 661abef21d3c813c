// The next item in a host's inbox, on the event that adds it (approvals.changed), never by polling.
import type { Host } from '../../main/host/create-host.js';
import type { ApprovalItemView } from '../../shared/contract.js';

export function nextPending(host: Host): Promise<ApprovalItemView> {
  return new Promise((resolve) => {
    const check = () => {
      const item = host.approvals.list({ state: 'pending' })[0];
      if (!item) return;
      off();
      resolve(item);
    };
    const off = host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}
