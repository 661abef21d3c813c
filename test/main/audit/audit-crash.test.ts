// Crash safety on a real file: a real host in a child process, with several producers appending
// 100,000 events, prints each seq once its `durable` resolved; the test SIGKILLs it once enough
// are acknowledged (a count, not a sleep), starts a host on the same folder again, and checks
// that every acknowledged event is there as written, that the chain verifies, and that the new
// host appends at the next seq.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createHost } from '../../../main/host/create-host.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const TOTAL = 100_000;
const PRODUCERS = 4;
/** Kill once this many are acknowledged: well into the run, well before its end. */
const KILL_AFTER = 25_000;

/** Bundles the writer next to the repository's node_modules, so it finds better-sqlite3 there. */
async function writerScript(): Promise<string> {
  const dir = join(repoRoot, 'node_modules', '.cache', 'gatehouse-tests');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `crash-writer-${process.pid}.mjs`);
  await build({
    entryPoints: [join(repoRoot, 'test', 'fixtures', 'audit', 'crash-writer.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  // The store's writer thread, which a bundle finds beside itself (as out/main holds it).
  await build({
    entryPoints: [join(repoRoot, 'main', 'audit', 'audit-writer-worker.ts')],
    outfile: join(dir, 'audit-writer-worker.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    define: { 'import.meta.url': 'undefined' },
    logLevel: 'silent',
  });
  onTestFinished(() => rmSync(outfile, { force: true }));
  return outfile;
}

describe('audit store crash safety (SIGKILL)', () => {
  it('keeps every event acknowledged as durable, verifies, and resumes appending', async () => {
    const script = await writerScript();
    const home = join(tempDir('gatehouse-crash-'), 'home');
    const child = spawn(process.execPath, [script, home, String(TOTAL), String(PRODUCERS)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

    const acked = new Map<number, { producer: number; n: number }>();
    let done = false;
    let killed = false;
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) {
      if (line === 'done') done = true;
      const m = /^ack (\d+) (\d+) (\d+)$/.exec(line);
      if (!m) continue;
      acked.set(Number(m[1]), { producer: Number(m[2]), n: Number(m[3]) });
      if (!killed && acked.size >= KILL_AFTER) {
        killed = child.kill('SIGKILL');
        // Lines already in the pipe were acknowledged before the kill: keep reading them.
      }
    }
    const exit = await exited;
    expect(stderr).toBe('');
    expect(done).toBe(false);
    expect(exit.signal).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(acked.size).toBeLessThan(TOTAL);

    // The next host on the same folder: it finds the killed one's lock stale, verifies the chain at start, and appends on.
    const host = createHost({ home, shell: 'serve', watch: false, projectDir: home, log: () => {} });
    const store = host.audit;
    try {
      await host.ready;
      expect(host.chainState()).toMatchObject({ state: 'verified', firstBad: null });
      const v = store.verify();
      expect(v.firstBad).toBeNull();
      expect(v.ok).toBe(true);
      const head = store.headSeq;
      const maxAcked = Math.max(...acked.keys());
      expect(head).toBeGreaterThanOrEqual(maxAcked);
      expect(v.head.seq).toBe(head);
      // Every acknowledged event is there, as its producer wrote it.
      const rows = store.db.prepare("SELECT seq, actor, payload FROM events WHERE type = 'crash.test'").all() as { seq: number; actor: string; payload: string }[];
      const bySeq = new Map(rows.map((r) => [r.seq, r]));
      let missing = 0;
      let wrong = 0;
      for (const [seq, e] of acked) {
        const row = bySeq.get(seq);
        if (!row) {
          missing++;
          continue;
        }
        const p = JSON.parse(row.payload) as { producer: number; n: number };
        if (row.actor !== `producer:${e.producer}` || p.producer !== e.producer || p.n !== e.n) wrong++;
      }
      expect({ missing, wrong }).toEqual({ missing: 0, wrong: 0 });
      // Each producer's events are in order and without gaps up to the last one that reached the file.
      for (let id = 0; id < PRODUCERS; id++) {
        const ns = rows.filter((r) => r.actor === `producer:${id}`).map((r) => (JSON.parse(r.payload) as { n: number }).n);
        expect(ns).toEqual(ns.map((_, i) => i));
      }

      const next = store.append({ type: 'test.after-crash', actor: 'host', payload: { after: 'crash' } });
      expect(next.seq).toBe(head + 1);
      await next.durable;
      expect(store.verify()).toMatchObject({ ok: true, head: { seq: head + 1 } });
    } finally {
      await host.close('test done');
    }
  });
});
