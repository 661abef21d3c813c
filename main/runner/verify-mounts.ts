// The first thing a bubblewrap box runs, before its command: the box as bwrap built it must be
// writable only where Gatehouse planned, read from the kernel's own list of the box's mounts (a
// mount point's path as it is now, whatever links led to it).
//
// Security-sensitive: bwrap follows links on the host for a bind's source and again inside the box
// for its target, when it builds the box. Between Gatehouse's check of a path and bwrap's mount, a
// concurrent command can swap a folder on the way for a link: a contained command's project
// swapped for `proj -> ..` (from the folder above, allowed at full autonomy) had the whole home
// bound read-write, and a review wrote ~/.bashrc from the box. What is mounted cannot change after
// the mount, so this check has no window of its own. Only shell builtins: no process is started.

import { readFileSync, statSync } from 'node:fs';
import { parseMountinfo, type MountEntry } from '../core/mountinfo.js';

/**
 * The shell's own field splitting and builtins, whatever the environment brings (an exported IFS,
 * a bash function named read): the check must read the list as the kernel writes it.
 * Arguments: whether the box's root is its own empty tmpfs (`tmpfs-root`: a plugin sandbox's,
 * written only by bwrap itself; `-`: none may be writable); the binds whose source must be what
 * was planned (newline-framed `place|major:minor|root` lines, and the same places alone: a bind's
 * source swapped for a link shows another root there); how many allowed folders, the folders (as
 * mountinfoPath writes them), then the command and its arguments, run with exec when every
 * writable mount is at or under one of them and every planned bind is of what was planned.
 */
export const VERIFY_MOUNTS_SCRIPT = `unset -f read echo test [ 2>/dev/null; IFS=' '; t=$1; e=$2; p=$3; n=$4; shift 4; bad=
while read -r _ _ d r m o rest; do
case $p in *"
$m
"*) case $e in *"
$m|$d|$r
"*) ;; *) bad="$bad $m" ;; esac ;; esac
case $o in rw|rw,*) ;; *) continue ;; esac
if [ "$m" = / ] && [ "$t" = tmpfs-root ]; then f=" $rest"; f=\${f#* - }; [ "\${f%% *}" = tmpfs ] && continue; fi
ok=; i=0
for r in "$@"; do [ "$i" -lt "$n" ] || break; i=$((i+1)); [ "$r" = / ] && continue; case $m in "$r"|"$r"/*) ok=1; break ;; esac; done
[ -n "$ok" ] || bad="$bad $m"
done < /proc/self/mountinfo
if [ -n "$bad" ]; then echo "gatehouse-box: not run: the box is not as planned at ($bad): a folder on its way was replaced by a link while the box was built." >&2; exit 126; fi
shift "$n"; exec "$@"`;

/** A path as /proc/self/mountinfo writes it (space, tab, newline and backslash as octal escapes). */
export const mountinfoPath = (p: string): string => p.replace(/[\\ \t\n]/g, (ch) => `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`);

/**
 * The command line that runs `argv` after the check, allowing writes at or under `writable` (plus
 * /dev and /proc, which every box has; `/` is never a folder that allows everything under it), and
 * requiring each of `binds` to show its planned source.
 */
export function verifiedArgv(writable: readonly string[], argv: readonly string[], opts: { tmpfsRoot?: boolean; binds?: ReadonlyArray<{ place: string; dev: string; root: string }> } = {}): string[] {
  const allowed = [...new Set([...writable, '/dev', '/proc'])].map(mountinfoPath);
  const binds = opts.binds ?? [];
  const frame = (xs: string[]) => (xs.length ? `\n${xs.join('\n')}\n` : '');
  const expected = frame(binds.map((b) => `${mountinfoPath(b.place)}|${b.dev}|${mountinfoPath(b.root)}`));
  const places = frame(binds.map((b) => mountinfoPath(b.place)));
  return ['/bin/sh', '-c', VERIFY_MOUNTS_SCRIPT, 'gatehouse-box', opts.tmpfsRoot ? 'tmpfs-root' : '-', expected, places, String(allowed.length), ...allowed, ...argv];
}

/**
 * What the mount list inside a box shows for a bind of `source` (a real path, no links): its
 * device and its path within that device's file system (`major:minor` and the root field). The
 * topmost host mount holding it is the one bwrap binds from.
 */
export function bindIdentity(source: string, mounts: readonly MountEntry[]): { dev: string; root: string } | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    const inside = m.point === '/' || source === m.point || source.startsWith(`${m.point}/`);
    if (inside && (!best || m.point.length >= best.point.length)) best = m;
  }
  if (!best) return null;
  const rest = best.point === '/' ? source.slice(1) : source.slice(best.point.length + 1);
  const root = rest === '' ? best.root : best.root === '/' ? `/${rest}` : `${best.root}/${rest}`;
  return { dev: best.dev, root };
}

/** How long a read of the host's mount list is used for binds whose device it still names. */
export const MOUNTS_MAX_AGE_MS = 1000;

/** `major:minor` of a stat's st_dev, as /proc/self/mountinfo writes it (Linux's encoding). */
export function devName(dev: number): string {
  return `${Math.floor(dev / 256) & 0xfff}:${(dev & 0xff) | (Math.floor(dev / 4096) & 0xfff00)}`;
}

/**
 * bindIdentity for several real paths, against a read of /proc/self/mountinfo kept for up to
 * MOUNTS_MAX_AGE_MS. The kernel writes that list anew on each read, holding the lock every mount
 * change takes, and bubblewrap mounts a whole box for each contained call: under 40 agents' load
 * a CPU profile of the host (npm run soak) found 2.1 s of its event loop per minute in reading it,
 * once per contained call (~70 µs alone).
 * Security-sensitive: a kept list can only make the box's check stricter, never let a wrong bind
 * through. The identities are what the box must show; from a list that is out of date they name
 * where a place was, so a box bound from a place since mounted over fails its check. And a kept
 * list is used only while each path's own device (a stat of the real path) is the device it
 * names for it: a file system mounted or unmounted on the way (a USB drive, a user's FUSE mount)
 * changes the device, and the list is read again. What keeps the device (a bind mount of the
 * same file system, which takes root) is seen once the list is MOUNTS_MAX_AGE_MS old.
 */
export class HostMountTable {
  private kept: { mounts: MountEntry[]; at: number } | null = null;

  constructor(
    private readonly read: () => string = () => readFileSync('/proc/self/mountinfo', 'utf8'),
    private readonly now: () => number = () => performance.now(),
    private readonly devOf: (path: string) => number | undefined = (p) => statSync(p, { throwIfNoEntry: false })?.dev,
  ) {}

  /** Each path's identity (null: no mount holds it); throws what reading the list throws. */
  identities(reals: readonly string[]): Array<{ dev: string; root: string } | null> {
    const k = this.kept;
    if (k && this.now() - k.at < MOUNTS_MAX_AGE_MS) {
      const ids = reals.map((r) => bindIdentity(r, k.mounts));
      if (ids.every((id, i) => id !== null && this.sameDevice(reals[i]!, id.dev))) return ids;
    }
    const at = this.now();
    const mounts = parseMountinfo(this.read());
    this.kept = { mounts, at };
    return reals.map((r) => bindIdentity(r, mounts));
  }

  private sameDevice(path: string, dev: string): boolean {
    let d: number | undefined;
    try {
      d = this.devOf(path);
    } catch {
      return false;
    }
    return d !== undefined && devName(d) === dev;
  }
}
