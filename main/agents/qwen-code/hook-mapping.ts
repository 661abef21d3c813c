// Qwen Code's PreToolUse hook, mapped onto the input the host judges and back. Loaded by
// `gatehouse hook --agent qwen-code` before every tool call, so it uses nothing but Node's own
// modules (and the Gemini table it shares, itself Node-only).
//
// Qwen Code 0.24 is a fork of Gemini CLI whose hooks took Claude Code's contract (bundle:
// firePreToolUseHook, HookRunner.executeCommandHook, PreToolUseHookOutput; measured, see
// docs/protocols.md): the input is Claude Code's PreToolUse input (session_id, transcript_path,
// cwd, hook_event_name, tool_name, tool_input, and a tool_use_id its PostToolUse report repeats),
// and it honours hookSpecificOutput.permissionDecision allow / deny / ask with its reason. What
// differs: the tools keep Gemini CLI's names and fields, and an allow's updatedInput is ignored
// (the tool would run with the input Gatehouse did not let through), so that answer becomes a deny.
// Security-sensitive: Qwen Code runs the tool after a hook that exits with any code but 0 or 2,
// exits 2 with no text, prints a broken JSON object, or times out. Every answer here is exit 0
// with JSON on stdout; the command Gatehouse writes turns its own failures into exit 2 with text.
import { isAbsolute, resolve } from 'node:path';
import { dropUndefined, GEMINI_TOOLS, type ToolMapping } from '../gemini/hook-mapping.js';
import { OWN_TOOL_FIELD, OWN_TOOL_PREFIXES, ownToolName } from '../../gateway/own-tools.js';

/** Qwen Code's built-in tools as the judge knows them: Gemini CLI's, with Qwen Code's own names and fields. */
const QWEN_TOOLS: ToolMapping = {
  ...GEMINI_TOOLS,
  // SECURITY: Qwen Code's list_directory, glob and grep_search take their folder as `path` (its
  // LSTool, GlobTool, GrepTool), not Gemini CLI's `dir_path`, and their schemas accept other
  // fields: Gemini CLI's mapping judged a call carrying both on the `dir_path` Qwen Code ignores
  // ({path: ~/.ssh, dir_path: <project>} was judged a listing of the project). Only `path` here.
  list_directory: { as: 'LS', input: (i) => ({ path: i.path }) },
  glob: { as: 'Glob', input: (i) => ({ pattern: i.pattern, path: i.path }) },
  grep_search: { as: 'Grep', input: (i) => ({ pattern: i.pattern, path: i.path }) },
  edit: GEMINI_TOOLS.replace!,
  web_fetch: { as: 'WebFetch', input: (i) => ({ url: i.url, prompt: i.prompt }) },
  notebook_edit: { as: 'NotebookEdit', input: (i) => ({ notebook_path: i.notebook_path, new_source: i.new_source }) },
};

/** Qwen Code names the tools of Gatehouse's MCP server `mcp__gatehouse__<tool>` (gateway/own-tools.ts says how they are told apart). */
const OWN_TOOL_PREFIX = OWN_TOOL_PREFIXES['qwen-code'];

/** The events `gatehouse hook --agent qwen-code` is written for. */
const EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

export type QwenHookInput = { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };

/**
 * The host's input for a PreToolUse input (or a PostToolUse / PostToolUseFailure report, which the
 * host records and answers with no decision), none for Gatehouse's own MCP tools, or why not.
 */
export function fromQwenInput(text: string): QwenHookInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { invalid: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects Qwen Code's PreToolUse hook input.` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { invalid: 'The hook input is not a JSON object. Gatehouse expects Qwen Code\'s PreToolUse hook input.' };
  const r = raw as Record<string, unknown>;
  if (typeof r.hook_event_name !== 'string' || !EVENTS.has(r.hook_event_name)) return { invalid: `hook_event_name is ${JSON.stringify(r.hook_event_name)}: configure \`gatehouse hook --agent qwen-code\` for PreToolUse, PostToolUse and PostToolUseFailure only.` };
  const named = r.tool_name;
  const given = r.tool_input;
  if (typeof named !== 'string' || named === '') return { invalid: `tool_name is missing from the ${r.hook_event_name} input.` };
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return { invalid: `tool_input of ${named} is not an object.` };
  let tool: string = named;
  let input: object = given;
  // tool_call runs a deferred tool by name: the tool it names is what runs, so that is what is judged.
  const wrapped = input as Record<string, unknown>;
  if (tool === 'tool_call' && typeof wrapped.name === 'string' && typeof wrapped.arguments === 'object' && wrapped.arguments !== null && !Array.isArray(wrapped.arguments)) {
    tool = wrapped.name;
    input = wrapped.arguments;
  }
  const toolInput = input as Record<string, unknown>;
  const own = ownToolName(tool, OWN_TOOL_PREFIX);
  // The report of a call to Gatehouse's own tool is not needed (Gatehouse ran it); the call itself is checked by the host.
  if (own !== undefined && r.hook_event_name !== 'PreToolUse') return { skip: `${tool} is Gatehouse's own tool, recorded when Gatehouse ran it.` };
  let cwd = typeof r.cwd === 'string' ? r.cwd : '';
  // run_shell_command's directory is where the command runs: the judge resolves its paths there.
  if (tool === 'run_shell_command' && typeof toolInput.directory === 'string' && toolInput.directory !== '') cwd = isAbsolute(toolInput.directory) ? toolInput.directory : resolve(cwd, toolInput.directory);
  const known = QWEN_TOOLS[tool];
  // A field the mapping does not know stays in the input (judged by its name), the mapped ones replace theirs.
  const mapped = known ? { ...toolInput, ...dropUndefined(known.input(toolInput)) } : toolInput;
  // Qwen Code's own tool_use_id links its PostToolUse report to this call: kept as it came.
  const judge = JSON.stringify({ ...r, cwd, tool_name: known ? known.as : tool, tool_input: mapped, ...(own !== undefined ? { [OWN_TOOL_FIELD]: own } : {}) });
  return { judge, tool, toolInput };
}

/** What the hook process does: its exit code, stdout and stderr. */
export interface QwenHookResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/**
 * The host's answer (Claude Code's PreToolUse shape) as Qwen Code reads it: the same JSON, exit 0.
 * No decision is exit 0 and nothing (Qwen Code's own approval flow decides). An allow that
 * changes the input (a contained command) is a deny: Qwen Code would run the original.
 */
export function toQwenAnswer(reply: unknown, _original: { tool: string; toolInput: Record<string, unknown> } | null): QwenHookResult {
  const out = (reply as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; updatedInput?: unknown } } | null)?.hookSpecificOutput;
  if (!out) return { code: 0, stdout: '', stderr: '' };
  const reason = typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason !== '' ? out.permissionDecisionReason : 'Gatehouse gave no reason.';
  if (out.permissionDecision === 'allow' && out.updatedInput !== undefined) {
    return answer('deny', `Gatehouse let this call through only with a changed input, which Qwen Code does not take from a hook; it is blocked. ${reason}`);
  }
  if (out.permissionDecision === 'allow' || out.permissionDecision === 'ask' || out.permissionDecision === 'deny') return answer(out.permissionDecision, reason);
  return answer('deny', `Gatehouse's answer had no decision Qwen Code knows; the call is blocked. ${reason}`);
}

function answer(decision: 'allow' | 'deny' | 'ask', reason: string): QwenHookResult {
  const text = reason.replace(/\s*\n\s*/g, ' ').trim() || 'Gatehouse gave no reason.';
  return { code: 0, stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: text } })}\n`, stderr: '' };
}
