// Host extraction. URLs go through the WHATWG URL parser so that the host we report is the host a
// client would connect to (`http://0x7f.1/` is 127.0.0.1, `http://[::ffff:127.0.0.1]/` is
// ::ffff:7f00:1); hand-splitting URLs is how SSRF filters get bypassed. Clients do not all parse
// alike, though: curl ends the authority at the first `/`, `?` or `#` and the user part at the last
// `@` before it, and takes `\` as an ordinary character, where WHATWG reads `\` as a slash. So
// `http://public.example\@127.0.0.1/` is public.example to a browser and 127.0.0.1 to curl: every
// host some client would connect to is reported (hostsOfUrl), and a rule on any of them decides.

// Backslashes are part of the URL (curl keeps them); quotes, blanks and brackets end it.
const URL_RE = /[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`{}|^]+/gi;
/** Special schemes WHATWG parses without slashes: `http:169.254.169.254/latest`. */
const SLASHLESS_RE = /\b(?:https?|wss?|ftp):(?!\/\/)[^\s'"<>`{}|^]+/gi;
/** A URL argument without a scheme that starts with an IP literal: `169.254.169.254/latest`. */
const BARE_IP_RE = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(?::\d+)?(?:[/?#]|$)/i;
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

/**
 * Every host a client could connect to for one URL: the WHATWG host and, when it differs, curl's
 * (authority up to the first `/?#`, user part up to the last `@`, `\` an ordinary character).
 */
export function hostsOfUrl(raw: string, add: (h: string) => void): void {
  const a = listed(hostOfUrl(raw));
  if (a) add(a);
  const b = listed(curlHost(raw));
  if (b && b !== a) add(b);
}

/**
 * A host read from a URL in a comma-separated list (`GOPROXY=https://proxy.golang.org,direct`) ends
 * at the comma: the rest is the list's next item. No resolver answers for a name with a comma in
 * it, so nothing connects to the longer name; judged as written, its failed DNS lookup denied Go's
 * default proxy setting.
 */
function listed(host: string | null): string | null {
  if (host === null) return null;
  const comma = host.indexOf(',');
  return comma > 0 ? host.slice(0, comma) : host;
}

/** The host curl connects to for `raw`, normalised as WHATWG normalises hosts (`0x7f.1`). */
export function curlHost(raw: string): string | null {
  const start = raw.indexOf('://');
  if (start < 0) return null;
  if (/^file$/i.test(raw.slice(0, start))) return null;
  let auth = raw.slice(start + 3);
  const end = auth.search(/[/?#]/);
  if (end >= 0) auth = auth.slice(0, end);
  const at = auth.lastIndexOf('@');
  if (at >= 0) auth = auth.slice(at + 1);
  if (!auth) return null;
  try {
    const h = new URL('http://' + auth).hostname;
    if (h) return cleanHost(h);
  } catch {
    // not a host WHATWG accepts (a backslash, a space): report it as written
  }
  return cleanHost(auth.replace(/\\.*$/, '')) || null;
}

/**
 * The local path of a `file:` URL (`file:///home/u/.ssh/id_rsa`, `FILE://localhost/etc/passwd`,
 * `file:/x`), percent-decoded; null for any other URL. curl reads such a URL as a file.
 */
export function fileUrlPath(raw: string): string | null {
  const m = /^file:(\/\/[^/?#]*)?(\/[^?#]*)/i.exec(raw);
  if (!m || !m[2]) return null;
  try {
    return decodeURIComponent(m[2]);
  } catch {
    return m[2];
  }
}

/**
 * Host of a tool's URL argument (WebFetch `url`): a URL without a scheme is taken as http, as
 * fetching tools do (`169.254.169.254/latest`, `example.com/x`).
 */
export function hostsOfUrlArg(raw: string, add: (h: string) => void): void {
  const s = raw.trim();
  if (!s) return;
  if (/^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[^:/]+:\d+(?:[/?#]|$)/.test(s)) hostsOfUrl(s, add);
  else hostsOfUrl('http://' + s, add);
}

/** Host of one URL string, or null when it has none (`file:///x`, `mailto:`). */
export function hostOfUrl(raw: string): string | null {
  let s = raw;
  let url: URL | null;
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

/**
 * Adds the hosts of every URL found anywhere in `text`, including special-scheme URLs without
 * slashes (`http:169.254.169.254/latest`) and a text that is an IP literal with a path.
 */
export function hostsInText(text: string, add: (h: string) => void): void {
  if (text.indexOf(':') < 0) {
    if (BARE_IP_RE.test(text.trim())) hostsOfUrlArg(text, add);
    return;
  }
  if (text.indexOf('://') >= 0) {
    URL_RE.lastIndex = 0;
    for (let m = URL_RE.exec(text); m; m = URL_RE.exec(text)) hostsOfUrl(m[0], add);
  }
  SLASHLESS_RE.lastIndex = 0;
  for (let m = SLASHLESS_RE.exec(text); m; m = SLASHLESS_RE.exec(text)) {
    const h = hostOfUrl(m[0]);
    if (h) add(h);
  }
  if (BARE_IP_RE.test(text.trim())) hostsOfUrlArg(text, add);
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
