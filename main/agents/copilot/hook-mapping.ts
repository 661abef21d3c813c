// GitHub Copilot CLI's preToolUse hook, mapped onto the PreToolUse input the host judges and back.
// Loaded by `gatehouse hook --agent copilot` before every tool call, so it uses nothing but Node's
// own modules.
//
// What Copilot CLI 1.0.102 sends and does with a command hook's answer (its hooks reference,
// docs.github.com/en/copilot/reference/hooks-reference, and measured against the real CLI,
// docs/protocols.md): stdin is {"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}; stdout
// is ONE JSON object {"permissionDecision": "allow"|"deny"|"ask", "permissionDecisionReason",
// "modifiedArgs"}. A deny reaches the model as "Denied by preToolUse hook: <reason>"; an exit 2
// or any other non-zero exit is a deny whatever stdout says ("hook exited with code 2" when stdout
// is not one JSON object); but stdout that is not JSON with exit 0, an empty stdout, or a hook
// killed at its timeoutSec give no decision, and the tool runs. So every deny here is the JSON
// AND exit 2: a deny whose JSON is damaged on the way still blocks.
// Security-sensitive: an exit 0 without a JSON deny on stdout lets the call run.
import { isAbsolute, resolve } from 'node:path';

/** Copilot CLI's built-in tools, as the judge knows their kind (Claude Code's names, whose inputs it reads by field). */
const TOOLS: Record<string, { as: string; input: (i: Record<string, unknown>) => Record<string, unknown> }> = {
  view: { as: 'Read', input: (i) => ({ file_path: i.path }) },
  create: { as: 'Write', input: (i) => ({ file_path: i.path, content: i.file_text }) },
  edit: { as: 'Edit', input: (i) => ({ file_path: i.path, old_string: i.old_str, new_string: i.new_str }) },
  bash: { as: 'Bash', input: (i) => ({ command: i.command }) },
  glob: { as: 'Glob', input: (i) => ({ pattern: i.pattern }) },
  grep: { as: 'Grep', input: (i) => ({ pattern: i.pattern, ...(typeof i.path === 'string' ? { path: i.path } : {}) }) },
};

/**
 * The MCP server name Gatehouse is written under: Copilot CLI names its tools `gatehouse-<tool>`,
 * and they are judged when Gatehouse receives the call, not twice. Security-sensitive: a tool of
 * another server whose name starts "gatehouse-" passes this hook unjudged (mcp-config.json, where
 * such a server would be named, is protected by builtin.agent-supervision).
 */
const OWN_PREFIX = 'gatehouse-';

export type CopilotHookInput = { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };

/** The host's PreToolUse input for a preToolUse input (`judge`), none for Gatehouse's own MCP tools (`skip`), or why it cannot be judged. */
export function fromCopilotInput(text: string): CopilotHookInput {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return { invalid: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects Copilot CLI's preToolUse hook input.` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { invalid: 'The hook input is not a JSON object. Gatehouse expects Copilot CLI\'s preToolUse hook input.' };
  // The PascalCase event names send Claude Code's snake_case payload instead: configure the camelCase one.
  if ('hook_event_name' in raw || 'tool_name' in raw) return { invalid: 'This is a PascalCase (Claude Code style) hook input: configure `gatehouse hook --agent copilot` under "preToolUse".' };
  const tool = raw.toolName;
  if (typeof tool !== 'string' || tool === '') return { invalid: 'toolName is missing from the preToolUse input: configure `gatehouse hook --agent copilot` for preToolUse only.' };
  // toolArgs is an object as 1.0.102 sends it; older versions sent it as a JSON string.
  let args: unknown = raw.toolArgs ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { invalid: `toolArgs of ${tool} is a string that is not JSON.` };
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { invalid: `toolArgs of ${tool} is not an object.` };
  const toolInput = args as Record<string, unknown>;
  if (tool.startsWith(OWN_PREFIX)) return { skip: `${tool} is Gatehouse's own tool, judged when Gatehouse receives the call.` };
  const cwd = typeof raw.cwd === 'string' ? raw.cwd : '';
  const known = TOOLS[tool];
  // A field the mapping does not know stays in the input (judged by its name, as any tool's), the mapped ones replace theirs.
  const mapped = known ? { ...toolInput, ...dropUndefined(known.input(toolInput)) } : toolInput;
  // Relative paths are the workspace's: the judge resolves them against cwd.
  if (known && typeof mapped.file_path === 'string' && mapped.file_path !== '' && !isAbsolute(mapped.file_path) && cwd) mapped.file_path = resolve(cwd, mapped.file_path);
  const judge = JSON.stringify({ session_id: raw.sessionId, transcript_path: '', cwd, hook_event_name: 'PreToolUse', tool_name: known ? known.as : tool, tool_input: mapped });
  return { judge, tool, toolInput };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What the hook process does: its exit code and stdout. */
export interface CopilotHookResult {
  code: 0 | 2;
  stdout: string;
}

/**
 * The host's answer (Claude Code's PreToolUse shape) as Copilot CLI reads it. deny → the JSON
 * deny and exit 2; ask → Copilot CLI's own "ask" (it asks its user; in -p, where it cannot, it
 * denies: measured); allow → {"permissionDecision": "allow"} (with the boxed command as
 * modifiedArgs for a contained shell call, which Copilot CLI runs instead: measured); no decision
 * → exit 0 and nothing, so Copilot CLI's own permission flow decides.
 */
export function toCopilotAnswer(reply: unknown, original: { tool: string; toolInput: Record<string, unknown> } | null): CopilotHookResult {
  const out = (reply as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; updatedInput?: Record<string, unknown> } } | null)?.hookSpecificOutput;
  if (!out) return { code: 0, stdout: '' };
  const reason = typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason !== '' ? out.permissionDecisionReason : 'Gatehouse gave no reason.';
  if (out.permissionDecision === 'allow') {
    const modified = out.updatedInput && original?.tool === 'bash' && typeof out.updatedInput.command === 'string' ? { ...original.toolInput, command: out.updatedInput.command } : null;
    if (out.updatedInput && !modified) return copilotDeny(`Gatehouse let this call through only with a changed input, which Copilot CLI's ${original?.tool ?? 'tool'} cannot take; it is blocked. ${reason}`);
    return { code: 0, stdout: `${JSON.stringify({ permissionDecision: 'allow', permissionDecisionReason: oneLine(reason), ...(modified ? { modifiedArgs: modified } : {}) })}\n` };
  }
  if (out.permissionDecision === 'ask') return { code: 0, stdout: `${JSON.stringify({ permissionDecision: 'ask', permissionDecisionReason: oneLine(reason) })}\n` };
  return copilotDeny(reason);
}

/** A deny as Copilot CLI shows it to the model: one JSON object on stdout, and exit 2 in case it is not read. */
export function copilotDeny(reason: string): CopilotHookResult {
  return { code: 2, stdout: `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: oneLine(reason) || 'Gatehouse blocked this call.' })}\n` };
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
