// Claude Code `PreToolUse` hooks (PROTOCOLS.md section 3): the input Claude Code sends, and the
// answer Gatehouse gives. Claude Code runs the tool itself, so a hook call is decided, never
// executed here.
//
// How each outcome is answered:
//  - allow → "allow" (Claude Code runs it without asking its user);
//  - deny, expired → "deny" with the reason and the decider (shown to the model);
//  - ask → by the `hookAsk` setting: "agent" answers "ask" at once (Claude Code asks its user;
//    a command hook must answer within Claude Code's hook timeout, and a hook that times out
//    lets the call through), "inbox" waits for an operator here and answers allow or deny;
//  - dry-run mode → "ask", saying what Gatehouse would have done: in dry-run Gatehouse lets
//    nothing through on its own say, and Claude Code's own permission prompt stays in charge.
import { z } from 'zod';
import { describeIssues } from '../host/dispatcher.js';
import { describeDecider } from '../pipeline/call-pipeline.js';
import type { Gateway, GatewayResult } from './gateway.js';
import { hookAnswer, type HookAnswer } from './hook-answer.js';
import { boundSession, SAFE_NAME, SAFE_NAME_RULE, type AgentIdentity } from './agent-tokens.js';

export { hookAnswer, unreachableAnswer, type HookAnswer, type PermissionDecision } from './hook-answer.js';

export const hookInputSchema = z
  .object({
    // Names what the call is filed under (namespaced by the agent): nothing a terminal or the inbox could interpret.
    session_id: z.string().regex(SAFE_NAME, `session_id must be ${SAFE_NAME_RULE}`),
    transcript_path: z.string().max(4096).optional(),
    cwd: z.string().min(1).max(4096),
    hook_event_name: z.literal('PreToolUse', { error: 'hook_event_name must be "PreToolUse"; configure Gatehouse only as a PreToolUse hook' }),
    tool_name: z.string().min(1).max(200),
    tool_input: z.record(z.string(), z.unknown()).nullable().default({}),
    tool_use_id: z.string().max(500).optional(),
    permission_mode: z.string().max(100).optional(),
  })
  .loose();
export type HookInput = z.output<typeof hookInputSchema>;

/** Parses a hook's JSON text; the error names the field and says what to send. */
export function parseHookInput(text: string): { ok: true; input: HookInput } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects Claude Code's PreToolUse hook input.` };
  }
  const r = hookInputSchema.safeParse(raw);
  if (!r.success) return { ok: false, message: `The hook input is not a PreToolUse hook input: ${describeIssues(r.error).message}.` };
  return { ok: true, input: r.data };
}

/** The client label of a hook call (the agent is the token's name). */
export const CLAUDE_CODE_AGENT = 'claude-code';

/**
 * The call is filed under the agent whose token the hook presented, in that agent's namespace of
 * sessions: another token sending the same session_id gets another session, so it can never use
 * a grant given to this one.
 */
export async function decideHook(gateway: Gateway, input: HookInput, askMode: 'agent' | 'inbox', agent: AgentIdentity): Promise<{ answer: HookAnswer; result: GatewayResult }> {
  const result = await gateway.call(
    { agent: agent.name, client: CLAUDE_CODE_AGENT, session: boundSession(agent.name, input.session_id), tool: input.tool_name, arguments: input.tool_input, cwd: input.cwd, source: 'hook' },
    { execute: false, ask: askMode === 'inbox' ? 'queue' : 'return' },
  );
  return { answer: answerFor(result), result };
}

export function answerFor(r: GatewayResult): HookAnswer {
  const by = `Gatehouse (${describeDecider(r.decider)})`;
  if (r.mode === 'dry-run' && r.decision !== 'deny' && r.decision !== 'expired') {
    const would = r.decision === 'allow' ? 'allowed' : 'asked an operator about';
    return hookAnswer('ask', `${by} is in dry-run mode: it would have ${would} this call (${r.reason}). Nothing is let through on its say in dry-run.`);
  }
  if (r.mode === 'dry-run') return hookAnswer('ask', `${by} is in dry-run mode: it would have denied this call: ${r.reason}`);
  switch (r.decision) {
    case 'allow':
      return hookAnswer('allow', `${by}: ${r.reason}`);
    case 'ask':
      return hookAnswer('ask', `${by} asks: ${r.reason}`);
    case 'expired':
      return hookAnswer('deny', `${by}: ${r.reason}`);
    case 'deny':
      return hookAnswer('deny', `${by} denied this call: ${r.reason}`);
  }
}
