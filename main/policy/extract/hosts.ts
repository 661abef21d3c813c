// Host extraction. URLs go through the WHATWG URL parser so that the host we report is the host a
// client would connect to (`http://0x7f.1/` is 127.0.0.1, `http://[::ffff:127.0.0.1]/` is
// ::ffff:7f00:1); hand-splitting URLs is how SSRF filters get bypassed.

const URL_RE = /[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`\\{}|^]+/gi;
const TRAILING_PUNCT = /[).,;:!?'"\]]+$/;
const SCP_RE = /^([^@\s/:]+@)?(\[[0-9a-f:.%a-z]+\]|[a-z0-9_][a-z0-9_.-]*):(?!\/\/)/i;

export function cleanHost(h: string): string {
  let host = h.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 0 ? host.slice(1, end) : host.slice(1);
  }
  // host:port, but an IPv6 literal without brackets has several colons and no port.
  const colon = host.indexOf(':');
  if (colon >= 0 && host.indexOf(':', colon + 1) < 0) host = host.slice(0, colon);
  if (host.endsWith('.') && host.length > 1) host = host.slice(0, -1);
  return host;
}

/** Host of one URL string, or null when it has none (`file:///x`, `mailto:`). */
export function hostOfUrl(raw: string): string | null {
  let s = raw;
  let url: URL | null = null;
  try {
    url = new URL(s);
  } catch {
    s = s.replace(TRAILING_PUNCT, '');
    try {
      url = new URL(s);
    } catch {
      url = null;
    }
  }
  if (url) {
    const h = url.hostname;
    return h ? cleanHost(h) : null;
  }
  // Unparseable by WHATWG (a space in the host, say): take the authority by hand.
  const start = s.indexOf('://');
  if (start < 0) return null;
  let auth = s.slice(start + 3);
  const end = auth.search(/[/?#]/);
  if (end >= 0) auth = auth.slice(0, end);
  const at = auth.lastIndexOf('@');
  if (at >= 0) auth = auth.slice(at + 1);
  return auth ? cleanHost(auth) : null;
}

/** Adds the hosts of every URL found anywhere in `text`. */
export function hostsInText(text: string, add: (h: string) => void): void {
  if (text.indexOf('://') < 0) return;
  URL_RE.lastIndex = 0;
  for (let m = URL_RE.exec(text); m; m = URL_RE.exec(text)) {
    const h = hostOfUrl(m[0]);
    if (h) add(h);
  }
}

/** `user@host:path`, `host:path`, `[v6]:path` — scp, rsync and git remote syntax. */
export function scpHost(s: string, requireUser: boolean): string | null {
  const m = SCP_RE.exec(s);
  if (!m || !m[2]) return null;
  if (requireUser && !m[1]) return null;
  return cleanHost(m[2]);
}

/** A bare network target as ssh, nc, ping or telnet take it: `user@host`, `host`, `[v6]`. */
export function hostOfTarget(s: string): string | null {
  if (s.indexOf('://') >= 0) return hostOfUrl(s);
  const at = s.lastIndexOf('@');
  const h = cleanHost(at >= 0 ? s.slice(at + 1) : s);
  return h && /^[a-z0-9_.:%-]+$/i.test(h) ? h : null;
}
