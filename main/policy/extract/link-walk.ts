// Where a link-following walk goes. `grep -R`, `rg -L`, `find -L`, `cp -rL`, `tar -h` and `zip -r`
// read through every symbolic link under the folder they walk: a repository that holds
// `keys -> /home/me/.ssh` takes `grep -R . .` into the keys. Rules see only the paths a call names,
// so the folder is listed here (bounded, synchronously: the judge runs once per call) and each link
// leading out of it is reported, with the folders those lead to listed in turn.
import { readdirSync, realpathSync } from 'node:fs';
import { MAX_LINK_WALK_ENTRIES } from './limits.js';

export interface LinkWalk {
  /** Real paths outside the walked folders that links inside them lead to. */
  targets: string[];
  /** False when the bound was reached (or a folder could not be listed) before everything was seen. */
  complete: boolean;
}

const inside = (p: string, root: string): boolean => p === root || p.startsWith(root === '/' ? '/' : `${root}/`);

/** The targets outside `root` of the links a walk of `root` that follows links would take. */
export function linksLeaving(root: string, maxEntries = MAX_LINK_WALK_ENTRIES, tick: () => void = () => {}): LinkWalk {
  let start: string;
  try {
    start = realpathSync(root);
  } catch {
    // Nothing there (yet): nothing to follow.
    return { targets: [], complete: true };
  }
  const roots = [start];
  const targets: string[] = [];
  const folders = [start];
  let entries = 0;
  let complete = true;
  while (folders.length > 0) {
    const dir = folders.pop() as string;
    let list;
    try {
      list = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // A file walked as a tree (`grep -R x file`) has nothing under it; an unreadable folder is
      // unreadable to the tool too.
      // unreadable to the tool too; one that vanished meanwhile holds nothing.
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EACCES' || code === 'ENOENT') continue;
      complete = false;
      break;
    }
    for (const d of list) {
      if (++entries > maxEntries) return { targets, complete: false };
      if ((entries & 255) === 0) tick();
      const full = dir === '/' ? `/${d.name}` : `${dir}/${d.name}`;
      if (d.isDirectory()) folders.push(full);
      else if (d.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(full);
        } catch {
          continue; // a dangling link reads nothing
        }
        if (roots.some((r) => inside(real, r))) continue;
        targets.push(real);
        roots.push(real);
        folders.push(real);
      }
    }
  }
  return { targets, complete };
}
