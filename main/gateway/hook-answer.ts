// The answer a Claude Code PreToolUse hook gives (docs/protocols.md §3). Kept apart from
// claude-hook.ts, which validates the input with zod: `gatehouse hook` builds its answers from
// this file alone, and loading zod was a third of its start-up before every tool call.
import { CLAUDE_HOOK_TIMEOUT_S } from '../../shared/claude-config.js';

/** Claude Code's own default hook timeout in seconds (both forms); "write it for me" writes it explicitly. */
export { CLAUDE_HOOK_TIMEOUT_S };
/**
 * How long `gatehouse hook` waits for the host unless given --timeout: Claude Code's own hook
 * timeout less 10 s, so the command answers (a deny at worst) before Claude Code gives up on it
 * (a hook that times out lets the call through). One deadline: the command sends it to the host
 * (HOOK_DEADLINE_HEADER), whose inbox item then closes HOOK_MARGIN_MS before it.
 */
export const HOOK_COMMAND_TIMEOUT_S = CLAUDE_HOOK_TIMEOUT_S - 10;
/** How long before the hook's deadline Gatehouse answers: the answer must arrive before Claude Code gives up. */
export const HOOK_MARGIN_MS = 5_000;
/**
 * The header a hook request carries with the hook's own deadline in milliseconds (how long the
 * sender waits): `gatehouse hook` sends its --timeout, the HTTP form as written by Gatehouse the
 * timeout written beside it. An inbox wait for that call ends HOOK_MARGIN_MS before it.
 */
export const HOOK_DEADLINE_HEADER = 'x-gatehouse-hook-deadline-ms';
/**
 * When the hook sent the request (epoch milliseconds; `gatehouse hook` sends it). With the
 * deadline it tells a request Gatehouse reads only after the hook gave up (the host was stopped
 * or stalled): such a request is not judged, since Claude Code has already gone its own way.
 */
export const HOOK_SENT_AT_HEADER = 'x-gatehouse-hook-sent-at';
/**
 * Which agent's hook sent the request (`gatehouse hook --agent`), so its calls are filed under
 * that agent's client name in the inbox, audit log and waterfall. A label only: who the caller
 * is comes from its token, and a value Gatehouse does not know is filed as Claude Code's.
 */
export const HOOK_CLIENT_HEADER = 'x-gatehouse-hook-client';

export type PermissionDecision = 'allow' | 'deny' | 'ask';
export interface HookAnswer {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: PermissionDecision;
    permissionDecisionReason: string;
    /** The tool's input replaced whole (the boxed command for a contained Bash call); Claude Code runs this instead. */
    updatedInput?: Record<string, unknown>;
  };
}

/**
 * "No decision": Claude Code goes on as if no hook had spoken, so its own permission rules and
 * prompts decide. Sent when only Gatehouse's autonomy would have allowed the call (an `allow`
 * switches Claude Code's prompts off) and as the answer to a PostToolUse report. An explicit body,
 * not an empty one, so `gatehouse hook` can tell it from a host that answered nothing.
 */
export interface NoDecision {
  continue: true;
}
export const NO_DECISION: NoDecision = { continue: true };
/** What the hook route answers: a decision, or none. */
export type HookReply = HookAnswer | NoDecision;

export function isNoDecision(v: unknown): v is NoDecision {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && (v as { continue?: unknown }).continue === true;
}

export function hookAnswer(decision: PermissionDecision, reason: string, updatedInput?: Record<string, unknown>): HookAnswer {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason, ...(updatedInput ? { updatedInput } : {}) } };
}

/** The answer when no host can be reached (command form): fail closed unless configured to ask. */
export function unreachableAnswer(mode: 'deny' | 'ask', detail: string): HookAnswer {
  const sentence = `Gatehouse is not running (${detail}), so it cannot check this call. Start it with \`gatehouse serve\` (or \`gatehouse\`, which opens the console).`;
  return hookAnswer(mode, sentence);
}
