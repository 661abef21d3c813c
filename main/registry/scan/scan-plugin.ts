// A whole plugin folder: every file, recursively, plus the manifest's descriptions.
//
// Security-relevant choices (each says what breaks if it changes):
// - Symbolic links are never followed (neither files nor folders): following one would scan, or
//   hang on, whatever it points to outside the plugin. Files are opened with O_NOFOLLOW and
//   O_NONBLOCK so a file swapped for a link or a FIFO after the listing is neither followed nor
//   waited on; anything that is not a regular file once opened is skipped.
// - Files over 1 MiB are not read; they get a weight-1 finding so an operator knows something
//   went unscanned.
// - A file with a NUL byte is binary and skipped silently — unless its extension or #! line makes
//   it code (JavaScript, Python, shell): Node happily runs a script with a NUL in a comment, so a
//   NUL must not be a way to switch the scanner off.

import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_THRESHOLDS, type Finding, type PluginManifest, type ScanResult, type ScanThresholds } from '../types.js';
import { compareFindings } from './collector.js';
import { RULES } from './rules.js';
import { filesRunBy, languagesOf, scanFile, scanFileAs, type FileLanguage } from './scan-file.js';
import { scanManifestText } from './tool-poisoning.js';
import { scanLinks, scanPermissionPaths } from './folder-scan.js';
import { kindProvider } from '../kinds/index.js';
import { readBounded, type Bounded } from '../read-bounded.js';

export const MAX_SCAN_BYTES = 1024 * 1024;
const YIELD_AFTER_MS = 10;

/** A file as read from a plugin folder: its path relative to the folder (with `/`) and bytes. */
export interface PluginFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * Scans every file of the plugin folder `dir` (recursively, symlinks not followed) and, when a
 * manifest is given, its descriptions for tool poisoning. Asynchronous (it yields to the event loop
 * between batches of files); never throws for a file it cannot read (that file is skipped), only
 * for a folder that cannot be listed at all.
 */
