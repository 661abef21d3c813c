// Validation of what a module plugin exports, as the child reported it (never by running the
// module in the host). Every problem names the export and field and says what to write instead.
// Tools are named by Gatehouse's rule, `<plugin>__<tool>`; Triggerfish's `plugin_<name>_<tool>`
// is kept as an alias that policy rules may use.
import { CLASSIFICATIONS, type Classification } from '../../policy/autonomy.js';
import { nameFaults, nameMessage } from '../../registry/manifest/names.js';
import type { ReportedExports } from './protocol.js';

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'] as const;

export interface ModuleManifest {
  name: string;
  version: string;
  description: string;
  classification: Classification;
  /** What the manifest asks for; the effective trust also needs the operator's setting (see effectiveTrust). */
  trust: 'sandboxed' | 'trusted';
  declaredEndpoints: string[];
}

export interface ModuleTool {
  /** The name the module's executor knows. */
  name: string;
  /** What agents see: `<plugin>__<tool>`. */
  qualified: string;
  /** Triggerfish's name for the same tool, accepted in policy rules. */
  alias: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, { type: string; description?: string }>; required: string[]; additionalProperties: false };
}

export interface ModulePlugin {
  manifest: ModuleManifest;
  tools: ModuleTool[];
  systemPrompt: string | null;
}

export class ModuleExportError extends Error {
  override name = 'ModuleExportError';
  constructor(readonly problems: string[]) {
    super(problems.join(' '));
  }
}

const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
const kindOf = (x: unknown): string => (x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'undefined' ? 'missing' : `a ${typeof x}`);

/** Validates the reported exports; throws ModuleExportError listing every problem. */
export function validateExports(e: ReportedExports): ModulePlugin {
  const p: string[] = [];
  for (const need of ['manifest', 'toolDefinitions', 'createExecutor']) {
    if (!e.names.includes(need)) p.push(`The module does not export \`${need}\`; add \`export const ${need === 'createExecutor' ? 'createExecutor = (context) => async (name, input) => …' : `${need} = …`}\` to mod.ts.`);
  }
  if (e.names.includes('createExecutor') && e.createExecutor !== 'function') p.push(`\`createExecutor\` is ${e.createExecutor}, not a function returning \`async (name, input) => result\`.`);
  const manifest = checkManifest(e.manifest, e.names.includes('manifest'), p);
  const tools = checkTools(e.toolDefinitions, e.names.includes('toolDefinitions'), manifest?.name ?? '', p);
  let systemPrompt: string | null = null;
  if (e.names.includes('systemPrompt')) {
    if (typeof e.systemPrompt === 'string') systemPrompt = e.systemPrompt;
    else p.push(`\`systemPrompt\` is ${kindOf(e.systemPrompt)}; it must be a string (or leave it out).`);
  }
  if (p.length || !manifest) throw new ModuleExportError(p);
  return { manifest, tools, systemPrompt };
}

function checkManifest(m: unknown, exported: boolean, p: string[]): ModuleManifest | null {
  if (!exported) return null;
  if (!isObj(m)) {
    p.push(`\`manifest\` is ${kindOf(m)}; it must be an object with name, version, description, classification, trust and declaredEndpoints.`);
    return null;
  }
  const str = (f: string, required: boolean): string => {
    const v = m[f];
    if (typeof v === 'string' && v.length) return v;
    if (v === undefined && !required) return '';
    p.push(`\`manifest.${f}\` is ${v === '' ? 'empty' : kindOf(v)}; it must be a non-empty string.`);
    return '';
  };
  const name = str('name', true);
  if (name && nameFaults(name, 'plugin').length) p.push(nameMessage(name, 'plugin', 'manifest.name'));
  const version = str('version', true);
  const description = str('description', false);
  const cls = m['classification'];
  let classification: Classification = 'PUBLIC';
  if (typeof cls === 'string' && (CLASSIFICATIONS as readonly string[]).includes(cls)) classification = cls as Classification;
  else p.push(`\`manifest.classification\` is ${typeof cls === 'string' ? JSON.stringify(cls) : kindOf(cls)}; it must be one of ${CLASSIFICATIONS.map((c) => `"${c}"`).join(', ')}.`);
  const t = m['trust'];
  let trust: ModuleManifest['trust'] = 'sandboxed';
  if (t === 'trusted' || t === 'sandboxed') trust = t;
  else if (t !== undefined) p.push(`\`manifest.trust\` is ${typeof t === 'string' ? JSON.stringify(t) : kindOf(t)}; it must be "sandboxed" (the default) or "trusted".`);
  const de = m['declaredEndpoints'];
  const declaredEndpoints: string[] = [];
  if (de !== undefined && !Array.isArray(de)) p.push(`\`manifest.declaredEndpoints\` is ${kindOf(de)}; it must be an array of URLs such as ["https://api.example.com"].`);
  else
    for (const [i, u] of (de ?? []).entries()) {
      let ok = false;
      if (typeof u === 'string') {
        try {
          const url = new URL(u);
          ok = url.protocol === 'https:' || url.protocol === 'http:';
        } catch {
          ok = false;
        }
      }
      if (ok) declaredEndpoints.push(u as string);
      else p.push(`\`manifest.declaredEndpoints[${i}]\` = ${JSON.stringify(u)} is not an http(s) URL; write it as "https://host[:port][/path]".`);
    }
  return { name, version, description, classification, trust, declaredEndpoints };
}

