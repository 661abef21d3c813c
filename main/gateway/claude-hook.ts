// Claude Code hooks (docs/protocols.md §3): the input Claude Code sends, and the answer Gatehouse
// gives. Claude Code runs the tool itself, so a hook call is decided, never executed here; a
// PostToolUse (or PostToolUseFailure) report then says whether it ran (hook-outcomes.ts).
//
// How each outcome of PreToolUse is answered:
//  - allowed by an operator, a grant or an explicit allow rule → "allow" (Claude Code runs it
//    without asking its user);
//  - allowed by autonomy alone → by the `hookAutonomyAllow` setting: "defer" (default) answers
//    with no decision, so Claude Code's own permission rules and prompts still apply ("allow"
//    switches them off: Claude Code skips its prompt after a hook's allow); "allow" answers allow;
//  - deny, expired → "deny" with the reason and the decider (shown to the model);
//  - ask → by the `hookAsk` setting: "agent" answers "ask" at once (Claude Code asks its user;
//    in `claude -p` that is a denial), "inbox" waits for an operator here, at most until the
//    hook's own deadline less a margin, and answers allow or deny;
//  - dry-run mode → "ask", saying what Gatehouse would have done: in dry-run Gatehouse lets
//    nothing through on its own say, and Claude Code's own permission prompt stays in charge;
//  - a Bash call let through without an operator reading it (the `containment` setting: full
//    autonomy, grants by default) → "allow" with `updatedInput`, the command wrapped to run in
//    the box (runner/containment.ts), whatever `hookAutonomyAllow` says.
import { z } from 'zod';
import { describeIssues } from '../core/handlers.js';
import { describeDecider } from '../pipeline/call-pipeline.js';
import type { Gateway, GatewayResult } from './gateway.js';
import { CLAUDE_HOOK_TIMEOUT_S, HOOK_MARGIN_MS, hookAnswer, NO_DECISION, type HookReply } from './hook-answer.js';
import { boundSession, SAFE_NAME, SAFE_NAME_RULE, type AgentIdentity } from './agent-tokens.js';
import { OWN_TOOL_FIELD } from './own-tools.js';

export { hookAnswer, unreachableAnswer, NO_DECISION, isNoDecision, CLAUDE_HOOK_TIMEOUT_S, HOOK_MARGIN_MS, HOOK_DEADLINE_HEADER, HOOK_SENT_AT_HEADER, HOOK_CLIENT_HEADER, type HookAnswer, type HookReply, type PermissionDecision } from './hook-answer.js';

/** The hook events Gatehouse is configured for. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

// What every tool event carries (Claude Code also sends prompt_id, effort and more: kept loose).
const toolEventFields = {
  // Names what the call is filed under (namespaced by the agent): nothing a terminal or the inbox could interpret.
  session_id: z.string().regex(SAFE_NAME, `session_id must be ${SAFE_NAME_RULE}`),
  transcript_path: z.string().max(4096).optional(),
  cwd: z.string().min(1).max(4096),
  tool_name: z.string().min(1).max(200),
  tool_input: z.record(z.string(), z.unknown()).nullable().default({}),
  tool_use_id: z.string().max(500).optional(),
  permission_mode: z.string().max(100).optional(),
};

export const hookInputSchema = z
  .object({
    ...toolEventFields,
    hook_event_name: z.literal('PreToolUse', { error: 'hook_event_name must be "PreToolUse" (or "PostToolUse" / "PostToolUseFailure" for the reports of what ran); configure Gatehouse only for these hook events' }),
    // Set by Gatehouse's own hook command for an agent whose tool names only look like Gatehouse's (own-tools.ts).
    [OWN_TOOL_FIELD]: z.string().min(1).max(200).optional(),
  })
  .loose();
export type HookInput = z.output<typeof hookInputSchema>;

/** A report that the tool ran (PostToolUse, with its response) or failed (PostToolUseFailure, with the error). */
export const postHookInputSchema = z
  .object({
    ...toolEventFields,
    hook_event_name: z.enum(['PostToolUse', 'PostToolUseFailure']),
    tool_use_id: z.string().min(1, 'tool_use_id is needed to match the report to its PreToolUse call').max(500),
    tool_response: z.unknown().optional(),
    error: z.unknown().optional(),
    is_interrupt: z.boolean().optional(),
    duration_ms: z.number().nonnegative().optional(),
  })
  .loose();
export type PostHookInput = z.output<typeof postHookInputSchema>;

