// The checker protocol has two descriptions that must agree: the TypeScript types in
// main/core/checker-protocol.ts (built on checker-protocol.types.ts, generated from the schema)
// and the JSON Schema in shared/schemas/checker-protocol.schema.json.
// This test fails when a field is added to, removed from or renamed in one but not the other, when
// an enum drifts, and when what the pool actually writes to a checker does not validate.
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import schema from '../../shared/schemas/checker-protocol.schema.json' with { type: 'json' };
import {
  ACTIONS,
  BLOCK_RESULT_KEYS,
  EVALUATE_PARAM_KEYS,
  INIT_PARAM_KEYS,
  ENUMS_MATCH_SCHEMA,
  KEY_ARRAYS_MATCH_TYPES,
  METHODS,
  OPERATIONS,
  RULE_SNAPSHOT_KEYS,
  RULE_SOURCES,
  SEVERITIES,
  evaluateLine,
  parseEvaluateResult,
  type BlockResult,
  type CheckerRequest,
  type CheckerResponse,
  type EvaluateParams,
  type InitParams,
  type RuleSnapshot,
} from '../../main/core/checker-protocol.js';
import { CheckerPool } from '../../main/checkers/checker-pool.js';
import { evaluateParams, fixtureSpec } from '../fixtures/checkers/pool-helpers.js';

