// One tool as agents see it, built from a manifest's description and parameters: the parameters
// with their defaults (from the schema) and the JSON Schema of the arguments.
import type { ParameterSpec, ToolSpec } from '../types.js';
import { MANIFEST_DEFAULTS } from './manifest-schema.js';
import type { RawParameters } from './manifest-schema.types.js';

export function toolSpec(name: string, description: string, rawParams: RawParameters | undefined, command: string, args: string[]): ToolSpec {
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
