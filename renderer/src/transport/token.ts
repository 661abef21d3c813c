// The serve shell's console credential.
//
// The URL `gatehouse serve` (or `gatehouse url`) prints carries a one-time code in its fragment
// (never sent to a server, never in a log). The console takes it out of the address bar at once
// and trades it for a session credential (serve-transport.ts), which it keeps for this tab only.
// SECURITY: the browser still records the URL in its history files, where agents running as the
// same user can read it; the code in it is useless by then (used once, and expired after two
// minutes). The operator token itself never reaches the browser. sessionStorage, not
// localStorage: the session must not outlive the tab; not a cookie: cookies for 127.0.0.1 go to
// every port on it, so any other local server the browser visits would receive it.
export const SESSION_STORAGE_KEY = 'gatehouse.session';
/** Where consoles before one-time links kept the operator token itself; cleared on sight. */
const OLD_TOKEN_KEY = 'gatehouse.token';

export interface ConsoleCredential {
  /** A one-time code from the URL, to exchange for a session. */
  code: string | null;
  /** A session this tab already holds. */
  session: string | null;
  /** Why there is neither, when the URL carried something else (a link from an older version). */
  problem: string | null;
}

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be disabled by browser settings; the session then lives only in memory.
    return null;
  }
}

/** Reads `#code=…` (taking it out of the address bar) and the session kept for this tab. */
export function takeCredential(): ConsoleCredential {
  const store = storage();
  store?.removeItem(OLD_TOKEN_KEY);
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const code = params.get('code')?.trim() || null;
  const oldToken = params.has('token');
  if (params.has('code') || oldToken) {
    params.delete('code');
    params.delete('token');
    const rest = params.toString();
    const url = window.location.pathname + window.location.search + (rest ? `#${rest}` : '');
    window.history.replaceState(window.history.state, '', url);
  }
  const session = store?.getItem(SESSION_STORAGE_KEY) || null;
  const problem = oldToken && !code && !session ? 'Console links no longer carry the operator token. Run `gatehouse url` for a one-time link.' : null;
  return { code, session, problem };
}

export function saveSession(session: string): void {
  storage()?.setItem(SESSION_STORAGE_KEY, session);
}

/** Forgets a session the host refused, so a reload does not retry it. */
export function forgetSession(): void {
  storage()?.removeItem(SESSION_STORAGE_KEY);
}
