// The left column: every plugin the host found, filterable by status and text.
// Keyboard: ↑/↓ or j/k move the highlight, Enter (or Space) opens the highlighted plugin.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../../sync/client-context.ts';
import { requestPlugin } from '../../sync/plugins-actions.ts';
import { filterPlugins, issueCount, pluginStatuses, statusLabel, usePluginsStore, type PluginStatus } from '../../stores/plugins-store.ts';
import { StatusBadge } from './status-badge.tsx';
import { LoadStatus } from '../../components/load-status.tsx';

export function PluginList() {
  const client = useClient();
  const { plugins, loaded, listError, statusFilter, textFilter, selected } = usePluginsStore(
    useShallow((s) => ({
      plugins: s.plugins,
      loaded: s.listLoaded,
      listError: s.listError,
      statusFilter: s.statusFilter,
      textFilter: s.textFilter,
      selected: s.selected,
    })),
  );
  const shown = useMemo(() => filterPlugins(plugins, statusFilter, textFilter), [plugins, statusFilter, textFilter]);
  const [cursor, setCursor] = useState<string | null>(selected);
  const listRef = useRef<HTMLDivElement>(null);
  const idPrefix = useId();
  const optionId = (name: string) => `${idPrefix}-${name}`;

  // Keep the highlight on a visible row, following the open plugin when it changes.
  useEffect(() => {
    if (selected) setCursor(selected);
  }, [selected]);
  const active = cursor && shown.some((p) => p.name === cursor) ? cursor : (shown[0]?.name ?? null);

  useEffect(() => {
    if (!active) return;
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- optionId is stable for a given name
  }, [active]);

  const counts = useMemo(() => {
    const c: Record<PluginStatus, number> = { enabled: 0, disabled: 0, invalid: 0, quarantined: 0, scan_failed: 0 };
    for (const p of plugins) c[p.status]++;
    return c;
  }, [plugins]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const i = active ? shown.findIndex((p) => p.name === active) : -1;
    const move = (to: number) => {
      e.preventDefault();
      const next = shown[Math.max(0, Math.min(shown.length - 1, to))];
      if (next) setCursor(next.name);
    };
    switch (e.key) {
      case 'ArrowDown':
      case 'j':
        return move(i + 1);
      case 'ArrowUp':
      case 'k':
        return move(i - 1);
      case 'Home':
        return move(0);
      case 'End':
        return move(shown.length - 1);
      case 'Enter':
      case ' ':
        if (active) {
          e.preventDefault();
          requestPlugin(client, active);
        }
        return;
    }
  };

  const toggleStatus = (status: PluginStatus) => {
    usePluginsStore.setState((s) => ({
      statusFilter: s.statusFilter.includes(status) ? s.statusFilter.filter((x) => x !== status) : [...s.statusFilter, status],
    }));
  };

  return (
    <section className="plugin-list-pane" aria-label="Plugin list">
      <div className="plugin-filters">
        <input
          type="search"
          className="input"
          placeholder="Filter by name, tool or description"
          aria-label="Filter plugins by name, tool or description"
          value={textFilter}
          onChange={(e) => usePluginsStore.setState({ textFilter: e.target.value })}
          data-testid="plugin-filter"
        />
        <div className="chips" role="group" aria-label="Show only these statuses">
          {pluginStatuses.map((status) => (
            <button
              key={status}
              type="button"
              className="chip"
              data-status={status}
              aria-pressed={statusFilter.includes(status)}
              onClick={() => toggleStatus(status)}
              data-testid="plugin-status-filter"
            >
              {statusLabel[status]} <span className="chip-count">{counts[status]}</span>
            </button>
          ))}
        </div>
      </div>
      <LoadStatus loaded={loaded} error={listError} failed="Could not load the plugins" waiting="Plugins appear once the console is connected." errorClassName="plugin-list-error" noteClassName="plugin-list-note" />
      {loaded && plugins.length === 0 ? (
        <p className="muted plugin-list-note">No plugins yet. Add one with “New plugin”, or put a plugin folder under the home plugins folder.</p>
      ) : null}
      {loaded && plugins.length > 0 && shown.length === 0 ? <p className="muted plugin-list-note">No plugin matches the filters.</p> : null}
      {shown.length > 0 ? (
        <div
          ref={listRef}
          className="plugin-list"
          role="listbox"
          tabIndex={0}
          aria-label="Plugins"
          aria-activedescendant={active ? optionId(active) : undefined}
          onKeyDown={onKeyDown}
          data-testid="plugin-list"
        >
          {shown.map((p) => {
            const issues = issueCount(p);
            return (
              <div
                key={p.name}
                id={optionId(p.name)}
                role="option"
                aria-selected={p.name === selected}
                className={p.name === active ? 'plugin-row plugin-row-active' : 'plugin-row'}
                data-testid="plugin-row"
                data-name={p.name}
                data-status={p.status}
                onClick={() => {
                  setCursor(p.name);
                  listRef.current?.focus();
                  requestPlugin(client, p.name);
                }}
              >
                <div className="plugin-row-main">
                  <span className="plugin-row-name">{p.name}</span>
                  <StatusBadge status={p.status} />
                </div>
                <div className="plugin-row-meta">
                  <span>{p.kind ?? 'unknown kind'}</span>
                  {p.version ? <span className="mono">v{p.version}</span> : null}
                  <span>{p.origin}</span>
                  <span
                    className={issues === 0 ? 'issue-count issue-count-none' : p.errors > 0 || p.scanPassed === false ? 'issue-count issue-count-error' : 'issue-count'}
                    title={`${p.errors} errors, ${p.warnings} warnings, ${p.findingCount} scan findings${p.reloadErrors ? `, ${p.reloadErrors} reload problems` : ''}`}
                    aria-label={`${issues} problems and findings`}
                  >
                    {issues}
                  </span>
                </div>
              </div>
            );
          })}
        </div>
      ) : null}
    </section>
  );
}
