// The kernel's list of this process's mounts (/proc/self/mountinfo), read into entries. One
// parser for its readers: the cgroup finder (core/cgroup-dirs.ts) and the plan of a sandbox's
// binds (runner/verify-mounts.ts).

/** One mount of this process's mount namespace. */
export interface MountEntry {
  /** The device, `major:minor`. */
  dev: string;
  /** The path within the device's file system that is mounted. */
  root: string;
  /** Where it is mounted. */
  point: string;
  /** After the separator: the file system's type ('' when the line has none). */
  fstype: string;
  /** And its super options, comma-separated. */
  superOptions: string;
}

/** A path as the list writes it, with its octal escapes (space, tab, newline, backslash) undone. */
export function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The entries of the list's text; a line too short to name a mount point is skipped. */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    // Optional fields come between the mount options and " - ", so the rest is read after it.
    const [pre = '', post = ''] = line.split(' - ');
    const f = pre.split(' ');
    if (f.length < 5) continue;
    const [fstype = '', , superOptions = ''] = post.split(' ');
    out.push({ dev: f[2]!, root: unescapeMount(f[3]!), point: unescapeMount(f[4]!), fstype, superOptions });
  }
  return out;
}
