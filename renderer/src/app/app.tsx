import { useEffect, type MouseEvent } from 'react';
import { AuthError } from '../components/auth-error.tsx';
import { CommandPalette } from '../components/command-palette.tsx';
import { SignalToasts } from '../components/signals.tsx';
import { ConnectionBanner } from '../components/connection-banner.tsx';
import { Sidebar } from '../components/sidebar.tsx';
import { StatusBar } from '../components/status-bar.tsx';
import { useApprovalsStore } from '../stores/approvals-store.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { viewRegistry } from '../views/view-registry.ts';
import { useViewShortcuts } from './use-view-shortcuts.ts';

/** Focus the view, not only scroll to it: the next Tab then starts inside the view. */
function skipToMain(e: MouseEvent<HTMLAnchorElement>): void {
  e.preventDefault();
  const main = document.getElementById('main');
  const heading = main?.querySelector<HTMLElement>('h1');
  // Every view's heading takes focus (view-frame.tsx gives it tabIndex -1).
  (heading ?? main)?.focus();
}

export function App() {
  const unauthorized = useConnectionStore((s) => s.state === 'unauthorized');
  const view = useUiStore((s) => s.view);
  const pending = useApprovalsStore((s) => s.pendingCount);
  const spec = viewRegistry.find((v) => v.id === view) ?? viewRegistry[0]!;
  useViewShortcuts();

  useEffect(() => {
    // "(3) " in the title: waiting calls show in the task bar and the browser tab.
    document.title = unauthorized ? 'Gatehouse — not authorized' : `${pending > 0 ? `(${pending}) ` : ''}${spec.label} — Gatehouse`;
  }, [unauthorized, spec.label, pending]);

  if (unauthorized) return <AuthError />;
  const { View } = spec;
  return (
    <div className="app">
      {/* The first stop of Tab: past the sidebar's eleven entries to the view itself. */}
      <a className="skip-link" href="#main" data-testid="skip-link" onClick={skipToMain}>
        Skip to {spec.label}
      </a>
      <Sidebar />
      <main className="main-pane" id="main" tabIndex={-1}>
        <ConnectionBanner />
        <View />
      </main>
      <StatusBar />
      <CommandPalette />
      <SignalToasts />
    </div>
  );
}
