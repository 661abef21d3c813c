// Debian's Chromium: Playwright's own browser download cannot run on our machines.
import { existsSync } from 'node:fs';

export function chromiumPath(): string {
  const candidates = [process.env.GATEHOUSE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error('No Chromium found for the e2e suite. Install it (Debian: sudo apt-get install -y chromium) or set GATEHOUSE_CHROMIUM to its path.');
  }
  return found;
}

// The closed network refuses Chromium's background connections; without these flags each
// start waits on them. --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
