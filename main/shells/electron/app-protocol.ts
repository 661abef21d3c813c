// The console is loaded from gatehouse://app/, a privileged custom scheme, rather than file://:
// it gives the page a real origin for the sender check and lets us send the CSP as a header.
export const APP_SCHEME = 'gatehouse';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_URL = `${APP_ORIGIN}/index.html`;
