// opencode's tool calls, as Gatehouse's opencode plugin hands them to `gatehouse hook --agent
// opencode`, mapped onto the PreToolUse / PostToolUse input the host judges and back. Loaded by
// the hook command before every tool call, so it uses nothing but Node's own modules.
//
// opencode (1.18) has no command hooks: a plugin's `tool.execute.before(input, output)` runs
// before every tool (its own, MCP tools named `<server>_<tool>`, the `task` subagent tool) and
// blocks it by throwing; the model gets the error message as the tool's result. The plugin Gatehouse
// writes (plugin-source.ts) sends {event, tool, sessionID, callID, args, directory} on the
// command's stdin and reads one JSON line back: {"decision": "allow" | "none" | "deny", "reason",
// "args"}. It throws unless the command exited 0 with "allow" or "none", so every failure here
// (a crash, bad JSON, a missing field) blocks the call.
// Security-sensitive: an exit 0 with "allow" or "none" lets the call run.
import { isAbsolute, resolve } from 'node:path';
import { OWN_TOOL_FIELD, OWN_TOOL_PREFIXES, ownToolName } from '../../gateway/own-tools.js';

/** opencode's built-in tools, as the judge knows their kind (Claude Code's names, whose inputs it reads by field). */
const TOOLS: Record<string, { as: string; input: (i: Record<string, unknown>) => Record<string, unknown> }> = {
  read: { as: 'Read', input: (i) => ({ file_path: i.filePath }) },
  write: { as: 'Write', input: (i) => ({ file_path: i.filePath, content: i.content }) },
  edit: { as: 'Edit', input: (i) => ({ file_path: i.filePath, old_string: i.oldString, new_string: i.newString }) },
  bash: { as: 'Bash', input: (i) => ({ command: i.command }) },
  glob: { as: 'Glob', input: (i) => ({ pattern: i.pattern, path: i.path }) },
  // SECURITY: `include` narrows the search to the files it selects: the judge reads a walk's
  // file-name filter from Grep's `glob` (a search of `.env` alone was judged as a search of the folder).
  grep: { as: 'Grep', input: (i) => ({ pattern: i.pattern, path: i.path, glob: i.include }) },
  list: { as: 'LS', input: (i) => ({ path: i.path }) },
  webfetch: { as: 'WebFetch', input: (i) => ({ url: i.url }) },
  task: { as: 'Task', input: (i) => ({ prompt: i.prompt }) },
};

/** opencode names the tools of Gatehouse's MCP server `gatehouse_<tool>` (gateway/own-tools.ts says how they are told apart). */
const OWN_PREFIX = OWN_TOOL_PREFIXES.opencode;

export type OpencodeHookInput = { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };

const PATCH_HEADERS = ['*** Add File:', '*** Update File:', '*** Delete File:', '*** Move to:'];

/**
 * The paths an apply_patch text adds, updates, deletes or moves to ("*** Update File: p"), read as
 * opencode 1.18 reads them: lines split at "\n", a header found by its start (no space needed
 * after the colon: "*** Add File:p" is p), the rest trimmed. SECURITY: a parser stricter than
 * opencode's finds no path in a header opencode applies (the space was required, and
 * "*** Add File:.git/hooks/pre-commit" was judged a call that names no file). A header indented
 * by blanks counts too: a path too many is judged, never one too few.
 */
export function patchPaths(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const l = line.trimStart();
    const h = PATCH_HEADERS.find((p) => l.startsWith(p));
    if (h === undefined) continue;
    const path = l.slice(h.length).trim();
    if (path !== '') out.push(path);
  }
  return out;
}

