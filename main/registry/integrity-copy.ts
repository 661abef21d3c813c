// The copy a plugin actually runs from. Verifying a folder and then executing from it leaves a
// window in which a file can be swapped (the check passes, other code runs). So a verified
// plugin runs from a private copy made from the very bytes that were hashed, kept per digest in
// a 0700 folder under GATEHOUSE_HOME (which agents may not touch): a swap in the plugin's own
// folder after verification changes nothing that runs, and the copy is re-hashed before each
// use, so damage to it is repaired from the (just verified) original instead of being run.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, posix, relative, resolve } from 'node:path';
import { digestFolder, type FolderDigest } from './integrity.js';
import { leavesFolder } from '../core/path-walk.js';

export type VerifiedCopy = { ok: true; dir: string; reused: boolean } | { ok: false; digest: FolderDigest };

/** Creates `dir` owner-only (and makes an existing one owner-only). */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * A copy of `src` whose digest is `expected`, under `cacheRoot/<expected>`: reused when it is
 * intact, else made from `src`. `ok: false` when what `src` holds now hashes to something else
 * (the folder changed since it was verified); nothing is kept then.
 */
export function verifiedCopy(src: string, expected: string, cacheRoot: string): VerifiedCopy {
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new Error(`a plugin digest is 64 hex digits, got ${JSON.stringify(expected)}`);
  ensurePrivateDir(cacheRoot);
  const target = join(cacheRoot, expected);
  if (intact(target, expected)) return { ok: true, dir: target, reused: true };
  rmSync(target, { recursive: true, force: true });
  const tmp = mkdtempSync(join(cacheRoot, '.tmp-'));
  const roots = [resolve(src), realOr(resolve(src))];
  const links: string[] = [];
  try {
    const digest = digestFolder(src, {
      dir: (rel) => mkdirSync(join(tmp, rel), { mode: 0o700 }),
      // Read-only files: nothing in Gatehouse writes to them, and a stray write fails loudly.
      file: (rel, data, executable) => writeFileSync(join(tmp, rel), data, { mode: executable ? 0o500 : 0o400, flag: 'wx' }),
      link: (rel, to) => {
        // A relative link that leaves the folder would point somewhere else from the copy.
        if (!isAbsolute(to) && posix.normalize(posix.join(posix.dirname(rel), to)).startsWith('..')) {
          throw new Error(`${rel} links to ${to}, outside the plugin's folder; a plugin runs from a verified copy of its folder, so its links must stay inside it (or be absolute)`);
        }
        // Security-sensitive: an absolute link to a file of the folder itself (inside, so the scan
        // and the command checks pass it) would make the copy run the original file, which can be
        // swapped after this check. Only a relative link keeps to the verified bytes.
        // By its path or through links on the way (/proj/alias/impl.sh with alias -> the folder).
        if (isAbsolute(to) && roots.some((r) => inside(r, resolve(to)) || inside(r, realOr(resolve(to))))) {
          throw new Error(`${rel} links to ${to}, a file of the plugin's own folder by its absolute path; a plugin runs from a verified copy of its folder, so a link to its own files must be relative`);
        }
        symlinkSync(to, join(tmp, rel));
        if (!isAbsolute(to)) links.push(rel);
      },
    });
    if (digest.hash !== expected) return { ok: false, digest };
    linksStayInside(tmp, links);
    try {
      renameSync(tmp, target);
    } catch (err) {
      // Another call of the same plugin made the same copy first: use it when it is intact.
      if (!intact(target, expected)) throw err;
    }
    return { ok: true, dir: target, reused: false };
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Each relative link of the copy, followed as the kernel follows it (walkPath), stays inside the
 * copy all the way. Security-sensitive: checked by its text alone, `data -> b/b/../..` with
 * `b -> .` reads as the folder itself, while the kernel climbs out of the copy into Gatehouse's
 * run cache and folder (a review read the agent token, ~/.ssh and wrote ~/.bashrc through three
 * such links of a plugin whose scan was clean). All the links exist by now, so chains resolve.
 */
function linksStayInside(copy: string, links: readonly string[]): void {
  const root = realOr(copy);
  for (const rel of links) {
    const out = leavesFolder(root, rel);
    if (out !== null) {
      throw new Error(`${rel} is a link that ${out === 'loops' ? 'loops' : `leads out of the plugin's folder (to ${out})`} when followed; a plugin runs from a verified copy of its folder, so its links must stay inside it`);
    }
  }
}

function intact(dir: string, expected: string): boolean {
  // No copy yet: the listing fails (ENOENT), answered below like a damaged copy.
  try {
    return digestFolder(dir).hash === expected;
  } catch {
    return false;
  }
}

/** Removes the copies of digests no plugin is pinned to any more (after a change was approved). */
export function pruneCopies(cacheRoot: string, keep: ReadonlySet<string>): void {
  let names: string[];
  try {
    names = readdirSync(cacheRoot);
  } catch {
    return;
  }
  for (const name of names) {
    if (/^[0-9a-f]{64}$/.test(name) && !keep.has(name)) rmSync(join(cacheRoot, name), { recursive: true, force: true });
  }
}

function inside(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
