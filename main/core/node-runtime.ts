// Which Node.js runs Gatehouse's JavaScript children (module plugins' child, the WebAssembly host
// process) and the commands written into agents' configs. Under Node it is the Node running
// Gatehouse. Under Electron it is never the app's own binary: the packaged app's runAsNode fuse is
// off (electron-builder.yml), so neither ELECTRON_RUN_AS_NODE nor fork() makes it a Node, and
// Electron's utilityProcess cannot be put inside bubblewrap. A real Node is looked for on the PATH
// instead, by absolute path, and run once to check that it is one (docs/packaging.md).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, sep } from 'node:path';

/** What this process runs on: a stand-in for Electron's in tests, so no global is patched. */
export interface RuntimeHost {
  /** process.versions.electron: set inside Electron. */
  electron: string | undefined;
  /** process.execPath: Node itself, or the Electron app's binary. */
  execPath: string;
  /** The PATH a Node is looked for on under Electron. */
  path: string | undefined;
  platform: NodeJS.Platform;
}

export function currentRuntimeHost(): RuntimeHost {
  return { electron: process.versions.electron, execPath: process.execPath, path: process.env['PATH'], platform: process.platform };
}

/** package.json's engines.node: the children use flags and APIs of this version. */
export const MIN_NODE: readonly [number, number] = [20, 19];
const MIN_TEXT = `${MIN_NODE[0]}.${MIN_NODE[1]}`;

export type NodeLookup = { ok: true; node: string } | { ok: false; reason: string };

const checked = new Map<string, NodeLookup>();

/** The Node.js to run JavaScript children with, or why there is none (a sentence naming what to do). */
export function findNode(host: RuntimeHost = currentRuntimeHost()): NodeLookup {
  if (!host.electron) return { ok: true, node: host.execPath };
  const key = `${host.platform}\0${host.path ?? ''}`;
  const known = checked.get(key);
  if (known) return known;
  const found = searchPath(host);
  // Only a success is kept: a Node installed while the app runs is found at the next start of a child.
  if (found.ok) checked.set(key, found);
  return found;
}

function searchPath(host: RuntimeHost): NodeLookup {
  const name = host.platform === 'win32' ? 'node.exe' : 'node';
  const rejected: string[] = [];
  // Only absolute entries: "" and "." would mean whatever folder the app was started in.
  for (const dir of (host.path ?? '').split(delimiter).filter((d) => isAbsolute(d))) {
    const candidate = join(dir, name);
    if (!isExecutableFile(candidate)) continue;
    const why = notNode(candidate);
    if (!why) return { ok: true, node: realpathSync(candidate) };
    rejected.push(`${candidate} ${why}`);
  }
  const seen = rejected.length ? ` (${rejected.join('; ')})` : '';
  return { ok: false, reason: `no Node.js ${MIN_TEXT} or later was found on the PATH${seen}; the desktop app cannot act as one (its runAsNode fuse is off): install Node.js ${MIN_TEXT} or later on the PATH the app is started with, then restart Gatehouse` };
}

export function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Null when `file` is a Node.js new enough; else what it is instead, in words. */
function notNode(file: string): string | null {
  // Run with an empty environment: NODE_OPTIONS and the like must not change the answer.
  const r = spawnSync(file, ['-e', 'process.stdout.write(JSON.stringify([process.release && process.release.name, process.versions.node, process.versions.electron || null]))'], { encoding: 'utf8', timeout: 5000, env: {}, stdio: ['ignore', 'pipe', 'ignore'] });
  let answer: unknown;
  try {
    answer = JSON.parse(r.stdout);
  } catch {
    return 'is not Node.js (it did not run a script)';
  }
  const [name, version, electron] = Array.isArray(answer) ? (answer as unknown[]) : [];
  if (name !== 'node' || typeof version !== 'string' || electron !== null) return 'is not Node.js';
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) return `is Node.js ${version}, older than ${MIN_TEXT}`;
  return null;
}

/**
 * The real file behind a path inside the packaged app's asar: a Node outside Electron cannot read
 * the archive, so what it runs is shipped unpacked (asarUnpack) beside it, in app.asar.unpacked.
 */
export function unpackedPath(p: string): string {
  return p.split(sep).map((part) => (part === 'app.asar' ? 'app.asar.unpacked' : part)).join(sep);
}

/** The entry file a child runs, and how any other shipped file is reached from the child (unpacked from an asar under Electron). */
export interface ShippedPaths {
  file: string;
  real: (p: string) => string;
}

export class JsChildRefused extends Error {
  override name = 'JsChildRefused';
}

/** The Node and the file a JavaScript child runs; throws JsChildRefused, naming `what`, when there is no Node. */
export function jsChildCommand(what: string, file: string, runtime: RuntimeHost = currentRuntimeHost()): { node: string } & ShippedPaths {
  const node = findNode(runtime);
  if (!node.ok) throw new JsChildRefused(`${what} was not started: ${node.reason}.`);
  const real = runtime.electron ? unpackedPath : (p: string) => p;
  return { node: node.node, file: real(file), real };
}
