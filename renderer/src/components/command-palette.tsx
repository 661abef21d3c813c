// Ctrl/Cmd+K: one box to reach anything — a view, an action, a plugin, a session or a waiting call
// — by typing part of its name, as in an editor's command palette; `?` opens the sheet of keys and
// `/` focuses the current view's filter.
// Entries are rebuilt from the stores each time it opens. Agent-supplied names (sessions, calls)
// are drawn through SafeText.
import { useEffect, useMemo, useRef, useState } from 'react';
import { useApprovalsStore } from '../stores/approvals-store.ts';
import { useConsolePrefs } from '../stores/console-prefs-store.ts';
import { usePluginsStore } from '../stores/plugins-store.ts';
import { useUiStore } from '../stores/ui-store.ts';
import { useSettingsStore } from '../stores/settings-store.ts';
import { nextThemeChoice, setThemeChoice, useThemeStore } from '../stores/theme-store.ts';
import { requestModeSwitch } from './mode-indicator.tsx';
import { viewNav } from './view-nav.ts';
import { oneLineSummary } from '../lib/call-summary.ts';
import { ModalDialog } from './modal-dialog.tsx';
import { SafeText } from './safe-text.tsx';

interface Entry {
  id: string;
  group: 'View' | 'Action' | 'Plugin' | 'Session' | 'Waiting call';
  label: string;
  hint?: string;
  run(): void;
}

const MAX_SHOWN = 50;

function entries(): Entry[] {
  const ui = useUiStore.getState();
  const approvals = useApprovalsStore.getState();
  const out: Entry[] = viewNav.map((v) => ({ id: `view:${v.id}`, group: 'View', label: v.label, hint: v.shortcut ? `Alt+${v.shortcut}` : '', run: () => ui.setView(v.id, { focus: true }) }));
  out.push(
    {
      id: 'action:clear-inbox-filters',
      group: 'Action',
      label: 'Clear the inbox filters',
      run: () => {
        useApprovalsStore.setState({ filter: { agent: '', tool: '', text: '' } });
        ui.setView('approvals', { focus: true });
      },
    },
    {
      id: 'action:group-by-session',
      group: 'Action',
      label: approvals.groupBySession ? 'Inbox: stop grouping by session' : 'Inbox: group by session',
      run: () => {
        useApprovalsStore.setState((s) => ({ groupBySession: !s.groupBySession }));
        ui.setView('approvals', { focus: true });
      },
    },
    { id: 'action:shortcuts', group: 'Action', label: 'Show keyboard shortcuts', hint: '?', run: () => openShortcuts() },
  );
  const theme = useThemeStore.getState().choice;
  const nextTheme = nextThemeChoice(theme);
  out.push({
    id: 'action:theme',
    group: 'Action',
    label: nextTheme === 'system' ? 'Theme: follow the system' : `Theme: ${nextTheme}`,
    hint: `now ${theme === 'system' ? 'following the system' : theme}`,
    run: () => setThemeChoice(nextTheme),
  });
  const mode = useSettingsStore.getState().settings?.mode;
  if (mode) {
    // The same confirmation as the status bar's switch: going live is never one keystroke.
    out.push({ id: 'action:mode', group: 'Action', label: mode === 'live' ? 'Switch to dry-run…' : 'Go live…', hint: `now ${mode}`, run: () => requestModeSwitch() });
  }
  const selected = approvals.items.find((i) => i.id === approvals.cursor && i.state === 'pending');
  if (selected) {
    out.push({
      id: 'action:approve-selected',
      group: 'Action',
      label: `Inbox: approve the selected call once (${selected.call.tool})`,
      hint: 'a',
      // Through the inbox's own key, so its checks (an evasive call asks first) apply here too.
      run: () => {
        ui.setView('approvals');
        requestAnimationFrame(() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true })));
      },
    });
  }
  for (const p of usePluginsStore.getState().plugins) {
    out.push({
      id: `plugin:${p.name}`,
      group: 'Plugin',
      label: p.name,
      hint: p.kind ?? undefined,
      run: () => {
        usePluginsStore.setState({ selected: p.name });
        ui.setView('plugins', { focus: true });
      },
    });
  }
  const pending = approvals.items.filter((i) => i.state === 'pending');
  for (const s of [...new Set(pending.map((i) => i.call.session))].sort()) {
    out.push({
      id: `session:${s}`,
      group: 'Session',
      label: s,
      hint: 'show its waiting calls',
      run: () => {
        useApprovalsStore.setState((st) => ({ filter: { ...st.filter, text: s } }));
        ui.setView('approvals', { focus: true });
      },
    });
  }
  for (const i of pending.slice(-100).reverse()) {
    out.push({
      id: `call:${i.id}`,
      group: 'Waiting call',
      label: `${i.call.tool}: ${oneLineSummary(i)}`,
      hint: i.call.agent,
      run: () => {
        useApprovalsStore.setState({ cursor: i.id, filter: { agent: '', tool: '', text: '' } });
        ui.setView('approvals', { focus: true });
      },
    });
  }
  return out;
}

