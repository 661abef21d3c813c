// What became of a hook-supervised call. Claude Code runs its tools itself, so PreToolUse only
// tells Gatehouse what was about to happen; the PostToolUse (ran) and PostToolUseFailure (failed)
// reports say what did. Each report is matched to its PreToolUse call by the tool_use_id in the
// agent's bound session, recorded as a `call.outcome` event with a bounded, redacted summary of
// what the tool returned, and raises the session's taint when the tool has a classification.
//
// A call whose report never comes keeps only its `call.result` with `ranBy: "agent"`: the console
// shows it as "outcome unknown", never as "did not run" (Claude Code may have run it: the hook
// timed out, Claude Code was killed, or the PostToolUse hook is not installed).
import type { RecordFn } from '../approvals/types.js';
import { redactText } from '../audit/redact.js';
import type { Classification, TaintRegistry } from '../policy/autonomy.js';
import { boundSession, type AgentIdentity } from './agent-tokens.js';
import type { PostHookInput } from './claude-hook.js';

/** The most of a tool's response kept in the audit log (characters, after redaction). */
export const OUTCOME_SUMMARY_MAX = 2048;
/** The most of a response that is looked at at all: redaction is linear, but a Read can return megabytes. */
const OUTCOME_SCAN_MAX = 64 * 1024;
/** PreToolUse calls remembered for matching; the oldest is forgotten first (its report then records no call id). */
const REMEMBERED_MAX = 10_000;

export interface HookOutcomesDeps {
  record: RecordFn;
  taint: TaintRegistry;
  /** The classification of the tool, when Gatehouse knows one (a plugin's); undefined for Claude Code's own tools. */
  classify: (tool: string) => Classification | undefined;
  log?: (msg: string, err?: unknown) => void;
}

interface Expected {
  /** Null for a request that was not judged (hook.expired). */
  call: string | null;
  tool: string;
  decision: string;
  /** It was answered with the boxed command (call.contained). */
  contained?: boolean;
}

export interface OutcomeRecord {
  call: string | null;
  outcome: 'executed' | 'failed';
}

export class HookOutcomes {
  private readonly expected = new Map<string, Expected>();
  /** Reports that came before their PreToolUse call was decided. */
  private readonly early = new Map<string, { agent: string; outcome: OutcomeRecord['outcome'] }>();

  constructor(private readonly deps: HookOutcomesDeps) {}

  /** Remembers a decided PreToolUse call, so its report can name it. */
  expect(session: string, toolUseId: string | undefined, e: Expected): void {
    if (!toolUseId) return;
    const key = keyOf(session, toolUseId);
    // Its report came first (two connections, answered in either order): linked now.
    const early = this.early.get(key);
    if (early) {
      this.early.delete(key);
      this.deps.record('call.outcome-linked', `agent:${early.agent}`, { call: e.call, toolUseId, session, outcome: early.outcome, decision: e.decision });
      this.bypassed(early.agent, session, toolUseId, e, early.outcome);
      return;
    }
    this.expected.delete(key);
    this.expected.set(key, e);
    if (this.expected.size > REMEMBERED_MAX) this.expected.delete(this.expected.keys().next().value!);
  }

  /**
   * A PreToolUse request read after its hook gave up, answered without judging it: recorded as
   * hook.expired, and remembered so that the report of the tool running anyway is linked to it.
   */
  expired(agent: AgentIdentity, session: string, toolUseId: string | undefined, tool: string, reason: string): void {
    this.deps.record('hook.expired', `agent:${agent.name}`, { agent: agent.name, session, tool, toolUseId: toolUseId ?? null, reason });
    this.expect(session, toolUseId, { call: null, tool, decision: 'expired' });
  }

  /**
   * The tool ran although Gatehouse did not answer allow (its answer was deny or ask and Claude
   * Code ran it anyway, or the hook gave up first): a first-class event, not a footnote of
   * call.outcome, so the console and a search for bypasses find it.
   */
  private bypassed(agent: string, session: string, toolUseId: string, e: Expected, outcome: OutcomeRecord['outcome']): void {
    if (e.decision === 'allow') return;
    this.deps.record('call.bypassed', `agent:${agent}`, { call: e.call, agent, session, tool: e.tool, toolUseId, decision: e.decision, outcome });
  }

  /** Records a PostToolUse / PostToolUseFailure report of `agent`'s session. */
  report(agent: AgentIdentity, input: PostHookInput): OutcomeRecord {
    const session = boundSession(agent.name, input.session_id);
    const key = keyOf(session, input.tool_use_id);
    const pre = this.expected.get(key);
    // One report per call: a second one (a retried hook) records again but names no call twice.
    if (pre) this.expected.delete(key);
    else {
      // Its PreToolUse may still be on its way (answered on another connection): linked when it comes.
      this.early.set(key, { agent: agent.name, outcome: input.hook_event_name === 'PostToolUseFailure' ? 'failed' : 'executed' });
      if (this.early.size > REMEMBERED_MAX) this.early.delete(this.early.keys().next().value!);
    }
    const failed = input.hook_event_name === 'PostToolUseFailure';
    const { summary, bytes, truncated } = summarize(failed ? input.error : input.tool_response);
    const outcome: OutcomeRecord['outcome'] = failed ? 'failed' : 'executed';
    this.deps.record('call.outcome', `agent:${agent.name}`, {
      call: pre?.call ?? null,
      agent: agent.name,
      session,
      tool: input.tool_name,
      toolUseId: input.tool_use_id,
      outcome,
      // What Gatehouse had answered (null: no PreToolUse call of this session and id is known, e.g.
      // the host restarted in between). "deny" here means the tool ran although Gatehouse said no.
      decision: pre?.decision ?? null,
      summary,
      bytes,
      truncated,
      durationMs: typeof input.duration_ms === 'number' ? input.duration_ms : null,
      interrupted: input.is_interrupt === true,
      contained: pre ? pre.contained === true : null,
    });
    if (pre) this.bypassed(agent.name, session, input.tool_use_id, pre, outcome);
    // What the tool returned is now in the agent's context (as for a plugin's result in gateway.ts).
    if (!failed) {
      const level = this.deps.classify(input.tool_name);
      if (level) this.deps.taint.get(session).raise(level, input.tool_name);
    }
    return { call: pre?.call ?? null, outcome };
  }
}

function keyOf(session: string, toolUseId: string): string {
  return `${session}\u0000${toolUseId}`;
}

/** The response as text: redacted first (a secret cut in half would escape the patterns), then cut. */
export function summarize(v: unknown): { summary: string; bytes: number; truncated: boolean } {
  let text: string;
  if (typeof v === 'string') text = v;
  else {
    try {
      text = JSON.stringify(v ?? null) ?? 'null';
    } catch (err) {
      // Nested deeper than the stack goes (String(v) of such an array recursed as deep and threw
      // too, and the outcome went unrecorded): the report is recorded, saying so.
      text = `(a response Gatehouse could not write out: ${(err as Error).message})`;
    }
  }
  const bytes = Buffer.byteLength(text);
  const redacted = redactText(text.slice(0, OUTCOME_SCAN_MAX));
  const truncated = redacted.length > OUTCOME_SUMMARY_MAX || text.length > OUTCOME_SCAN_MAX;
  return { summary: redacted.slice(0, OUTCOME_SUMMARY_MAX), bytes, truncated };
}
