// How one plugin is confined for a call: the host's sandbox detection, the plugin's manifest,
// whether an operator trusts it, and the policy setting that forbids unsandboxed execution.
import type { PluginManifest } from '../registry/types.js';
import type { ResourceLimits } from './limits.js';
import type { WrapFn } from './one-shot.js';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Operation } from '../policy/types.js';
import { ALL_PERSISTENCE_GLOBS } from '../policy/rules/persistence.js';
import { compilePathPattern, defaultCaseInsensitive, type PathPattern } from '../policy/rules/paths.js';
import { builtinRules } from '../policy/rules/builtin.js';
import { namedPlaces } from './box.js';
import { containWrap, under, profileFromManifest, providedBySandbox, secretPaths, type SandboxDetection, type SandboxProfile } from './sandbox.js';
import { kindInfo } from '../registry/kinds/index.js';

export interface SandboxPlan {
  /** The wrap for runOneShot (always set: unsandboxed runs still get limits). */
  wrap: WrapFn;
  sandboxed: boolean;
  /** Why it is not sandboxed (shown to the operator), or why it is refused. */
  warning: string | null;
}

export interface SandboxPlanOptions {
  /** Policy: never run a plugin unsandboxed; such a call fails with failure "spawn". */
  requireSandbox?: boolean;
  /** An operator marked the plugin trusted: its `sandbox = "none"` is honoured. */
  trusted?: boolean;
  /** Per-call limit overrides (CPU defaults to the manifest's timeout + 1 s). */
  limits?: Partial<ResourceLimits>;
  home?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The folder the plugin was reviewed in, when `dir` is a verified copy of it: hidden from the
   * sandbox, and permission paths inside it are the copy's (profileFromManifest).
   */
  reviewedDir?: string;
  /** Gatehouse's own folder: never shown to a plugin (bwrapArgs), besides its verified copy in the run cache. */
  gatehouseHome?: string;
}

/** Refusal to run unsandboxed; runOneShot turns it into a "spawn" failure with this message. */
export class SandboxRequiredError extends Error {
  override name = 'SandboxRequiredError';
}

export function sandboxPlan(detection: SandboxDetection, manifest: PluginManifest, dir: string, opts: SandboxPlanOptions = {}): SandboxPlan {
  // RLIMIT_CPU counts a process's whole life: a tool's call ends with its process, but a checker
  // or an MCP server serves calls for hours, and its timeout is per call, so it gets no CPU limit
  // (the other limits hold, and each call is timed by the pool or the MCP client).
  const longLived = kindInfo(manifest.kind)?.longLived !== false;
  const limits = { ...(longLived ? { cpuSecs: Infinity } : {}), ...opts.limits };
  const contain = { timeoutMs: manifest.timeoutSecs * 1000, limits, ...(opts.home ? { home: opts.home } : {}), ...(opts.env ? { env: opts.env } : {}), ...(opts.gatehouseHome ? { gatehouseHome: opts.gatehouseHome } : {}) };
  const optedOut = manifest.sandbox === 'none' && opts.trusted === true;
  if (detection.kind === 'bwrap' && !optedOut) {
    return { wrap: containWrap({ detection, profile: profileFromManifest(manifest, dir, { ...(opts.home ? { home: opts.home } : {}), ...(opts.reviewedDir ? { reviewedDir: opts.reviewedDir } : {}) }) }, contain), sandboxed: true, warning: null };
  }
  const why = optedOut ? `its manifest says sandbox = "none" and an operator marked it trusted` : `there is no sandbox on this machine: ${detection.kind === 'none' ? detection.reason : ''}`;
  if (opts.requireSandbox) {
    const message = `${manifest.name} was not run: the policy requires a sandbox, but ${why}. ${optedOut ? `Remove sandbox = "none" from its manifest` : 'Install bubblewrap'} or turn off "require sandbox".`;
    return {
      wrap: () => {
        throw new SandboxRequiredError(message);
      },
      sandboxed: false,
      warning: message,
    };
  }
  return { wrap: containWrap(null, contain), sandboxed: false, warning: `${manifest.name} runs unsandboxed: ${why}. It can read and write whatever your account can.` };
}

export interface ShellCallScope {
  /** The command's working directory (the folder policy judged it in). */
  cwd: string;
  /** What policy extracted from the command: the paths it touches and the hosts it reaches. */
  paths: readonly string[];
  hosts: readonly string[];
  /** The command hides what it does (eval, a computed command): its extracted paths are not trusted. */
  evasive: boolean;
  /**
   * The operations policy extracted. Without a write, delete, move or copy every bind is
   * read-only (absent counts as none); an evasive command's working directory is writable.
   */
  operations?: readonly Operation[];
}

