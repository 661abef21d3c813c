// Tool calls that policy sent to an operator. Empty until the approvals service exists;
// the host will push them as events and this store will hold them.
import { create } from 'zustand';

export interface PendingApproval {
  id: string;
  agent: string;
  tool: string;
  receivedAt: number;
}

export interface ApprovalsStore {
  pending: PendingApproval[];
}

export const useApprovalsStore = create<ApprovalsStore>()(() => ({ pending: [] }));
