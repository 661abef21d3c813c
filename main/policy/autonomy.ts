// Autonomy and session taint: after the rules, how much an agent may do without an operator.
//
// Order (first that applies decides):
//   1. a rule denies                                   → deny   (rule)
//   2. the call writes down (session taint)            → deny   (builtin.taint-write-down)
//   3. read-only and the call is not purely a read     → deny   (autonomy)
//   4. the tool is on alwaysAsk                        → ask    (autonomy)
//   5. a rule asks (evasive commands included)         → ask    (rule)
//      a call static analysis is unsure of            → ask    (builtin.evasive-command), always
//   6. a grant covers the call                         → allow  (grant)
//   7. a rule allows                                   → allow  (rule)
//   8. the tool is on autoApprove                      → allow  (autonomy)
//   9. the level: full → allow; supervised → reads allow, the rest asks; read-only → allow (reads)
// "Read" is judged by the extracted operations, never by the tool's name.
import picomatch from 'picomatch';
import type { Decider, Decision, Extraction, ToolCall } from './types.js';
import type { PolicyResult } from './rules/engine.js';
import { AUTONOMY_LEVELS, type AutonomyLevel } from './autonomy-levels.js';

export { AUTONOMY_LEVELS, type AutonomyLevel };

export interface AutonomySettings {
  level: string;
  /** Tool-name globs that run without asking (unless a rule denies or asks). */
  autoApprove?: readonly string[];
  /** Tool-name globs that always ask (unless a rule denies). */
  alwaysAsk?: readonly string[];
}

export class Autonomy {
  readonly level: AutonomyLevel;
  /** Set when the configured level was unknown and supervised is used instead. */
  readonly notice: string | null;
  private readonly auto: (tool: string) => boolean;
  private readonly always: (tool: string) => boolean;

  constructor(settings: AutonomySettings) {
    const known = (AUTONOMY_LEVELS as readonly string[]).includes(settings.level);
    this.level = known ? (settings.level as AutonomyLevel) : 'supervised';
    this.notice = known ? null : `unknown autonomy level ${JSON.stringify(settings.level)}; using supervised (one of ${AUTONOMY_LEVELS.join(', ')})`;
    this.auto = toolMatcher(settings.autoApprove ?? []);
    this.always = toolMatcher(settings.alwaysAsk ?? []);
  }

  isAutoApprove(tool: string): boolean {
    return this.auto(tool);
  }
  isAlwaysAsk(tool: string): boolean {
    return this.always(tool);
  }
}

function toolMatcher(globs: readonly string[]): (tool: string) => boolean {
  const valid = globs.filter((g) => typeof g === 'string' && g.trim() !== '');
  if (valid.length === 0) return () => false;
  const m = picomatch(valid as string[], { dot: true });
  return (tool) => m(tool);
}

/** True when the call only reads: at least one operation, and all of them `read`. */
export function isPureRead(x: Extraction): boolean {
  return x.operations.length > 0 && !x.evasive && x.operations.every((op) => op === 'read');
}

// ---- session taint --------------------------------------------------------------------------------

export const CLASSIFICATIONS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'RESTRICTED'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

const rank = (c: Classification) => CLASSIFICATIONS.indexOf(c);

/**
 * A classification from configuration. Unknown values are read fail-closed: as RESTRICTED for
 * what a session has seen (`source`), as PUBLIC for where data would go (`sink`).
 */
export function parseClassification(value: unknown, role: 'source' | 'sink'): Classification {
  const v = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if ((CLASSIFICATIONS as readonly string[]).includes(v)) return v as Classification;
  return role === 'source' ? 'RESTRICTED' : 'PUBLIC';
}

export type TaintCheck = { ok: true } | { ok: false; reason: string };

/** What one session has seen: the highest classification of any plugin result it received. */
export class SessionTaint {
  private current: Classification = 'PUBLIC';
  private raisedBy: string | null = null;

  get level(): Classification {
    return this.current;
  }

  /** A plugin's result reached the session; never lowers. */
  raise(level: Classification, source?: string): void {
    if (rank(level) > rank(this.current)) {
      this.current = level;
      this.raisedBy = source ?? null;
    }
  }

  /** May data from this session go to a sink of `sinkLevel`? */
  check(sinkLevel: Classification): TaintCheck {
    if (rank(sinkLevel) >= rank(this.current)) return { ok: true };
    return {
      ok: false,
      reason: `write-down: this session holds ${this.current} data${this.raisedBy ? ` (from ${this.raisedBy})` : ''} and the call would send it to ${/^[AEIOU]/.test(sinkLevel) ? 'an' : 'a'} ${sinkLevel} destination`,
    };
  }
}

/** Taint per session id. */
export class TaintRegistry {
  private readonly sessions = new Map<string, SessionTaint>();
  get(session: string): SessionTaint {
    let t = this.sessions.get(session);
    if (!t) this.sessions.set(session, (t = new SessionTaint()));
    return t;
  }
  forget(session: string): void {
    this.sessions.delete(session);
  }
}

// ---- combining ------------------------------------------------------------------------------------