// strictRequired off: the response definition tests for presence with `not: { required }`.
const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
ajv.addSchema(schema, 'protocol');
const validator = (def: string) => {
  const v = ajv.getSchema(`protocol#/definitions/${def}`);
  if (!v) throw new Error(`no definition ${def}`);
  return (data: unknown) => {
    const ok = v(data) as boolean;
    return { ok, errors: ok ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`) };
  };
};

const defs = schema.definitions as Record<string, { required?: string[]; properties?: Record<string, { enum?: string[] }>; enum?: string[]; additionalProperties?: boolean }>;
const sorted = (xs: readonly string[]) => [...xs].sort();

const rule: RuleSnapshot = {
  name: 'no-ssh-keys',
  description: 'Keeps agents away from SSH keys',
  source: 'builtin',
  severity: 'critical',
  priority: 10,
  actions: ['read', 'copy'],
  block_paths: ['~/.ssh/**'],
  block_except: ['~/.ssh/known_hosts'],
  block_hosts: [],
  message: 'SSH keys are off limits.',
  locked: true,
  enabled: true,
  hit_count: 3,
};
const params: EvaluateParams = evaluateParams({ rules: [rule], operations: ['read', 'network'], hosts: ['example.com'], evasive: true });
const init: InitParams = { name: 'path-guard', config: { allowed_dirs: ['/tmp'] } };
const block: BlockResult = { rule_name: 'r', severity: 'warning', action: 'alert', message: 'm' };

describe('checker protocol: TypeScript and JSON Schema agree', () => {
  it('the key arrays the types are built from match the types (compile-time check, see checker-protocol.ts)', () => {
    expect(KEY_ARRAYS_MATCH_TYPES).toEqual([true, true, true, true]);
    expect(ENUMS_MATCH_SCHEMA).toEqual([true, true, true, true]);
  });

  it('the committed generated types are what the schema generates', async () => {
    const root = join(import.meta.dirname, '..', '..');
    const gen = (await import(pathToFileURL(join(root, 'scripts', 'gen-manifest-types.mjs')).href)) as { generateCheckerProtocolTypes: () => Promise<string> };
    const fresh = await gen.generateCheckerProtocolTypes();
    const committed = readFileSync(join(root, 'main', 'core', 'checker-protocol.types.ts'), 'utf8');
    expect(committed === fresh, 'schema and types drifted apart: run node scripts/gen-manifest-types.mjs').toBe(true);
  }, 30_000);

  it.each([
    ['evaluateParams', EVALUATE_PARAM_KEYS],
    ['ruleSnapshot', RULE_SNAPSHOT_KEYS],
    ['initParams', INIT_PARAM_KEYS],
    ['blockResult', BLOCK_RESULT_KEYS],
  ] as const)('%s: the schema requires exactly the TypeScript keys and declares no others', (def, keys) => {
    expect(sorted(defs[def]!.required!)).toEqual(sorted(keys));
    expect(sorted(Object.keys(defs[def]!.properties!))).toEqual(sorted(keys));
  });

  it('params and rule snapshots are closed: the host sends exactly the protocol fields', () => {
    expect(defs.evaluateParams!.additionalProperties).toBe(false);
    expect(defs.ruleSnapshot!.additionalProperties).toBe(false);
    expect(validator('evaluateParams')({ ...params, extra: 1 }).ok).toBe(false);
  });

  it('the enums are the same', () => {
    expect(defs.operation!.enum).toEqual([...OPERATIONS]);
    expect(defs.severity!.enum).toEqual([...SEVERITIES]);
    expect(defs.action!.enum).toEqual([...ACTIONS]);
    expect(defs.ruleSnapshot!.properties!.source!.enum).toEqual([...RULE_SOURCES]);
    const methods = (['initRequest', 'evaluateRequest', 'closeRequest'] as const).map((d) => (defs[d]!.properties!.method as { const: string }).const);
    expect(methods).toEqual([...METHODS]);
  });

  it('TypeScript-typed messages validate', () => {
    const requests: CheckerRequest[] = [{ method: 'init', params: init }, { method: 'init', params: { name: 'x', config: null } }, { method: 'evaluate', params }, { method: 'evaluate', params: evaluateParams() }, { method: 'close' }];
    for (const r of requests) expect(validator('request')(r)).toEqual({ ok: true, errors: [] });
    const responses: CheckerResponse[] = [{ result: 'ok' }, { result: null }, { result: block }, { error: 'no rules loaded' }];
    for (const r of responses) expect(validator('response')(r)).toEqual({ ok: true, errors: [] });
    expect(validator('evaluateResult')(block).ok).toBe(true);
    expect(validator('evaluateResult')(null).ok).toBe(true);
    expect(validator('ruleSnapshot')(rule).ok).toBe(true);
  });

  it.each(EVALUATE_PARAM_KEYS)('evaluate params without %s are invalid (every field is always present)', (key) => {
    const { [key]: _, ...rest } = params;
    expect(validator('evaluateParams')(rest).ok).toBe(false);
  });

  it.each(RULE_SNAPSHOT_KEYS)('a rule snapshot without %s is invalid', (key) => {
    const { [key]: _, ...rest } = rule;
    expect(validator('ruleSnapshot')(rest).ok).toBe(false);
  });

  it('a response must carry exactly one of result and error', () => {
    expect(validator('response')({}).ok).toBe(false);
    expect(validator('response')({ result: null, error: 'x' }).ok).toBe(false);
    expect(validator('response')({ error: 3 }).ok).toBe(false);
  });

  it('the reader agrees with the schema on blocks: what the schema accepts blocks as sent; a block without rule_name is malformed', () => {
    expect(parseEvaluateResult(block)).toEqual({ kind: 'block', result: block });
    expect(parseEvaluateResult(null)).toEqual({ kind: 'allow' });
    const { rule_name: _, ...nameless } = block;
    expect(validator('blockResult')(nameless).ok).toBe(false);
    expect(parseEvaluateResult(nameless).kind).toBe('malformed');
    expect(validator('blockResult')({ ...block, rule_name: '' }).ok).toBe(false);
    expect(parseEvaluateResult({ ...block, rule_name: '' }).kind).toBe('malformed');
    for (const bad of [true, 3, 'block', [block]]) {
      expect(validator('evaluateResult')(bad).ok).toBe(false);
      expect(parseEvaluateResult(bad).kind).toBe('malformed');
    }
    // Where the schema is strict and the reader lenient, the lenient reading is the safe one.
    expect(parseEvaluateResult({ ...block, severity: 'urgent', action: '' })).toEqual({ kind: 'block', result: { ...block, severity: 'high', action: 'block' } });
  });

  it('evaluateLine writes one line: exactly the protocol fields, valid against the schema', () => {
    const line = evaluateLine({ ...params, extra: 'stays home' } as EvaluateParams);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    const wire: unknown = JSON.parse(line);
    expect(wire).toEqual({ method: 'evaluate', params });
    expect(validator('request')(wire)).toEqual({ ok: true, errors: [] });
    expect(Object.keys((wire as { params: object }).params)).toEqual([...EVALUATE_PARAM_KEYS]);
  });

  it('rule snapshots are serialized per call unless frozen, so a changed snapshot is never sent stale', () => {
    const mutable = { ...params, rules: [{ ...rule, actions: [...rule.actions] }] };
    const before = evaluateLine(mutable);
    mutable.rules[0]!.hit_count = 99;
    const after = evaluateLine(mutable);
    expect((JSON.parse(after) as { params: EvaluateParams }).params.rules[0]!.hit_count).toBe(99);
    expect(after).not.toBe(before);
    const frozenRule = Object.freeze({ ...rule, actions: Object.freeze([...rule.actions]), block_paths: Object.freeze([...rule.block_paths]), block_except: Object.freeze([...rule.block_except]), block_hosts: Object.freeze([...rule.block_hosts]) });
    const frozen = { ...params, rules: Object.freeze([frozenRule]) } as unknown as EvaluateParams;
    expect(JSON.parse(evaluateLine(frozen))).toEqual({ method: 'evaluate', params: frozen });
    expect(evaluateLine(frozen)).toBe(evaluateLine(frozen));
  });

  it('what the pool writes to a checker validates against the schema', async () => {
    const pool = new CheckerPool({ checkers: [fixtureSpec('echo', 'echo-request.mjs')] });
    try {
      await pool.start();
      for (const p of [params, evaluateParams(), evaluateParams({ arguments: null })]) {
        const v = await pool.evaluate(p);
        if (v.decision !== 'block' || !('result' in v)) throw new Error(`unexpected verdict ${JSON.stringify(v)}`);
        const wire: unknown = JSON.parse(v.result.message);
        expect(validator('request')(wire)).toEqual({ ok: true, errors: [] });
        expect(wire).toEqual({ method: 'evaluate', params: p });
      }
    } finally {
      await pool.close();
    }
  });
});
