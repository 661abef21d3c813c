// What "this plugin" means for trust: a SHA-256 over every file of its folder (path, exec bit,
// contents; symlinks by target, never followed). Enabling pins it; any change shows.
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { readBounded } from './read-bounded.js';

export interface FileDigest {
  /** Relative to the plugin folder, with forward slashes. */
  path: string;
  /** "f" regular file, "x" executable file, "l" symlink. */
  kind: 'f' | 'x' | 'l';
  size: number;
  /** SHA-256 of the contents, or of the link target for a symlink. */
  sha256: string;
}

export interface FolderDigest {
  hash: string;
  files: FileDigest[];
}

/** Stops a plugin folder that is really a home directory from being read whole. */
export const MAX_PLUGIN_FILES = 5000;
/**
 * The digest reads every byte synchronously, on the host's event loop, at discovery (before any
 * operator enabled the plugin), at every reload the watcher starts and before every call. A folder
 * of sparse multi-gigabyte files (no disk used; anyone who can write a project's
 * .gatehouse/plugins can make them) stopped the host for minutes. A plugin is code: these bound it.
 */
export const MAX_PLUGIN_FILE_BYTES = 128 * 2 ** 20;
export const MAX_PLUGIN_BYTES = 256 * 2 ** 20;

/**
 * Sees each entry as it is hashed, with the very bytes that were hashed: a copy made from these
 * is exactly what the digest covers, whatever happens to the folder meanwhile.
 */
export interface DigestVisitor {
  dir(rel: string): void;
  file(rel: string, data: Buffer, executable: boolean): void;
  link(rel: string, target: string): void;
}

export function digestFolder(dir: string, visit?: DigestVisitor): FolderDigest {
  const files: FileDigest[] = [];
  let total = 0;
  const walk = (abs: string, rel: string) => {
    // The listing's own entry types (Node asks lstat itself only where the file system gives
    // none): a regular file is then opened without following links and checked by fstat on that
    // descriptor (readBounded), which is the check that counts, so no lstat of its own per file.
    // An entry changed after the listing fails that check, as one changed after an lstat did.
    const entries = readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childAbs = join(abs, e.name);
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (files.length >= MAX_PLUGIN_FILES) throw new Error(`${dir} holds more than ${MAX_PLUGIN_FILES} files; a plugin folder should hold only the plugin.`);
      if (e.isSymbolicLink()) {
        const target = readlinkSync(childAbs);
        visit?.link(childRel, target);
        files.push({ path: childRel, kind: 'l', size: target.length, sha256: sha256(target) });
      } else if (e.isDirectory()) {
        visit?.dir(childRel);
        walk(childAbs, childRel);
      } else if (e.isFile()) {
        let executable = false;
        const data = readRegular(childAbs, childRel, (st) => {
          // Refused before its bytes are read, as each file's own bound is (readBounded).
          total += st.size;
          if (total > MAX_PLUGIN_BYTES) throw new Error(`${dir} holds more than ${mib(MAX_PLUGIN_BYTES)}; a plugin folder should hold only the plugin.`);
          executable = (st.mode & 0o111) !== 0;
        });
        visit?.file(childRel, data, executable);
        files.push({ path: childRel, kind: executable ? 'x' : 'f', size: data.length, sha256: sha256(data) });
      }
      // Sockets, FIFOs and devices have no contents to pin and are never executed.
    }
  };
  walk(dir, '');
  const h = createHash('sha256');
  for (const f of files) h.update(`${f.path}\0${f.kind}\0${f.sha256}\n`);
  return { hash: h.digest('hex'), files };
}

/** The file's bytes; one that is no longer a regular file, or past the bound, is refused. */
function readRegular(abs: string, rel: string, before: (st: Stats) => void): Buffer {
  const r = readBounded(abs, MAX_PLUGIN_FILE_BYTES, before);
  if (Buffer.isBuffer(r)) return r;
  if (r.refused === 'not-a-file') throw new Error(`${rel} stopped being a regular file while it was read.`);
  throw new Error(`${rel} is ${mib(r.size)}; a plugin's file may be at most ${mib(MAX_PLUGIN_FILE_BYTES)}, so Gatehouse does not read it.`);
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface FileChange {
  path: string;
  change: 'added' | 'removed' | 'modified' | 'mode';
}

/** Which files differ between a pinned digest and the folder now. */
export function diffDigests(pinned: FileDigest[], now: FileDigest[]): FileChange[] {
  const before = new Map(pinned.map((f) => [f.path, f]));
  const after = new Map(now.map((f) => [f.path, f]));
  const out: FileChange[] = [];
  for (const [path, a] of after) {
    const b = before.get(path);
    if (!b) out.push({ path, change: 'added' });
    else if (b.sha256 !== a.sha256) out.push({ path, change: 'modified' });
    else if (b.kind !== a.kind) out.push({ path, change: 'mode' });
  }
  for (const path of before.keys()) if (!after.has(path)) out.push({ path, change: 'removed' });
  return out.sort((x, y) => (x.path < y.path ? -1 : 1));
}