/** Every word typed appears in the entry (its group included), in any order. */
function matches(e: Entry, q: string): boolean {
  const hay = `${e.group} ${e.label} ${e.hint ?? ''}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((w) => hay.includes(w));
}

let openShortcuts: () => void = () => {};

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const [sheet, setSheet] = useState(false);
  const terminalGetsShortcuts = useConsolePrefs((s) => s.terminalGetsShortcuts);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [all, setAll] = useState<Entry[]>([]);
  const listRef = useRef<HTMLUListElement>(null);
  // Published from an effect, not during render: a render React throws away must not leave its
  // setter behind.
  useEffect(() => {
    openShortcuts = () => setSheet(true);
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setAll(entries());
        setQuery('');
        setActive(0);
        setOpen(true);
        return;
      }
      if ((e.key === '?' || e.key === '/') && !e.ctrlKey && !e.metaKey && !e.altKey) {
        const t = e.target as HTMLElement | null;
        if (t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName) || t.closest('.xterm'))) return;
        if (document.querySelector('dialog[open]')) return;
        if (e.key === '/') {
          // The current view's filter or search box, as in a mail client or a code host.
          const box = document.querySelector<HTMLInputElement>(`[data-testid="view-${useUiStore.getState().view}"] input[type="search"]`);
          if (!box) return;
          e.preventDefault();
          box.focus();
          box.select();
          return;
        }
        e.preventDefault();
        setSheet(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const shown = useMemo(() => all.filter((e) => matches(e, query)).slice(0, MAX_SHOWN), [all, query]);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const choose = (e: Entry | undefined) => {
    if (!e) return;
    setOpen(false);
    e.run();
  };

  return (
    <>
      {open ? (
        <ModalDialog title="Go to…" onCancel={() => setOpen(false)} testId="command-palette" className="modal-wide" footer={<span className="muted">↑/↓ choose · Enter go · Esc close</span>}>
          <input
            className="input"
            data-testid="command-palette-input"
            autoFocus
            role="combobox"
            aria-expanded="true"
            aria-controls="command-palette-list"
            aria-label="Type a view, action, plugin, session or waiting call"
            placeholder="Views, actions, plugins, sessions, waiting calls…"
            value={query}
            onChange={(e) => {
              setQuery(e.target.value);
              setActive(0);
            }}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                setActive((a) => Math.min(shown.length - 1, a + 1));
              } else if (e.key === 'ArrowUp') {
                e.preventDefault();
                setActive((a) => Math.max(0, a - 1));
              } else if (e.key === 'Enter') {
                e.preventDefault();
                choose(shown[active]);
              }
            }}
          />
          <ul id="command-palette-list" ref={listRef} className="palette-list" role="listbox" aria-label="Matches">
            {shown.map((e, i) => (
              <li key={e.id} role="option" aria-selected={i === active} className={i === active ? 'palette-item palette-item-active' : 'palette-item'} data-testid="command-palette-item" data-id={e.id} onMouseEnter={() => setActive(i)} onClick={() => choose(e)}>
                <span className="palette-group muted">{e.group}</span>
                <span className="palette-label">
                  <SafeText text={e.label} />
                </span>
                {e.hint ? (
                  <span className="palette-hint muted">
                    <SafeText text={e.hint} />
                  </span>
                ) : null}
              </li>
            ))}
            {shown.length === 0 ? <li className="muted">Nothing matches.</li> : null}
          </ul>
        </ModalDialog>
      ) : null}
      {sheet ? (
        <ModalDialog
          title="Keyboard shortcuts"
          onCancel={() => setSheet(false)}
          testId="shortcuts-sheet"
          footer={
            <button type="button" className="button" autoFocus onClick={() => setSheet(false)}>
              Close
            </button>
          }
        >
          <table className="shortcuts-table">
            <tbody>
              <tr><td><kbd>Ctrl</kbd>/<kbd>⌘</kbd>+<kbd>K</kbd></td><td>Command palette: views, actions, plugins, sessions, waiting calls</td></tr>
              <tr><td><kbd>?</kbd></td><td>This sheet</td></tr>
              <tr><td><kbd>/</kbd></td><td>Focus the current view's filter or search box</td></tr>
              <tr><td><kbd>Alt</kbd>+<kbd>0</kbd>…<kbd>9</kbd>, <kbd>Alt</kbd>+<kbd>C</kbd></td><td>Open a view in sidebar order, Catalog with C ({terminalGetsShortcuts ? 'a focused terminal gets them instead: Settings → This console' : 'never typed into a terminal'})</td></tr>
              <tr><td><kbd>j</kbd>/<kbd>k</kbd>, <kbd>↓</kbd>/<kbd>↑</kbd></td><td>Inbox: move the selection</td></tr>
              <tr><td><kbd>a</kbd></td><td>Inbox: approve once</td></tr>
              <tr><td><kbd>s</kbd></td><td>Inbox: approve for this session…</td></tr>
              <tr><td><kbd>g</kbd></td><td>Inbox: approve with a grant (don't ask again)…</td></tr>
              <tr><td><kbd>d</kbd></td><td>Inbox: deny with a reason…</td></tr>
              <tr><td><kbd>Enter</kbd></td><td>Inbox: show or hide the call's details</td></tr>
              <tr><td><kbd>↓</kbd>/<kbd>↑</kbd>, <kbd>Home</kbd>/<kbd>End</kbd></td><td>Audit session waterfall: move between calls (each opens beside it)</td></tr>
              <tr><td><kbd>→</kbd>/<kbd>←</kbd></td><td>Audit results grouped by call: unfold or fold the call</td></tr>
              <tr><td><kbd>Esc</kbd></td><td>Close a dialog, or the open audit event</td></tr>
            </tbody>
          </table>
        </ModalDialog>
      ) : null}
    </>
  );
}