export async function scanPlugin(dir: string, manifest: PluginManifest | null, thresholds: ScanThresholds = DEFAULT_THRESHOLDS): Promise<ScanResult> {
  const findings: Finding[] = [];
  let scanned = 0;
  let manifestSource: string | undefined;
  // Plugin files are small and local: synchronous reads are several times faster than a thread-pool
  // round trip per open/stat/read/close. Reading and scanning yield to the event loop every few
  // milliseconds, so a big folder (a vendored node_modules) cannot stall the host.
  let lastYield = performance.now();
  const links: string[] = [];
  const kindTexts = kindScanTexts(manifest);
  const runs = new RunByName();
  for (const rel of listFiles(dir, links)) {
    if (performance.now() - lastYield > YIELD_AFTER_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
    const r = readSmall(join(dir, rel));
    if (r === 'too-large') {
      findings.push({ file: rel, line: 1, column: 1, rule: 'scan.file-too-large', weight: RULES['scan.file-too-large'].weight, message: `File too large to scan (over ${MAX_SCAN_BYTES / 1024 / 1024} MiB); review it by hand or keep large data out of the plugin folder.` });
      continue;
    }
    if (!r) continue;
    const text = textOf(rel, r);
    if (text === null) continue;
    scanned++;
    if (manifest && rel === manifest.manifestFile) manifestSource = text;
    kindTexts?.set(rel, text);
    findings.push(...scanFile(rel, text));
    runs.note(rel, text);
  }
  for (const [rel, langs] of runs.targets()) {
    const r = readSmall(join(dir, rel));
    if (r instanceof Uint8Array) findings.push(...scanFileAs(rel, utf8.decode(r), langs));
  }
  if (manifest) findings.push(...scanManifestText(manifest, manifest.manifestFile, manifestSource));
  if (manifest && kindTexts) findings.push(...kindFindings(manifest, kindTexts));
  // Links are not followed above; one leading out of the folder is a finding of its own, and so is
  // a permission path that leads out of it.
  findings.push(...scanLinks(dir, links));
  if (manifest) findings.push(...scanPermissionPaths(manifest, dir, manifestSource));
  return summarise(findings, scanned, thresholds);
}

/**
 * The same scan over files already in memory (for callers that read the folder anyway, e.g. to
 * hash it). Binary files are skipped as in `scanPlugin`; size limits are the caller's business.
 * Synchronous: it never yields.
 */
export function scanPluginFiles(files: readonly PluginFile[], manifest: PluginManifest | null, thresholds: ScanThresholds = DEFAULT_THRESHOLDS): ScanResult {
  const findings: Finding[] = [];
  let scanned = 0;
  let manifestSource: string | undefined;
  const kindTexts = kindScanTexts(manifest);
  const runs = new RunByName();
  for (const f of files) {
    const text = textOf(f.path, f.bytes);
    if (text === null) continue;
    scanned++;
    if (manifest && f.path === manifest.manifestFile) manifestSource = text;
    kindTexts?.set(f.path, text);
    findings.push(...scanFile(f.path, text));
    runs.note(f.path, text);
  }
  const byPath = new Map(files.map((f) => [f.path, f.bytes]));
  for (const [rel, langs] of runs.targets()) {
    const bytes = byPath.get(rel);
    if (bytes) findings.push(...scanFileAs(rel, utf8.decode(bytes), langs));
  }
  if (manifest) findings.push(...scanManifestText(manifest, manifest.manifestFile, manifestSource));
  if (manifest && kindTexts) findings.push(...kindFindings(manifest, kindTexts));
  return summarise(findings, scanned, thresholds);
}

/**
 * The plugin's files that its shell scripts run by name with an interpreter (filesRunBy), and the
 * languages they run as there: `. ./data.dat` makes data.dat shell code, `exec python3 lib.txt`
 * makes lib.txt Python, whatever their names say. A review found both scanned as nothing.
 */
class RunByName {
  private readonly runs = new Map<string, Array<FileLanguage | string>>();
  note(rel: string, text: string): void {
    if (!languagesOf(rel, text).some((l) => l.kind === 'shell')) return;
    for (const { path, lang } of filesRunBy(text)) {
      const list = this.runs.get(path) ?? [];
      if (!list.some((l) => JSON.stringify(l) === JSON.stringify(lang))) list.push(lang);
      this.runs.set(path, list);
    }
  }
  targets(): Iterable<[string, Array<FileLanguage | string>]> {
    return this.runs.entries();
  }
}

/** Where the texts go for the scan rules of the plugin's kind, or null when its kind has none (nothing is kept then). */
function kindScanTexts(manifest: PluginManifest | null): Map<string, string> | null {
  return manifest && kindProvider(manifest.kind)?.scan ? new Map() : null;
}

/** The kind's own rules over the plugin's texts (../kinds/); they add to the common scan, never replace it. */
function kindFindings(manifest: PluginManifest, texts: ReadonlyMap<string, string>): Finding[] {
  return kindProvider(manifest.kind)?.scan?.(manifest, texts) ?? [];
}

/** The file's text, or null for a binary file (a NUL byte) that is not code by name or #! line. */
function textOf(path: string, bytes: Uint8Array): string | null {
  if (bytes.indexOf(0) !== -1 && languagesOf(path, utf8.decode(bytes.subarray(0, 512))).length === 0) return null;
  return utf8.decode(bytes);
}

export function summarise(findings: Finding[], filesScanned: number, thresholds: ScanThresholds = DEFAULT_THRESHOLDS): ScanResult {
  findings.sort(compareFindings);
  const totalWeight = findings.reduce((n, f) => n + f.weight, 0);
  const passed = !findings.some((f) => f.weight >= thresholds.failAtWeight) && totalWeight < thresholds.failAtTotal;
  return { findings, totalWeight, passed, filesScanned };
}

/** Regular files under `root` (relative, `/`-separated, sorted); symbolic links go to `links`, unfollowed. */
function listFiles(root: string, links: string[] = []): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch (err) {
      if (!rel) throw err;
      return; // a subfolder that vanished or cannot be read: nothing in it can be run either
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) {
        links.push(p);
        continue;
      }
      if (e.isDirectory()) subdirs.push(p);
      else if (e.isFile()) out.push(p);
    }
    for (const d of subdirs) walk(d);
  };
  walk('');
  return out;
}

function readSmall(path: string): Uint8Array | 'too-large' | null {
  let r: Bounded;
  try {
    r = readBounded(path, MAX_SCAN_BYTES);
  } catch {
    return null; // swapped for a link (ELOOP), removed, or unreadable
  }
  if (Buffer.isBuffer(r)) return r;
  return r.refused === 'too-large' ? 'too-large' : null;
}

const utf8 = new TextDecoder('utf-8');
