// The answer a Claude Code PreToolUse hook gives (PROTOCOLS.md section 3). Kept apart from
// claude-hook.ts, which validates the input with zod: `gatehouse hook` builds its answers from
// this file alone, and loading zod was a third of its start-up before every tool call.
export type PermissionDecision = 'allow' | 'deny' | 'ask';
export interface HookAnswer {
  hookSpecificOutput: { hookEventName: 'PreToolUse'; permissionDecision: PermissionDecision; permissionDecisionReason: string };
}

export function hookAnswer(decision: PermissionDecision, reason: string): HookAnswer {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason } };
}

/** The answer when no host can be reached (command form): fail closed unless configured to ask. */
export function unreachableAnswer(mode: 'deny' | 'ask', detail: string): HookAnswer {
  const sentence = `Gatehouse is not running (${detail}), so it cannot check this call. Start it with \`gatehouse serve\` or \`gatehouse start\`.`;
  return hookAnswer(mode, sentence);
}