export interface ShellPlanOptions {
  requireSandbox?: boolean;
  timeoutMs: number;
  home?: string;
  /** Gatehouse's own folder (tokens, policy, audit log): hidden even when a bound path holds it. */
  gatehouseHome?: string;
  env?: NodeJS.ProcessEnv;
}

/** Operations that change the file system; extraction keeps operations and paths as flat sets, so any of them makes every named path writable. */
const WRITING_OPS: ReadonlySet<Operation> = new Set(['write', 'delete', 'move', 'copy']);

/**
 * How the built-in shell tool's command is confined: to exactly what policy judged it would
 * touch. Its working directory and each path extracted from the command are bound, read-write
 * only when the command writes (a write, delete, move or copy was extracted), read-only
 * otherwise. A path that does not exist yet gets its parent folder bound, unless that folder is
 * one no command may have whole: the home or a folder holding it, "/", a system folder, a
 * secrets folder or Gatehouse's own; then the file cannot be created (the command fails on a
 * read-only or missing folder). The home itself is never bound read-write, even as the working
 * directory: naming one new file in ~ would otherwise open every dotfile in it. System folders
 * and /proc, /dev, /sys are the sandbox's own. An evasive command (eval, a computed path) gets
 * its working directory only (writable, unless it is a folder named above): what was extracted
 * from it cannot be trusted, so an operator who approves one does not open the folders it might
 * name. The network is there only when the
 * command names a host; the home's secrets and Gatehouse's folder are hidden under any bound
 * folder. Limits as for a tool.
 */
export function shellPlan(detection: SandboxDetection, scope: ShellCallScope, opts: ShellPlanOptions): SandboxPlan {
  const home = resolve(opts.home ?? homedir());
  const contain = { timeoutMs: opts.timeoutMs, home, ...(opts.env ? { env: opts.env } : {}) };
  if (detection.kind === 'bwrap') {
    // The folder where it really is now. Security-sensitive: judged while it was a folder, it can
    // be a link by the time the command runs (an approval's wait is a window); bound by the name
    // it was judged by, it showed Gatehouse's folder writable. By its real place the protections
    // below apply to what is really there, and a folder inside a secret place is not run in at all.
    const cwd = realOr(resolve(scope.cwd));
    const secrets = shellSecrets(home, opts.gatehouseHome);
    const secret = secrets.find((s) => cwd !== s && under(cwd, s));
    // Inside one (its own place is hidden, below: the command sees an empty folder there).
    if (secret !== undefined) {
      const message = `The shell command was not run: its folder ${scope.cwd} is ${cwd === resolve(scope.cwd) ? '' : `now a link to ${cwd}, `}inside ${secret}, where no command runs.`;
      return {
        wrap: () => {
          throw new SandboxRequiredError(message);
        },
        sandboxed: true,
        warning: message,
      };
    }
    // The secrets as just looked up: the same moment's answer, not a second look (bwrapArgs looks
    // again at the first start, which can be after an approval's wait).
    const profile = shellProfile({ ...scope, cwd }, home, opts.gatehouseHome, secrets);
    return { wrap: containWrap({ detection, profile }, contain), sandboxed: true, warning: null };
  }
  const why = `there is no sandbox on this machine: ${detection.reason}`;
  if (opts.requireSandbox) {
    const message = `The shell command was not run: the policy requires a sandbox, but ${why}. Install bubblewrap or turn off "require sandbox".`;
    return {
      wrap: () => {
        throw new SandboxRequiredError(message);
      },
      sandboxed: false,
      warning: message,
    };
  }
  return { wrap: containWrap(null, contain), sandboxed: false, warning: `The shell tool runs unsandboxed: ${why}. A command can read and write whatever your account can.` };
}

