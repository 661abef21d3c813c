import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { useApprovalsStore } from '../stores/approvals-store.ts';

export function ApprovalsView() {
  const count = useApprovalsStore((s) => s.pending.length);
  return (
    <ViewFrame id="approvals" title="Approvals" subtitle="Tool calls from every agent and session that wait for an operator's decision.">
      {count === 0 ? (
        <EmptyState title="Nothing to decide">No tool calls are waiting. Calls that policy sends to an operator appear here.</EmptyState>
      ) : null}
    </ViewFrame>
  );
}
