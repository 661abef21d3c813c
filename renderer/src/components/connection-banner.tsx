import { useShallow } from 'zustand/react/shallow';
import { useConnectionStore } from '../stores/connection-store.ts';

/** Says plainly when what is on screen may be out of date. */
export function ConnectionBanner() {
  const { state, detail, stopping } = useConnectionStore(useShallow((s) => ({ state: s.state, detail: s.detail, stopping: s.stopping })));
  if (state === 'connected' && !stopping) return null;
  if (state === 'connecting') return null;
  const text =
    state === 'connected'
      ? `The host is stopping (${stopping}).`
      : `Lost the connection to the host${stopping ? ` (it stopped: ${stopping})` : ''}. Reconnecting by itself; what is shown may be out of date.`;
  return (
    <div className="connection-banner" role="status" title={detail ?? undefined}>
      {text}
    </div>
  );
}
