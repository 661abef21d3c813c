// Turns ajv's errors into Problems an author can act on: a stable code, a dotted field path, the
// field's place in the source, and one sentence saying what is wrong and what to write instead.
import type { ErrorObject } from 'ajv';
import type { Problem } from '../types.js';
import { assignment, closest, describeValue, dotted, listWords, typeWithArticle, objectWord } from './describe.js';
import { nameMessage } from './names.js';
import { kindProvider, kindProviders } from '../kinds/index.js';
import { MANIFEST_DEFAULTS } from './manifest-schema.js';
import type { ManifestSyntax, PathSegment } from './source-locations.js';

export interface SchemaProblemContext {
  file: string;
  syntax: ManifestSyntax;
  raw: unknown;
}

/** A problem whose place in the source is filled in later, from `locate` (the field) or `at`. */
export interface PendingProblem extends Omit<Problem, 'file' | 'path'> {
  segments: PathSegment[];
  /** Locate this path instead of `segments` (e.g. the parent of a missing field). */
  locateAt?: PathSegment[];
}

/** Common misspellings of parameter types, for a helpful suggestion. */
const TYPE_ALIASES: Record<string, string> = {
  str: 'string', text: 'string', path: 'string', int: 'integer', long: 'integer', uint: 'integer', u32: 'integer', u64: 'integer', i32: 'integer', i64: 'integer',
  float: 'number', double: 'number', decimal: 'number', f64: 'number', f32: 'number', bool: 'boolean', list: 'array', vec: 'array', tuple: 'array',
  dict: 'object', map: 'object', table: 'object', hash: 'object', json: 'object',
};

/** Short "what to write" hints for required or empty fields. */
const FIELD_HINTS: Record<string, (syntax: ManifestSyntax) => string> = {
  name: (s) => `add the plugin's name, usually its folder name, e.g. ${assignment('name', '"my-tool"', s)}`,
  description: (s) => `add one line telling the agent what it does, e.g. ${assignment('description', '"Counts lines in a file"', s)}`,
  command: (s) => `add the executable to run, relative to the plugin folder, e.g. ${assignment('command', '"run.sh"', s)}`,
  type: (s) => `add one of string, number, integer, boolean, array or object, e.g. ${assignment('type', '"string"', s)}`,
};

