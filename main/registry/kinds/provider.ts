// The one interface every plugin kind implements. Code outside a kind's folder asks the kind's
// provider (found in the table, ./index.ts) instead of comparing kind names, so a new kind is a
// folder with a provider and a line in the table. See docs/architecture.md, "Plugin kinds".
import type { KindInfo } from '../../../shared/plugin-kind.js';
import type { PendingProblem } from '../manifest/schema-problems.js';
import type { ManifestSyntax } from '../manifest/source-locations.js';
import type { RawPluginManifest } from '../manifest/manifest-schema.types.js';
import type { Finding, PluginManifest, Problem, ToolSpec } from '../types.js';

export type { KindInfo };

/** How the registry tells that a folder holds a plugin of this kind. */
export type KindDiscovery =
  /** A manifest file whose `kind` field names the kind (the manifest schema's `kind` enum is the table's names). */
  | { by: 'manifest' }
  /** No manifest, but one of these entry files; the host's loader reads the folder (main/runner/module/ for modules). */
  | { by: 'entry-file'; entryFiles: readonly string[] };

/** How agents see a plugin's tools. */
export type ToolNaming =
  /** One tool is called by the plugin's name, several by plugin__tool. */
  | 'single-by-plugin-name'
  /** Always plugin__tool. */
  | 'always-prefixed'
  /** Its tools are not the registry's to name (none, or an upstream server's, named at run time). */
  | 'none';

/** What the kind adds to checking and normalising a manifest file (kinds discovered by manifest). */
export interface KindManifestRules {
  /** Why the manifest may not declare `parameters` or `tools` (the kind has no declared tools), with a hint after the fix. */
  toolsForbidden?: { why: string; hint?: string };
  /**
   * The field that names what runs instead of `command` (e.g. wasm's `wasm`), the fields the kind
   * forbids, and why. Without it the kind runs `command` like a tool.
   */
  entryField?: { field: string; hint: (syntax: ManifestSyntax) => string; forbids: readonly string[]; why: string };
  /** The tools the normalised manifest lists. Default: none. */
  tools?: (raw: RawPluginManifest, command: string, args: string[]) => ToolSpec[];
  /** The per-call timeout when the manifest sets none (or the kind's own reading of it). */
  timeoutSecs?: (raw: RawPluginManifest, fallback: number) => number;
  /** Fields of PluginManifest only this kind has (e.g. `wasm`). */
  extra?: (raw: RawPluginManifest) => Partial<PluginManifest>;
  /** Checks of the folder beyond the schema (e.g. a wasm module's imports): problems on the manifest. */
  validate?: (raw: Record<string, unknown>, dir: string) => PendingProblem[];
}

/** One execution as the tool runner hands it to a kind: what to run, for whom. */
export interface KindRunArgs {
  plugin: string;
  spec: ToolSpec;
  manifest: PluginManifest;
  /** The verified copy (an agent's call) or the folder itself (a test run). */
  dir: string;
  input: unknown;
  actor: string;
  callId?: string;
}

/**
 * The execution engines the runner offers a kind (main/runner/): the kind picks one. They live in
 * the runner because the runner sits above the registry in the layers (test/layering.test.ts).
 * R is the runner's result type, opaque to the kind.
 */
export interface KindEngines<R> {
  /** A process per call, JSON on stdin, one JSON object on stdout (the WraithRun contract), in the plugin's sandbox. */
  oneShot(a: KindRunArgs): Promise<R>;
  /** A call of a WebAssembly export, metered (main/runner/wasm/). */
  wasm(a: KindRunArgs): Promise<R>;
  /** A call into a module plugin's warm child (main/runner/module/). */
  module(a: KindRunArgs): Promise<R>;
  /** Meters a wasm plugin's module ahead of its first call. */
  prepareWasm(plugin: string): Promise<void>;
}

export interface PluginKindProvider {
  /** The kind's name, as a manifest's `kind` field writes it. */
  readonly name: string;
  /** What consoles, the CLI and the catalog show for it (data, so that no view branches on the name). */
  readonly info: KindInfo;
  readonly discover: KindDiscovery;
  readonly toolNaming: ToolNaming;
  /** Its tools are an upstream MCP server's, discovered at run time (the gateway's upstream supervisor runs it). */
  readonly upstream?: boolean;
  /**
   * Each call is one process the sandbox confines to the manifest's own paths and hosts, so a
   * manifest with no write path and no host can only read (the judge may then count the call as
   * a read). SECURITY: only a kind whose every call runs so may say it; the others keep their judgement.
   */
  readonly confinedByManifest?: boolean;
  readonly manifest?: KindManifestRules;
  /** Live problems of a file the author is editing (e.g. a module's syntax), or null for the ordinary manifest check. */
  checkSource?(path: string, content: string): Problem[] | null;
  /** The kind's own scan rules, over the plugin's text files; added to the common scan's findings. */
  scan?(manifest: PluginManifest, files: ReadonlyMap<string, string>): Finding[];
  /** Runs one tool call (callable kinds); absent for kinds another service runs (checkers, upstream MCP). */
  run?<R>(a: KindRunArgs, engines: KindEngines<R>): Promise<R>;
  /** Warms the plugin up when it is enabled or its change approved (e.g. meters a wasm module). */
  prepare?<R>(plugin: string, engines: KindEngines<R>): Promise<void>;
}