/** The host's input for what the plugin sent (`judge`), none for Gatehouse's own MCP tools (`skip`), or why it cannot be judged. */
export function fromOpencodeInput(text: string): OpencodeHookInput {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return { invalid: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects what its opencode plugin sends.` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { invalid: 'The hook input is not a JSON object. Gatehouse expects what its opencode plugin sends.' };
  if (raw.event !== 'before' && raw.event !== 'after') return { invalid: `event is ${JSON.stringify(raw.event)}: the opencode plugin sends "before" or "after"; write the plugin again.` };
  const tool = raw.tool;
  const args = raw.args ?? {};
  if (typeof tool !== 'string' || tool === '') return { invalid: 'tool is missing from the opencode plugin\'s input.' };
  if (typeof raw.sessionID !== 'string' || raw.sessionID === '') return { invalid: 'sessionID is missing from the opencode plugin\'s input.' };
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return { invalid: `args of ${tool} is not an object.` };
  const own = ownToolName(tool, OWN_PREFIX);
  // The report of a call to Gatehouse's own tool is not needed (Gatehouse ran it); the call itself is checked by the host.
  if (own !== undefined && raw.event === 'after') return { skip: `${tool} is Gatehouse's own tool, recorded when Gatehouse ran it.` };
  const toolInput = args as Record<string, unknown>;
  let cwd = typeof raw.directory === 'string' && raw.directory !== '' ? raw.directory : process.cwd();
  // bash's workdir is where the command runs: the judge resolves its paths there.
  if (tool === 'bash' && typeof toolInput.workdir === 'string' && toolInput.workdir !== '') cwd = isAbsolute(toolInput.workdir) ? toolInput.workdir : resolve(cwd, toolInput.workdir);
  const known = TOOLS[tool];
  // A field the mapping does not know stays in the input (judged by its name, as any tool's), the mapped ones replace theirs.
  let mapped = known ? { ...toolInput, ...dropUndefined(known.input(toolInput)) } : toolInput;
  // apply_patch names its files inside the patch: they are handed to the judge as paths.
  // (`patch` is the same tool under its name in earlier versions.)
  if (tool === 'apply_patch' || tool === 'patch') mapped = { ...toolInput, paths: patchPaths(toolInput.patchText) };
  const common = { session_id: raw.sessionID, cwd, tool_name: known ? known.as : tool, tool_input: mapped, ...(typeof raw.callID === 'string' && raw.callID !== '' ? { tool_use_id: raw.callID } : {}) };
  if (raw.event === 'after') {
    // The report of what ran: matched to its PreToolUse by tool_use_id (the call id).
    if (!common.tool_use_id) return { invalid: 'callID is missing from the opencode plugin\'s report.' };
    return { judge: JSON.stringify({ ...common, hook_event_name: 'PostToolUse', tool_response: raw.output ?? null }), tool, toolInput };
  }
  return { judge: JSON.stringify({ ...common, hook_event_name: 'PreToolUse', ...(own !== undefined ? { [OWN_TOOL_FIELD]: own } : {}) }), tool, toolInput };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What the hook process does: its exit code, stdout (one JSON line the plugin reads) and stderr. */
export interface OpencodeHookResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/**
 * The host's answer (Claude Code's PreToolUse shape) as the plugin reads it. deny → exit 2 and
 * the reason (the plugin throws it: the model reads it as the tool's error); "ask" → also a deny:
 * a plugin cannot ask an operator, Gatehouse's inbox (hookAsk: inbox) is the way to ask one;
 * allow → exit 0, "allow" (with the replaced command for a contained bash call); no decision →
 * exit 0, "none", so opencode's own permissions decide.
 */
export function toOpencodeAnswer(reply: unknown, original: { tool: string; toolInput: Record<string, unknown> } | null): OpencodeHookResult {
  const out = (reply as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; updatedInput?: Record<string, unknown> } } | null)?.hookSpecificOutput;
  if (!out) return answer(0, { decision: 'none' });
  const reason = typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason !== '' ? out.permissionDecisionReason : 'Gatehouse gave no reason.';
  if (out.permissionDecision === 'allow') {
    const contained = out.updatedInput && original?.tool === 'bash' && typeof out.updatedInput.command === 'string' ? { command: out.updatedInput.command } : null;
    if (out.updatedInput && !contained) return deny(`Gatehouse let this call through only with a changed input, which opencode's ${original?.tool ?? 'tool'} cannot take; it is blocked. ${reason}`);
    return answer(0, { decision: 'allow', reason, ...(contained ? { args: contained } : {}) });
  }
  if (out.permissionDecision === 'ask') return deny(`${reason} (opencode cannot ask an operator from a plugin; set hookAsk to "inbox" to have the call wait in Gatehouse's inbox.)`);
  return deny(reason);
}

function answer(code: 0 | 2, body: Record<string, unknown>): OpencodeHookResult {
  return { code, stdout: `${JSON.stringify(body)}\n`, stderr: '' };
}

function deny(reason: string): OpencodeHookResult {
  // One line: the model reads it whole as the tool's error.
  const text = reason.replace(/\s*\n\s*/g, ' ').trim() || 'Gatehouse blocked this call.';
  return { code: 2, stdout: `${JSON.stringify({ decision: 'deny', reason: text })}\n`, stderr: `${text}\n` };
}
