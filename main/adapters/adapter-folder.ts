// One reading of a terminal adapter: its manifest (loadAdapter), its Lua entry point and the
// scan of that Lua. The adapter service (discovery, approval) and `gatehouse plugin validate` /
// `scan` use this reading, so the command line and the running host never disagree about an
// adapter (issue #26: validate refused adapter folders the host ran).
import { readFileSync } from 'node:fs';
import type { Finding, Problem } from '../registry/types.js';
import { loadAdapter, type LoadedAdapter } from './adapter-manifest.js';
import { scanLua } from '../registry/scan/lua-scan.js';

export type AdapterReading =
  | { adapter: null; problems: Problem[] }
  | { adapter: LoadedAdapter; problems: Problem[]; source: string; findings: Finding[]; failing: Finding[] };

/** Reads an adapter folder (or its manifest file). Weight 3 fails an adapter on its own: there is no sum threshold, its Lua runs in its own sandbox. */
export function readAdapter(dirOrManifest: string): AdapterReading {
  const { adapter, problems } = loadAdapter(dirOrManifest);
  if (!adapter) return { adapter: null, problems };
  const source = readFileSync(adapter.entrypointPath, 'utf8');
  const findings = scanLua(adapter.manifest.entrypoint, source);
  return { adapter, problems, source, findings, failing: findings.filter((f) => f.weight >= 3) };
}
