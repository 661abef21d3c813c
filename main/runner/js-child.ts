// The one way Gatehouse starts a child process that runs its own JavaScript (a module plugin's
// child, the WebAssembly host process; the CLI's AssemblyScript compiler, run in the foreground,
// uses jsChildCommand alone): a real Node.js (core/node-runtime.ts) running a built entry file, inside the
// wrap the caller gives (bubblewrap and limits, or limits only).
//
// Under Electron the child is never the app's own binary and never a utilityProcess: the packaged
// app's runAsNode fuse makes the first impossible, and a utilityProcess is started by Electron
// itself, so bubblewrap cannot wrap it, it has no stdin and no process group to kill. Without a
// Node on the PATH the child is refused with a sentence saying so: never run outside the sandbox
// that was promised (docs/security-model.md).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { jsChildCommand, type RuntimeHost, type ShippedPaths } from '../core/node-runtime.js';
import type { WrapFn, WrappedCommand } from './one-shot.js';

export interface JsChildSpec {
  /** What the child is, for the refusal ("the module plugin hello"). */
  what: string;
  /** The built entry file (module-child.mjs, wasm-host-process.mjs). */
  file: string;
  /** Node's arguments before the file, given where the child really finds it (see ShippedPaths). */
  nodeArgs?: (at: ShippedPaths) => string[];
  /** The sandbox and limits, given where the child really finds its files (their folders must be readable inside). */
  wrap: (at: ShippedPaths) => WrapFn;
  options: SpawnOptions;
  /** Stand-in for process.versions.electron, the PATH and execPath (tests). */
  runtime?: RuntimeHost;
}

export function spawnJsChild(spec: JsChildSpec): { child: ChildProcess; wrapped: WrappedCommand } {
  const { node, ...at } = jsChildCommand(spec.what, spec.file, spec.runtime);
  const wrapped = spec.wrap(at)(node, [...(spec.nodeArgs?.(at) ?? []), at.file]);
  return { child: spawn(wrapped.command, wrapped.args, spec.options), wrapped };
}
