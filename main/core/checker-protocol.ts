// The crust checker protocol (docs/protocols.md §2) as TypeScript types. The message types are
// generated from the JSON Schema, shared/schemas/checker-protocol.schema.json, into
// checker-protocol.types.ts (scripts/gen-manifest-types.mjs); here they are narrowed where the
// schema's "any object" is too loose for the host. Every object's keys are also listed in a
// `const` array (the host writes fields in that order), which tsc holds to the generated types via
// the `Exact` checks below and test/shared/checker-protocol-schema.test.ts holds to the schema.
import type * as Generated from './checker-protocol.types.js';

import type { Operation } from '../../shared/operations.js';

export { OPERATIONS, type Operation } from '../../shared/operations.js';

export const SEVERITIES = ['critical', 'high', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ACTIONS = ['block', 'log', 'alert'] as const;
export type BlockAction = (typeof ACTIONS)[number];

export const RULE_SOURCES = ['builtin', 'user', 'cli'] as const;
export type RuleSource = (typeof RULE_SOURCES)[number];

export const METHODS = ['init', 'evaluate', 'close'] as const;
export type Method = (typeof METHODS)[number];

// ---- rule snapshot ----------------------------------------------------------------------------

export const RULE_SNAPSHOT_KEYS = ['name', 'description', 'source', 'severity', 'priority', 'actions', 'block_paths', 'block_except', 'block_hosts', 'message', 'locked', 'enabled', 'hit_count'] as const;

type RuleSnapshotFields = Generated.RuleSnapshot;

/** A rule as checkers see it: every field present. */
export type RuleSnapshot = { [K in (typeof RULE_SNAPSHOT_KEYS)[number]]: RuleSnapshotFields[K] };

// ---- evaluate params --------------------------------------------------------------------------

export const EVALUATE_PARAM_KEYS = ['tool_name', 'arguments', 'operation', 'operations', 'command', 'paths', 'hosts', 'content', 'evasive', 'rules'] as const;

interface EvaluateParamFields extends Omit<Generated.EvaluateParams, 'arguments' | 'rules'> {
  /** The schema says "an object or null"; the host always has a JSON object here. */
  arguments: Record<string, unknown> | null;
  /** `[]` when there are none. Freeze the snapshots (deeply) and they are serialized once, not per call. */
  rules: readonly RuleSnapshot[];
}

/** What `evaluate` sends: every field always present, none optional. */
export type EvaluateParams = { [K in (typeof EVALUATE_PARAM_KEYS)[number]]: EvaluateParamFields[K] };

// ---- init params ------------------------------------------------------------------------------

export const INIT_PARAM_KEYS = ['name', 'config'] as const;

interface InitParamFields extends Omit<Generated.InitParams, 'config'> {
  /** The schema says "an object or null"; the manifest's [config] table is a JSON object. */
  config: Record<string, unknown> | null;
}

export type InitParams = { [K in (typeof INIT_PARAM_KEYS)[number]]: InitParamFields[K] };

// ---- block result -----------------------------------------------------------------------------

export const BLOCK_RESULT_KEYS = ['rule_name', 'severity', 'action', 'message'] as const;

type BlockResultFields = Generated.BlockResult;

/**
 * A block, as the host hands it on (after normalization: unknown severity → high, unknown or
 * empty action → block). Which checker answered is the verdict's `checker`.
 */
export type BlockResult = { [K in (typeof BLOCK_RESULT_KEYS)[number]]: BlockResultFields[K] };

// ---- envelopes --------------------------------------------------------------------------------

export type InitRequest = { method: 'init'; params: InitParams };
export type EvaluateRequest = { method: 'evaluate'; params: EvaluateParams };
export type CloseRequest = { method: 'close' };
export type CheckerRequest = InitRequest | EvaluateRequest | CloseRequest;

/** Exactly one of `result` and `error`. */
export type CheckerResponse<R = unknown> = { result: R } | { error: string };

// Compile-time half of the drift check: each field interface has exactly the keys of its array.
// (The mapped types above would silently drop an interface field missing from the array.)
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const KEY_ARRAYS_MATCH_TYPES: [
  Exact<keyof RuleSnapshotFields, (typeof RULE_SNAPSHOT_KEYS)[number]>,
  Exact<keyof EvaluateParamFields, (typeof EVALUATE_PARAM_KEYS)[number]>,
  Exact<keyof InitParamFields, (typeof INIT_PARAM_KEYS)[number]>,
  Exact<keyof BlockResultFields, (typeof BLOCK_RESULT_KEYS)[number]>,
] = [true, true, true, true];

// And the runtime enum lists (what the host checks answers against) equal the schema's enums.
export const ENUMS_MATCH_SCHEMA: [
  Exact<Operation, Generated.Operation>,
  Exact<Severity, Generated.Severity>,
  Exact<BlockAction, Generated.Action>,
  Exact<RuleSource, Generated.RuleSnapshot['source']>,
] = [true, true, true, true];

// ---- reading an evaluate result ---------------------------------------------------------------

export type ParsedEvaluateResult = { kind: 'allow' } | { kind: 'block'; result: BlockResult } | { kind: 'malformed'; message: string };

const ALLOW: ParsedEvaluateResult = Object.freeze({ kind: 'allow' });
const SEVERITY_SET: ReadonlySet<string> = new Set(SEVERITIES);
const ACTION_SET: ReadonlySet<string> = new Set(ACTIONS);

/**
 * An evaluate `result` as the protocol reads it: null allows; an object blocks, whatever its
 * action (the protocol: any object blocks; the action is carried on for the audit record).
 * Leniency where it cannot weaken a block: an unknown (or missing) severity counts as high, an
 * unknown, empty or missing action as block, a missing message becomes a generic sentence.
 * Malformed — a checker failure, not a block: anything but null or an object, a block without a
 * non-empty string `rule_name`, or a `message` that is present but not a string.
 */
export function parseEvaluateResult(result: unknown): ParsedEvaluateResult {
  if (result === null) return ALLOW;
  if (typeof result !== 'object' || Array.isArray(result)) {
    return { kind: 'malformed', message: `answered evaluate with ${describeJson(result)}; the result must be null (allow) or a block object` };
  }
  const r = result as Record<string, unknown>;
  const ruleName = r.rule_name;
  if (typeof ruleName !== 'string' || ruleName.trim() === '') {
    return { kind: 'malformed', message: `answered with a block without ${ruleName === undefined ? 'a' : 'a non-empty string'} "rule_name"; a block must name the rule that decided` };
  }
  if (r.message !== undefined && typeof r.message !== 'string') {
    return { kind: 'malformed', message: `answered with a block whose "message" is ${describeJson(r.message)}, not a string` };
  }
  const severity = typeof r.severity === 'string' && SEVERITY_SET.has(r.severity) ? (r.severity as Severity) : 'high';
  const action = typeof r.action === 'string' && ACTION_SET.has(r.action) ? (r.action as BlockAction) : 'block';
  const message = typeof r.message === 'string' && r.message !== '' ? r.message : `Blocked by rule ${ruleName}.`;
  return { kind: 'block', result: { rule_name: ruleName, severity, action, message } };
}

export function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

// ---- writing an evaluate request --------------------------------------------------------------

const frozenRulesJson = new WeakMap<readonly RuleSnapshot[], string>();

function deepFrozen(rules: readonly RuleSnapshot[]): boolean {
  if (!Object.isFrozen(rules)) return false;
  for (const r of rules) {
    if (!Object.isFrozen(r) || !Object.isFrozen(r.actions) || !Object.isFrozen(r.block_paths) || !Object.isFrozen(r.block_except) || !Object.isFrozen(r.block_hosts)) return false;
  }
  return true;
}

/**
 * The rule snapshots as JSON. The host sends the same snapshots with every call; when it freezes
 * them (array, rules and their arrays), they are serialized once and the text reused, which is
 * most of the cost of writing a request. Anything not frozen is serialized every time.
 */
function rulesJson(rules: readonly RuleSnapshot[]): string {
  const cached = frozenRulesJson.get(rules);
  if (cached !== undefined) return cached;
  const text = JSON.stringify(rules);
  if (deepFrozen(rules)) frozenRulesJson.set(rules, text);
  return text;
}

const json = (v: unknown): string => (v === undefined ? 'null' : JSON.stringify(v));

/**
 * The `content` field: what the call writes, or else the call's arguments as raw JSON text
 * (`{"command":"rm -rf /etc"}` for a Bash call), as crust fills it ("write content or full raw
 * JSON of all arguments"); `""` for a call without arguments. A crust checker that looks for
 * secrets or patterns in `content` sees every call, not only writes.
 */
export function checkerContent(written: string, args: Record<string, unknown> | null): string {
  if (written !== '' || args === null) return written;
  try {
    return JSON.stringify(args) ?? '';
  } catch {
    return '';
  }
}

/**
 * One `evaluate` request line, newline included: exactly the protocol fields, in protocol order
 * (anything else on `params` stays home). Serialized now, so it is a copy: later changes to
 * `params` do not reach the checkers.
 */
export function evaluateLine(p: EvaluateParams): string {
  return (
    `{"method":"evaluate","params":{"tool_name":${json(p.tool_name)},"arguments":${json(p.arguments)},"operation":${json(p.operation)},"operations":${json(p.operations)},` +
    `"command":${json(p.command)},"paths":${json(p.paths)},"hosts":${json(p.hosts)},"content":${json(p.content)},"evasive":${json(p.evasive)},` +
    `"rules":${p.rules === undefined ? 'null' : rulesJson(p.rules)}}}\n`
  );
}
