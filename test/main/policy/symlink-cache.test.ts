// The cache of where paths' symlinks lead (extract/symlink-cache.ts), on a real file system: an
// agent that changes the tree between two calls is judged on the change. The clock is the only
// fake: "settled" means times older than SETTLED_MS, and waiting two seconds per test is not a test.
import { mkdirSync, rmSync, symlinkSync, utimesSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REUSE_MS, SETTLED_MS, SymlinkCache } from '../../../main/policy/extract/symlink-cache.js';
import { walkSymlinks } from '../../../main/policy/extract/paths.js';
import { tempDir } from '../../support/temp.js';

/** A cache whose clock runs `ahead` ms past the real one: everything on disk looks settled. */
function cacheAhead(ahead = SETTLED_MS * 5) {
  let walks = 0;
  const cache = new SymlinkCache(
    (p) => {
      walks++;
      return walkSymlinks(p);
    },
    { now: () => Date.now() + ahead },
  );
  return { cache, walks: () => walks };
}

describe('the symlink cache', () => {
  it('answers a repeated path from the cache, and a symlink made where a missing name was is followed at once', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    const secret = join(root, 'secret');
    mkdirSync(secret);
    const { cache, walks } = cacheAhead();
    const p = join(work, 'src', 'a.ts');
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    expect(walks()).toBe(1);
    // The agent's move: `ln -s <secret> work/src`, then the same call again.
    symlinkSync(secret, join(work, 'src'));
    expect(cache.resolve(p)).toBe(join(secret, 'a.ts'));
    expect(walks()).toBe(2);
  });

  it('a folder on the way swapped for a symlink to another folder is seen, for a path that exists whole', () => {
    const root = tempDir('gatehouse-symcache-');
    mkdirSync(join(root, 'proj'));
    writeFileSync(join(root, 'proj', 'notes.txt'), 'x');
    mkdirSync(join(root, 'keys'));
    writeFileSync(join(root, 'keys', 'notes.txt'), 'key');
    const { cache } = cacheAhead();
    const p = join(root, 'proj', 'notes.txt');
    expect(cache.resolve(p)).toBe(p);
    renameSync(join(root, 'proj'), join(root, 'old'));
    symlinkSync(join(root, 'keys'), join(root, 'proj'));
    expect(cache.resolve(p)).toBe(join(root, 'keys', 'notes.txt'));
  });

  it('a change whose folder mtime was put back (touch -d) is still seen: the ctime moved', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    // A whole-second mtime, which utimes can put back exactly.
    const stamp = Math.floor(Date.now() / 1000) - 60;
    utimesSync(work, stamp, stamp);
    const { cache } = cacheAhead();
    const p = join(work, 'link', 'id_rsa');
    expect(cache.resolve(p)).toBe(p);
    const before = statSync(work);
    symlinkSync(join(root, 'elsewhere'), join(work, 'link'));
    utimesSync(work, stamp, stamp);
    expect(statSync(work).mtimeMs).toBe(before.mtimeMs);
    expect(cache.resolve(p)).toBe(join(root, 'elsewhere', 'id_rsa'));
  });

  it('keeps nothing that rests on a folder changed in the last SETTLED_MS (the clock is coarse), and nothing a followed symlink led to', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    const fresh = cacheAhead(0);
    fresh.cache.resolve(join(work, 'a'));
    fresh.cache.resolve(join(work, 'a'));
    expect(fresh.walks()).toBe(2);
    expect(fresh.cache.size).toBe(0);
    // A dangling link followed elsewhere: what it leads to is not under the folder one stat proves.
    symlinkSync(join(root, 'gone', 'x'), join(work, 'dangling'));
    const settled = cacheAhead();
    expect(settled.cache.resolve(join(work, 'dangling'))).toBe(join(root, 'gone', 'x'));
    expect(settled.cache.size).toBe(0);
  });

  it('a removed folder, and one made again in its place, are not taken for the one kept', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    const { cache } = cacheAhead();
    const p = join(work, 'x', 'y');
    expect(cache.resolve(p)).toBe(p);
    rmSync(work, { recursive: true });
    mkdirSync(join(root, 'real'));
    mkdirSync(join(root, 'real', 'x'));
    symlinkSync(join(root, 'real'), work);
    expect(cache.resolve(p)).toBe(join(root, 'real', 'x', 'y'));
  });

  it('a folder above the anchor moved into a protected one and replaced by a symlink to it is seen once REUSE_MS has passed', () => {
    const root = tempDir('gatehouse-symcache-');
    mkdirSync(join(root, 'work', 'd'), { recursive: true });
    writeFileSync(join(root, 'work', 'd', 'f.txt'), 'x');
    mkdirSync(join(root, 'protected'));
    // The clock: past SETTLED_MS from the files' times, then moved by hand.
    let now = Date.now() + SETTLED_MS * 5;
    let walks = 0;
    const cache = new SymlinkCache(
      (p) => {
        walks++;
        return walkSymlinks(p);
      },
      { now: () => now },
    );
    const p = join(root, 'work', 'd', 'f.txt');
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    expect(walks).toBe(1);
    // `mv work protected/work; ln -s protected/work work`: f.txt is the same file, with the same
    // times; only a walk of every folder on the way sees that its real path changed.
    renameSync(join(root, 'work'), join(root, 'protected', 'work'));
    symlinkSync(join(root, 'protected', 'work'), join(root, 'work'));
    now += REUSE_MS;
    expect(cache.resolve(p)).toBe(join(root, 'protected', 'work', 'd', 'f.txt'));
    expect(walks).toBe(2);
  });

  it('a folder whose other entries change is still proven by the missing name, with no walk; the name made a symlink is followed at once', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    mkdirSync(join(root, 'secret'));
    const { cache, walks } = cacheAhead();
    const p = join(work, 'out.txt');
    expect(cache.resolve(p)).toBe(p);
    // Another file made in the folder: its times move, the name is still absent.
    writeFileSync(join(work, 'other.txt'), 'x');
    expect(cache.resolve(p)).toBe(p);
    expect(cache.resolve(p)).toBe(p);
    expect(walks()).toBe(1);
    symlinkSync(join(root, 'secret', 'out.txt'), p);
    expect(cache.resolve(p)).toBe(join(root, 'secret', 'out.txt'));
    expect(walks()).toBe(2);
  });

  it('a changed folder moved away and replaced by a symlink to it is seen, though it is the same folder', () => {
    const root = tempDir('gatehouse-symcache-');
    const work = join(root, 'work');
    mkdirSync(work);
    mkdirSync(join(root, 'protected'));
    const { cache, walks } = cacheAhead();
    const p = join(work, 'notes.txt');
    expect(cache.resolve(p)).toBe(p);
    writeFileSync(join(work, 'other.txt'), 'x');
    // `mv work protected/work; ln -s protected/work work`: following the link reaches the same
    // folder (device, inode, birth time), and notes.txt is still absent there.
    renameSync(work, join(root, 'protected', 'work'));
    symlinkSync(join(root, 'protected', 'work'), work);
    expect(cache.resolve(p)).toBe(join(root, 'protected', 'work', 'notes.txt'));
    expect(walks()).toBe(2);
  });

  it('holds at most its bound, dropping the older half', () => {
    const root = tempDir('gatehouse-symcache-');
    const cache = new SymlinkCache(walkSymlinks, { now: () => Date.now() + SETTLED_MS * 5, max: 8 });
    for (let i = 0; i < 20; i++) cache.resolve(join(root, `f${i}`));
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(8);
  });
});
