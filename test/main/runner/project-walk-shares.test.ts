// The contained call's project walk keeps each settled folder's share and finds it again for one
// stat (box.ts, FolderShare). A kept share must never hide a change: a secret file made, a folder
// swapped for a link, a `.git` file put in, a budget that ends elsewhere. On a real project
// folder, changed at random step after step, every walk that may use kept shares finds exactly
// what a walk that uses none finds.
import { lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { namedPlaces } from '../../../main/runner/box.js';
import { tempDir } from '../../support/temp.js';

/** A small seeded generator (mulberry32): the same run every time, any run reproducible by its seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['a.ts', 'b.md', '.env', '.env.local', 'id_rsa', 'server.pem', 'notes.txt', '.git', 'src', 'lib', 'node_modules', 'hooks', 'config', 'modules', 'worktrees', '.claude', 'settings.json'];

describe('the project walk with kept folder shares', () => {
  it('finds what a walk without them finds, after every change to the project', () => {
    const root = tempDir('gatehouse-walk-');
    const home = join(root, 'home');
    const proj = join(home, 'proj');
    mkdirSync(join(proj, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(proj, '.git', 'config'), '');
    mkdirSync(join(proj, 'src', 'deep'), { recursive: true });
    writeFileSync(join(proj, 'src', 'deep', 'a.ts'), '');
    const rules = builtinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false });
    // Every folder counts as settled: a kept share is then used wherever a stat allows it.
    const now = () => Date.now() + 60_000;
    // A change stamps its folder with a time of its own: on this clock two changes in the same
    // tick of the file system's coarse clock could leave equal times, which real settled folders
    // (two seconds old) cannot show (the walk with the real clock is checked below).
    let stamp = Math.floor(Date.now() / 1000) - 100_000;
    const touched = (dir: string) => utimesSync(dir, stamp, stamp++);
    const rnd = random(29);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const dirs = () => {
      const all = [proj];
      const found = namedPlaces(proj, rules, 100_000, { fresh: true });
      for (const d of [...found.git.dirs, ...found.git.lists]) all.push(d);
      const walk = (d: string, depth: number) => {
        if (depth > 4) return;
        for (const n of NAMES) {
          const p = join(d, n);
          try {
            if (lstatSync(p).isDirectory()) {
              all.push(p);
              walk(p, depth + 1);
            }
          } catch {
            // not there
          }
        }
      };
      walk(proj, 0);
      return [...new Set(all)];
    };
    const change = () => {
      const dir = pick(dirs());
      const p = join(dir, pick(NAMES));
      const what = Math.floor(rnd() * 6);
      rmSync(p, { recursive: true, force: true });
      if (what === 0) writeFileSync(p, 'x');
      else if (what === 1) mkdirSync(p, { recursive: true });
      else if (what === 2) symlinkSync(pick(dirs()), p);
      else if (what === 3) {
        mkdirSync(p, { recursive: true });
        writeFileSync(join(p, pick(NAMES)), 'y');
        touched(p);
      } else if (what === 4) {
        // Moved in from elsewhere: the folder it left changes too.
        const from = join(pick(dirs()), pick(NAMES));
        if (from !== p && !p.startsWith(`${from}/`)) {
          try {
            renameSync(from, p);
            touched(dirname(from));
          } catch {
            // nothing there to move
          }
        }
      }
      // what === 5: removed only.
      touched(dir);
    };
    const same = (budget: number) => {
      const kept = namedPlaces(proj, rules, budget, { now });
      const fresh = namedPlaces(proj, rules, budget, { fresh: true });
      expect(kept).toEqual(fresh);
      return fresh;
    };
    let secrets = 0;
    for (let step = 0; step < 300; step++) {
      change();
      const budget = step % 3 === 0 ? 100_000 : 1 + Math.floor(rnd() * 40);
      const found = same(budget);
      // And again, now from the shares just kept.
      same(budget);
      secrets += found.secret.length;
    }
    // The changes made secrets to find (the run is not one that found none).
    expect(secrets).toBeGreaterThan(50);
  });

  // On the real clock two guards stand between a change right after a walk and a stale share: a
  // share is kept only for a folder whose times are two seconds old (file systems with a coarse
  // clock), and a kernel with multigrain timestamps (6.13 and later, this machine's) stamps a change
  // made after its folder's times were read with a finer time. Either alone keeps this passing.
  it('with the real clock, a change right after a walk is found by the next walk', () => {
    const root = tempDir('gatehouse-walk-');
    const home = join(root, 'home');
    const proj = join(home, 'proj');
    mkdirSync(join(proj, 'src'), { recursive: true });
    const rules = builtinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false });
    for (let i = 0; i < 50; i++) {
      writeFileSync(join(proj, 'src', `f${i}.ts`), '');
      expect(namedPlaces(proj, rules).secret).toEqual([]);
      writeFileSync(join(proj, 'src', `.env.${i}`), 'SECRET');
      expect(namedPlaces(proj, rules).secret).toContain(join(proj, 'src', `.env.${i}`));
      rmSync(join(proj, 'src', `.env.${i}`));
    }
  });
});