/** Parses a hook's JSON text; the error names the field and says what to send. */
export function parseHookInput(text: string): { ok: true; input: HookInput } | { ok: true; post: PostHookInput } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects Claude Code's PreToolUse, PostToolUse or PostToolUseFailure hook input.` };
  }
  const event = (raw as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (event === 'PostToolUse' || event === 'PostToolUseFailure') {
    const p = postHookInputSchema.safeParse(raw);
    if (!p.success) return { ok: false, message: `The hook input is not a ${event} hook input: ${describeIssues(p.error).message}.` };
    return { ok: true, post: p.data };
  }
  const r = hookInputSchema.safeParse(raw);
  if (!r.success) return { ok: false, message: `The hook input is not a PreToolUse hook input: ${describeIssues(r.error).message}.` };
  return { ok: true, input: r.data };
}

/** The client label of a hook call (the agent is the token's name). */
export const CLAUDE_CODE_AGENT = 'claude-code';

export interface DecideHookOptions {
  /** The `hookAsk` setting. */
  askMode: 'agent' | 'inbox';
  /** The `hookAutonomyAllow` setting. */
  autonomyAllow: 'defer' | 'allow';
  /** The hook gives up this long after it sent the request: an inbox wait ends before (HOOK_MARGIN_MS). */
  deadlineMs?: number | undefined;
  /** Aborted when the hook's connection closes: a waiting item is withdrawn, never approved for nobody. */
  signal?: AbortSignal | undefined;
  /** The agent whose hook sent the call (HOOK_CLIENT_HEADER); Claude Code's when not said. */
  client?: string | undefined;
}

/** How long an inbox item of a hook call may wait: its deadline less the margin, at least 1 s. */
export function hookApprovalWindowMs(deadlineMs: number | undefined): number {
  const deadline = deadlineMs ?? CLAUDE_HOOK_TIMEOUT_S * 1000;
  return Math.max(1_000, deadline - HOOK_MARGIN_MS);
}

/**
 * The call is filed under the agent whose token the hook presented, in that agent's namespace of
 * sessions: another token sending the same session_id gets another session, so it can never use
 * a grant given to this one.
 */
export async function decideHook(gateway: Gateway, input: HookInput, opts: DecideHookOptions, agent: AgentIdentity): Promise<{ answer: HookReply; result: GatewayResult }> {
  const result = await gateway.call(
    { agent: agent.name, client: opts.client ?? CLAUDE_CODE_AGENT, session: boundSession(agent.name, input.session_id), tool: input.tool_name, arguments: input.tool_input, cwd: input.cwd, source: 'hook' },
    {
      execute: false,
      // Claude Code runs the input it is answered with: a let-through Bash command can be boxed.
      containable: true,
      ask: opts.askMode === 'inbox' ? 'queue' : 'return',
      // The inbox never offers a call whose hook has already given up (Claude Code would have run
      // or dropped it by then, whatever the operator chooses).
      approvalExpiresInMs: hookApprovalWindowMs(opts.deadlineMs),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  return { answer: answerFor(result, opts.autonomyAllow), result };
}

export function answerFor(r: GatewayResult, autonomyAllow: 'defer' | 'allow' = 'defer'): HookReply {
  const by = `Gatehouse (${describeDecider(r.decider)})`;
  // Dry-run (mayRun in call-pipeline.ts): nothing is let through on Gatehouse's say.
  if (r.mode === 'dry-run' && r.decision !== 'deny' && r.decision !== 'expired') {
    const would = r.decision === 'allow' ? 'allowed' : 'asked an operator about';
    return hookAnswer('ask', `${by} is in dry-run mode: it would have ${would} this call (${r.reason}). Nothing is let through on its say in dry-run.`);
  }
  if (r.mode === 'dry-run') return hookAnswer('ask', `${by} is in dry-run mode: it would have denied this call: ${r.reason}`);
  switch (r.decision) {
    case 'allow':
      // Let through on the condition that it runs in the box: "allow" with the boxed command,
      // the one form Claude Code runs a replaced input in without a prompt of its own (with no
      // decision its permission checks would judge the box's command line, not the agent's).
      if (r.contained?.contained) return hookAnswer('allow', `${by}: ${r.reason} It runs contained (${r.contained.box}): credentials and Gatehouse's data folder are hidden, and only the project and temp folders are writable.`, r.contained.input);
      // Autonomy only means "Gatehouse has no objection": Claude Code's own rules still decide.
      if (r.decider.kind === 'autonomy' && autonomyAllow === 'defer') return NO_DECISION;
      return hookAnswer('allow', `${by}: ${r.reason}`);
    case 'ask':
      return hookAnswer('ask', `${by} asks: ${r.reason}`);
    case 'expired':
      return hookAnswer('deny', `${by}: ${r.reason}`);
    case 'deny':
      return hookAnswer('deny', `${by} denied this call: ${r.reason}`);
  }
}
