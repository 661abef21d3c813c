// policy.yaml: user rules, validated field by field with file/line/column for every problem.
// A problem inside one rule rejects that rule only; a file that cannot be read as a policy at all
// (YAML syntax, wrong top-level shape) is `broken`, and the store keeps the last good policy.
import { readFileSync } from 'node:fs';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import { tooDeepMessage, yamlTooDeep } from '../../yaml-nesting.js';
import { z } from 'zod';
import { OPERATIONS, type Rule } from '../types.js';
import { hostPatternProblem } from '../network.js';
import { compileRule, matchRule, opMask, type CompiledRule } from './compile.js';
import { parseExample, type ExtractFn } from './examples.js';
import { globProblem, type PathContext } from './paths.js';
import { BUILTIN_PREFIX } from './builtin.js';

export interface PolicyProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  /** The rule the problem is in, when known. */
  rule?: string;
  /** The example that failed, when it is an example's problem. */
  example?: string;
}

export interface ExampleResult {
  rule: string;
  example: string;
  expected: 'match' | 'not_match';
  ok: boolean;
  line: number;
  column: number;
  /** What matched (for match) or what unexpectedly matched (for not_match). */
  detail: string;
}

export interface LoadContext extends PathContext {
  /** Turns `{ command }` / `{ tool, arguments }` examples into extractions; without it they are problems. */
  extract?: ExtractFn | undefined;
  /** Names user rules may not take (the built-ins'). Names starting with `builtin.` are always reserved. */
  reservedNames?: ReadonlySet<string> | undefined;
  /** Names taken by the team policy's rules (team mode): a local rule may not shadow one. */
  teamNames?: ReadonlySet<string> | undefined;
  /** Rule source for these rules (default `user`). */
  source?: Rule['source'] | undefined;
}

export interface LoadResult {
  rules: Rule[];
  compiled: CompiledRule[];
  problems: PolicyProblem[];
  /** The file as a whole is unusable: nothing from it should replace the active policy. */
  broken: boolean;
  /** Rules left out because of their problems (name null when it could not be read). */
  rejected: Array<{ name: string | null; line: number; column: number }>;
  examples: ExampleResult[];
}

export const RULE_FIELDS = ['name', 'description', 'actions', 'block_paths', 'block_except', 'block_hosts', 'severity', 'priority', 'message', 'decision', 'enabled', 'examples', 'tools', 'commands', 'arguments'] as const;
const TOP_FIELDS = ['version', 'rules'];

const strings = z.array(z.string()).default([]);
const RuleSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits, ".", "_", ":" and "-", starting with a letter or digit'),
  description: z.string().default(''),
  actions: z.array(z.enum(OPERATIONS)).min(1, 'needs at least one action'),
  block_paths: strings,
  block_except: strings,
  block_hosts: strings,
  severity: z.enum(['critical', 'high', 'warning', 'info']).default('high'),
  priority: z.number().int().default(100),
  message: z.string().optional(),
  decision: z.enum(['deny', 'ask', 'allow', 'log']).default('deny'),
  enabled: z.boolean().default(true),
  // Allow rules only (checked below): bound to a tool, its exact commands, or exact arguments.
  tools: z.array(z.string().min(1, 'a tool name cannot be empty')).min(1, 'needs at least one tool name; leave the field out to match every tool').optional(),
  commands: z.array(z.string().min(1, 'a command cannot be empty')).min(1, 'needs at least one command; leave the field out to match every command').optional(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  examples: z
    .strictObject({
      match: z.array(z.unknown()).default([]),
      not_match: z.array(z.unknown()).default([]),
    })
    .optional(),
});

const FIELD_HINTS: Record<string, string> = {
  locked: 'only built-in rules are locked',
  source: 'the source is set by Gatehouse',
  origin: 'the origin is set by Gatehouse',
  paths: 'did you mean block_paths?',
  hosts: 'did you mean block_hosts?',
  except: 'did you mean block_except?',
  action: 'did you mean actions?',
};

type PathKey = string | number;
const fieldName = (path: readonly PathKey[]) => path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k), '');

/** Reads and checks a policy file. A missing file is an empty policy, not a problem. */
export function loadPolicyFile(path: string, ctx: LoadContext): LoadResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { rules: [], compiled: [], problems: [], broken: false, rejected: [], examples: [] };
    return {
      rules: [],
      compiled: [],
      problems: [{ file: path, line: 1, column: 1, message: `cannot read the policy file: ${(err as Error).message}` }],
      broken: true,
      rejected: [],
      examples: [],
    };
  }
  return parsePolicyText(text, path, ctx);
}

