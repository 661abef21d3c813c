// The manifest schema, compiled once per process. The schema file is the single source of truth
// for the raw manifest: the generated types (manifest-schema.types.ts), the validator and the
// defaults applied during normalization all come from it.
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import schema from '../../../shared/schemas/plugin-manifest.schema.json' with { type: 'json' };
import type { RawPluginManifest } from './manifest-schema.types.js';
import { CLASSIFICATIONS, PLUGIN_KINDS } from '../types.js';

export { schema as manifestSchema };

// allErrors: an author sees every problem at once. verbose: errors carry the offending data and
// the schema around it, which the messages quote. strictRequired is off because the cross-field
// rules use `required` inside `not` to test for presence of fields defined elsewhere.
const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictRequired: false });
const validate: ValidateFunction<RawPluginManifest> = ajv.compile<RawPluginManifest>(schema);

export function checkAgainstSchema(raw: unknown): { valid: boolean; errors: ErrorObject[] } {
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
