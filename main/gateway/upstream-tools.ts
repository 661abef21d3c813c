// What an upstream MCP server's tools become before an agent sees them: a name inside MCP's rule
// (namespaced by the plugin), and the tool-poisoning scan over every text the model will read.
import { createHash } from 'node:crypto';
import { TOOL_NAME_RE } from '../registry/plugin-registry.js';
import { scanManifestText } from '../registry/scan/index.js';
import type { Finding, ParameterSpec, ToolSpec } from '../registry/types.js';

const MAX_NAME = 64;
const HASH_LEN = 6;

const shortHash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, HASH_LEN);

/**
 * `${plugin}__${tool}` inside ^[a-zA-Z0-9_-]{1,64}$: every other character becomes '_', and a
 * name that is too long keeps its head plus '_' and a hash of the full name, so two long names
 * with one prefix stay apart. `taken` makes it unique: a name already used gets the hash suffix
 * (and, in the unlikely case that is taken too, a counter).
 */
export function upstreamToolName(plugin: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const full = `${plugin}__${tool}`;
  const clean = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  const suffixed = (extra: string) => `${clean.slice(0, MAX_NAME - extra.length - 1)}_${extra}`;
  let name = clean.length <= MAX_NAME ? clean : suffixed(shortHash(full));
  if (taken.has(name)) name = suffixed(shortHash(full));
  for (let i = 2; taken.has(name); i++) name = suffixed(`${shortHash(full)}${i}`);
  if (!TOOL_NAME_RE.test(name)) throw new Error(`internal: tool name ${JSON.stringify(name)} breaks MCP's rule`);
  return name;
}

export interface UpstreamFinding {
  rule: string;
  message: string;
  /** high (weight 3), medium (2) or low (1), from the scanner's weight. */
  severity: 'high' | 'medium' | 'low';
  weight: 1 | 2 | 3;
}

const SEVERITY = { 3: 'high', 2: 'medium', 1: 'low' } as const;

/**
 * The tool-poisoning scan (the same patterns as for plugin manifests) over everything of one
 * upstream tool the model reads: its name, title, description, and every description, title
 * and string default/enum/example in its input and output schemas.
 */
export function scanUpstreamTool(plugin: string, tool: { name: string; title?: string | undefined; description?: string | undefined; inputSchema?: unknown; outputSchema?: unknown; annotations?: { title?: string | undefined } | undefined }): UpstreamFinding[] {
  const parameters: Record<string, ParameterSpec> = {};
  const add = (label: string, text: string) => {
    // Keys are labels in the scanner's messages ("the description of parameter … of tool …").
    let key = label;
    for (let i = 2; key in parameters; i++) key = `${label} #${i}`;
    parameters[key] = { type: 'string', required: false, description: text };
  };
  // The name goes through the scanner too (invisible characters, an instruction as a name).
  add('(tool name)', tool.name);
  if (tool.title) add('(title)', tool.title);
  if (tool.annotations?.title) add('(annotations.title)', tool.annotations.title);
  collectSchemaText(tool.inputSchema, 'input', add);
  collectSchemaText(tool.outputSchema, 'output', add);
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description ?? '',
    parameters,
    inputSchema: { type: 'object', properties: {}, required: [] },
    command: '',
    args: [],
  };
  const findings: Finding[] = scanManifestText({ name: plugin, description: '', tools: [spec] }, `${plugin} (upstream tool ${tool.name})`);
  return findings.map((f) => ({ rule: f.rule, message: f.message, severity: SEVERITY[f.weight], weight: f.weight }));
}

const TEXT_KEYS = new Set(['description', 'title', '$comment']);
const MAX_SCHEMA_NODES = 10_000;

/** Every string of a JSON Schema a model could read, labelled by its path. Bounded in size. */
function collectSchemaText(schema: unknown, root: string, add: (label: string, text: string) => void): void {
  let budget = MAX_SCHEMA_NODES;
  const walk = (node: unknown, path: string): void => {
    if (--budget < 0 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((v, i) => {
        if (typeof v === 'string') add(`${path}[${i}]`, v);
        else walk(v, `${path}[${i}]`);
      });
      return;
    }
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      const here = `${path}.${k}`;
      if (typeof v === 'string') {
        if (TEXT_KEYS.has(k) || k === 'default' || k === 'const' || k === 'pattern' || k === 'format') add(here, v);
      } else if (k === 'properties' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [prop, sub] of Object.entries(v as Record<string, unknown>)) {
          // A property's name is read by the model as much as its description.
          add(`${path}.properties.${prop} (name)`, prop);
          walk(sub, `${path}.properties.${prop}`);
        }
      } else walk(v, here);
    }
  };
  walk(schema, root);
}
