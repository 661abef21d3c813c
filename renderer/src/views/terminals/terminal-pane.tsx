// The xterm.js terminal of the open session. It fills its pane (the fit addon, re-run by a
// ResizeObserver, with the new size sent to the host), shows the scrollback and live output,
// and sends keystrokes only once this console has taken the session over.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import type { TerminalSessionView } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { terminalKeepsKey } from '../../components/view-shortcuts.ts';
import { upsertSession } from '../../stores/terminals-store.ts';
import { TerminalAttachment, type AttachState } from '../../sync/terminal-attachment.ts';
import { resizeTerminal, typeIntoTerminal } from '../../sync/terminals-actions.ts';
import { browserLinkDeps, terminalLinkHandler } from './terminal-links.ts';

/** A resize drag fires many observations; the PTY gets the size it settles on. */
const RESIZE_SETTLE_MS = 80;

const theme = {
  background: '#0b0e13',
  foreground: '#d6dbe3',
  cursor: '#7db2ff',
  cursorAccent: '#0b0e13',
  selectionBackground: 'rgba(91, 157, 255, 0.35)',
  black: '#1a202b',
  brightBlack: '#5f6878',
};

export function TerminalPane({ session }: { session: TerminalSessionView }) {
  const client = useClient();
  const host = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const canType = useRef(false);
  const [state, setState] = useState<AttachState>({ kind: 'attaching' });
  const id = session.id;

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace",
      fontSize: 13,
      lineHeight: 1.1,
      scrollback: 10_000,
      cursorBlink: false,
      disableStdin: true,
      allowProposedApi: false,
      // A link the program printed opens only after the operator reads its address, escaped.
      linkHandler: terminalLinkHandler(browserLinkDeps),
      theme,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    termRef.current = term;
    fitRef.current = fit;
    safeFit(fit);

    const attachment = new TerminalAttachment(client, id, term, (next, info) => {
      setState(next);
      if (info) upsertSession(info);
    });
    attachment.start();

    // The console's own shortcuts are not typed into the shell: xterm leaves them alone (false)
    // and they bubble on to the window, where the console acts on them — unless the operator
    // gave them to the terminal in Settings (read per key, so the choice applies at once).
    term.attachCustomKeyEventHandler((e) => terminalKeepsKey(e));

    // Keystrokes go to the host only for the console that took over (the host checks too).
    const onData = term.onData((data) => {
      if (!canType.current) return;
      typeIntoTerminal(client, id, data);
    });

    let resizeTimer: ReturnType<typeof setTimeout> | null = null;
    const onResize = term.onResize(({ cols, rows }) => {
      if (resizeTimer !== null) clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        resizeTimer = null;
        resizeTerminal(client, id, cols, rows);
      }, RESIZE_SETTLE_MS);
    });
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => safeFit(fit));
    });
    observer.observe(el);

    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
      if (resizeTimer !== null) clearTimeout(resizeTimer);
      onData.dispose();
      onResize.dispose();
      attachment.dispose();
      term.dispose();
      termRef.current = null;
      fitRef.current = null;
    };
  }, [client, id]);

  // Typing is enabled by the take-over; send our size then, since the controller's size wins.
  const typing = session.youControl && session.state === 'running';
  useEffect(() => {
    canType.current = typing;
    const term = termRef.current;
    if (!term) return;
    term.options.disableStdin = !typing;
    term.options.cursorBlink = typing;
    if (typing) {
      resizeTerminal(client, id, term.cols, term.rows);
      term.focus();
    }
  }, [typing, client, id]);

  return (
    <div className={typing ? 'terminal-frame terminal-frame-typing' : 'terminal-frame'}>
      {state.kind === 'error' ? (
        <p className="inline-error terminal-error" role="alert">
          Could not attach to this terminal: {state.message}
        </p>
      ) : null}
      <div
        ref={host}
        className={typing ? 'terminal-pane terminal-pane-typing' : 'terminal-pane'}
        data-testid="terminal-pane"
        data-id={id}
        data-attach={state.kind}
        data-typing={typing ? 'true' : 'false'}
        aria-label={typing ? `Terminal ${session.title}, taken over: keystrokes go to the program` : `Terminal ${session.title}, read-only`}
      />
    </div>
  );
}

/** Fitting a hidden or zero-sized element throws or proposes nonsense; skip it then. */
function safeFit(fit: FitAddon): void {
  const dims = fit.proposeDimensions();
  if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows) || dims.cols < 2 || dims.rows < 1) return;
  fit.fit();
}

