// Unit and integration tests (test/**/*.test.ts). They use real parts: SQLite files in temp
// folders, child processes of the built CLI, HTTP and WebSocket on loopback. The built CLI and
// preload come from `npm test` (which builds first); test/global-setup.ts builds what is missing
// or older than its sources.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Forks, not threads: better-sqlite3 is a native addon and the CLI tests send signals.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A test that only passes when retried is a failing test.
    retry: 0,
    allowOnly: false,
  },
});
