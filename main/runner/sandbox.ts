// The OS sandbox for plugin processes: bubblewrap (bwrap) on Linux, plus resource limits.
//
// A sandboxed plugin sees a fresh root: system directories and the directories its interpreter
// lives in read-only, its own folder read-only at its real path, the paths its manifest declares
// (read-only or read-write), a private /tmp, its own /proc (a new PID namespace) and a minimal
// /dev. Everything else — the operator's home, ~/.ssh, other plugins, the data folder — does
// not exist inside. Without declared hosts it also gets its own network namespace (only a
// loopback interface of its own). docs/sandbox.md lists what this cannot do.
//
// Process-group killing and the sandbox: the runner signals its child's process group. bwrap is
// that child; the plugin and everything it starts stay in the same group (we do not pass
// --new-session, which would setsid() the plugin out of it — and is not needed, because the
// runner already starts bwrap in a new session with no controlling terminal, so there is no
// terminal to inject keystrokes into). Whatever still escapes the group dies with the PID
// namespace: --die-with-parent kills the namespace's init when bwrap dies, and the kernel kills
// every process of a PID namespace whose init exits.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { PluginManifest } from '../registry/types.js';
import { builtinRules } from '../policy/rules/builtin.js';
import { defaultCaseInsensitive } from '../policy/rules/paths.js';
import { inNormalForm } from '../policy/extract/paths.js';
import { existingPlaces, placesBase } from './box.js';
import { walkPath } from '../core/path-walk.js';
import { detectPidsCgroup, limitsFor, nprocEnforced, PidsCgroup, rlimitWrap, ulimitScript, type ResourceLimits } from './limits.js';
import type { WrapFn, WrappedCommand } from './one-shot.js';
import { HostMountTable, verifiedArgv } from './verify-mounts.js';

export type SandboxDetection =
  | { kind: 'bwrap'; version: string; path: string; features: { tmpfsSize: boolean; disableUserns: boolean } }
  | { kind: 'none'; reason: string };

/** What one plugin may touch inside the sandbox; built from its manifest by profileFromManifest. */
export interface SandboxProfile {
  /** The plugin folder: bound read-only at its own path; the working directory. */
  pluginDir: string;
  /** Absolute paths bound read-only when they exist. */
  read: string[];
  /** Absolute paths bound read-write when they exist. */
  write: string[];
  /** Hosts the manifest declares. Any host opens the whole network (bwrap cannot filter per host). */
  hosts: string[];
  /** Paths covered by an empty read-only folder after every bind (secrets under a bound folder). */
  hide?: string[];
  /** Existing paths under a `write` bind bound read-only again on top of it (a project's .git/hooks). */
  lock?: string[];
  /**
   * Make the sandbox's own root read-only after every bind: the folders bwrap creates to hold a
   * bind (`/home/u` for a bound `/home/u/proj`) then take no new files, so a file the profile
   * did not bind cannot be created there (it would vanish with the sandbox, and the command
   * would report a success that did not happen). /tmp stays the sandbox's private scratch.
   */
  readOnlyRoot?: boolean;
  /**
   * The folder the plugin was reviewed in, when `pluginDir` is a verified copy of it. Nothing of
   * it is visible in the sandbox (bwrapArgs): the plugin's code is the copy's, and the original
   * can have changed since the copy was checked.
   */
  reviewedDir?: string;
}

export interface ContainOptions {
  /** Limits; defaults from limitsFor(timeoutMs). */
  limits?: Partial<ResourceLimits>;
  /** The plugin's wall-clock timeout, for the default CPU limit (default 30 s). */
  timeoutMs?: number;
  /** Size of the private /tmp (default 256 MiB), where bwrap supports it. */
  tmpSizeBytes?: number;
  env?: NodeJS.ProcessEnv;
  /** The home folder to hide and to expand "~" against (default os.homedir()). */
  home?: string;
  /**
   * Gatehouse's own folder (tokens, trust records, policy, the audit log): never bound, and hidden
   * under any bind that holds it; a plugin's verified copy in its run cache stays visible.
   */
  gatehouseHome?: string;
}

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'];
const DEFAULT_TMP_SIZE = 256 * 1024 ** 2;

// --- detection ---------------------------------------------------------------------------

let detected: SandboxDetection | undefined;

/**
 * Whether bubblewrap is installed and works here (cached; `refresh` re-runs it). Runs
 * `bwrap --version` and then a trial sandbox with the namespaces and mounts the real one uses —
 * bwrap is often installed where it cannot work (user namespaces disabled, containers without
 * the privileges). GATEHOUSE_BWRAP picks the binary; GATEHOUSE_BWRAP=none turns the sandbox off.
 */
export function detectSandbox(opts: { refresh?: boolean; env?: NodeJS.ProcessEnv } = {}): SandboxDetection {
  if (detected && !opts.refresh) return detected;
  detected = probeBwrap(opts.env ?? process.env);
  return detected;
}

function findBwrap(env: NodeJS.ProcessEnv): string | { missing: string } {
  const chosen = env.GATEHOUSE_BWRAP;
  if (chosen === 'none') return { missing: 'GATEHOUSE_BWRAP=none turns the sandbox off' };
  if (chosen) return existsSync(chosen) ? chosen : { missing: `GATEHOUSE_BWRAP points at ${chosen}, which does not exist` };
  const onPath = (env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d)).map((d) => join(d, 'bwrap'));
  const found = [...BWRAP_CANDIDATES, ...onPath].find((p) => existsSync(p));
  return found ?? { missing: 'bubblewrap (bwrap) is not installed; install it (apt install bubblewrap, dnf install bubblewrap)' };
}

