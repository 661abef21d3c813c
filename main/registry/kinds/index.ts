// The table of plugin kinds: one provider per kind, each in its own folder. Adding a kind is a
// folder with a provider and one line in BUILT_IN_KINDS (or, for a test or an embedder,
// registerKind). Everything outside a provider looks kinds up here instead of naming them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginManifest } from '../types.js';
import { checkerKind } from './checker/index.js';
import { mcpKind } from './mcp/index.js';
import { moduleKind } from './module/index.js';
import type { KindInfo, PluginKindProvider } from './provider.js';
import { toolKind } from './tool/index.js';
import { wasmKind } from './wasm/index.js';

export type { KindEngines, KindInfo, KindRunArgs, PluginKindProvider } from './provider.js';

const BUILT_IN_KINDS: readonly PluginKindProvider[] = [toolKind, checkerKind, mcpKind, wasmKind, moduleKind];

const table = new Map<string, PluginKindProvider>(BUILT_IN_KINDS.map((p) => [p.name, p]));
let version = 0;

/**
 * Adds a kind to the table (the extension point; the built-in kinds are the lines above). Its
 * name must be new: a provider cannot replace a built-in kind's rules. Returns the undo.
 */
export function registerKind(p: PluginKindProvider): () => void {
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(p.name)) throw new Error(`Plugin kind ${JSON.stringify(p.name)}: a kind's name is 1 to 32 of a-z 0-9 -, starting with a letter.`);
  if (table.has(p.name)) throw new Error(`Plugin kind "${p.name}" is already in the table; give the new kind another name.`);
  // The console offers a test run for exactly the kinds the runner can run: the two must agree.
  if (p.info.callable !== (p.run !== undefined)) throw new Error(`Plugin kind "${p.name}": info.callable is ${p.info.callable} but it ${p.run ? 'has' : 'has no'} run(); a kind whose tools agents call runs them, and only such a kind.`);
  table.set(p.name, p);
  version++;
  return () => {
    if (table.get(p.name) === p) table.delete(p.name);
    version++;
  };
}

/** Every kind, built-in ones first. */
export function kindProviders(): PluginKindProvider[] {
  return [...table.values()];
}

/** A counter that changes whenever the table does (for caches built from it, such as the schema validator). */
export function kindTableVersion(): number {
  return version;
}

export function kindProvider(name: string): PluginKindProvider | undefined {
  return table.get(name);
}

/** The provider of a loaded manifest's kind; a manifest only loads with a kind in the table, so a miss is a bug. */
export function providerOf(m: Pick<PluginManifest, 'kind' | 'name'>): PluginKindProvider {
  const p = table.get(m.kind);
  if (!p) throw new Error(`${m.name} is of kind "${m.kind}", which is not in the plugin kind table (main/registry/kinds/index.ts).`);
  return p;
}

/** What a console shows for a plugin of this kind; null for no (or an unknown) kind. */
export function kindInfo(name: string | null | undefined): KindInfo | null {
  return (name ? table.get(name)?.info : undefined) ?? null;
}

/** The kinds a manifest file may declare in its `kind` field. */
export function manifestKindNames(): string[] {
  return kindProviders()
    .filter((p) => p.discover.by === 'manifest')
    .map((p) => p.name);
}

/** The kind whose entry file this path is (a module's mod.ts), if any. */
export function providerForEntry(path: string): PluginKindProvider | undefined {
  return kindProviders().find((p) => p.discover.by === 'entry-file' && p.discover.entryFiles.includes(path));
}

/** The kind a folder without a manifest is, by its entry files (or undefined). */
export function providerForFolder(dir: string): PluginKindProvider | undefined {
  return kindProviders().find((p) => p.discover.by === 'entry-file' && p.discover.entryFiles.some((f) => existsSync(join(dir, f))));
}

/** Whether a plugin of this kind that has one tool exposes it under the plugin's own name (else plugin__tool). */
export function singleToolByPluginName(m: Pick<PluginManifest, 'kind' | 'name'>): boolean {
  return providerOf(m).toolNaming === 'single-by-plugin-name';
}
