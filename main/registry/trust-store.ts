// Which plugins an operator enabled, and exactly which files they approved; and which of them
// an operator trusts to run without the OS sandbox (for exactly those files).
//
// trust.json records the pin (folder, hash, per-file digests, who and when). A copy of the
// approved text files is kept beside it so a quarantine can show a diff of what changed.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { FolderDigest } from './integrity.js';

const fileDigest = z.object({ path: z.string(), kind: z.enum(['f', 'x', 'l']), size: z.number(), sha256: z.string() });
const trustRecord = z.object({
  name: z.string(),
  dir: z.string(),
  hash: z.string(),
  files: z.array(fileDigest),
  enabledAt: z.number(),
  enabledBy: z.string(),
  scanOverride: z.object({ reason: z.string(), by: z.string(), at: z.number() }).nullable().default(null),
  // An operator lets the manifest's sandbox = "none" take effect. Bound to the pinned hash it
  // was given for: a re-pin (an approved change) writes a new record without it.
  trusted: z.object({ reason: z.string(), by: z.string(), at: z.number(), hash: z.string() }).nullable().default(null),
});
const trustFile = z.object({ version: z.literal(1), plugins: z.record(z.string(), trustRecord) });
export type TrustRecord = z.output<typeof trustRecord>;

/** Snapshot copies larger than this are not kept; their diff says so instead. */
const MAX_SNAPSHOT_FILE = 256 * 1024;

export class TrustStore {
  private records = new Map<string, TrustRecord>();
  /**
   * Pins taken for this run only (`serve --allowed-plugins`): checked like any other pin, never
   * written to trust.json, so the next run without the flag enables nothing.
   */
  private readonly forRun = new Set<string>();
  private readonly file: string;
  private readonly snapshots: string;

  constructor(home: string) {
    this.file = join(home, 'trust.json');
    this.snapshots = join(home, 'trust');
    if (existsSync(this.file)) {
      const parsed = trustFile.safeParse(JSON.parse(readFileSync(this.file, 'utf8')));
      if (!parsed.success) {
        // Fail closed: an unreadable trust file enables nothing. Keep it for the operator.
        const aside = `${this.file}.unreadable-${Date.now()}`;
        renameSync(this.file, aside);
        throw new Error(`${this.file} is not a valid trust file (moved to ${aside}); every plugin starts disabled. Re-enable the plugins you trust.`);
      }
      for (const [k, v] of Object.entries(parsed.data.plugins)) this.records.set(k, v);
    }
  }

  get(name: string): TrustRecord | undefined {
    return this.records.get(name);
  }

  /** Pinned for this run only (`serve --allowed-plugins`), not in trust.json. */
  pinnedForRun(name: string): boolean {
    return this.forRun.has(name);
  }

  all(): TrustRecord[] {
    return [...this.records.values()];
  }

  pin(name: string, dir: string, digest: FolderDigest, by: string, at: number, scanOverride: TrustRecord['scanOverride'] = null, opts: { forRun?: boolean } = {}): TrustRecord {
    const rec: TrustRecord = { name, dir, hash: digest.hash, files: digest.files, enabledAt: at, enabledBy: by, scanOverride, trusted: null };
    this.records.set(name, rec);
    if (opts.forRun) this.forRun.add(name);
    else this.forRun.delete(name);
    this.snapshot(name, dir, digest);
    this.save();
    return rec;
  }

  /** Marks the pinned plugin trusted (for its pinned hash) or clears the mark. */
  setTrusted(name: string, trusted: { reason: string; by: string; at: number } | null): TrustRecord {
    const rec = this.records.get(name);
    if (!rec) throw new Error(`${name} is not pinned; enable it before marking it trusted.`);
    const next: TrustRecord = { ...rec, trusted: trusted ? { ...trusted, hash: rec.hash } : null };
    this.records.set(name, next);
    this.save();
    return next;
  }

  unpin(name: string): void {
    this.forRun.delete(name);
    if (!this.records.delete(name)) return;
    rmSync(join(this.snapshots, encodeName(name)), { recursive: true, force: true });
    this.save();
  }

  /** The approved text of one file, or null when no copy was kept. */
  snapshotText(name: string, path: string): string | null {
    const p = join(this.snapshots, encodeName(name), path);
    return existsSync(p) ? readFileSync(p, 'utf8') : null;
  }

  /** Where the approved copy of one file is kept, or null when none was (a link, or too large). */
  snapshotPath(name: string, path: string): string | null {
    const p = join(this.snapshots, encodeName(name), path);
    return existsSync(p) ? p : null;
  }

  private snapshot(name: string, dir: string, digest: FolderDigest): void {
    const root = join(this.snapshots, encodeName(name));
    rmSync(root, { recursive: true, force: true });
    for (const f of digest.files) {
      if (f.kind === 'l' || f.size > MAX_SNAPSHOT_FILE) continue;
      const target = join(root, f.path);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      cpSync(join(dir, f.path), target);
    }
  }

  private save(): void {
    const data = { version: 1 as const, plugins: Object.fromEntries([...this.records].filter(([name]) => !this.forRun.has(name))) };
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

function encodeName(name: string): string {
  // Plugin names are already restricted to [A-Za-z0-9_-], but never trust that here.
  return encodeURIComponent(name);
}
