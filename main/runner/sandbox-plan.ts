// How one plugin is confined for a call: the host's sandbox detection, the plugin's manifest,
// whether an operator trusts it, and the policy setting that forbids unsandboxed execution.
import type { PluginManifest } from '../registry/types.js';
import type { ResourceLimits } from './limits.js';
import type { WrapFn } from './one-shot.js';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { containWrap, profileFromManifest, providedBySandbox, secretPaths, type SandboxDetection } from './sandbox.js';

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
}

/** Refusal to run unsandboxed; runOneShot turns it into a "spawn" failure with this message. */
export class SandboxRequiredError extends Error {
  override name = 'SandboxRequiredError';
}

export function sandboxPlan(detection: SandboxDetection, manifest: PluginManifest, dir: string, opts: SandboxPlanOptions = {}): SandboxPlan {
  // RLIMIT_CPU counts a process's whole life: a tool's call ends with its process, but a checker
  // or an MCP server serves calls for hours, and its timeout is per call, so it gets no CPU limit
  // (the other limits hold, and each call is timed by the pool or the MCP client).
  const longLived = manifest.kind !== 'tool';
  const limits = { ...(longLived ? { cpuSecs: Infinity } : {}), ...opts.limits };
  const contain = { timeoutMs: manifest.timeoutSecs * 1000, limits, ...(opts.home ? { home: opts.home } : {}), ...(opts.env ? { env: opts.env } : {}) };
  const optedOut = manifest.sandbox === 'none' && opts.trusted === true;
  if (detection.kind === 'bwrap' && !optedOut) {
    return { wrap: containWrap({ detection, profile: profileFromManifest(manifest, dir, opts.home ? { home: opts.home } : {}) }, contain), sandboxed: true, warning: null };
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
  /** The command's working directory. */
  cwd: string;
  /** What policy extracted from the command: the paths it touches and the hosts it reaches. */
  paths: readonly string[];
  hosts: readonly string[];
  /** The command hides what it does (eval, a computed command): its extracted paths are not trusted. */
  evasive: boolean;
}

export interface ShellPlanOptions {
  requireSandbox?: boolean;
  timeoutMs: number;
  home?: string;
  /** Gatehouse's own folder (tokens, policy, audit log): hidden even when a bound path holds it. */
  gatehouseHome?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * How the built-in shell tool's command is confined: to what policy judged it would touch. Its
 * working directory is bound read-write, and so is each path extracted from the command (one
 * that does not exist yet: its folder, when that exists), except "/", system folders (they stay
 * read-only) and /proc, /dev, /sys (the sandbox's own). An evasive command (eval, a computed
 * path) gets its working directory only: what was extracted from it cannot be trusted, so an
 * operator who approves one does not open the folders it might name. The network is there only
 * when the command names a host; the home's secrets and Gatehouse's folder are hidden under any
 * bound folder. Limits as for a tool.
 */
export function shellPlan(detection: SandboxDetection, scope: ShellCallScope, opts: ShellPlanOptions): SandboxPlan {
  const home = opts.home ?? homedir();
  const contain = { timeoutMs: opts.timeoutMs, home, ...(opts.env ? { env: opts.env } : {}) };
  if (detection.kind === 'bwrap') {
    const cwd = resolve(scope.cwd);
    const named = scope.evasive ? [] : scope.paths.filter((p) => isAbsolute(p)).map(existingOrFolder);
    const write = [...new Set([cwd, ...named])].filter((p): p is string => p !== null && !providedBySandbox(p));
    const hide = secretPaths(home, opts.gatehouseHome).filter((h) => write.some((w) => under(h, w)));
    return { wrap: containWrap({ detection, profile: { pluginDir: cwd, read: [], write, hosts: [...scope.hosts], hide } }, contain), sandboxed: true, warning: null };
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

/** The path itself when it exists, else its folder when that exists (a file about to be written), else null. */
function existingOrFolder(p: string): string | null {
  const full = resolve(p);
  if (existsSync(full)) return full;
  const up = dirname(full);
  return up !== full && existsSync(up) ? up : null;
}

const under = (child: string, parent: string) => {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};
