// The serve shell's operator token: it arrives in the URL fragment (never sent to a server,
// never in a log), is kept for this tab only, and is removed from the address bar at once.
// SECURITY: leaving it in location.hash would put it in history, bookmarks and screenshots;
// localStorage would let it outlive the tab. Keep both choices.
export const TOKEN_STORAGE_KEY = 'gatehouse.token';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be disabled by browser settings; the token then lives only in memory.
    return null;
  }
}

/** Reads `#token=…` (taking it out of the address bar) or the token kept for this tab. */
export function takeToken(): string | null {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash !== null) {
    params.delete('token');
    const rest = params.toString();
    const url = window.location.pathname + window.location.search + (rest ? `#${rest}` : '');
    window.history.replaceState(window.history.state, '', url);
    const token = fromHash.trim();
    if (token) {
      storage()?.setItem(TOKEN_STORAGE_KEY, token);
      return token;
    }
  }
  return storage()?.getItem(TOKEN_STORAGE_KEY) || null;
}

/** Forgets a token the host refused, so a reload does not retry it. */
export function forgetToken(): void {
  storage()?.removeItem(TOKEN_STORAGE_KEY);
}
