// Terminals: commands running in a PTY (agents' PTY tools, the shell tool, shells an operator
// opened), live. Watching is read-only; typing needs an explicit take-over, which the host
// records in the audit log.
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useClient } from '../sync/client-context.ts';
import { ViewFrame } from '../components/view-frame.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import { exitLabel, useTerminalsStore } from '../stores/terminals-store.ts';
import '../styles/terminals.css';
import { interruptTerminal, killTerminal, releaseTerminal, startShell, startWithAdapter, takeOver } from '../sync/terminals-actions.ts';
import { TerminalList } from './terminals/terminal-list.tsx';
import { AdapterBadge } from './terminals/adapter-badge.tsx';
import { TerminalPane } from './terminals/terminal-pane.tsx';
import { SafeText, safeTitle } from '../components/safe-text.tsx';
import { InlineError } from '../components/dialog-actions.tsx';

export function TerminalsView() {
  const client = useClient();
  const connected = useConnectionStore((s) => s.state === 'connected');
  const busy = useTerminalsStore((s) => s.busy);
  const [adapterFormOpen, setAdapterFormOpen] = useState(false);

  return (
    <ViewFrame
      id="terminals"
      title="Terminals"
      subtitle="Commands that tools run in a pseudo-terminal, live. Watching is read-only; typing needs a take-over, which is recorded."
      bodyClassName="view-body-fill"
      actions={
        <>
          <button
            type="button"
            className="button"
            data-testid="terminal-run-adapter"
            aria-expanded={adapterFormOpen}
            disabled={!connected || busy !== null}
            onClick={() => setAdapterFormOpen((o) => !o)}
            title="Run an agent in a terminal that an adapter watches: its permission questions come to the inbox"
          >
            Run with adapter
          </button>
          <button
            type="button"
            className="button button-primary"
            data-testid="terminal-new"
            disabled={!connected || busy !== null}
            onClick={() => void startShell(client, { cols: 80, rows: 24 })}
            title={connected ? 'Open your own shell on the host (recorded as an operator action)' : 'Available once the console is connected'}
          >
            New shell
          </button>
        </>
      }
    >
      {adapterFormOpen ? <RunWithAdapter onDone={() => setAdapterFormOpen(false)} /> : null}
      <div className="terminals-layout">
        <TerminalList />
        <TerminalDetail />
      </div>
    </ViewFrame>
  );
}

/** Pick an adapter and what it runs: its default target, or a command. */
function RunWithAdapter({ onDone }: { onDone: () => void }) {
  const client = useClient();
  const { plugins, busy } = useTerminalsStore(useShallow((s) => ({ plugins: s.adapterPlugins, busy: s.busy })));
  const usable = plugins.filter((p) => !p.quarantined);
  const [plugin, setPlugin] = useState('');
  const [command, setCommand] = useState('');
  const chosen = usable.find((p) => p.name === plugin) ?? usable[0];
  const target = chosen?.['defaultTarget'] as { program: string; args: string[] } | null | undefined;
  return (
    <form
      className="terminal-adapter-form"
      aria-label="Run with adapter"
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen) void startWithAdapter(client, chosen.name, command).then((ok) => ok && onDone());
      }}
    >
      {usable.length === 0 ? (
        <p className="muted">No terminal adapters found. Put one (manifest.toml and its Lua) in a plugins folder; see docs/adapters.md.</p>
      ) : (
        <>
          <label>
            Adapter
            <select data-testid="adapter-select" value={chosen?.name ?? ''} onChange={(e) => setPlugin(e.target.value)}>
              {usable.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Command
            <input
              data-testid="adapter-command"
              type="text"
              value={command}
              placeholder={target ? `default: ${[target.program, ...target.args].join(' ')}` : 'the program to run'}
              onChange={(e) => setCommand(e.target.value)}
            />
          </label>
          <button type="submit" className="button button-primary" data-testid="adapter-start" disabled={busy !== null || (!target && !command.trim())}>
            Start
          </button>
        </>
      )}
    </form>
  );
}