function probeBwrap(env: NodeJS.ProcessEnv): SandboxDetection {
  if (process.platform !== 'linux') {
    const os = process.platform === 'darwin' ? 'macOS' : process.platform === 'win32' ? 'Windows' : process.platform;
    return { kind: 'none', reason: `Gatehouse has no sandbox for ${os} yet` };
  }
  const path = findBwrap(env);
  if (typeof path !== 'string') return { kind: 'none', reason: path.missing };
  const v = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 5000 });
  if (v.status !== 0) return { kind: 'none', reason: `${path} --version failed: ${(v.stderr || v.error?.message || `exit ${v.status}`).trim()}` };
  const version = /(\d+\.\d+(?:\.\d+)?)/.exec(v.stdout)?.[1] ?? v.stdout.trim();
  const trial = (extra: string[]) => spawnSync(path, [...baseArgs(true, extra), ...systemBinds(), '--', 'true'], { encoding: 'utf8', timeout: 5000, env: { PATH: '/usr/bin:/bin' } });
  const t = trial([]);
  if (t.status !== 0) {
    const why = (t.stderr || t.error?.message || `exit ${t.status ?? t.signal}`).trim();
    return { kind: 'none', reason: `bubblewrap ${version} is installed but cannot create a sandbox here (${why}); enable unprivileged user namespaces or run where bwrap works` };
  }
  const tmpfsSize = trial(['--size', '1048576', '--tmpfs', '/var/tmp']).status === 0;
  const disableUserns = !runsAsRoot() && trial(['--disable-userns']).status === 0;
  return { kind: 'bwrap', version, path, features: { tmpfsSize, disableUserns } };
}

const runsAsRoot = () => process.getuid?.() === 0;

