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
import { join, posix } from 'node:path';
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
  if (manifest) runs.manifest(manifest);
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
  if (manifest) runs.manifest(manifest);
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
 * The plugin's files that its code runs as code whatever their names say, and the languages they
 * run as there (a review found each scanned as nothing):
 *   - a shell script's `. ./data.dat` (shell), `exec python3 lib.txt` (Python) (filesRunBy);
 *   - a script's own argument run so (`. "$1"`), with the file the manifest's `args` give it;
 *   - JavaScript's `require('./lib.dat')`, which Node loads as JavaScript whatever the extension;
 *   - Python's loaders of a file by path (`SourceFileLoader(…, 'lib.dat')`, `runpy.run_path`,
 *     `spec_from_file_location`, `exec(open(…).read())`).
 * Paths are from the plugin folder (the working folder); a JavaScript one from the file's folder,
 * a Python one from either (`os.path.join(os.path.dirname(__file__), 'lib.dat')`).
 */
class RunByName {
  private readonly runs = new Map<string, Array<FileLanguage | string>>();
  /** Per script, the arguments it runs (`$1` → 1, `$@` → every one) and as what. */
  private readonly byArgument = new Map<string, Array<{ n: number | 'all'; lang: FileLanguage | string }>>();
  note(rel: string, text: string): void {
    const langs = languagesOf(rel, text);
    if (langs.some((l) => l.kind === 'shell')) {
      for (const { path, lang } of filesRunBy(text)) {
        const arg = /^\$\{?([1-9@])\}?$/.exec(path);
        if (arg) {
          const list = this.byArgument.get(rel) ?? [];
          list.push({ n: arg[1] === '@' ? 'all' : Number(arg[1]), lang });
          this.byArgument.set(rel, list);
        } else this.add(path, lang);
      }
    }
    const here = posix.dirname(rel);
    if (langs.some((l) => l.kind === 'js')) for (const p of jsLoadedFiles(text)) this.add(posix.join(here, p), { kind: 'js', dialect: 'js' });
    if (langs.some((l) => l.kind === 'python')) {
      for (const p of pythonLoadedFiles(text)) {
        this.add(p, { kind: 'python' });
        if (here !== '.') this.add(posix.join(here, p), { kind: 'python' });
      }
    }
  }
  /** The files the manifest's `args` hand a script that runs its arguments (`. "$1"`). */
  manifest(m: PluginManifest): void {
    for (const { command, args } of [m, ...m.tools]) {
      const runs = this.byArgument.get(posix.normalize(command));
      if (!runs) continue;
      for (const { n, lang } of runs) for (const a of n === 'all' ? args : [args[n - 1]]) if (a !== undefined) this.add(a, lang);
    }
  }
  targets(): Iterable<[string, Array<FileLanguage | string>]> {
    return this.runs.entries();
  }
  private add(path: string, lang: FileLanguage | string): void {
    const rel = posix.normalize(path);
    if (!rel || rel === '.' || rel.startsWith('../') || rel === '..' || posix.isAbsolute(rel)) return;
    const list = this.runs.get(rel) ?? [];
    if (!list.some((l) => JSON.stringify(l) === JSON.stringify(lang))) list.push(lang);
    this.runs.set(rel, list);
  }
}

/** Extensions Node runs by their own rules (a `.dat` is loaded as JavaScript). */
const JS_OWN_EXTENSIONS = /\.(?:[cm]?js|jsx|[cm]?ts|tsx|json|node|wasm)$/i;
/** `require('./x')`, `import … from './x'`, `import('./x')`, `require.resolve` aside: a relative file loaded as a module. */
const JS_LOAD = /(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|\bimport\s+)(['"`])(\.\.?\/[^'"`\n]+)\1/g;

/** Relative files a JavaScript file loads as code although their names do not say so. */
export function jsLoadedFiles(text: string): string[] {
  return [...text.matchAll(JS_LOAD)].map((m) => m[2] as string).filter((p) => !JS_OWN_EXTENSIONS.test(p) && /\.[^/]+$/.test(p));
}

/** Python's ways to run a file by its path, and the string literals in their call. */
const PY_LOAD = /\b(?:SourceFileLoader|SourcelessFileLoader|spec_from_file_location|run_path|load_source|exec\s*\(\s*(?:compile\s*\(\s*)?open|compile\s*\(\s*open)\s*\(([^\n]{0,300})/g;

/** Files (string literals naming a file) that a Python file runs by path. */
export function pythonLoadedFiles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PY_LOAD)) for (const s of (m[1] as string).matchAll(/(['"])([^'"\n]+)\1/g)) if (/^[\w./-]+$/.test(s[2] as string) && /[./]/.test(s[2] as string)) out.push((s[2] as string).replace(/^(?:\.\/)+/, ''));
  return out;
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