function TerminalDetail() {
  const client = useClient();
  const { session, adapter, busy, actionError } = useTerminalsStore(
    useShallow((s) => ({ session: s.sessions.find((x) => x.id === s.selected) ?? null, adapter: s.selected ? (s.adapters[s.selected] ?? null) : null, busy: s.busy, actionError: s.actionError })),
  );
  const connected = useConnectionStore((s) => s.state === 'connected');

  if (!session) {
    return (
      <section className="terminal-detail terminal-detail-empty" aria-label="Terminal">
        <p className="empty-state-title">No terminal open</p>
        <p className="empty-state-body">Pick a session on the left to watch it live, or open a shell with “New shell”.</p>
        <InlineError error={actionError} />
      </section>
    );
  }

  const running = session.state === 'running';
  const controller = session.controller;
  return (
    <section className="terminal-detail" aria-label={`Terminal ${safeTitle(session.title)}`}>
      <header className="terminal-detail-head">
        <div className="terminal-detail-title">
          <h2 data-testid="terminal-title">
            <SafeText text={session.title} />
          </h2>
          <span className="terminal-state" data-state={session.state} data-testid="terminal-state">
            {exitLabel(session)}
          </span>
        </div>
        <div className="terminal-detail-actions">
          <button
            type="button"
            className="button button-small"
            data-testid="terminal-take-over"
            disabled={!connected || !running || session.youControl || busy !== null}
            onClick={() => void takeOver(client, session.id)}
            title="Type into this terminal. The take-over is recorded in the audit log with your name."
          >
            {session.youControl ? 'Taken over' : 'Take over'}
          </button>
          {session.youControl && running ? (
            <button
              type="button"
              className="button button-small"
              data-testid="terminal-release"
              disabled={!connected || busy !== null}
              onClick={() => void releaseTerminal(client, session.id)}
              title="Stop typing into this terminal: it goes back to read-only for every console. Recorded in the audit log."
            >
              Release
            </button>
          ) : null}
          <button
            type="button"
            className="button button-small"
            data-testid="terminal-interrupt"
            disabled={!connected || !running || busy !== null}
            onClick={() => void interruptTerminal(client, session.id, session.youControl)}
            title="Ctrl-C to the program in the foreground (takes the terminal over first; recorded in the audit log). Try this before Kill."
          >
            Interrupt
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            data-testid="terminal-kill"
            disabled={!connected || !running || busy !== null}
            onClick={() => void killTerminal(client, session.id)}
            title="SIGKILL to every process of this session"
          >
            Kill
          </button>
        </div>
      </header>
      <dl className="terminal-facts">
        <dt>Command</dt>
        <dd className="mono">
          <SafeText text={[session.command, ...session.args].join(' ')} />
        </dd>
        <dt>Started</dt>
        <dd>
          {formatDateTime(session.startedAt)} by <SafeText text={session.actor} />
          {session.callId ? ` (call ${session.callId})` : ''}
        </dd>
        <dt>Process</dt>
        <dd>
          pid {session.pid ?? '—'} · {session.cols}×{session.rows}
          {session.endedAt ? ` · ended ${formatDateTime(session.endedAt)}` : ''}
          {session.killedBy ? ` · killed by ${session.killedBy}` : ''}
        </dd>
        {adapter ? (
          <>
            <dt>Adapter</dt>
            <dd className="terminal-facts-adapter" data-testid="terminal-adapter">
              <SafeText text={adapter.plugin} /> <AdapterBadge a={adapter} testId="terminal-detail-adapter-state" />
              {adapter.supervised ? ' · its permission questions go to the inbox' : ''}
            </dd>
          </>
        ) : null}
      </dl>
      <p className={session.youControl && running ? 'terminal-notice terminal-notice-typing' : 'terminal-notice'} data-testid="terminal-notice">
        {!running
          ? 'This session has ended. Its output stays here for review.'
          : session.youControl
            ? 'You have taken over: what you type goes to the program (Ctrl-C included). Release hands it back.'
            : controller
              ? `Watching, read-only. ${controller.operator} took it over from another console; take over to type instead.`
              : 'Watching, read-only. Take over to type; the take-over is recorded.'}
      </p>
      <InlineError error={actionError} className="terminal-action-error" />
      <TerminalPane key={session.id} session={session} />
    </section>
  );
}