export function schemaProblems(errors: readonly ErrorObject[], ctx: SchemaProblemContext): PendingProblem[] {
  const out: PendingProblem[] = [];
  const seenCrossRules = new Set<string>();
  for (const e of errors) {
    // propertyNames reports each bad key twice (the inner keyword and the wrapper); keep the wrapper.
    if ((e as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue;
    // `if` only says which branch failed; the branch's own error says why.
    if (e.keyword === 'if') continue;
    const cross = /^#\/allOf\/(\d+)\//.exec(e.schemaPath);
    if (cross) {
      const rule = cross[1] ?? '';
      if (seenCrossRules.has(rule)) continue;
      seenCrossRules.add(rule);
      out.push(...crossFieldProblems(rule, ctx));
      continue;
    }
    const p = oneProblem(e, ctx);
    if (p) out.push(p);
  }
  return out;
}

function oneProblem(e: ErrorObject, ctx: SchemaProblemContext): PendingProblem | null {
  const { syntax } = ctx;
  const segments = pointerToSegments(e.instancePath, ctx.raw);
  const field = dotted(segments);
  const key = String(segments[segments.length - 1] ?? '');
  const fieldRef = field ? `\`${field}\`` : 'The manifest';
  const data: unknown = e.data;

  switch (e.keyword) {
    case 'additionalProperties': {
      const extra = String((e.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      const near = closest(extra, allowed);
      const where = field ? `in \`${field}\`` : 'in the manifest';
      const hint = near ? ` (did you mean \`${near}\`?)` : '';
      return {
        segments: [...segments, extra],
        severity: 'error',
        code: 'manifest.unknown-field',
        message: `Unknown field \`${extra}\` ${where}${hint}; the fields allowed here are ${listWords(allowed, 'and')}.`,
      };
    }
    case 'type': {
      const expected = String((e.params as { type: string | string[] }).type);
      if (segments.length === 0) {
        return {
          segments,
          severity: 'error',
          code: 'manifest.type',
          message: `The manifest must be ${typeWithArticle('object', syntax)} of fields such as name, description and command, got ${describeValue(data, syntax)}; rewrite it as one.`,
        };
      }
      return {
        segments,
        severity: 'error',
        code: 'manifest.type',
        message: `${fieldRef} must be ${expectedWords(expected, e, syntax)}, got ${describeValue(data, syntax)}; ${typeFix(key, expected, data, syntax, field)}.`,
      };
    }
    case 'required': {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      const where = field ? `from \`${field}\`` : 'from the manifest';
      const hint = FIELD_HINTS[missing]?.(syntax) ?? `add it`;
      return {
        segments: [...segments, missing],
        locateAt: segments,
        severity: 'error',
        code: 'manifest.required',
        message: `The required field \`${missing}\` is missing ${where}; ${hint}.`,
      };
    }
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const given = describeValue(data, syntax);
      let near: string | undefined;
      if (typeof data === 'string') near = (isParameterType(segments) ? TYPE_ALIASES[data.toLowerCase()] : undefined) ?? closest(data, allowed);
      const suggestion = near ? ` (did you mean ${JSON.stringify(near)}?)` : '';
      if (isParameterType(segments)) {
        const param = String(segments[segments.length - 2] ?? '');
        return {
          segments,
          severity: 'error',
          code: 'parameter.type',
          message: `Parameter \`${param}\` has type ${typeof data === 'string' ? JSON.stringify(data) : given}, which is not a supported parameter type; use one of ${listWords(allowed)}${suggestion}.`,
        };
      }
      return {
        segments,
        severity: 'error',
        code: 'manifest.enum',
        message: `${fieldRef} must be one of ${listWords(allowed.map((a) => JSON.stringify(a)))}, got ${given}; use one of those${suggestion}.`,
      };
    }
    case 'propertyNames': {
      const bad = String((e.params as { propertyName: string }).propertyName);
      const parent = String(segments[segments.length - 1] ?? '');
      if (parent === 'tools') {
        return { segments: [...segments, bad], severity: 'error', code: 'name.invalid', message: nameMessage(bad, 'tool', field) };
      }
      return {
        segments: [...segments, bad],
        severity: 'error',
        code: 'parameter.name',
        message: `The parameter name ${JSON.stringify(bad)} in \`${field}\` is not accepted by model APIs; use 1 to 64 letters, digits, _, . or -, e.g. ${JSON.stringify(bad.replace(/[^a-zA-Z0-9_.-]+/g, '_').slice(0, 64) || 'value')}.`,
      };
    }
    case 'pattern': {
      if (field === 'name' && typeof data === 'string') {
        return { segments, severity: 'error', code: 'name.invalid', message: nameMessage(data, 'plugin', 'name') };
      }
      if (segments[0] === 'permissions' && segments[1] === 'env') {
        return {
          segments,
          severity: 'error',
          code: 'manifest.pattern',
          message: `${fieldRef} = ${JSON.stringify(String(data))} is not an environment variable name; use letters, digits and _, not starting with a digit (e.g. HOME).`,
        };
      }
      return {
        segments,
        severity: 'error',
        code: 'manifest.pattern',
        message: `${fieldRef} = ${JSON.stringify(String(data))} is not in the expected form; ${lowerFirst(schemaDescription(e) ?? `match ${String((e.params as { pattern: string }).pattern)}`)}.`,
      };
    }
    case 'minLength': {
      const hint = FIELD_HINTS[key]?.(syntax).replace(/^add /, 'write ') ?? `write a value`;
      return { segments, severity: 'error', code: 'manifest.empty', message: `${fieldRef} is empty; ${hint}.` };
    }
    case 'minProperties':
      return {
        segments,
        severity: 'error',
        code: 'manifest.empty',
        message: `${fieldRef} is empty; declare at least one tool in it${syntax === 'toml' ? ` (a [${field}.<name>] section)` : ''}, or remove it and use top-level \`parameters\` for a single tool.`,
      };
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum': {
      const limit = (e.params as { limit: number }).limit;
      const bound = e.keyword === 'minimum' ? `at least ${limit}` : e.keyword === 'maximum' ? `at most ${limit}` : e.keyword === 'exclusiveMinimum' ? `more than ${limit}` : `less than ${limit}`;
      return { segments, severity: 'error', code: 'manifest.range', message: `${fieldRef} must be ${bound}, got ${describeValue(data, syntax)}; change it to a value in range.` };
    }
    default:
      return { segments, severity: 'error', code: 'manifest.invalid', message: `${fieldRef} ${e.message ?? 'is invalid'}; fix it as the schema describes.` };
  }
}

function crossFieldProblems(rule: string, ctx: SchemaProblemContext): PendingProblem[] {
  // A manifest that is not an object (`0`, a list) can still trip a cross-field rule whose
  // condition holds vacuously for it: there are no fields to name then.
  const raw = (ctx.raw !== null && typeof ctx.raw === 'object' && !Array.isArray(ctx.raw) ? ctx.raw : {}) as Record<string, unknown>;
  const t = objectWord(ctx.syntax);
  if (rule === '0') {
    return [
      {
        segments: ['tools'],
        severity: 'error',
        code: 'manifest.parameters-and-tools',
        message: `The manifest has both top-level \`parameters\` and \`tools\`; a single-tool plugin uses \`parameters\`, a multi-tool plugin declares parameters inside each tool, so move the top-level parameters into a tool or remove \`tools\`.`,
      },
    ];
  }
  if (rule === '2') return ctx.raw !== null && typeof ctx.raw === 'object' && !Array.isArray(ctx.raw) ? wasmRuleProblems(raw, ctx.syntax) : [];
  const kind = String(raw['kind']);
  const forbidden = kindProvider(kind)?.manifest?.toolsForbidden ?? { why: `a plugin of kind "${kind}" declares no tools` };
  return (['parameters', 'tools'] as const)
    .filter((f) => f in raw)
    .map((f) => ({
      segments: [f],
      severity: 'error' as const,
      code: 'manifest.tools-not-allowed',
      message: `\`${f}\` is not allowed in a plugin of kind "${kind}" because ${forbidden.why}; remove the \`${f}\` ${t}${forbidden.hint ?? ''}.`,
    }));
}

/**
 * A kind with its own entry field (wasm's \`wasm\`) names that and runs no command; every other
 * kind runs a command and may not use the fields of a kind that has one (the schema's allOf/2).
 */
function wasmRuleProblems(raw: Record<string, unknown>, syntax: ManifestSyntax): PendingProblem[] {
  const kind = String(raw['kind'] ?? MANIFEST_DEFAULTS.kind);
  const own = kindProvider(kind)?.manifest?.entryField;
  const others = kindProviders().filter((p) => p.manifest?.entryField);
  const out: PendingProblem[] = [];
  const need = own ? own.field : 'command';
  if (!(need in raw)) {
    const hint = own ? own.hint(syntax) : (FIELD_HINTS['command']?.(syntax) ?? 'add it');
    out.push({ segments: [need], locateAt: [], severity: 'error', code: 'manifest.required', message: `The required field \`${need}\` is missing from the manifest; ${hint}.` });
  }
  const forbidden = own ? own.forbids : OTHER_KINDS_FIELDS;
  for (const f of forbidden) {
    if (!(f in raw)) continue;
    const why = own ? own.why : `only a plugin of kind ${listWords(others.map((p) => `"${p.name}"`))} has a module (set ${listWords(others.map((p) => `\`kind = "${p.name}"\``))} if this is one)`;
    out.push({ segments: [f], severity: 'error', code: 'manifest.kind-field', message: `\`${f}\` is not allowed in a plugin of kind "${kind}" because ${why}; remove it.` });
  }
  return out;
}

