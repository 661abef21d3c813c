import { useEffect, useState } from 'react';
import { useApprovalsStore } from '../stores/approvals-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { viewNav } from './view-nav.ts';
import { GateIcon } from './icons.tsx';
import { safeTitle } from './safe-text.tsx';
import { useSignals } from './signals.tsx';

const COLLAPSED_KEY = 'gatehouse.sidebar.collapsed';

/** Collapsed to icons: the operator's choice, remembered; narrow windows (≤ 1024 px) start collapsed. */
function initialCollapsed(): boolean {
  const saved = localStorage.getItem(COLLAPSED_KEY);
  if (saved !== null) return saved === 'true';
  return window.matchMedia('(max-width: 1024px)').matches;
}

export function Sidebar() {
  const [collapsed, setCollapsed] = useState(initialCollapsed);
  useEffect(() => {
    document.documentElement.dataset['sidebar'] = collapsed ? 'collapsed' : 'open';
  }, [collapsed]);
  const toggle = () => {
    localStorage.setItem(COLLAPSED_KEY, String(!collapsed));
    setCollapsed(!collapsed);
  };

  const view = useUiStore((s) => s.view);
  const setView = useUiStore((s) => s.setView);
  const pending = useApprovalsStore((s) => s.pendingCount);
  const signals = useSignals();

  return (
    <nav className="sidebar" aria-label="Views" data-collapsed={collapsed}>
      <div className="brand">
        <GateIcon />
        <span className="brand-name">Gatehouse</span>
        <button type="button" className="sidebar-toggle" data-testid="sidebar-toggle" aria-expanded={!collapsed} aria-label={collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'} title={collapsed ? 'Expand the sidebar' : 'Collapse the sidebar'} onClick={toggle}>
          {collapsed ? '»' : '«'}
        </button>
      </div>
      <ul className="nav-list">
        {viewNav.map(({ id, label, shortcut, Icon }) => {
          const active = id === view;
          const count = id === 'approvals' ? pending : 0;
          const signal = signals[id];
          return (
            <li key={id}>
              <button
                type="button"
                className="nav-item"
                data-testid={`nav-${id}`}
                aria-current={active ? 'page' : undefined}
                aria-keyshortcuts={shortcut ? `Alt+${shortcut}` : undefined}
                title={shortcut ? `${label} (Alt+${shortcut})` : label}
                onClick={() => setView(id)}
              >
                <Icon />
                <span className="nav-label">{label}</span>
                {signal ? (
                  <span className="nav-alert" data-testid={`nav-alert-${id}`} data-count={signal.count} title={safeTitle(signal.details ? signal.details.join('\n') : `${signal.text}${signal.names.length ? `: ${signal.names.join(', ')}` : ''}`)} aria-label={signal.text}>
                    {id === 'audit' ? '!' : signal.count}
                  </span>
                ) : count > 0 ? (
                  <span className="nav-count" data-testid={`nav-count-${id}`} aria-label={`${count} waiting`}>
                    {count}
                  </span>
                ) : shortcut ? (
                  <kbd className="nav-shortcut" aria-hidden="true">
                    Alt {shortcut}
                  </kbd>
                ) : null}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
