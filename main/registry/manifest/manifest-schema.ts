// The manifest schema, compiled once per process. The schema file is the single source of truth
// for the raw manifest: the generated types (manifest-schema.types.ts), the validator and the
// defaults applied during normalization all come from it.
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import schema from '../../../shared/schemas/plugin-manifest.schema.json' with { type: 'json' };
import type { RawPluginManifest } from './manifest-schema.types.js';
import { CLASSIFICATIONS, PLUGIN_KINDS } from '../types.js';
import { kindProviders, kindTableVersion, manifestKindNames } from '../kinds/index.js';

export { schema as manifestSchema };

// allErrors: an author sees every problem at once. verbose: errors carry the offending data and
// the schema around it, which the messages quote. strictRequired is off because the cross-field
// rules use `required` inside `not` to test for presence of fields defined elsewhere.
// The schema file lists the built-in kinds; the validator is compiled with the kind table's names
// instead (and its rule "no tools for these kinds" with the table's kinds that forbid them), so a
// kind added to the table loads without editing the schema. Recompiled only when the table changes.
let compiled: { version: number; validate: ValidateFunction<RawPluginManifest> } | null = null;

function validator(): ValidateFunction<RawPluginManifest> {
  const version = kindTableVersion();
  if (compiled?.version === version) return compiled.validate;
  const s = structuredClone(schema) as typeof schema & { properties: { kind: { enum: string[] } }; allOf: { if?: { properties?: { kind?: { enum?: string[] } } } }[] };
  s.properties.kind.enum = manifestKindNames();
  const noTools = s.allOf.find((r) => Array.isArray(r.if?.properties?.kind?.enum));
  if (!noTools?.if?.properties?.kind) throw new Error('plugin-manifest.schema.json: the rule that forbids tools for some kinds (allOf/1) is missing.');
  noTools.if.properties.kind.enum = kindProviders().filter((p) => p.manifest?.toolsForbidden).map((p) => p.name);
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false });
  compiled = { version, validate: ajv.compile<RawPluginManifest>(s) };
  return compiled.validate;
}

export function checkAgainstSchema(raw: unknown): { valid: boolean; errors: ErrorObject[] } {
  const validate = validator();
  const valid = validate(raw);
  return { valid, errors: valid ? [] : [...(validate.errors ?? [])] };
}

/** JSON imports widen strings; this narrows a schema default back to its enum, loudly. */
function member<T extends string>(allowed: readonly T[], value: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`plugin-manifest.schema.json: default ${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
  return value as T;
}

/** Defaults of the raw manifest, read from the schema so that there is one place to change them. */
export const MANIFEST_DEFAULTS = {
  kind: member(PLUGIN_KINDS, schema.properties.kind.default),
  timeoutSecs: schema.properties.timeout_secs.default,
  sandbox: member(['strict', 'none'] as const, schema.properties.sandbox.default),
  classification: member(CLASSIFICATIONS, schema.properties.classification.default),
  pty: schema.properties.pty.default,
  optional: schema.properties.optional.default,
  parameterRequired: schema.definitions.parameter.properties.required.default,
  parameterDescription: schema.definitions.parameter.properties.description.default,
  wasmLimits: {
    fuel: schema.definitions.limits.properties.fuel.default,
    memoryMb: schema.definitions.limits.properties.memory_mb.default,
    timeoutSecs: schema.definitions.limits.properties.timeout_secs.default,
    maxOutputKb: schema.definitions.limits.properties.max_output_kb.default,
    maxModuleMb: schema.definitions.limits.properties.max_module_mb.default,
  },
  permissionsLog: schema.definitions.permissions.properties.log.default,
} as const;

/** The schema's enums, for the test that keeps types.ts and the schema in step. */
export const SCHEMA_ENUMS = {
  platforms: schema.definitions.platform.enum,
  parameterTypes: schema.definitions.parameter.properties.type.enum,
  kinds: schema.properties.kind.enum,
  classifications: schema.properties.classification.enum,
  sandboxes: schema.properties.sandbox.enum,
} as const;
