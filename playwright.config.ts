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
  // One at a time in CI: each spec runs a host and a browser, and CI has 2 cores; two of them at
  // once starved the hosts (a first judgement past its deadline, a 10 s expectation missed) and
  // failed specs that pass alone. Locally two still run side by side.
  workers: process.env.CI ? 1 : 2,
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
