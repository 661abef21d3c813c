// Where a container client sends its requests when no address is on its command line: a Docker
// context (`docker --context NAME`, DOCKER_CONTEXT, the config's currentContext) or a Podman
// connection (`podman --connection NAME`, CONTAINER_CONNECTION, the default one with --remote).
// An operator's saved context can name a daemon on another machine (`ssh://user@host`,
// `tcp://10.0.0.5:2376`): every `docker ps` then talks to that host, which the judge must count
// as a network operation to it. A review found `docker --context remote ps` allowed at full
// autonomy while `docker -H 10.0.0.5:2375 ps` was denied.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readSmallFile } from '../core/read-small-file.js';

const MAX_CONFIG_BYTES = 1 << 20;

/** The daemon address an address on the command line or in a variable holds, or null when it is local (a socket). */
export function remoteAddress(address: string): string | null {
  const a = address.trim();
  if (a === '' || a.startsWith('unix:') || a.startsWith('fd:') || a.startsWith('npipe:') || a.startsWith('/')) return null;
  return a;
}

function readJson(file: string): unknown {
  const text = readSmallFile(file, MAX_CONFIG_BYTES);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), o);

/** Docker's context name when none is given: the config's currentContext ("default" when unset). */
export function dockerCurrentContext(configDir: string): string {
  const name = field(readJson(join(configDir, 'config.json')), 'currentContext');
  return typeof name === 'string' && name !== '' ? name : 'default';
}

/**
 * The daemon address a Docker context names, or null for the default context, a context that does
 * not exist (the client stops with an error) or one whose endpoint is a local socket. Docker keeps
 * a context's endpoints in contexts/meta/<sha256 of its name>/meta.json under its config folder.
 */
export function dockerContextAddress(configDir: string, name: string): string | null {
  if (name === 'default') return null;
  const id = createHash('sha256').update(name).digest('hex');
  const host = field(readJson(join(configDir, 'contexts', 'meta', id, 'meta.json')), 'Endpoints', 'docker', 'Host');
  return typeof host === 'string' ? remoteAddress(host) : null;
}

/**
 * The address of a Podman connection (`name` null: the default one), or null when there is none.
 * Read from podman-connections.json (Podman 5) and containers.conf's service destinations.
 */
export function podmanConnectionAddress(configHome: string, name: string | null): string | null {
  const folder = join(configHome, 'containers');
  const json = readJson(join(folder, 'podman-connections.json'));
  const conf = readSmallFile(join(folder, 'containers.conf'), MAX_CONFIG_BYTES) ?? '';
  const chosen = name ?? (field(json, 'Connection', 'Default') as string | undefined) ?? /^\s*active_service\s*=\s*"([^"]*)"/m.exec(conf)?.[1];
  if (typeof chosen !== 'string' || chosen === '') return null;
  const uri = field(json, 'Connection', 'Connections', chosen, 'URI');
  if (typeof uri === 'string') return remoteAddress(uri);
  // [engine.service_destinations.NAME] then uri = "…" within that table.
  const table = new RegExp(String.raw`^\s*\[engine\.service_destinations\.(?:"${escapeRe(chosen)}"|${escapeRe(chosen)})\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))`, 'm').exec(conf)?.[1];
  const fromConf = table !== undefined ? /^\s*uri\s*=\s*"([^"]*)"/m.exec(table)?.[1] : undefined;
  return fromConf !== undefined ? remoteAddress(fromConf) : null;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
