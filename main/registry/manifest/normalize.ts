// From a raw manifest that passed the schema to the normalized PluginManifest the rest of
// Gatehouse uses: defaults applied (from the schema), and what the plugin's kind adds (its tools,
// its timeout, its own fields) from the kind's provider (../kinds/).
import type { PluginManifest } from '../types.js';
import { kindProvider } from '../kinds/index.js';
import { MANIFEST_DEFAULTS } from './manifest-schema.js';
import type { RawPluginManifest } from './manifest-schema.types.js';

export function normalizeManifest(raw: RawPluginManifest, manifestFile: string): PluginManifest {
  const kind = raw.kind ?? MANIFEST_DEFAULTS.kind;
  const args = [...(raw.args ?? [])];
  // A wasm plugin runs no command (the schema forbids one): its tools are the module's exports.
  const command = raw.command ?? '';
  // The schema only lets a kind of the table through, so the provider is there.
  const rules = kindProvider(kind)?.manifest ?? {};
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
    timeoutSecs: rules.timeoutSecs ? rules.timeoutSecs(raw, MANIFEST_DEFAULTS.timeoutSecs) : (raw.timeout_secs ?? MANIFEST_DEFAULTS.timeoutSecs),
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
    tools: rules.tools ? rules.tools(raw, command, args) : [],
    ...rules.extra?.(raw),
  };
}