/** Namespaces and the fresh /tmp, /proc, /dev; the same for the trial and for real runs. */
function baseArgs(unshareNet: boolean, extra: string[] = []): string[] {
  return [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(unshareNet ? ['--unshare-net'] : []),
    // Not root: an explicit user namespace (setuid bwrap would not create one), which is also
    // what makes RLIMIT_NPROC count only the sandbox's processes (see limits.ts).
    ...(runsAsRoot() ? [] : ['--unshare-user']),
    // As root bwrap keeps every capability unless told; a plugin with CAP_SYS_ADMIN could mount
    // its way out. Must stay.
    '--cap-drop',
    'ALL',
    ...extra,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
}

// --- the filesystem view -----------------------------------------------------------------

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix'];
/** Files in /etc that root could read and no plugin needs: shadowed by /dev/null. */
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd'];
const SECRET_DIRS = ['/etc/sudoers.d', '/etc/ssl/private'];
/** Top-level folders of a home that hold secrets or everything: never bound as a whole. */
const HOME_NEVER_WHOLE = new Set(['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config', '.local', '.cache', '.password-store', '.netrc', '.gcloud']);
const HOME_SECRETS = new Set(['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.password-store', '.gcloud']);

let systemBindsCache: string[] | undefined;

/** Read-only system directories (symlinks recreated as symlinks, e.g. /bin → usr/bin on merged-/usr). */
function systemBinds(): string[] {
  if (systemBindsCache) return systemBindsCache;
  const out: string[] = [];
  for (const d of SYSTEM_DIRS) {
    let st;
    try {
      st = lstatSync(d);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', readlinkSync(d), d);
    else if (st.isDirectory()) out.push('--ro-bind', d, d);
  }
  // Only root could read these (they are root-only files); for anyone else the masks would
  // cost a millisecond of mounts per call and protect nothing.
  if (runsAsRoot()) {
    for (const f of SECRET_FILES) if (existsSync(f)) out.push('--ro-bind', '/dev/null', f);
    for (const d of SECRET_DIRS) if (isDir(d)) out.push('--tmpfs', d, '--remount-ro', d);
    try {
      for (const name of readdirSync('/etc/ssh')) if (/^ssh_host_.*_key$/.test(name)) out.push('--ro-bind', '/dev/null', `/etc/ssh/${name}`);
    } catch {
      // No /etc/ssh.
    }
  }
  systemBindsCache = out;
  return out;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** `child` is `parent` or inside it (lexically: paths are compared as given). */
export const under = (child: string, parent: string): boolean => {
  // Two absolute paths in normal form (the usual case, asked many times per contained call): what
  // path.relative would answer, without resolving both against the working folder first.
  if (inNormalForm(child) && inNormalForm(parent)) {
    if (child === parent) return true;
    const top = parent === '/' ? '/' : `${parent}/`;
    // The rest starting with '..' (a name like `..data`) is not counted as inside, as below.
    return child.startsWith(top) && !child.startsWith('..', top.length);
  }
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};
const inSystemDir = (p: string) => SYSTEM_DIRS.some((d) => under(p, d));

/** Visible in every sandbox already (system folders, read-only) or made fresh in it (/proc, /dev, /sys): never bound from the host. */
export function providedBySandbox(p: string): boolean {
  return p === '/' || inSystemDir(p) || ['/proc', '/dev', '/sys'].some((d) => under(p, d));
}

/**
 * Where interpreters live outside the system directories, read-only: Node's own prefix (the
 * host runs plugins with the node it runs on, e.g. under ~/.nvm), and for each PATH entry under
 * the home the top-level install folder (~/.pyenv for ~/.pyenv/shims, ~/.cargo for
 * ~/.cargo/bin) — never the home itself, never a secrets folder, and only the PATH entry itself
 * when its top-level folder is a catch-all like ~/.local.
 */
export function interpreterDirs(env: NodeJS.ProcessEnv, home: string, execPath = process.execPath): string[] {
  const out = new Set<string>();
  const add = (p: string) => {
    if (!isAbsolute(p) || !isDir(p) || inSystemDir(p) || p === home || p === '/') return;
    if (under(p, home)) {
      const top = relative(home, p).split(sep)[0]!;
      if (HOME_SECRETS.has(top)) return;
      out.add(HOME_NEVER_WHOLE.has(top) ? p : join(home, top));
      return;
    }
    // /tmp is the sandbox's private one; the rest are provided fresh.
    if (under(p, '/tmp') || under(p, '/proc') || under(p, '/dev') || under(p, '/sys')) return;
    out.add(p);
  };
  try {
    // The native call: one realpath(3) instead of an lstat per component (asked on every sandboxed start).
    add(dirname(dirname(realpathSync.native(execPath))));
  } catch {
    // execPath gone: nothing to add.
  }
  // Only absolute entries: "" and "." mean the host's working directory, which must not be bound.
  for (const entry of (env.PATH ?? '').split(delimiter)) if (isAbsolute(entry)) add(resolve(entry));
  // A folder inside another one adds nothing.
  const all = [...out].sort();
  return all.filter((p) => !all.some((q) => q !== p && under(p, q)));
}

/** "~" and "~/x" against the home; relative paths against the plugin folder. */
export function expandPath(p: string, pluginDir: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return resolve(pluginDir, p);
}

/**
 * The manifest with its relative permission paths that leave `sourceDir` (`../data`) made
 * absolute against it. A tool runs from a verified copy of its folder (integrity-copy.ts), and the
 * profile expands relative paths against the folder it runs from: `../..` reviewed from
 * <project>/.gatehouse/plugins/x (the scan, the judge's secretInReach) would otherwise be bound as
 * GATEHOUSE_HOME when the copy under GATEHOUSE_HOME/run-cache/<digest> runs, and `../../../..` as
 * the home. Security-sensitive: a path means what the operator reviewed, wherever the code runs
 * from. Paths inside the folder stay relative, so they are the copy's files (what was verified).
 */
export function anchorPermissions<M extends Pick<PluginManifest, 'permissions'>>(manifest: M, sourceDir: string): M {
  const anchor = (p: string) => {
    if (p === '~' || p.startsWith('~/') || isAbsolute(p)) return p;
    const abs = resolve(sourceDir, p);
    // Inside: as a path from the folder itself (`../x/data` from x is `data`, which the copy has;
    // kept as written it would climb out of the copy into the run cache).
    return under(abs, resolve(sourceDir)) ? relative(resolve(sourceDir), abs) || '.' : abs;
  };
  const { read, write } = manifest.permissions;
  if (![...read, ...write].some((p) => anchor(p) !== p)) return manifest;
  return { ...manifest, permissions: { ...manifest.permissions, read: read.map(anchor), write: write.map(anchor) } };
}

/**
 * The sandbox profile a manifest asks for. With `reviewedDir` (the plugin runs from `pluginDir`, a
 * verified copy of that folder) a permission path written inside the reviewed folder, however it
 * is written (`data`, `~/…/plugins/x/data`, `/abs/…/x/data`), is the copy's: the plugin's own files
 * are the verified ones, and the reviewed folder itself is hidden from the sandbox (bwrapArgs).
 */
export function profileFromManifest(manifest: Pick<PluginManifest, 'permissions'>, pluginDir: string, opts: { home?: string; reviewedDir?: string } = {}): SandboxProfile {
  const home = opts.home ?? homedir();
  const copy = resolve(pluginDir);
  const reviewed = opts.reviewedDir !== undefined && resolve(opts.reviewedDir) !== copy ? resolve(opts.reviewedDir) : null;
  const expand = (p: string) => {
    const abs = expandPath(p, pluginDir, home);
    return reviewed !== null && under(abs, reviewed) ? join(copy, relative(reviewed, abs)) : abs;
  };
  return {
    pluginDir: copy,
    read: manifest.permissions.read.map(expand),
    write: manifest.permissions.write.map(expand),
    hosts: [...manifest.permissions.hosts],
    ...(reviewed !== null ? { reviewedDir: reviewed } : {}),
  };
}

/**
 * Where the folder a verified copy was made from would show in a sandbox with these binds, and
 * which granted binds would show it under another name. Security-sensitive: an agent that can
 * write a granted folder can make a link to the original there after the copy was checked (an
 * alias), change the original, and the plugin would run or read the change. Every way in is
 * covered:
 *   - a bind that holds the original (a granted project the plugin folder lies in, a system or
 *     interpreter folder): the original is hidden at its place in that bind, by its own path and
 *     by where the bind's real source puts it (`/home/u/p` bound from `/var/home/u/p`); a link
 *     to it anywhere in the sandbox then leads to the empty folder;
 *   - a granted bind whose real source is the original or inside it (a granted path made a link
 *     to it): refused, not made; one of the sandbox's own (`fixed`: an interpreter folder) is
 *     hidden instead.
 * `fixed` are the sandbox's own binds besides the system folders (interpreter folders, the copy),
 * `granted` the manifest's. Paths are resolved when the sandbox starts (about 0.1 ms for a
 * plugin's handful of binds); a link swapped in between that and bwrap's mounts (milliseconds) is
 * not seen.
 */
export function reviewedDirCover(reviewedDir: string, fixed: readonly string[], granted: readonly string[]): { hide: string[]; refuse: Set<string> } {
  const lexical = resolve(reviewedDir);
  const real = realOr(lexical);
  const hide = new Set<string>();
  const refuse = new Set<string>();
  const isGranted = new Set(granted);
  // The system folders are bound as they are (links recreated as links): compared by name only.
  for (const o of [lexical, real]) if (inSystemDir(o)) hide.add(o);
  for (const b of [...fixed, ...granted]) {
    const source = realOr(b);
    if (under(source, real) || under(b, lexical)) {
      if (isGranted.has(b)) refuse.add(b);
      else hide.add(b);
      continue;
    }
    for (const o of [lexical, real]) if (under(o, b)) hide.add(o);
    if (under(real, source)) hide.add(join(b, relative(source, real)));
  }
  return { hide: [...hide], refuse };
}

function realOr(p: string): string {
  try {
    // The native call: one realpath(3) instead of an lstat per component of the path.
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/** The bwrap arguments (without the binary and the command) for a profile. */
export function bwrapArgs(profile: SandboxProfile, detection: Extract<SandboxDetection, { kind: 'bwrap' }>, opts: ContainOptions = {}): string[] {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homedir();
  const tmpSize = opts.tmpSizeBytes ?? DEFAULT_TMP_SIZE;
  const args = baseArgs(profile.hosts.length === 0, [
    ...(detection.features.disableUserns ? ['--disable-userns'] : []),
    // The private /tmp first: paths under /tmp bound below are mounted on top of it.
    ...(detection.features.tmpfsSize ? ['--size', String(tmpSize)] : []),
    '--tmpfs',
    '/tmp',
  ]);
  args.push(...systemBinds());
  const pathDirs = interpreterDirs(env, home);
  if (profile.hosts.length > 0) {
    // DNS: /etc/resolv.conf is often a symlink into /run (systemd-resolved, NetworkManager).
    try {
      if (lstatSync('/etc/resolv.conf').isSymbolicLink()) {
        const target = dirname(realpathSync('/etc/resolv.conf'));
        if (!inSystemDir(target)) args.push('--ro-bind-try', target, target);
      }
    } catch {
      // No resolv.conf: name resolution will fail inside, as it would outside.
    }
  }
  // A plugin run from a verified copy sees nothing of the folder it was copied from.
  const original = profile.reviewedDir !== undefined && resolve(profile.reviewedDir) !== profile.pluginDir
    ? reviewedDirCover(profile.reviewedDir, [...pathDirs, profile.pluginDir, ...(profile.lock ?? [])], [...profile.read, ...profile.write])
    : null;
  const gatehouse = opts.gatehouseHome !== undefined ? [...new Set([resolve(opts.gatehouseHome), realOr(resolve(opts.gatehouseHome))])] : [];
  // The plugin's own folder is its verified copy in Gatehouse's run cache: a grant inside it is the copy's.
  // Without Gatehouse's folder given (the shell tool's plan) nothing is in it: no realpaths asked.
  const realPluginDir = gatehouse.length > 0 ? realOr(profile.pluginDir) : '';
  const inGatehouse = (p: string) => {
    if (gatehouse.length === 0) return false;
    const real = realOr(p);
    return !under(real, realPluginDir) && gatehouse.some((g) => under(p, g) || under(real, g));
  };
  const bound = (p: string) => !original?.refuse.has(p) && !inGatehouse(p);
  const grants = grantsToBind(profile.read.filter(bound), profile.write.filter(bound));
  const writable = grants.write.map(realOr);
  const read = grants.read.filter((p) => !throughWritable(p, writable));
  const write = grants.write.filter((p) => !throughWritable(p, writable));
  // A folder on PATH is bound by the same rules: one the plugin can change (a link it made in a
  // writable grant, an alias of yours into one) or Gatehouse's folder is not.
  const shownDirs = pathDirs.filter((d) => !throughWritable(d, writable) && !inGatehouse(d));
  for (const d of shownDirs) args.push('--ro-bind', d, d);
  // "/" or /proc as the folder (the shell tool's cwd can be anything an agent sends) would bind
  // the host's whole root or its /proc over the sandbox's own: what the sandbox provides is used.
  if (!providedBySandbox(profile.pluginDir)) args.push('--ro-bind', profile.pluginDir, profile.pluginDir);
  for (const p of read) args.push('--ro-bind-try', p, p);
  for (const p of write) args.push('--bind-try', p, p);
  for (const l of profile.lock ?? []) {
    const p = lockPlace(l, write, writable);
    if (p !== null) args.push('--ro-bind-try', p, p);
  }
  // Last, so no bind above can uncover them again. A folder bound because it is on PATH
  // (~/.cargo for ~/.cargo/bin) holds the home's secrets too (~/.cargo/credentials.toml).
  // Gatehouse's own folder (tokens, trust records, policy, the audit log) under any bind.
  // Where a bind shows it: at its own path, and under a bind that reaches it by another name (your
  // link ~/cfg -> ~/.config granted shows it as ~/cfg/gatehouse).
  const shown = [...shownDirs, ...read, ...write];
  const gatehouseShown = gatehouse.flatMap((g) =>
    shown.flatMap((b) => {
      const rb = realOr(b);
      return [...(under(g, b) ? [g] : []), ...(under(g, rb) ? [g, join(b, relative(rb, g))] : [])];
    }),
  );
  const hide = new Set([
    ...(profile.hide ?? []),
    // Only those inside a folder shown because it is on PATH (the others are not bound): what
    // cannot lie in one is not looked up (no folder of the home on PATH: no listing, no stats).
    ...secretPaths(home, undefined, shownDirs),
    ...(original?.hide ?? []),
    ...gatehouseShown,
  ]);
  for (const p of hide) {
    if (isDir(p)) {
      // The plugin's own verified copy lives in Gatehouse's folder (its run cache): bound again
      // on the empty folder before that is made read-only.
      const copy = p !== profile.pluginDir && under(profile.pluginDir, p)
        ? ['--ro-bind', profile.pluginDir, profile.pluginDir, ...read.filter((r) => under(r, profile.pluginDir)).flatMap((r) => ['--ro-bind-try', r, r]), ...write.filter((w) => under(w, profile.pluginDir)).flatMap((w) => ['--bind-try', w, w])]
        : [];
      args.push('--tmpfs', p, ...copy, '--remount-ro', p);
    } else if (existsSync(p)) args.push('--ro-bind', '/dev/null', p);
  }
  if (profile.readOnlyRoot) args.push('--remount-ro', '/');
  args.push('--chdir', profile.pluginDir);
  return args;
}

/**
 * The grants that need a bind of their own: a grant inside a writable one adds nothing the outer
 * bind does not give (a read one was covered by it anyway), nor does a read grant inside another.
 * A write grant inside a read one is kept.
 */
export function grantsToBind(read: readonly string[], write: readonly string[]): { read: string[]; write: string[] } {
  const w = [...new Set(write)];
  const r = [...new Set(read)];
  const writable = w.filter((p) => !w.some((q) => q !== p && under(p, q)));
  const readable = r.filter((p) => !w.some((q) => under(p, q)) && !r.some((q) => q !== p && under(p, q)));
  return { read: readable, write: writable };
}

/**
 * Whether resolving `p` (walkPath: as the kernel does) passes through a place inside one of
 * `writable` (real paths), other than a writable grant itself: the plugin or command can change
 * what is there, in an earlier call or while this sandbox is being built, to lead anywhere.
 * Security-sensitive: bwrap follows links on the host for a bind's source and again inside the
 * sandbox for its target, so a relative link to Gatehouse's folder, /etc or ~/.ssh made in a
 * writable grant mounted that place at its own path, writable for a write grant. Refused whether
 * or not a link is there now: a folder there when this is checked can be a link by the time bwrap
 * mounts it (a concurrent call swapping them won that race a third of the time). One realpath when
 * nothing on the way is a link.
 */
export function throughWritable(p: string, writable: readonly string[]): boolean {
  if (writable.length === 0) return false;
  const strictlyIn = (x: string) => writable.some((d) => x !== d && under(x, d));
  if (realOr(p) === p) return strictlyIn(p);
  const walk = walkPath(p);
  return walk.final === null || walk.visited.some(strictlyIn);
}

/**
 * A read-only place over a writable bind (the shell tool's `.git/hooks`, found by name): where to
 * bind it. Its own path when nothing below the writable bind on the way is a link; its real place
 * when that lies in a writable bind (`.git/hooks -> ../.githooks`, a shared-hooks set-up: locked
 * there); nothing when it leads out of every writable bind (`.git/hooks -> ../..` would show the
 * home) or loops.
 */
function lockPlace(p: string, write: readonly string[], writableReal: readonly string[]): string | null {
  const outer = write.filter((w) => under(p, w)).sort((a, b) => a.length - b.length)[0];
  if (outer === undefined) return p;
  const top = realOr(outer);
  // No link below the writable bind (the usual case): one realpath.
  if (realOr(p) === join(top, relative(outer, p))) return p;
  const walk = walkPath(p);
  if (walk.final === null) return null;
  if (!walk.visited.some((v) => v !== top && under(v, top) && isLink(v))) return p;
  return writableReal.some((w) => under(walk.final!, w)) && realOr(walk.final) === walk.final ? walk.final : null;
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The secrets of a home (keys, cloud credentials, password stores, every file the locked rules
 * forbid reading under it) and Gatehouse's own folder, for `hide`. With `within`, only those
 * inside one of these folders (lexically, as `under` compares), the rest not looked up.
 */
export function secretPaths(home: string, gatehouseHome?: string, within?: readonly string[]): string[] {
  const all = [
    ...new Set([
      ...[...HOME_SECRETS].map((d) => join(home, d)),
      join(home, '.config', 'gcloud'),
      join(home, '.netrc'),
      // Browser profiles: cookies, saved passwords, and the history the console's address went into.
      ...BROWSER_PROFILES.map((d) => join(home, d)),
      ...lockedReadPlaces(home, within),
      ...(gatehouseHome ? [gatehouseHome] : []),
    ]),
  ];
  return within === undefined ? all : all.filter((s) => within.some((d) => under(s, d)));
}

/**
 * What the locked rules forbid reading under the home, as it exists now (~/.git-credentials,
 * ~/.config/gh/hosts.yml, ~/.claude/.credentials.json, ~/.cargo/credentials.toml, …): derived from
 * builtin.ts like the box's masks (box.ts), so a credential file added there is hidden here too.
 * Security-sensitive: the list above alone let a command run in the home read them.
 */
function lockedReadPlaces(home: string, within?: readonly string[]): string[] {
  // Every place a glob names is its base or lies in it: one that is neither in one of `within`
  // nor holds one cannot name a place in them.
  const globs = within === undefined
    ? lockedReadGlobs(home)
    : lockedReadGlobs(home).filter(({ base }) => base !== null && within.some((d) => under(base, d) || under(d, base)));
  if (globs.length === 0) return [];
  // What exists is looked up each time (a credential made since the last run is hidden from the
  // next). Most patterns are under folders a home does not have (~/Library on Linux, ~/snap,
  // ~/.var/app): one listing of the home rules them out, instead of a stat per pattern (~50).
  const fold = defaultCaseInsensitive() ? (s: string) => s.toLowerCase() : (s: string) => s;
  let top: Set<string> | null;
  try {
    top = new Set(readdirSync(home).map(fold));
  } catch {
    top = null;
  }
  return globs
    .filter(({ glob }) => {
      const first = glob.slice(2).split('/')[0]!;
      return top === null || /[*?[{\\]/.test(first) || top.has(fold(first));
    })
    .flatMap(({ glob }) => existingPlaces(glob, home));
}

/**
 * The `~/` patterns the locked rules forbid reading, per home, each with the path all it names
 * lies in (placesBase): the rules are a function of their arguments.
 */
const readGlobsByHome = new Map<string, ReadonlyArray<{ glob: string; base: string | null }>>();
function lockedReadGlobs(home: string): ReadonlyArray<{ glob: string; base: string | null }> {
  let globs = readGlobsByHome.get(home);
  if (!globs) {
    const rules = builtinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: defaultCaseInsensitive() });
    globs = rules
      .filter((r) => r.enabled && r.decision === 'deny' && r.actions.includes('read'))
      .flatMap((r) => r.block_paths.filter((g) => g.startsWith('~/')))
      .map((glob) => ({ glob, base: placesBase(glob, home) }));
    // A host has one home (tests make many): a bound keeps them from piling up.
    if (readGlobsByHome.size >= 16) readGlobsByHome.clear();
    readGlobsByHome.set(home, globs);
  }
  return globs;
}

const BROWSER_PROFILES = ['.mozilla', '.config/google-chrome', '.config/chromium', '.config/BraveSoftware', '.config/microsoft-edge', '.config/vivaldi', '.config/opera', 'snap/firefox', 'snap/chromium', '.var/app/org.mozilla.firefox', '.var/app/com.google.Chrome', '.var/app/org.chromium.Chromium'];

/**
 * The secret folder (secretPaths) one of a manifest's read paths holds or lies in, symlinks
 * followed; null when none. The judge counts a confined tool as a reader only without one
 * (Gateway.confinedReader): a read path of "~" would hand an agent, with no operator asked, the
 * keys the built-in rules keep from it.
 */
export function secretInReach(manifest: Pick<PluginManifest, 'permissions'>, pluginDir: string, opts: { home?: string; gatehouseHome?: string } = {}): string | null {
  const home = opts.home ?? homedir();
  const read = profileFromManifest(manifest, pluginDir, { home }).read;
  // Most tools read nothing but their input: the secrets (a listing of the home and a lookup per
  // locked place, a few hundred µs the gateway paid on every call of such a tool) are not needed.
  if (read.length === 0) return null;
  const secrets = secretPaths(home, opts.gatehouseHome);
  for (const p of read) {
    let real = p;
    try {
      real = realpathSync(p);
    } catch {
      // Not there (yet): judged by its name, as bwrap would bind it once it exists.
    }
    const hit = secrets.find((x) => [p, real].some((q) => under(q, x) || under(x, q)));
    if (hit) return hit;
  }
  return null;
}

// --- putting it together -----------------------------------------------------------------

export type ProcessLimitKind = 'cgroup' | 'rlimit' | 'none';

/** How the process count of a call is limited, sandboxed or not (see limits.ts). */
export function processLimitSupport(sandboxed: boolean): { kind: ProcessLimitKind; detail: string } {
  const cg = detectPidsCgroup();
  if (cg.available) return { kind: 'cgroup', detail: `a pids cgroup per call under ${cg.base}` };
  if (sandboxed && nprocEnforced()) return { kind: 'rlimit', detail: "RLIMIT_NPROC in the sandbox's own user namespace" };
  const why = nprocEnforced() ? 'RLIMIT_NPROC outside a user namespace would count every process of this account' : 'RLIMIT_NPROC is not enforced for root';
  return { kind: 'none', detail: `no process limit: ${why}, and no pids cgroup is usable (${cg.reason}); a fork bomb is stopped only by the timeout` };
}

/**
 * The wrap for runOneShot: limits, bwrap when `sandbox` is given (else unsandboxed), and the
 * pids cgroup when one is usable. Launch chains:
 *   with a cgroup:    sh (joins the cgroup, sets rlimits) → [bwrap …] → [prlimit --nproc] → command
 *   without one:      [bwrap …] → prlimit (all rlimits) → command
 * prlimit runs inside bwrap so RLIMIT_NPROC lands in the sandbox's user namespace.
 */
export function containWrap(sandbox: { detection: Extract<SandboxDetection, { kind: 'bwrap' }>; profile: SandboxProfile } | null, opts: ContainOptions = {}): WrapFn {
  const limits = limitsFor(opts.timeoutMs ?? 30_000, opts.limits);
  const sandboxed = sandbox !== null;
  // bwrap's arguments are worked out at the first start, not when the plan is made: a plan made
  // only to ask whether a call would be sandboxed (the gateway asks on every plugin call:
  // ToolRunner.sandboxedNow) does none of that work (realpaths and stats of the interpreter
  // folders, resolv.conf, the hidden paths), which cost about a millisecond of every call's
  // autonomy step (bench/gateway.ts). A wrap used again (a long-lived server restarted) reuses
  // them, as it did when they were made with the plan.
  let bwrap: readonly [string, string[]] | null = null;
  let checked: ReturnType<typeof plannedBinds> | undefined;
  const inBwrap = (l: { command: string; args: string[] }) => {
    if (!sandbox) return l;
    bwrap ??= [sandbox.detection.path, bwrapArgs(sandbox.profile, sandbox.detection, opts)];
    // The box checks its own mounts before the command starts (verify-mounts.ts).
    return { command: bwrap[0], args: [...bwrap[1], '--', ...verifiedArgv(writableMounts(bwrap[1]), [l.command, ...l.args], { tmpfsRoot: true, binds: (checked ??= plannedBinds(bwrap[1])) })] };
  };
  let withNproc: boolean | undefined;
  const wrap: WrapFn = (command, args): WrappedCommand => {
    withNproc ??= sandboxed && nprocEnforced();
    const cg = detectPidsCgroup();
    let cgroup: PidsCgroup | null = null;
    if (cg.available) {
      // If creating it fails now (cgroup tree changed), run on without: rlimits still apply.
      try {
        cgroup = PidsCgroup.create(cg.base, limits.processes);
      } catch {
        cgroup = null;
      }
    }
    let launch: { command: string; args: string[] };
    if (cgroup) {
      // One shell joins the cgroup and sets the rlimits (bwrap runs under them too, harmlessly).
      // RLIMIT_NPROC, when wanted, must be set inside bwrap's user namespace: prlimit there.
      const inner = inBwrap(withNproc ? rlimitWrap(limits, true, command, args) : { command, args });
      launch = cgroup.joinWrap(inner.command, inner.args, ulimitScript(limits, false));
    } else {
      launch = inBwrap(rlimitWrap(limits, withNproc, command, args));
    }
    const c = cgroup;
    const built = bwrap;
    return {
      ...launch,
      sandboxed,
      ...(built ? { sameBox: (pid: number) => boxShowsNow(built[1], pid) } : {}),
      // A cgroup was wanted but could not be made: a cold start now might get one.
      ...(cg.available && !c ? { degraded: true } : {}),
      ...(c
        ? {
            kill: () => c.killAll(),
            finish: async () => {
              const processLimitHit = c.limitHit();
              await c.drain();
              return { processLimitHit };
            },
            finishNow: (timeoutMs) => void c.drainNow(timeoutMs),
          }
        : {}),
    };
  };
  // Worked out as a call would be wrapped now: the sandbox's whole command line (its paths
  // resolved now), the limits, and whether a cgroup and the in-box process limit are used. What
  // each bind shows is not in it: a spare's box itself is compared with that (sameBox).
  wrap.warmKey = () => {
    withNproc ??= sandboxed && nprocEnforced();
    const args = sandbox ? inBwrap({ command: '', args: [] }).args : null;
    return JSON.stringify([args, limits, withNproc, detectPidsCgroup().available]);
  };
  return wrap;
}

const BIND_OPTIONS = new Set(['--bind', '--ro-bind', '--dev-bind', '--bind-try', '--ro-bind-try', '--dev-bind-try']);

/** How many arguments each bwrap option this file writes takes (bwrapArgs). */
const BWRAP_ARITY: Record<string, number> = {
  '--die-with-parent': 0,
  '--disable-userns': 0,
  '--new-session': 0,
  '--unsetenv': 1,
  '--unshare-ipc': 0,
  '--unshare-net': 0,
  '--unshare-pid': 0,
  '--unshare-user': 0,
  '--unshare-uts': 0,
  '--cap-drop': 1,
  '--chdir': 1,
  '--dev': 1,
  '--proc': 1,
  '--remount-ro': 1,
  '--size': 1,
  '--tmpfs': 1,
  '--symlink': 2,
  ...Object.fromEntries([...BIND_OPTIONS].map((o) => [o, 2])),
};
/** Options that mount something of the sandbox's own (nothing of the host) at their argument. */
const OWN_MOUNTS = new Set(['--dev', '--proc', '--tmpfs']);

/**
 * Where a bwrap command line (this file's options) mounts something writable: the places of its
 * read-write binds and of its tmpfs mounts that are not made read-only after (the private /tmp).
 */
export function writableMounts(args: readonly string[]): string[] {
  const out = new Set<string>();
  for (let i = 0; i < args.length && args[i] !== '--'; ) {
    const option = args[i]!;
    const arity = BWRAP_ARITY[option] ?? 0;
    if (option === '--bind' || option === '--bind-try' || option === '--dev-bind' || option === '--dev-bind-try' || option === '--tmpfs') out.add(args[i + (option === '--tmpfs' ? 1 : 2)]!);
    else if (option === '--remount-ro') out.delete(args[i + 1]!);
    i += arity + 1;
  }
  return [...out];
}

/** The host's mount list, read again when it may have changed (see HostMountTable). */
const hostMountTable = new HostMountTable();

/**
 * The binds of a bwrap command line (a place bound from itself) with what the mount list inside
 * the box must show for each: the device and path within it of the place's source as it is now.
 * Security-sensitive: bwrap resolves a bind's source on the host when it builds the box, so a
 * folder swapped for a link in between would have it bind some other place at the planned one (the
 * shell tool's folder swapped for `..` by a concurrent command from the folder above). A place
 * mounted over again later, a source that is not there (a -try bind makes nothing) or one that is
 * not a folder or file of its own is left out.
 */
export function plannedBinds(args: readonly string[]): Array<{ place: string; dev: string; root: string }> {
  const binds = new Map<string, string>();
  for (let i = 0; i < args.length && args[i] !== '--'; ) {
    const option = args[i]!;
    const arity = BWRAP_ARITY[option] ?? 0;
    const place = BIND_OPTIONS.has(option) ? args[i + 2]! : OWN_MOUNTS.has(option) ? args[i + 1]! : null;
    if (place !== null) {
      binds.delete(place);
      if (BIND_OPTIONS.has(option) && args[i + 1] === place) binds.set(place, place);
    }
    i += arity + 1;
  }
  if (binds.size === 0) return [];
  const places: Array<{ place: string; real: string }> = [];
  for (const place of binds.keys()) {
    try {
      places.push({ place, real: realpathSync.native(place) });
    } catch {
      continue;
    }
  }
  let ids: ReturnType<HostMountTable['identities']>;
  try {
    ids = hostMountTable.identities(places.map((p) => p.real));
  } catch {
    return [];
  }
  const out: Array<{ place: string; dev: string; root: string }> = [];
  places.forEach(({ place }, i) => {
    const id = ids[i];
    if (id) out.push({ place, ...id });
  });
  return out;
}

/** What a path names now, as `dev:inode`; "-" when there is nothing there; null when it cannot be told (it cannot be read). */
function identity(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    return s ? `${s.dev}:${s.ino}` : '-';
  } catch {
    return null;
  }
}

/**
 * Whether the sandbox that `pid` (a process inside it) sees shows, at each bind's place, what the
 * bwrap command line `args` would bind now. SECURITY: bwrap binds what a path names when it
 * builds the box. A warm start's box (warm-starts.ts) was built before its call: a folder
 * replaced since at the same path (the run cache rebuilding a copy someone edited, a read path
 * swapped for another folder), or swapped for a link while bwrap built it and swapped back
 * since, would still show the other place in it. So the spare's box itself is looked at, through
 * /proc/PID/root: each bind's place against what the last mount over that place would show now
 * (a bind: its source now, below it the same path; a tmpfs, /proc or /dev: nothing of the host,
 * not compared). Whatever cannot be told (an option not known here, a place that cannot be
 * read) counts as a difference: the call starts cold.
 */
export function boxShowsNow(args: readonly string[], pid: number): boolean {
  const mounts: Array<{ dest: string; src: string | null; optional: boolean }> = [];
  for (let i = 0; i < args.length && args[i] !== '--'; ) {
    const option = args[i]!;
    const arity = BWRAP_ARITY[option];
    if (arity === undefined || i + arity >= args.length) return false;
    if (BIND_OPTIONS.has(option)) mounts.push({ src: args[i + 1]!, dest: args[i + 2]!, optional: option.endsWith('-try') });
    else if (OWN_MOUNTS.has(option)) mounts.push({ src: null, dest: args[i + 1]!, optional: false });
    i += arity + 1;
  }
  const under = (path: string, top: string) => top === '/' || path === top || path.startsWith(`${top}/`);
  // Each source's identity now, once (a bind made by a -try option of a missing source makes no mount).
  const now = mounts.map((m) => (m.src === null ? null : identity(m.src)));
  const made = mounts.map((m, i) => !(m.optional && now[i] === '-'));
  const root = `/proc/${pid}/root`;
  for (const [i, { dest, src }] of mounts.entries()) {
    if (src === null) continue;
    // The last mount over this place, as bwrap would make them now.
    let top = -1;
    for (const [j, m] of mounts.entries()) if (made[j] && under(dest, m.dest)) top = j;
    const over = mounts[top];
    const actual = identity(root + dest);
    if (!over) {
      if (actual !== '-') return false;
      continue;
    }
    if (over.src === null) continue;
    const expected = top === i ? now[i] : identity(over.dest === '/' ? over.src + dest : over.src + dest.slice(over.dest.length));
    if (actual === null || expected === null || actual !== expected) return false;
  }
  return true;
}

/** The bwrap sandbox with limits for a profile; throws when bwrap is not available. */
export function sandboxWrap(profile: SandboxProfile, opts: ContainOptions & { detection?: SandboxDetection } = {}): WrapFn {
  const detection = opts.detection ?? detectSandbox();
  if (detection.kind !== 'bwrap') throw new SandboxUnavailableError(`No sandbox: ${detection.reason}.`);
  return containWrap({ detection, profile }, opts);
}

/** Limits only, no sandbox (the result reports sandboxed: false). */
export function unsandboxedWrap(opts: ContainOptions = {}): WrapFn {
  return containWrap(null, opts);
}

export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}
