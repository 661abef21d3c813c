// Where this process's own cgroup is, for one controller: the folder under which Gatehouse may make
// cgroups of its own. The runner's pids cgroups (runner/limits.ts) and the tools' cpu group
// (pty/tool-priority.ts) both start from it, and both clear away what a process that is gone left.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMountinfo } from './mountinfo.js';
import { isAlive } from './proc-scan.js';

/**
 * Our own cgroup's folder in each mounted hierarchy that has `controller` (a v1 hierarchy whose
 * mount names it, or the v2 hierarchy when its cgroup.controllers lists it). Empty off Linux or
 * when /proc cannot be read. A hierarchy mounted from below our cgroup (a container's view) is
 * skipped: our folder is not in it.
 */
export function ownCgroupDirs(controller: string): { base: string; version: 1 | 2 }[] {
  let mountinfo: string;
  let own: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    own = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return [];
  }
  // "4:cpu,cpuacct:/path": the controller among the comma-separated names (not "cpuacct" for "cpu").
  const ownV1 = new RegExp(`^\\d+:(?:[^:]*,)?${controller}(?:,[^:]*)?:(.*)$`, 'm').exec(own)?.[1];
  const ownV2 = /^0::(.*)$/m.exec(own)?.[1];
  const out: { base: string; version: 1 | 2 }[] = [];
  for (const { root, point: mountpoint, fstype, superOptions: superOpts } of parseMountinfo(mountinfo)) {
    const within = (path: string) => (root === '/' ? path : path.startsWith(root) ? path.slice(root.length) || '/' : null);
    if (fstype === 'cgroup' && superOpts.split(',').includes(controller) && ownV1 !== undefined) {
      const rel = within(ownV1);
      if (rel !== null) out.push({ base: trimSlash(join(mountpoint, rel)), version: 1 });
    } else if (fstype === 'cgroup2' && ownV2 !== undefined) {
      const rel = within(ownV2);
      if (rel === null) continue;
      const base = trimSlash(join(mountpoint, rel));
      try {
        if (readFileSync(join(base, 'cgroup.controllers'), 'utf8').split(/\s+/).includes(controller)) out.push({ base, version: 2 });
      } catch {
        // Not readable: not ours to use.
      }
    }
  }
  return out;
}

/**
 * The cgroups in `base` that Gatehouse made for a process that is gone: folders whose name
 * matches `named` with the owner's pid as its first group, that pid neither ours nor alive.
 */
export function staleCgroups(base: string, named: RegExp): string[] {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const owner = Number(named.exec(name)?.[1]);
    return Number.isInteger(owner) && owner > 0 && owner !== process.pid && !isAlive(owner) ? [join(base, name)] : [];
  });
}

const trimSlash = (p: string) => (p.length > 1 ? p.replace(/\/+$/, '') : p);
