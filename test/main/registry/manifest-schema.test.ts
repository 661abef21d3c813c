// The JSON Schema is the single source of truth for plugin manifests: the generated raw types, the
// enums in main/registry/types.ts and the defaults the loader applies must all agree with it.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLASSIFICATIONS, PARAMETER_TYPES, PLATFORMS, PLUGIN_KINDS } from '../../../main/registry/types.js';
import type { Classification, ParameterType, ManifestKind, PluginManifest, PluginPlatform } from '../../../main/registry/types.js';
import { MANIFEST_DEFAULTS, SCHEMA_ENUMS, manifestSchema } from '../../../main/registry/manifest/manifest-schema.js';
import type { RawParameter, RawPluginManifest } from '../../../main/registry/manifest/manifest-schema.types.js';

const root = join(import.meta.dirname, '..', '..', '..');

// Compile-time half of the drift check (tsc runs in `npm test`): the generated raw types and the
// hand-written ones in types.ts must name the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const typeChecks: [
  Same<NonNullable<RawPluginManifest['kind']>, ManifestKind>,
  Same<NonNullable<RawPluginManifest['platforms']>[number], PluginPlatform>,
  Same<NonNullable<RawPluginManifest['classification']>, Classification>,
  Same<NonNullable<RawPluginManifest['sandbox']>, PluginManifest['sandbox']>,
  Same<RawParameter['type'], ParameterType>,
] = [true, true, true, true, true];

describe('manifest schema and types', () => {
  it('the committed raw types are what the schema generates', async () => {
    const gen = (await import(pathToFileURL(join(root, 'scripts', 'gen-manifest-types.mjs')).href)) as { generateManifestTypes: () => Promise<string> };
    const fresh = await gen.generateManifestTypes();
    const committed = readFileSync(join(root, 'main', 'registry', 'manifest', 'manifest-schema.types.ts'), 'utf8');
    expect(committed === fresh, 'schema and types drifted apart: run node scripts/gen-manifest-types.mjs').toBe(true);
  }, 30_000);

  it('the enums in types.ts equal the schema enums', () => {
    expect(typeChecks.every(Boolean)).toBe(true);
    expect([...PLATFORMS]).toEqual(SCHEMA_ENUMS.platforms);
    expect([...PARAMETER_TYPES]).toEqual(SCHEMA_ENUMS.parameterTypes);
    expect([...PLUGIN_KINDS]).toEqual(SCHEMA_ENUMS.kinds);
    expect([...CLASSIFICATIONS]).toEqual(SCHEMA_ENUMS.classifications);
  });

  it('defaults come from the schema and match the WraithRun contract', () => {
    expect(MANIFEST_DEFAULTS).toEqual({
      kind: 'tool',
      timeoutSecs: 30,
      sandbox: 'strict',
      classification: 'INTERNAL',
      pty: false,
      optional: false,
      parameterRequired: false,
      parameterDescription: '',
      wasmLimits: { fuel: 1_000_000, memoryMb: 64, timeoutSecs: 30, maxOutputKb: 1024, maxModuleMb: 50 },
      permissionsLog: false,
    });
  });

  it('closes every object (additionalProperties: false) and describes every field', () => {
    const defs = manifestSchema.definitions as Record<string, SchemaNode>;
    const resolve = (n: SchemaNode): SchemaNode => (n.$ref ? (defs[n.$ref.replace('#/definitions/', '')] ?? n) : n);
    const open: string[] = [];
    const undescribed: string[] = [];
    const walk = (node: SchemaNode, where: string): void => {
      if (node.properties) {
        if (node.additionalProperties !== false) open.push(where || '(root)');
        for (const [k, child] of Object.entries(node.properties)) {
          if (!child.description && !resolve(child).description) undescribed.push(`${where}${where ? '.' : ''}${k}`);
          walk(resolve(child), `${where}${where ? '.' : ''}${k}`);
        }
      }
      if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(resolve(node.additionalProperties), `${where}.*`);
    };
    walk(manifestSchema as SchemaNode, '');
    expect(open).toEqual([]);
    expect(undescribed).toEqual([]);
    // The one free-form object: a checker's config belongs to the checker.
    expect(manifestSchema.properties.config.additionalProperties).toBe(true);
  });
});

interface SchemaNode {
  $ref?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
}
