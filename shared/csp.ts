// Content Security Policy for every page of the console, in both shells.
// SECURITY: the renderer shows text that agents and plugins wrote. Allowing inline script,
// eval or remote origins here turns any injection into code running with operator rights.
// Keep 'self' only; every asset is bundled (no CDN), so nothing else is ever needed.
//
// The one concession: styles may be inline. Monaco and xterm.js create <style> elements at run
// time and offer no nonce (microsoft/monaco-editor#271); VS Code runs with the same allowance.
// Scripts stay strict, which is what stops an injection from becoming code.
export const cspDirectives: Record<string, string[]> = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'object-src': ["'none'"],
};

/** The policy as one header/meta value. `connect` adds origins (the serve shell's ws:// URL). */
export function contentSecurityPolicy(extra: { connect?: string[]; frameAncestors?: boolean } = {}): string {
  const d: Record<string, string[]> = { ...cspDirectives };
  if (extra.connect?.length) d['connect-src'] = [...(d['connect-src'] ?? []), ...extra.connect];
  // frame-ancestors is ignored (with a console warning) in a <meta> policy, so only headers get it.
  if (extra.frameAncestors) d['frame-ancestors'] = ["'none'"];
  return Object.entries(d)
    .map(([k, v]) => `${k} ${v.join(' ')}`)
    .join('; ');
}
