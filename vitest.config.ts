// Unit and integration tests (test/**/*.test.ts). They use real parts: SQLite files in temp
// folders, child processes of the built CLI, HTTP and WebSocket on loopback. The built CLI and
// preload come from `npm test` (which builds first); test/global-setup.ts builds what is missing
// or older than its sources.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Forks, not threads: better-sqlite3 is a native addon and the CLI tests send signals.
    pool: 'forks',
    // At least two files at once, also on a two-core machine (Vitest's default there is one): most
    // tests wait on real child processes (hosts, agent CLIs, PostgreSQL), so two keep both cores
    // busy, and CI stays well under its time limit. Tests wait for events, never for a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A test that only passes when retried is a failing test.
    retry: 0,
    allowOnly: false,
  },
});