export function parsePolicyText(text: string, file: string, ctx: LoadContext): LoadResult {
  // Measured first: a deeply nested text can crash the process in the parser (yaml-nesting.ts).
  const deep = yamlTooDeep(text);
  if (deep) {
    const before = text.slice(0, deep.offset);
    const line = before.split('\n').length;
    const column = deep.offset - before.lastIndexOf('\n');
    return { rules: [], compiled: [], problems: [{ file, line, column, message: `${tooDeepMessage('The policy file')}.` }], broken: true, rejected: [], examples: [] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const out: LoadResult = { rules: [], compiled: [], problems: [], broken: false, rejected: [], examples: [] };
  const pos = (offset: number) => {
    const lp = lineCounter.linePos(offset);
    return { line: lp.line, column: lp.col };
  };
  const fatal = (offset: number, message: string) => {
    out.problems.push({ file, ...pos(offset), message });
    out.broken = true;
    return out;
  };

  if (doc.errors.length > 0) {
    for (const e of doc.errors) out.problems.push({ file, ...pos(e.pos[0]), message: `YAML: ${e.message.split('\n')[0]}` });
    out.broken = true;
    return out;
  }
  const root = doc.contents;
  if (root === null || (root as { value?: unknown }).value === null) return out; // empty file: no user rules
  if (!isMap(root)) return fatal(root.range?.[0] ?? 0, 'the policy file must be a map with a "rules" list');
  for (const item of root.items) {
    const key = (item.key as unknown as { value?: unknown } | null)?.value;
    if (typeof key !== 'string' || !TOP_FIELDS.includes(key)) {
      return fatal((item.key as unknown as { range?: [number] } | null)?.range?.[0] ?? 0, `unknown top-level field ${JSON.stringify(key)} (expected "rules" and optionally "version: 1")`);
    }
  }
  const js = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  if (js.version !== undefined && js.version !== 1) return fatal(offsetOf(doc, ['version']), `unsupported version ${JSON.stringify(js.version)} (this Gatehouse reads version 1)`);
  if (js.rules === undefined || js.rules === null) return out;
  if (!Array.isArray(js.rules)) return fatal(offsetOf(doc, ['rules']), '"rules" must be a list of rules');

  const reserved = ctx.reservedNames ?? new Set<string>();
  const seen = new Map<string, number>();
  js.rules.forEach((raw, i) => {
    const base: PathKey[] = ['rules', i];
    const ruleOffset = offsetOf(doc, base);
    const problems: PolicyProblem[] = [];
    const name = raw && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string' ? (raw as { name: string }).name : null;
    const add = (path: PathKey[], message: string, extra: Partial<PolicyProblem> = {}, key?: string) => {
      problems.push({ file, ...pos(offsetOf(doc, [...base, ...path], key)), message: `${name ? `rule "${name}"` : `rule ${i + 1}`}: ${message}`, ...(name ? { rule: name } : {}), ...extra });
    };
    const parsed = RuleSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.filter((k): k is PathKey => typeof k !== 'symbol');
        if (issue.code === 'unrecognized_keys') {
          for (const k of issue.keys) add(path, `unknown field "${fieldName([...path, k])}"${FIELD_HINTS[k] ? ` (${FIELD_HINTS[k]})` : ''}`, {}, k);
        } else if (doc.getIn([...base, ...path], true) === undefined && path.length > 0) {
          add(path, `missing required field "${fieldName(path)}"`);
        } else {
          add(path, path.length > 0 ? `field "${fieldName(path)}": ${issue.message}` : issue.message);
        }
      }
    } else {
      const r = parsed.data;
      (['block_paths', 'block_except'] as const).forEach((field) =>
        r[field].forEach((g, j) => {
          const p = globProblem(g);
          if (p) add([field, j], `field "${field}[${j}]": ${p}`);
        }),
      );
      r.block_hosts.forEach((h, j) => {
        const p = hostPatternProblem(h);
        if (p) add(['block_hosts', j], `field "block_hosts[${j}]": ${p}`);
      });
      if (r.block_except.length > 0 && r.block_paths.length === 0) add(['block_except'], 'block_except needs block_paths (it only makes exceptions to them)');
      // A binding narrows what an allow rule covers; on a deny or ask rule it would narrow a block, which an agent could step around by changing the command's spelling.
      for (const field of ['tools', 'commands', 'arguments'] as const) {
        if (r[field] !== undefined && r.decision !== 'allow') add([field], `${field} is for allow rules only (it binds what is allowed to one tool, command or argument); a ${r.decision} rule matches by actions, paths and hosts`);
      }
      // Rules an earlier "Always" wrote were bound to paths only and let any command touching them
      // run (`sh README.md` after approving `cat README.md`): they are refused until replaced.
      if (r.decision === 'allow' && r.name.startsWith('approved.') && r.tools === undefined && r.actions.includes('execute')) {
        add(['name'], `"${r.name}" was written by an earlier "Always" approval and allows any command that touches its paths, not just the approved one; it is not loaded. Approve the call again with Always to get a rule bound to its tool and command, or add tools and commands to it`);
      }
      if ((r.commands !== undefined || r.arguments !== undefined) && r.tools === undefined) add([r.commands !== undefined ? 'commands' : 'arguments'], `${r.commands !== undefined ? 'commands' : 'arguments'} needs tools: name the tool the call is made with (e.g. tools: [Bash])`);
      if (r.name.startsWith(BUILTIN_PREFIX) || reserved.has(r.name)) add(['name'], `the name "${r.name}" belongs to a built-in rule; built-in rules are locked and cannot be replaced or disabled`);
      else if (ctx.teamNames?.has(r.name)) add(['name'], `the name "${r.name}" belongs to a rule of the team policy, which this machine cannot change; rename this rule`);
      else if (seen.has(r.name)) add(['name'], `a rule named "${r.name}" is already defined at line ${seen.get(r.name)}`);
    }
    if (problems.length === 0 && parsed.success) {
      const r = parsed.data;
      const rule: Rule = {
        name: r.name,
        description: r.description,
        source: ctx.source ?? 'user',
        origin: `${file}:${pos(ruleOffset).line}`,
        actions: r.actions,
        block_paths: r.block_paths,
        block_except: r.block_except,
        block_hosts: r.block_hosts,
        severity: r.severity,
        priority: r.priority,
        message: r.message ?? (r.description || `Rule ${r.name} (${r.decision}).`),
        decision: r.decision,
        locked: false,
        enabled: r.enabled,
        ...(r.tools !== undefined ? { tools: r.tools } : {}),
        ...(r.commands !== undefined ? { commands: r.commands } : {}),
        ...(r.arguments !== undefined ? { arguments: r.arguments } : {}),
      };
      const compiled = compileRule(rule, ctx);
      for (const expected of ['match', 'not_match'] as const) {
        (r.examples?.[expected] ?? []).forEach((ex, j) => {
          const at = pos(offsetOf(doc, [...base, 'examples', expected, j]));
          const parsedEx = parseExample(ex, ctx.home, ctx.extract);
          if (typeof parsedEx === 'string') {
            add(['examples', expected, j], parsedEx, { example: JSON.stringify(ex) });
            out.examples.push({ rule: r.name, example: JSON.stringify(ex), expected, ok: false, ...at, detail: parsedEx });
            return;
          }
          const m = matchRule(compiled, parsedEx.extraction, opMask(parsedEx.extraction.operations), { call: parsedEx.call ?? null });
          const ok = expected === 'match' ? m !== null : m === null;
          out.examples.push({ rule: r.name, example: parsedEx.text, expected, ok, ...at, detail: m?.detail ?? 'no match' });
          if (!ok) {
            const msg = expected === 'match' ? `example ${parsedEx.text} should match but does not` : `example ${parsedEx.text} should not match but does (${m?.detail})`;
            add(['examples', expected, j], `${msg}; the rule is rejected`, { example: parsedEx.text });
          }
        });
      }
      if (problems.length === 0) {
        seen.set(r.name, pos(ruleOffset).line);
        out.rules.push(rule);
        out.compiled.push(compiled);
        return;
      }
    }
    if (name && !seen.has(name)) seen.set(name, pos(ruleOffset).line);
    out.problems.push(...problems);
    out.rejected.push({ name, ...pos(ruleOffset) });
  });
  return out;
}

/** Offset of the node at `path` (or of `key` in the map there), else of its nearest ancestor. */
function offsetOf(doc: Document, path: readonly PathKey[], key?: string): number {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as unknown;
    if (!node || typeof node !== 'object') continue;
    if (key !== undefined && n === path.length && isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      const r = (pair?.key as { range?: [number, number, number] } | null)?.range;
      if (r) return r[0];
    }
    const range = (node as { range?: [number, number, number] }).range;
    if (range) return range[0];
  }
  return 0;
}
