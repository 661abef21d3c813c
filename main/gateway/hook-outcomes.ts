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
  call: string;
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

  constructor(private readonly deps: HookOutcomesDeps) {}

  /** Remembers a decided PreToolUse call, so its report can name it. */
  expect(session: string, toolUseId: string | undefined, e: Expected): void {
    if (!toolUseId) return;
    const key = keyOf(session, toolUseId);
    this.expected.delete(key);
    this.expected.set(key, e);
    if (this.expected.size > REMEMBERED_MAX) this.expected.delete(this.expected.keys().next().value!);
  }

  /** Records a PostToolUse / PostToolUseFailure report of `agent`'s session. */
  report(agent: AgentIdentity, input: PostHookInput): OutcomeRecord {
    const session = boundSession(agent.name, input.session_id);
    const key = keyOf(session, input.tool_use_id);
    const pre = this.expected.get(key);
    // One report per call: a second one (a retried hook) records again but names no call twice.
    if (pre) this.expected.delete(key);
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
    } catch {
      text = String(v);
    }
  }
  const bytes = Buffer.byteLength(text);
  const redacted = redactText(text.slice(0, OUTCOME_SCAN_MAX));
  const truncated = redacted.length > OUTCOME_SUMMARY_MAX || text.length > OUTCOME_SCAN_MAX;
  return { summary: redacted.slice(0, OUTCOME_SUMMARY_MAX), bytes, truncated };
}
