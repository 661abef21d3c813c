// A plugin bundle: a plugin folder packed reproducibly into one file that the catalog signs by
// hash. The format is our own and deliberately tiny (a magic line, one JSON header line, then the
// files' bytes back to back) so that unpacking needs no archive library whose edge cases (links,
// devices, absolute names, `..`) we would have to trust: the header can only name regular files.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

const MAGIC = 'GATEHOUSE-BUNDLE-1\n';
/** Caps keep a hostile bundle from filling the disk or the memory before the hash is even checked. */
export const BUNDLE_LIMITS = { maxFiles: 2000, maxFileBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024, maxPathLength: 240, maxDepth: 16 } as const;

export interface BundleEntry {
  path: string;
  size: number;
  executable: boolean;
}

export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

/** A relative POSIX path with no empty, `.` or `..` segment, no leading `/`, no backslash and no control characters. */
export function checkEntryPath(p: string): void {
  if (typeof p !== 'string' || p.length === 0) throw new BundleError('bundle entry has an empty path');
  if (p.length > BUNDLE_LIMITS.maxPathLength) throw new BundleError(`bundle entry path is longer than ${BUNDLE_LIMITS.maxPathLength} characters: ${JSON.stringify(p.slice(0, 60))}`);
  if (p.startsWith('/')) throw new BundleError(`bundle entry has an absolute path: ${JSON.stringify(p)}`);
  if (p.includes('\\')) throw new BundleError(`bundle entry path contains a backslash: ${JSON.stringify(p)}`);
  // eslint-disable-next-line no-control-regex -- control characters are what this check refuses
  if (/[\u0000-\u001f\u007f]/.test(p)) throw new BundleError(`bundle entry path contains a control character: ${JSON.stringify(p)}`);
  const parts = p.split('/');
  if (parts.length > BUNDLE_LIMITS.maxDepth) throw new BundleError(`bundle entry is nested deeper than ${BUNDLE_LIMITS.maxDepth} folders: ${JSON.stringify(p)}`);
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') throw new BundleError(`bundle entry path has a ${part === '..' ? "'..'" : part === '.' ? "'.'" : 'empty'} segment: ${JSON.stringify(p)}`);
  }
}

/** Packs a plugin folder. Symlinks and special files are refused rather than followed or skipped, so what is signed is exactly what is in the folder. */
export function packBundle(dir: string): { bytes: Buffer; entries: BundleEntry[] } {
  const files: { rel: string; abs: string }[] = [];
  const walk = (rel: string): void => {
    const abs = rel ? join(dir, rel) : dir;
    for (const name of readdirSync(abs).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(abs, name));
      if (st.isSymbolicLink()) throw new BundleError(`cannot pack ${childRel}: it is a symbolic link; a bundle holds only regular files`);
      if (st.isDirectory()) walk(childRel);
      else if (st.isFile()) files.push({ rel: childRel, abs: join(abs, name) });
      else throw new BundleError(`cannot pack ${childRel}: it is not a regular file or folder`);
    }
  };
  walk('');
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  if (files.length > BUNDLE_LIMITS.maxFiles) throw new BundleError(`the folder has ${files.length} files, more than the ${BUNDLE_LIMITS.maxFiles} a bundle may hold`);
  const entries: BundleEntry[] = [];
  const bodies: Buffer[] = [];
  let total = 0;
  for (const f of files) {
    checkEntryPath(f.rel);
    const body = readFileSync(f.abs);
    if (body.length > BUNDLE_LIMITS.maxFileBytes) throw new BundleError(`${f.rel} is ${body.length} bytes, more than the ${BUNDLE_LIMITS.maxFileBytes} a bundled file may have`);
    total += body.length;
    if (total > BUNDLE_LIMITS.maxTotalBytes) throw new BundleError(`the folder holds more than the ${BUNDLE_LIMITS.maxTotalBytes} bytes a bundle may have`);
    // Only the executable bit survives: owners, times and other modes would make two packs of the same folder differ.
    entries.push({ path: f.rel, size: body.length, executable: (lstatSync(f.abs).mode & 0o111) !== 0 });
    bodies.push(body);
  }
  const header = Buffer.from(JSON.stringify({ entries }) + '\n', 'utf8');
  return { bytes: Buffer.concat([Buffer.from(MAGIC, 'utf8'), header, ...bodies]), entries };
}

/** Parses and checks a bundle's header without writing anything. */
export function readBundleHeader(bytes: Buffer): { entries: BundleEntry[]; bodyStart: number } {
  if (bytes.length < MAGIC.length || bytes.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new BundleError('not a Gatehouse bundle (bad magic line)');
  const nl = bytes.indexOf(0x0a, MAGIC.length);
  if (nl < 0) throw new BundleError('bundle header is not terminated');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.subarray(MAGIC.length, nl).toString('utf8'));
  } catch {
    throw new BundleError('bundle header is not valid JSON');
  }
  const raw = (parsed as { entries?: unknown }).entries;
  if (!Array.isArray(raw)) throw new BundleError('bundle header has no entries list');
  if (raw.length > BUNDLE_LIMITS.maxFiles) throw new BundleError(`bundle has ${raw.length} entries, more than ${BUNDLE_LIMITS.maxFiles}`);
  const entries: BundleEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const e of raw as Record<string, unknown>[]) {
    const p = e?.path as string;
    checkEntryPath(p);
    if (seen.has(p)) throw new BundleError(`bundle entry appears twice: ${JSON.stringify(p)}`);
    seen.add(p);
    const size = e.size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > BUNDLE_LIMITS.maxFileBytes) throw new BundleError(`bundle entry ${JSON.stringify(p)} has a bad size`);
    total += size;
    entries.push({ path: p, size, executable: e.executable === true });
  }
  // A file and a folder of the same name (`a` and `a/b`) would make unpacking depend on order.
  for (const p of seen) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) if (seen.has(parts.slice(0, i).join('/'))) throw new BundleError(`bundle entry ${JSON.stringify(p)} is inside another entry that is a file`);
  }
  if (total > BUNDLE_LIMITS.maxTotalBytes) throw new BundleError(`bundle holds more than ${BUNDLE_LIMITS.maxTotalBytes} bytes`);
  if (nl + 1 + total !== bytes.length) throw new BundleError(`bundle length does not match its header (${bytes.length - nl - 1} body bytes, header says ${total})`);
  return { entries, bodyStart: nl + 1 };
}

/**
 * Unpacks into `dest`, which must not exist yet: a fresh folder means no file already there
 * (or a planted symlink) can redirect a write. On any failure the folder is removed, so nothing
 * is left on disk.
 */
export function unpackBundle(bytes: Buffer, dest: string): BundleEntry[] {
  const { entries, bodyStart } = readBundleHeader(bytes);
  mkdirSync(dest, { mode: 0o700 }); // throws EEXIST for an existing folder
  try {
    let off = bodyStart;
    for (const e of entries) {
      const target = join(dest, ...e.path.split('/'));
      if (!target.startsWith(dest + sep)) throw new BundleError(`bundle entry escapes the folder: ${JSON.stringify(e.path)}`);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      // O_EXCL|O_NOFOLLOW: never overwrite and never write through a link.
      const fd = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, e.executable ? 0o700 : 0o600);
      try {
        writeFileSync(fd, bytes.subarray(off, off + e.size));
        if (!fstatSync(fd).isFile()) throw new BundleError(`bundle entry ${e.path} did not unpack as a file`);
      } finally {
        closeSync(fd);
      }
      off += e.size;
    }
    return entries;
  } catch (err) {
    rmSync(dest, { recursive: true, force: true });
    throw err;
  }
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