function checkTools(defs: unknown, exported: boolean, plugin: string, p: string[]): ModuleTool[] {
  if (!exported) return [];
  if (!Array.isArray(defs)) {
    p.push(`\`toolDefinitions\` is ${kindOf(defs)}; it must be an array of { name, description, parameters }.`);
    return [];
  }
  if (defs.length === 0) p.push('`toolDefinitions` is empty; a module plugin must define at least one tool.');
  const tools: ModuleTool[] = [];
  const seen = new Set<string>();
  for (const [i, d] of defs.entries()) {
    const at = `toolDefinitions[${i}]`;
    if (!isObj(d)) {
      p.push(`\`${at}\` is ${kindOf(d)}; it must be an object { name, description, parameters }.`);
      continue;
    }
    const name = d['name'];
    if (typeof name !== 'string' || !name) {
      p.push(`\`${at}.name\` is ${name === '' ? 'empty' : kindOf(name)}; every tool needs a name.`);
      continue;
    }
    if (nameFaults(name, 'tool').length) p.push(nameMessage(name, 'tool', `${at}.name`));
    if (seen.has(name)) p.push(`\`${at}.name\` = ${JSON.stringify(name)} is defined twice; tool names must be unique.`);
    seen.add(name);
    const description = d['description'];
    if (description !== undefined && typeof description !== 'string') p.push(`\`${at}.description\` is ${kindOf(description)}; it must be a string.`);
    const params = d['parameters'] ?? {};
    const properties: ModuleTool['inputSchema']['properties'] = {};
    const required: string[] = [];
    if (!isObj(params)) p.push(`\`${at}.parameters\` is ${kindOf(params)}; it must be an object mapping each parameter's name to { type, description, required }.`);
    else
      for (const [pn, spec] of Object.entries(params)) {
        const pat = `${at}.parameters.${pn}`;
        if (!isObj(spec)) {
          p.push(`\`${pat}\` is ${kindOf(spec)}; it must be { type, description, required }.`);
          continue;
        }
        const type = spec['type'];
        if (typeof type !== 'string' || !(PARAMETER_TYPES as readonly string[]).includes(type)) {
          p.push(`\`${pat}.type\` is ${typeof type === 'string' ? JSON.stringify(type) : kindOf(type)}; it must be one of ${PARAMETER_TYPES.map((x) => `"${x}"`).join(', ')}.`);
          continue;
        }
        const pd = spec['description'];
        if (pd !== undefined && typeof pd !== 'string') p.push(`\`${pat}.description\` is ${kindOf(pd)}; it must be a string.`);
        const req = spec['required'];
        if (req !== undefined && typeof req !== 'boolean') p.push(`\`${pat}.required\` is ${kindOf(req)}; it must be true or false.`);
        properties[pn] = { type, ...(typeof pd === 'string' ? { description: pd } : {}) };
        if (req === true) required.push(pn);
      }
    tools.push({
      name,
      qualified: `${plugin}__${name}`,
      alias: `plugin_${plugin}_${name}`,
      description: typeof description === 'string' ? description : '',
      inputSchema: { type: 'object', properties, required, additionalProperties: false },
    });
  }
  return tools;
}

/** Triggerfish's rule: trusted only when the manifest and the operator's setting both say so. */
export function effectiveTrust(manifest: Pick<ModuleManifest, 'trust'>, operator: 'trusted' | 'sandboxed' | undefined): 'trusted' | 'sandboxed' {
  return manifest.trust === 'trusted' && operator === 'trusted' ? 'trusted' : 'sandboxed';
}

/** The `<plugin>__<tool>` name for a tool name a policy rule wrote as Triggerfish's alias, else the name unchanged. */
export function canonicalToolName(name: string, plugins: readonly { manifest: { name: string }; tools: readonly ModuleTool[] }[]): string {
  if (!name.startsWith('plugin_')) return name;
  for (const pl of plugins) for (const t of pl.tools) if (t.alias === name) return t.qualified;
  return name;
}