/** The fields the schema's allOf/2 keeps to the kinds with an entry field of their own (a wasm module and its settings). */
const OTHER_KINDS_FIELDS = ['wasm', 'abi', 'limits'] as const;

function isParameterType(segments: readonly PathSegment[]): boolean {
  const n = segments.length;
  return n >= 3 && segments[n - 1] === 'type' && segments[n - 3] === 'parameters';
}

function expectedWords(expected: string, e: ErrorObject, syntax: ManifestSyntax): string {
  if (expected === 'array') {
    const items = (e.schema === 'array' ? (e.parentSchema as { items?: { type?: string } } | undefined)?.items?.type : undefined) ?? undefined;
    if (items === 'string') return `${typeWithArticle('array', syntax)} of strings`;
  }
  return typeWithArticle(expected, syntax);
}

function typeFix(key: string, expected: string, data: unknown, syntax: ManifestSyntax, field: string): string {
  if ((expected === 'integer' || expected === 'number') && typeof data === 'string' && data.trim() !== '' && !Number.isNaN(Number(data))) {
    return `write ${assignment(key, String(Number(data)), syntax)} without quotes`;
  }
  if (expected === 'integer' && typeof data === 'number') return `use a whole number such as ${Math.max(1, Math.round(data))}`;
  if (expected === 'boolean' && typeof data === 'string' && /^(true|false)$/i.test(data)) {
    return `write ${assignment(key, data.toLowerCase(), syntax)} without quotes`;
  }
  if (expected === 'string' && (typeof data === 'number' || typeof data === 'boolean')) {
    return `put it in quotes: ${assignment(key, JSON.stringify(String(data)), syntax)}`;
  }
  if (expected === 'array' && typeof data === 'string') {
    return `write it as ${typeWithArticle('array', syntax)}: ${assignment(key, `[${JSON.stringify(data)}]`, syntax)}`;
  }
  if (expected === 'object') {
    if (syntax === 'toml') return `write it as a table, e.g. a [${field}] section with its fields below`;
    return `write it as ${typeWithArticle('object', syntax)} of fields`;
  }
  return `change it to ${typeWithArticle(expected, syntax)}`;
}

function schemaDescription(e: ErrorObject): string | undefined {
  const parent = e.parentSchema as { description?: string } | undefined;
  return parent?.description?.replace(/\.$/, '');
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/** "/parameters/a~1b/0" → ['parameters', 'a/b', 0], numbers only where the data is an array. */
export function pointerToSegments(pointer: string, raw: unknown): PathSegment[] {
  if (pointer === '') return [];
  const out: PathSegment[] = [];
  let node: unknown = raw;
  for (const part of pointer.slice(1).split('/')) {
    const seg = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const idx = Number(seg);
      out.push(idx);
      node = node[idx];
    } else {
      out.push(seg);
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out;
}
