// From a raw manifest that passed the schema to the normalized PluginManifest the rest of
// Gatehouse uses: defaults applied (from the schema), one ToolSpec per tool with its JSON Schema.
import type { ParameterSpec, PluginManifest, ToolSpec } from '../types.js';
import { MANIFEST_DEFAULTS } from './manifest-schema.js';

/** A checker's default per-call timeout (crust's): the schema's default of 30 s is a tool's. */
export const CHECKER_TIMEOUT_SECS = 5;
import type { RawParameters, RawPluginManifest } from './manifest-schema.types.js';

export function normalizeManifest(raw: RawPluginManifest, manifestFile: string): PluginManifest {
  const kind = raw.kind ?? MANIFEST_DEFAULTS.kind;
  const args = [...(raw.args ?? [])];
  // A wasm plugin runs no command (the schema forbids one): its tools are the module's exports.
  const command = raw.command ?? '';
  let tools: ToolSpec[] = [];
  if (kind === 'tool') {
    tools = raw.tools
      ? Object.entries(raw.tools).map(([name, t]) => toolSpec(name, t.description, t.parameters, t.command ?? command, [...(t.args ?? args)]))
      : [toolSpec(raw.name, raw.description, raw.parameters, command, [...args])];
  } else if (kind === 'wasm') {
    tools = raw.tools
      ? Object.entries(raw.tools).map(([name, t]) => ({ ...toolSpec(name, t.description, t.parameters, '', []), export: t.export ?? name }))
      : [{ ...toolSpec(raw.name, raw.description, raw.parameters, '', []), export: raw.name }];
  }
  const limits = raw.limits ?? {};
  const d = MANIFEST_DEFAULTS.wasmLimits;
  return {
    format: manifestFile.split(/[\\/]/).pop() === 'tool.toml' ? 'wraithrun' : 'gatehouse',
    manifestFile,
    name: raw.name,
    description: raw.description,
    version: raw.version ?? null,
    kind,
    command,
    args,
    platforms: [...new Set(raw.platforms ?? [])],
    // A checker's timeout is per evaluate call, and a checker that blocks every call must answer fast.
    timeoutSecs: kind === 'wasm' ? (limits.timeout_secs ?? raw.timeout_secs ?? d.timeoutSecs) : (raw.timeout_secs ?? (kind === 'checker' ? CHECKER_TIMEOUT_SECS : MANIFEST_DEFAULTS.timeoutSecs)),
    permissions: {
      read: [...(raw.permissions?.read ?? [])],
      write: [...(raw.permissions?.write ?? [])],
      hosts: [...(raw.permissions?.hosts ?? [])],
      env: [...(raw.permissions?.env ?? [])],
    },
    sandbox: raw.sandbox ?? MANIFEST_DEFAULTS.sandbox,
    classification: raw.classification ?? MANIFEST_DEFAULTS.classification,
    pty: raw.pty ?? MANIFEST_DEFAULTS.pty,
    optional: raw.optional ?? MANIFEST_DEFAULTS.optional,
    config: raw.config ?? null,
    tools,
    ...(kind === 'wasm'
      ? {
          wasm: {
            module: raw.wasm ?? '',
            abi: raw.abi ?? 'extism',
            limits: {
              fuel: limits.fuel ?? d.fuel,
              memoryMb: limits.memory_mb ?? d.memoryMb,
              timeoutSecs: limits.timeout_secs ?? d.timeoutSecs,
              maxOutputKb: limits.max_output_kb ?? d.maxOutputKb,
              maxModuleMb: limits.max_module_mb ?? d.maxModuleMb,
            },
            log: raw.permissions?.log ?? MANIFEST_DEFAULTS.permissionsLog,
          },
        }
      : {}),
  };
}

function toolSpec(name: string, description: string, rawParams: RawParameters | undefined, command: string, args: string[]): ToolSpec {
  // Object.fromEntries defines own properties, so a parameter called "__proto__" stays a parameter.
  const parameters: Record<string, ParameterSpec> = Object.fromEntries(
    Object.entries(rawParams ?? {}).map(([p, spec]) => [
      p,
      { type: spec.type, required: spec.required ?? MANIFEST_DEFAULTS.parameterRequired, description: spec.description ?? MANIFEST_DEFAULTS.parameterDescription },
    ]),
  );
  const properties: ToolSpec['inputSchema']['properties'] = Object.fromEntries(
    Object.entries(parameters).map(([p, spec]) => [p, spec.description ? { type: spec.type, description: spec.description } : { type: spec.type }]),
  );
  const required = Object.entries(parameters)
    .filter(([, spec]) => spec.required)
    .map(([p]) => p);
  return { name, description, parameters, inputSchema: { type: 'object', properties, required }, command, args };
}
