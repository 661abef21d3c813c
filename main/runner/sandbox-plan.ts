// How one plugin is confined for a call: the host's sandbox detection, the plugin's manifest,
// whether an operator trusts it, and the policy setting that forbids unsandboxed execution.
import type { PluginManifest } from '../registry/types.js';
import type { ResourceLimits } from './limits.js';
import type { WrapFn } from './one-shot.js';
import { containWrap, profileFromManifest, type SandboxDetection } from './sandbox.js';

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