export interface DecideInput {
  call: ToolCall;
  extraction: Extraction;
  /** The rules step (evaluatePolicy). */
  policy: PolicyResult;
  autonomy: Autonomy;
  taint?: SessionTaint | undefined;
  /** The classification of the plugin that runs the tool (a sink for the call's arguments). */
  toolClassification?: Classification | undefined;
  /** Classification of the network (default PUBLIC): a network operation sends data there. */
  networkClassification?: Classification | undefined;
  /** A live grant covering this call (from the approvals inbox), by id. */
  grant?: string | undefined;
  /**
   * The tool can only read: a plugin the sandbox holds with no write paths and no hosts. Its
   * calls extract as `execute` (an unknown tool runs something), which the sandbox bounds to reads.
   */
  toolReadsOnly?: boolean | undefined;
}

/**
 * A call that only reads: its extraction says so, or the tool is a confined reader whose call
 * extracts nothing beyond reading and running it (no write, delete or network named in its
 * arguments). Anything evasive stays unsure. Widening this lets calls through at `supervised`
 * and `read-only` without an operator.
 */
function readsOnly(x: Extraction, toolReadsOnly: boolean): boolean {
  if (isPureRead(x)) return true;
  return toolReadsOnly && !x.evasive && x.operations.every((op) => op === 'read' || op === 'execute');
}

export interface FinalDecision {
  decision: Decision;
  decider: Decider;
  /** One sentence for the agent, the inbox and the audit log. */
  reason: string;
}

export const TAINT_RULE = 'builtin.taint-write-down';
/** The built-in rule that asks about calls static analysis cannot see through. */
export const EVASIVE_RULE = 'builtin.evasive-command';

export function decideCall(input: DecideInput): FinalDecision {
  const { policy, autonomy, extraction: x, call } = input;
  const level = autonomy.level;
  const levelDecider: Decider = { kind: 'autonomy', level };
  const top = policy.decisive;

  if (policy.decision === 'deny') return { decision: 'deny', decider: policy.decider, reason: policy.reason };

  if (input.taint) {
    const sinks: Array<[Classification, string]> = [];
    if (x.operations.includes('network')) sinks.push([input.networkClassification ?? 'PUBLIC', 'the network']);
    if (input.toolClassification) sinks.push([input.toolClassification, `tool ${call.tool}`]);
    for (const [sink, what] of sinks) {
      const c = input.taint.check(sink);
      if (!c.ok) return { decision: 'deny', decider: { kind: 'rule', rule: TAINT_RULE, origin: 'session taint' }, reason: `${c.reason} (${what}).` };
    }
  }

  const reads = readsOnly(x, input.toolReadsOnly === true);
  const confined = reads && !isPureRead(x) ? ` (${call.tool} runs in the sandbox with no write paths and no hosts)` : '';
  if (level === 'read-only' && !reads) {
    const what = x.evasive ? 'a command Gatehouse cannot see through' : x.operations.length === 0 ? 'a call with no known operations' : `${x.operations.filter((o) => o !== 'read').join(', ')}`;
    return { decision: 'deny', decider: levelDecider, reason: `Autonomy is read-only and this call is not a read (${what}).` };
  }

  if (autonomy.isAlwaysAsk(call.tool)) return { decision: 'ask', decider: levelDecider, reason: `Tool ${call.tool} is on the always-ask list.` };

  if (top && top.decision === 'ask') return { decision: 'ask', decider: policy.decider, reason: policy.reason };

  // Unsure means ask. The built-in evasive rule normally said so above; this holds whatever the
  // rules step answered (a rule set without that rule, an allow rule) and before every way to
  // allow without an operator: a grant, the auto-approve list, full autonomy.
  if (x.evasive) {
    const why = x.evasiveReasons.join('; ') || 'static analysis cannot see through the call';
    return { decision: 'ask', decider: { kind: 'rule', rule: EVASIVE_RULE, origin: 'builtin' }, reason: `Gatehouse cannot tell what this call does (${why}); an operator must look at it.` };
  }

  if (input.grant) return { decision: 'allow', decider: { kind: 'grant', grant: input.grant }, reason: `Allowed by grant ${input.grant}.` };

  if (top && top.decision === 'allow') return { decision: 'allow', decider: policy.decider, reason: policy.reason };

  if (autonomy.isAutoApprove(call.tool)) return { decision: 'allow', decider: levelDecider, reason: `Tool ${call.tool} is on the auto-approve list.` };

  switch (level) {
    case 'full':
      return { decision: 'allow', decider: levelDecider, reason: 'Autonomy is full and no rule objects.' };
    case 'read-only':
      return { decision: 'allow', decider: levelDecider, reason: `Autonomy is read-only and this call only reads${confined}.` };
    case 'supervised':
      return reads
        ? { decision: 'allow', decider: levelDecider, reason: `Autonomy is supervised and this call only reads${confined}.` }
        : { decision: 'ask', decider: levelDecider, reason: 'Autonomy is supervised: calls that do more than read need an operator.' };
  }
}
