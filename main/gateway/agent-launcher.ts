// How the commands written into agents' configs (Claude Code's hook, Codex's stdio bridge) start
// Gatehouse: a real Node.js and this installation's bin/gatehouse.js, both by absolute path. Under
// Electron the Node is one found on the PATH, never the app's binary (its runAsNode fuse is off,
// so ELECTRON_RUN_AS_NODE=1 would start the app, not the hook), and the entry is the copy shipped
// unpacked beside the asar. The packaged app ships only the hook's part of the command line, not
// the stdio bridge (docs/packaging.md). When no command can start, `launcher` is null (the config
// names `gatehouse` on the PATH) and `problem` says why, for the preview's notes. Claude Code's
// hook runs the bash + curl client beside hook.js instead where it can (hookShClient): no Node
// start-up before every tool call; the Node command stays the fallback (Windows, no curl).
import { existsSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { HOOK_CLIENT_SHELL, type HookLauncher } from '../../shared/claude-config.js';
import { installedEntry } from '../core/install-files.js';
import { currentRuntimeHost, findNode, isExecutableFile, unpackedPath, type RuntimeHost } from '../core/node-runtime.js';

/** "hook": `gatehouse hook` (out/main/hook.js); "cli": any command (out/main/cli.js, e.g. the stdio bridge). */
export type LauncherUse = 'hook' | 'cli';

export interface AgentLauncher {
  launcher: HookLauncher | null;
  /** Why there is no launcher, in a sentence for the operator; null when there is one or nothing is wrong. */
  problem: string | null;
}

/** How a config writer finds its launcher: one given (tests; null: `gatehouse` from the PATH), or this installation's. */
export interface LauncherDeps {
  /** null: `gatehouse` from the PATH. Default: this installation's node and bin/gatehouse.js. */
  launcher?: HookLauncher | null;
  /** Without `launcher`: stand-ins for Electron's process.versions and PATH and for bin/gatehouse.js (tests). */
  runtime?: RuntimeHost;
  entry?: string | null;
}

export function writerLauncher(use: LauncherUse, d: LauncherDeps): AgentLauncher {
  return d.launcher === undefined ? agentLauncher(use, d.runtime, d.entry) : { launcher: d.launcher, problem: null };
}

export function agentLauncher(use: LauncherUse, runtime: RuntimeHost = currentRuntimeHost(), entry: string | null = installedEntry()): AgentLauncher {
  // Not installed as a command (no bin/gatehouse.js): `gatehouse` from the PATH, as always.
  if (!entry) return { launcher: null, problem: null };
  const real = runtime.electron ? unpackedPath(entry) : entry;
  const bundles = join(dirname(real), '..', 'out', 'main');
  // bin/gatehouse.js answers `hook` from hook.js, or else from the full cli.js.
  const needed = use === 'hook' ? ['hook.js', 'cli.js'] : ['cli.js'];
  if (!existsSync(real) || !needed.some((b) => existsSync(join(bundles, b)))) {
    const bundle = join(bundles, needed[0]!);
    const what = use === 'hook' ? 'the hook command' : 'the full gatehouse command (the stdio bridge)';
    return { launcher: null, problem: `This installation does not ship ${what} (${bundle} is missing), so the config names \`gatehouse\` on the PATH: install the gatehouse command with npm (docs/packaging.md), or use the HTTP form.` };
  }
  const node = findNode(runtime);
  if (!node.ok) return { launcher: null, problem: `The config names \`gatehouse\` on the PATH because ${node.reason}; or use the HTTP form.` };
  const shClient = use === 'hook' ? hookShClient(runtime, bundles) : null;
  return { launcher: { node: node.node, entry: real, ...(shClient ? { shClient } : {}) }, problem: null };
}

/**
 * The bash + curl hook client (out/main/gatehouse-hook.sh) when it can run here, else null (Claude
 * Code's hook then runs `gatehouse hook` with Node): not on Windows, and only with /bin/bash and a
 * curl on the PATH or in /usr/bin (where the client also looks for it when Claude Code's PATH is
 * unset). A curl removed later makes the client deny every call, as a missing node does.
 */
export function hookShClient(runtime: RuntimeHost, bundles: string): string | null {
  if (runtime.platform === 'win32') return null;
  const client = join(bundles, 'gatehouse-hook.sh');
  if (!existsSync(client) || !isExecutableFile(HOOK_CLIENT_SHELL)) return null;
  const dirs = [...(runtime.path ?? '').split(delimiter).filter((d) => isAbsolute(d)), '/usr/bin'];
  return dirs.some((d) => isExecutableFile(join(d, 'curl'))) ? client : null;
}
