// The rules step of the policy: every enabled rule is matched against what the call would do;
// deny beats ask beats allow, lower priority wins within a decision, `log` rules only report.
// Synchronous unless the call goes to the network and names need DNS (evaluatePolicyAsync).
import type { Decider, Decision, Extraction, ToolCall } from '../types.js';
import { dropOldest } from '../../core/drop-oldest.js';
import { isHostName, normalizeHost, resolveHosts, systemResolver, type Resolutions, type Resolver } from '../network.js';
import { compareMatches, matchRule, opMask, OP_BIT, type CompiledRule, type RuleMatch, type UnresolvedPolicy } from './compile.js';

/** Built-in rules first, then user rules; names unique. */
export interface RuleSet {
  readonly rules: readonly CompiledRule[];
  readonly byName: ReadonlyMap<string, CompiledRule>;
  /**
   * True when no rule of the set can match `path` by its paths: no rule's glob matches it and no
   * rule's protected tree lies inside it. Given a rule, true when that rule's paths cannot match
   * it (neither way). matchRule then skips the path for that rule.
   */
  readonly untouched: (path: string, rule?: CompiledRule) => boolean;
}

/** Paths whose answer a rule set keeps; past it the older half is dropped. */
const UNTOUCHED_KEPT = 4096;

/**
 * "Which rules' paths reach this path", asked once per path rather than once per path per rule:
 * with dozens of built-in rules, matching every path against every rule was most of the rules
 * step, and a path one rule does reach (`~/work/**` of an allow rule) was still tested against
 * every other rule's globs. The answer is a pure function of the (frozen) rules and the path
 * string, so it is kept per set; a changed policy is a new set. Every rule counts, disabled ones
 * too, and excepts are ignored: both only make "touched" answers more common, never a wrong
 * "untouched".
 */
function untouchedBy(rules: readonly CompiledRule[]): (path: string, rule?: CompiledRule) => boolean {
  const withPaths = rules.filter((r) => !r.paths.empty);
  // null: no rule reaches the path.
  const kept = new Map<string, ReadonlySet<CompiledRule> | null>();
  // Every rule of a call asks about the same path in turn: the last answer saves the look-up.
  let lastPath: string | null = null;
  let last: ReadonlySet<CompiledRule> | null = null;
  const touching = (path: string): ReadonlySet<CompiledRule> | null => {
    if (path === lastPath) return last;
    let answer = kept.get(path);
    if (answer === undefined) {
      let reached: Set<CompiledRule> | null = null;
      for (const r of withPaths) if (r.paths.match(path) !== null || r.paths.containsProtected(path) !== null) (reached ??= new Set()).add(r);
      answer = reached;
      if (kept.size >= UNTOUCHED_KEPT) dropOldest(kept, UNTOUCHED_KEPT >> 1);
      kept.set(path, answer);
    }
    lastPath = path;
    last = answer;
    return answer;
  };
  // A rule of another set (never passed today) is answered for all rules: never wrongly skipped.
  const own = new Set(withPaths);
  return (path, rule) => {
    const reached = touching(path);
    return reached === null || (rule !== undefined && own.has(rule) && !reached.has(rule));
  };
}

export function buildRuleSet(builtin: readonly CompiledRule[], user: readonly CompiledRule[]): RuleSet {
  const byName = new Map<string, CompiledRule>();
  const rules: CompiledRule[] = [];
  for (const r of [...builtin, ...user]) {
    // A user rule can never take a built-in's name (the loader rejects it; this is the backstop).
    if (byName.has(r.rule.name)) continue;
    byName.set(r.rule.name, r);
    rules.push(r);
  }
  return Object.freeze({ rules: Object.freeze(rules), byName, untouched: untouchedBy(rules) });
}

export interface EvaluateContext {
  rules: RuleSet;
  /** DNS answers for the call's host names (from resolveHosts). Names missing here count as unresolved. */
  resolutions?: Resolutions | undefined;
  /** What the built-in network rule does with a name DNS could not resolve (default deny). */
  unresolved?: UnresolvedPolicy | undefined;
}

export interface PolicyResult {
  /**
   * deny or ask when a rule says so, allow when an allow rule covers the call. When no rule
   * decides, `decisive` is null and the decision is `ask` (fail closed): autonomy decides.
   */
  decision: Decision;
  decider: Decider;
  /** The rule match that decided, or null when no rule did. */
  decisive: RuleMatch | null;
  /** Every deny/ask/allow match, in precedence order. */
  matched: RuleMatch[];
  /** `log` rules that matched: reported, never deciding. */
  logs: RuleMatch[];
  /** One sentence for the agent and the inbox. */
  reason: string;
}

const UNDECIDED: Decider = Object.freeze({ kind: 'autonomy', level: 'undecided' }) as Decider;

export function evaluatePolicy(x: Extraction, call: ToolCall | null, ctx: EvaluateContext): PolicyResult {
  try {
    const mask = opMask(x.operations);
    const matched: RuleMatch[] = [];
    const logs: RuleMatch[] = [];
    const opts = { resolutions: ctx.resolutions, unresolved: ctx.unresolved, call, untouched: ctx.rules.untouched };
    for (const r of ctx.rules.rules) {
      if (!r.rule.enabled) continue;
      const m = matchRule(r, x, mask, opts);
      if (!m) continue;
      if (m.decision === 'log') logs.push(m);
      else matched.push(m);
    }
    return policyResult(matched, logs);
  } catch (err) {
    // Fail closed: a bug in matching denies the call, with the error as the decider.
    const message = `policy evaluation failed: ${(err as Error).message ?? String(err)}`;
    return { decision: 'deny', decider: { kind: 'error', message }, decisive: null, matched: [], logs: [], reason: message };
  }
}

/**
 * The rules step's answer from the rules that matched: deny over ask over allow (compareMatches),
 * no decisive match is `ask` by nobody (autonomy decides). Replay builds the same answer from the
 * matches a call recorded and a draft's rules (audit/replay.ts).
 */
export function policyResult(matched: RuleMatch[], logs: RuleMatch[]): PolicyResult {
  if (matched.length > 1) matched.sort(compareMatches);
  const top = matched[0];
  if (!top || top.decision === 'log') {
    return { decision: 'ask', decider: UNDECIDED, decisive: null, matched, logs, reason: 'No rule decides this call.' };
  }
  return {
    decision: top.decision,
    decider: { kind: 'rule', rule: top.rule, origin: top.origin },
    decisive: top,
    matched,
    logs,
    reason: `${top.message} (rule ${top.rule}: ${top.detail})`,
  };
}

/** Does judging this call need DNS (a network operation with a host that is a name)? */
export function needsResolution(x: Extraction): boolean {
  if ((opMask(x.operations) & OP_BIT.network) === 0) return false;
  for (const h of x.hosts) if (isHostName(normalizeHost(h))) return true;
  return false;
}

export interface AsyncEvaluateContext extends Omit<EvaluateContext, 'resolutions'> {
  resolver?: Resolver | undefined;
  dnsTimeoutMs?: number | undefined;
}

/** evaluatePolicy after resolving the call's host names (only for network operations). */
export async function evaluatePolicyAsync(x: Extraction, call: ToolCall | null, ctx: AsyncEvaluateContext): Promise<PolicyResult> {
  if (!needsResolution(x)) return evaluatePolicy(x, call, ctx);
  const resolutions = await resolveHosts(x.hosts, ctx.resolver ?? systemResolver, ctx.dnsTimeoutMs);
  return evaluatePolicy(x, call, { ...ctx, resolutions });
}
