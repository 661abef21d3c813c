// The e2e suite runs the same specs against each shell. The serve project drives Debian's
// Chromium against `gatehouse serve`; the electron project runs where an Electron binary
// exists and skips (saying why) where it does not.
import { defineConfig } from '@playwright/test';
import type { Shell } from './e2e/fixtures.ts';

export default defineConfig<{ shell: Shell }>({
  testDir: './e2e/specs',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // Two at a time: each spec runs a host and a browser, and one at a time left one of CI's two
  // cores idle half the time (17–19 minutes in CI, against 12 for two at a time). A spec that times what
  // an operator waits for is tagged @alone: npm test runs those after the rest, one at a time
  // (scripts/test.mjs), since beside another spec its timing measures the neighbour.
  workers: 2,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: '.tmp/test-results',
  projects: [
    {
      name: 'serve-chromium',
      testIgnore: '**/electron/**',
      use: { shell: 'serve' },
    },
    {
      name: 'electron',
      testIgnore: '**/serve/**',
      use: { shell: 'electron' },
    },
  ],
});