/** The binds of shellPlan's sandbox (exported for tests and `gatehouse doctor`-style explanations). */
export function shellProfile(scope: ShellCallScope, home: string, gatehouseHome?: string, secretsNow?: readonly string[]): SandboxProfile {
  const cwd = resolve(scope.cwd);
  // An evasive command's operations are as untrusted as its paths: an operator who approved it
  // approved an opaque command in its folder, so that folder is writable (and nothing else).
  const writes = scope.evasive || (scope.operations ?? []).some((op) => WRITING_OPS.has(op));
  // Extraction resolves symlinks, so a home reached through one (/home -> /var/home) shows up by
  // its real path: both spellings count.
  const homes = [...new Set([home, realOr(home)])];
  const secrets = secretsNow ?? shellSecrets(home, gatehouseHome);
  // Folders no command gets read-write as a whole: binding one would open far more than was named.
  // (Secrets inside a bound folder are hidden below, so containing one is not a reason.)
  const tooWide = (p: string) => p === '/' || homes.some((h) => under(h, p) || neverWholeInHome(p, h)) || providedBySandbox(p) || secrets.some((s) => under(p, s));
  const persistence = persistencePattern(home);
  // Security-sensitive: a persistence location (or a folder holding one) bound writable lets a
  // command the judge was bypassed for, or got wrong, plant code that runs later, outside the
  // sandbox (`echo … >> ~/.vimrc`, a unit in ~/.config/systemd/user). Read-only instead.
  const runsLater = (p: string) => persistence.match(p) !== null || persistence.containsProtected(p) !== null;
  const read = new Set<string>();
  const write = new Set<string>();
  const bind = (p: string) => {
    if (providedBySandbox(p)) return;
    if (writes && !tooWide(p) && !runsLater(p)) write.add(p);
    else read.add(p);
  };
  bind(cwd);
  if (!scope.evasive) {
    for (const raw of scope.paths) {
      if (!isAbsolute(raw)) continue;
      const p = resolve(raw);
      if (existsSync(p)) {
        if (stillReal(p)) bind(p);
        continue;
      }
      // Not there yet (a file about to be created): its folder, when that exists and may be bound
      // whole; otherwise nothing, and the command cannot create it.
      const up = dirname(p);
      if (up === p || !existsSync(up) || tooWide(up) || !stillReal(up)) continue;
      bind(up);
    }
  }
  for (const p of write) read.delete(p);
  const all = [cwd, ...read, ...write];
  const hide = secrets.filter((h) => all.some((b) => under(h, b)));
  // What the locked rules protect by name (`**/.env`, `**/.git/hooks`: named anywhere, so not
  // counted by containsProtected) inside the working folder and the writable ones: secret files
  // hidden (a script the command runs would read them), hooks, git config, agent settings and
  // plugin folders bound read-only over the write. Found by the same walk as the box's (box.ts).
  const rules = builtinRules({ home, ...(gatehouseHome ? { gatehouseHome } : { gatehouseHome: join(home, '.config', 'gatehouse') }), caseInsensitive: defaultCaseInsensitive() });
  const lock = new Set<string>();
  for (const folder of new Set([cwd, ...write])) {
    // Not "/" or a system folder (the sandbox's own), nor the home or a folder holding it (its
    // secrets are hidden by place above; a walk of it would be a walk of everything).
    if (providedBySandbox(folder) || homes.some((h) => under(h, folder)) || !isDirectory(folder)) continue;
    const found = namedPlaces(folder, rules);
    for (const f of found.secret) if (!hide.includes(f)) hide.push(f);
    if (write.has(folder) || [...write].some((w) => under(folder, w))) for (const k of found.kept) lock.add(k);
  }
  return { pluginDir: cwd, read: [...read], write: [...write], hosts: [...scope.hosts], hide, readOnlyRoot: true, ...(lock.size ? { lock: [...lock] } : {}) };
}

/**
 * The places no shell command's folder may be in or bind whole: the home's secrets under both
 * spellings of the home (extraction resolves symlinks: /home -> /var/home) and Gatehouse's folder
 * by both of its.
 */
function shellSecrets(home: string, gatehouseHome: string | undefined): string[] {
  const homes = [...new Set([home, realOr(home)])];
  return [...new Set(homes.flatMap((h) => secretPaths(h, gatehouseHome)).concat(gatehouseHome ? [realOr(gatehouseHome)] : []))];
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const persistencePatterns = new Map<string, PathPattern>();

/** ALL_PERSISTENCE_GLOBS compiled for one home (once: compiling resolves each glob's base). */
function persistencePattern(home: string): PathPattern {
  let p = persistencePatterns.get(home);
  if (!p) {
    p = compilePathPattern(ALL_PERSISTENCE_GLOBS, { home, caseInsensitive: defaultCaseInsensitive() });
    persistencePatterns.set(home, p);
  }
  return p;
}

/**
 * Extraction judged real paths (symlinks resolved). A path that now resolves elsewhere was made a
 * link after the judgement (while the call waited for an operator, say): binding it would bind
 * the link's target, which nobody judged, so it is not bound at all.
 */
function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function stillReal(p: string): boolean {
  try {
    return realpathSync(p) === p;
  } catch {
    return false;
  }
}

/** ~/.config, ~/.local, ~/.cache and the like hold every program's settings and tokens: never bound whole for writing. */
function neverWholeInHome(p: string, home: string): boolean {
  const r = relative(home, p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) && !r.includes(sep) && HOME_CATCH_ALL.has(r);
}
const HOME_CATCH_ALL = new Set(['.config', '.local', '.cache']);

