import { EmptyState } from '../components/empty-state.tsx';
import { ViewFrame } from '../components/view-frame.tsx';
import { useTerminalsStore } from '../stores/terminals-store.ts';

export function TerminalsView() {
  const count = useTerminalsStore((s) => s.sessions.length);
  return (
    <ViewFrame id="terminals" title="Terminals" subtitle="Commands that tools run in a pseudo-terminal, live.">
      {count === 0 ? (
        <EmptyState title="No terminal sessions">No commands are running in a terminal. Commands that run in a PTY appear here so you can watch them live.</EmptyState>
      ) : null}
    </ViewFrame>
  );
}
