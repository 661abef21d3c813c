// The left column: running and finished PTY sessions, newest first.
import { useShallow } from 'zustand/react/shallow';
import { formatDateTime } from '../../lib/format.ts';
import { exitLabel, useTerminalsStore } from '../../stores/terminals-store.ts';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { AdapterBadge } from './adapter-badge.tsx';
import { LoadStatus } from '../../components/load-status.tsx';

export function TerminalList() {
  const { sessions, loaded, listError, selected, adapters } = useTerminalsStore(
    useShallow((s) => ({ sessions: s.sessions, loaded: s.loaded, listError: s.listError, selected: s.selected, adapters: s.adapters })),
  );
  const running = sessions.filter((s) => s.state === 'running').length;

  return (
    <section className="terminal-list-pane" aria-label="Terminal sessions">
      <div className="terminal-list-head">
        <span>Sessions</span>
        <span className="muted">
          {running} running · {sessions.length - running} finished
        </span>
      </div>
      <LoadStatus loaded={loaded} error={listError} failed="Could not load the terminals" waiting="Terminals appear once the console is connected." errorClassName="terminal-list-note" noteClassName="terminal-list-note" />
      {loaded && sessions.length === 0 ? (
        <p className="muted terminal-list-note">No terminal sessions. Tools that run in a PTY appear here; “New shell” opens one for you.</p>
      ) : null}
      <ul className="terminal-list" role="listbox" aria-label="Terminals">
        {sessions.map((s) => (
          <li
            key={s.id}
            role="option"
            aria-selected={s.id === selected}
            className="terminal-row"
            data-testid="terminal-row"
            data-id={s.id}
            data-state={s.state}
            tabIndex={0}
            onClick={() => useTerminalsStore.setState({ selected: s.id, actionError: null })}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                useTerminalsStore.setState({ selected: s.id, actionError: null });
              }
            }}
          >
            <div className="terminal-row-main">
              {/* Titles, commands and actors come from the call: hidden characters shown as tokens. */}
              <span className="terminal-row-title" title={safeTitle(s.title)}>
                <SafeText text={s.title} />
              </span>
              <span className="terminal-state" data-state={s.state} data-paused={s.paused ? 'true' : 'false'}>
                {exitLabel(s)}
              </span>
            </div>
            <div className="terminal-row-meta">
              <span className="mono" title={safeTitle([s.command, ...s.args].join(' '))}>
                <SafeText text={s.tool === 'shell' ? 'shell' : s.tool} />
              </span>
              <span title={safeTitle(s.actor)}>
                <SafeText text={s.actor.replace(/^operator:/, '')} />
              </span>
              <time dateTime={new Date(s.startedAt).toISOString()} title={formatDateTime(s.startedAt)}>
                {formatDateTime(s.startedAt).slice(11)}
              </time>
              {s.controller ? <span className="terminal-row-typing" title={`Taken over by ${safeTitle(s.controller.operator)}`}>⌨ <SafeText text={s.controller.operator} /></span> : null}
            </div>
            {/* A line of its own: at the end of the meta line the narrow list clipped it ("wait…"). */}
            {adapters[s.id] ? (
              <div className="terminal-row-adapter-line">
                <AdapterBadge a={adapters[s.id]!} />
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
