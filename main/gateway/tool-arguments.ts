// Arguments checked against the inputSchema a tool advertises, before the call reaches the
// pipeline: a plugin must not receive what its schema rules out (a missing required field, a
// wrong type, a field the schema forbids), and the agent learns at once, as a JSON-RPC
// InvalidParams error naming the field, instead of through a failed run or an approval
// nobody can make sense of.
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';

// strict: false: upstream servers' schemas carry keywords and formats Ajv does not know; they
// are not errors of the agent's call. validateFormats: false for the same reason (an unknown
// format would otherwise refuse to compile).
// verbose: an error carries the value it is about, so a wrong type says what was sent instead.
const draft7 = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true });
const draft2020 = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, verbose: true });

/** Compiled validators by schema text (tools change rarely; schemas are small). */
const cache = new Map<string, ValidateFunction | null>();
const MAX_CACHED = 1000;

export type ArgumentCheck = { ok: true } | { ok: false; message: string };

export interface ArgumentWording {
  /** What the arguments are called where the agent sent them (`tool_input` in a hook): field names start with it. */
  root?: string;
  /** The closing sentence: where the agent can see what the tool takes. */
  hint?: string;
}

/**
 * Checks a call's arguments against its tool's inputSchema. A schema Ajv cannot compile is not
 * the agent's fault: only the object check applies then (the tool itself still validates).
 */
export function checkArguments(tool: string, schema: Record<string, unknown>, args: unknown, wording: ArgumentWording = {}): ArgumentCheck {
  const root = wording.root ?? '';
  const hint = wording.hint ?? "The tool's inputSchema (tools/list) says what it takes.";
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return { ok: false, message: `Invalid arguments for tool ${tool}: "${root || 'arguments'}" must be an object of named arguments, got ${describe(args)}. ${hint}` };
  }
  const validate = compiled(schema);
  if (!validate || validate(args)) return { ok: true };
  const problems = (validate.errors ?? []).slice(0, 5).map((e) => explain(e, root));
  return { ok: false, message: `Invalid arguments for tool ${tool}: ${[...new Set(problems)].join('; ')}. ${hint}` };
}

/** By schema object: a plugin's schema is the same object call after call, so most calls skip the stringify. */
const bySchema = new WeakMap<object, ValidateFunction | null>();

function compiled(schema: Record<string, unknown>): ValidateFunction | null {
  const known = bySchema.get(schema);
  if (known !== undefined) return known;
  const v = compiledByText(schema);
  bySchema.set(schema, v);
  return v;
}

function compiledByText(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  if (cache.has(key)) return cache.get(key)!;
  let v: ValidateFunction | null;
  try {
    const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
    // A schema's $id would be registered for good and clash with the next version of the same tool.
    const { $id: _id, ...rest } = schema;
    v = (is2020 ? draft2020 : draft7).compile(rest);
  } catch {
    v = null;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, v);
  return v;
}

/** One Ajv error as a sentence that names the field (under `root`) and, for a wrong type, what was sent. */
function explain(e: ErrorObject, root: string): string {
  const at = join(root, fieldName(e.instancePath));
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required field ${JSON.stringify(join(at, String(params.missingProperty)))}`;
    case 'additionalProperties':
      return `unexpected field ${JSON.stringify(join(at, String(params.additionalProperty)))} (the schema allows no other fields)`;
    case 'type':
      return `field ${JSON.stringify(at || '(arguments)')} must be ${String(params.type).split(',').map(article).join(' or ')} (got ${describe(e.data)})`;
    case 'enum':
      return `field ${JSON.stringify(at || '(arguments)')} must be one of ${JSON.stringify(params.allowedValues)}`;
    default:
      return `field ${JSON.stringify(at || '(arguments)')} ${e.message ?? 'is not valid'}`;
  }
}

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** "/a/0/b" → "a[0].b" */
function fieldName(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function join(parent: string, child: string): string {
  return parent && child ? `${parent}.${child}` : parent || child;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return article(typeof v);
}
