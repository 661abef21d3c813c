// Temporary folders that are removed when the test that made them finishes, and files awaited in them.
import { existsSync, mkdtempSync, readFileSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A fresh folder for this test only (call inside a test). */
export function tempDir(prefix = 'gatehouse-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried on ENOTEMPTY/EBUSY: a child a test started (a host's helper process) may still be
  // ending and writing while a large folder is removed; CI saw one such removal fail.
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** A folder shared by a describe block: create it in beforeAll, remove it with the returned function. */
export function sharedTempDir(prefix = 'gatehouse-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Resolves with the text of `file` once it exists, waiting on its folder's change events (no
 * polling). The writer should create it whole (write elsewhere, then rename into place).
 */
export function untilFile(file: string): Promise<string> {
  return new Promise((resolve) => {
    const watcher = watch(dirname(file), () => look());
    const look = () => {
      if (!existsSync(file)) return;
      watcher.close();
      resolve(readFileSync(file, 'utf8'));
    };
    look();
  });
}
