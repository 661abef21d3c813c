// kind = "wasm": tools that are functions of a WebAssembly module, metered with fuel and a memory
// cap, reaching the world only through the host functions its permissions grant. The module's
// checks are in ../../manifest/wasm-checks.ts, its runtime in main/runner/wasm/.
import { MANIFEST_DEFAULTS } from '../../manifest/manifest-schema.js';
import { assignment } from '../../manifest/describe.js';
import { toolSpec } from '../../manifest/tool-spec.js';
import { checkWasmPlugin } from '../../manifest/wasm-checks.js';
import type { PluginKindProvider } from '../provider.js';

export const wasmKind: PluginKindProvider = {
  name: 'wasm',
  info: { label: 'WebAssembly tool', callable: true, judgesCalls: false, longLived: true, noTools: 'no tools' },
  discover: { by: 'manifest' },
  // Its exports are its tools, named as a tool plugin's are.
  toolNaming: 'single-by-plugin-name',
  manifest: {
    // A wasm plugin runs no command (the schema forbids one): its tools are the module's exports.
    entryField: {
      field: 'wasm',
      hint: (syntax) => `add the module's path, relative to the plugin folder, e.g. ${assignment('wasm', '"plugin.wasm"', syntax)}`,
      forbids: ['command', 'args', 'pty'],
      why: "a wasm plugin runs its module's exports, not a command",
    },
    tools: (raw) =>
      raw.tools
        ? Object.entries(raw.tools).map(([name, t]) => ({ ...toolSpec(name, t.description, t.parameters, '', []), export: t.export ?? name }))
        : [{ ...toolSpec(raw.name, raw.description, raw.parameters, '', []), export: raw.name }],
    timeoutSecs: (raw) => raw.limits?.timeout_secs ?? raw.timeout_secs ?? MANIFEST_DEFAULTS.wasmLimits.timeoutSecs,
    extra: (raw) => {
      const limits = raw.limits ?? {};
      const d = MANIFEST_DEFAULTS.wasmLimits;
      return {
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
      };
    },
    validate: (raw, dir) => checkWasmPlugin(raw, dir),
  },
  run: (a, engines) => engines.wasm(a),
  prepare: (plugin, engines) => engines.prepareWasm(plugin),
};
