// Shared vocabulary of the plugin registry: what a loaded manifest looks like after
// validation, and the two kinds of report an operator sees (problems and scan findings).

export const PLATFORMS = ['linux', 'macos', 'windows'] as const;
export type PluginPlatform = (typeof PLATFORMS)[number];

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** The built-in kinds a manifest file may declare (the schema's enum); the kind table (./kinds/) may add more. */
export const PLUGIN_KINDS = ['tool', 'checker', 'mcp', 'wasm'] as const;
/** The kinds a manifest file may declare (the schema's enum). */
export type ManifestKind = (typeof PLUGIN_KINDS)[number];
/**
 * A kind's name in the kind table (./kinds/index.ts). "module" is not a manifest kind: a module
 * plugin (a Triggerfish-style folder with a mod.ts) has no manifest file, and its kind comes from
 * its entry point. Kinds added to the table are any other name.
 */
export type PluginKind = ManifestKind | 'module' | (string & {});

export const CLASSIFICATIONS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'RESTRICTED'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

/** Command basenames no plugin may run as its entry point; operators can extend the list. */
export const DEFAULT_COMMAND_DENYLIST = ['rm', 'mkfs', 'dd', 'shutdown', 'reboot', 'halt', 'poweroff', 'kill', 'sudo', 'su', 'doas'] as const;

/** A validation problem: where it is and what to do. Errors make a plugin invalid. */
export interface Problem {
  /** File name relative to the plugin folder (e.g. "tool.toml", "run.sh"). */
  file: string;
  /** 1-based; present when the problem has a place in the file. */
  line?: number;
  column?: number;
  /** Field path inside the manifest, e.g. "parameters.path.type". */
  path?: string;
  severity: 'error' | 'warning';
  /** Stable id, e.g. "manifest.syntax", "manifest.unknown-field", "command.absolute". */
  code: string;
  /** One readable sentence: what is wrong and what to do. */
  message: string;
}

/** A security-scan finding. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  /** Stable rule id, e.g. "js.eval", "sh.curl-pipe-shell", "text.bidi-control", "poison.ignore-instructions". */
  rule: string;
  weight: 1 | 2 | 3;
  message: string;
}

export interface ScanThresholds {
  /** Any finding at or above this weight fails the scan. Default 3. */
  failAtWeight: number;
  /** A total weight at or above this fails the scan. Default 4. */
  failAtTotal: number;
}
export const DEFAULT_THRESHOLDS: ScanThresholds = { failAtWeight: 3, failAtTotal: 4 };

export interface ScanResult {
  findings: Finding[];
  totalWeight: number;
  passed: boolean;
  filesScanned: number;
}

export interface ParameterSpec {
  type: ParameterType;
  required: boolean;
  description: string;
}

/** One tool as agents see it. */
export interface ToolSpec {
  /** Name inside the plugin (the plugin name for a single-tool plugin). */
  name: string;
  description: string;
  parameters: Record<string, ParameterSpec>;
  /** JSON Schema of the arguments, built from `parameters`. */
  inputSchema: { type: 'object'; properties: Record<string, { type: ParameterType; description?: string }>; required: string[]; additionalProperties?: boolean };
  /** Command for this tool, relative to the plugin folder (defaults to the plugin's). */
  command: string;
  args: string[];
  /** wasm plugins: the module's export that implements the tool. */
  export?: string;
}

/** What a `wasm` plugin adds to its manifest (main/runner/wasm/). */
export interface WasmSpec {
  /** The module, relative to the plugin folder. */
  module: string;
  abi: 'extism';
  limits: { fuel: number; memoryMb: number; timeoutSecs: number; maxOutputKb: number; maxModuleMb: number };
  /** `permissions.log`: the log host functions are linked. */
  log: boolean;
}

export interface PluginManifest {
  /** "wraithrun" for tool.toml, "gatehouse" for gatehouse.toml / .yaml / .yml / .json, "triggerfish" for a module plugin's mod.ts. */
  format: 'wraithrun' | 'gatehouse' | 'triggerfish';
  /** The manifest's file name relative to the plugin folder. */
  manifestFile: string;
  name: string;
  description: string;
  version: string | null;
  kind: PluginKind;
  command: string;
  args: string[];
  /** Empty means all platforms. */
  platforms: PluginPlatform[];
  timeoutSecs: number;
  permissions: { read: string[]; write: string[]; hosts: string[]; env: string[] };
  sandbox: 'strict' | 'none';
  classification: Classification;
  pty: boolean;
  /** Checkers only: a failure of an optional checker does not block calls. */
  optional: boolean;
  /** Checker `init` config. */
  config: Record<string, unknown> | null;
  /** Tools of a `tool` or `wasm` plugin; empty for checkers and for `mcp` plugins (discovered at run time). */
  tools: ToolSpec[];
  /** Present exactly for `wasm` plugins. */
  wasm?: WasmSpec;
  /** Present exactly for `module` plugins. */
  module?: ModuleSpec;
}

/** What a `module` plugin's exports add (main/runner/module/). */
export interface ModuleSpec {
  /** mod.ts or mod.js. */
  entry: string;
  /** What the module's manifest asks for; the effective trust also needs the operator's setting. */
  trust: 'sandboxed' | 'trusted';
  declaredEndpoints: string[];
  systemPrompt: string | null;
  /** Triggerfish's tool names (plugin_<name>_<tool>) to Gatehouse's (<plugin>__<tool>), for policy rules. */
  aliases: Record<string, string>;
}
