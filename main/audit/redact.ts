// Secrets masked in what leaves the host: events the console shows, search results, exports.
// The stored row is never changed (the chain hashes the raw payload); this is applied on the way
// out, unless the operator opted in to raw values (settings.auditRaw).
//
// Security: every pattern here is what keeps a key an agent passed in an argument from reaching
// a screen share or an exported file. Removing one, or making one stricter, lets that kind through.
// The patterns keep a short recognisable prefix ("sk-…", "ghp_…") so operators still see what kind
// of secret was there; the rest becomes MASK.

export const MASK = '[REDACTED]';

interface Rule {
  name: string;
  re: RegExp;
  /** Replacement; `$1` keeps a prefix (the key name, the scheme and user). */
  to: string;
}

const RULES: Rule[] = [
  // PEM private keys (RSA, EC, OPENSSH, PKCS#8, encrypted): the whole block.
  { name: 'private key', re: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----[\s\S]*?(?:-----END \1-----|$)/g, to: `-----BEGIN $1-----${MASK}-----END $1-----` },
  // Passwords in URLs: scheme://user:password@host.
  { name: 'url password', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*:)[^\s@/'"]+@/gi, to: `$1${MASK}@` },
  // Authorization headers and bearer tokens.
  { name: 'bearer', re: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9\-._~+/]{8,}=*/g, to: `$1 ${MASK}` },
  // Provider keys by prefix.
  { name: 'openai/anthropic', re: /\b(sk-(?:ant-|proj-|live-|test-)?)[A-Za-z0-9_-]{16,}/g, to: `$1${MASK}` },
  { name: 'github', re: /\b(gh[pousr]_)[A-Za-z0-9]{20,}/g, to: `$1${MASK}` },
  { name: 'github fine-grained', re: /\b(github_pat_)[A-Za-z0-9_]{20,}/g, to: `$1${MASK}` },
  { name: 'gitlab', re: /\b(glpat-)[A-Za-z0-9_-]{16,}/g, to: `$1${MASK}` },
  { name: 'slack', re: /\b(xox[abposr]-)[A-Za-z0-9-]{10,}/g, to: `$1${MASK}` },
  { name: 'aws access key', re: /\b((?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{4})[A-Z0-9]{12}\b/g, to: `$1${MASK}` },
  { name: 'google api key', re: /\b(AIza)[A-Za-z0-9_-]{35}/g, to: `$1${MASK}` },
  { name: 'stripe', re: /\b((?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9]{16,}/g, to: `$1${MASK}` },
  { name: 'npm', re: /\b(npm_)[A-Za-z0-9]{30,}/g, to: `$1${MASK}` },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, to: MASK },
  // key=value and "key": "value" pairs whose name says secret (password=, token=, api_key: …).
  {
    name: 'secret pair',
    re: /\b((?:[A-Za-z0-9_-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth))\s*[=:]\s*["']?)(?!\[REDACTED\])[^\s"'&,;}]{3,}/gi,
    to: `$1${MASK}`,
  },
];

/** Masks the secrets in one string. */
export function redactText(s: string): string {
  let out = s;
  for (const r of RULES) {
    r.re.lastIndex = 0;
    out = out.replace(r.re, r.to);
  }
  return out;
}

// A payload key that names a secret has its whole (string) value masked, whatever it looks like.
const SECRET_KEY = /^(?:.*[_-])?(?:password|passwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|authorization|cookie)$/i;

/** Masks secrets in every string of a JSON value; keys, numbers and structure are unchanged. */
export function redactValue(v: unknown, key?: string): unknown {
  if (typeof v === 'string') return key !== undefined && SECRET_KEY.test(key) && v.length > 0 ? MASK : redactText(v);
  if (Array.isArray(v)) return v.map((x) => redactValue(x));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = redactValue(x, k);
    return out;
  }
  return v;
}

/** An audit event as it leaves the host: payload redacted, everything else (seq, hash) as stored. */
export function redactEvent<E extends { payload: unknown }>(e: E): E {
  return { ...e, payload: redactValue(e.payload) };
}
