// Gemini CLI's BeforeTool hook (and Qwen Code's, its fork), mapped onto the PreToolUse input the
// host judges and back. Loaded by `gatehouse hook --agent gemini-cli` before every tool call, so
// it uses nothing but Node's own modules.
//
// What Gemini CLI 0.61 does with a command hook's result (bundle: HookRunner.executeCommandHook,
// convertPlainTextToHookOutput, evaluateBeforeToolHook): stdout (or, when it is empty, stderr) is
// parsed as JSON; text that is not JSON becomes, by exit code, 0 → allow, 1 → allow with a
// warning, anything else → deny with the text as the reason. A hook that times out, cannot start,
// or exits 2 with no text at all gives no decision, and the tool runs. So a deny is exit 2 with
// the reason on stderr (the model reads "Tool execution blocked: <reason>"), and the command
// Gatehouse writes turns every other failure into exit 2 with a sentence (GEMINI_HOOK_FAIL_CLOSED).
// Security-sensitive: an exit code other than 0 or 2, or an exit 2 without text, lets the call run.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { OWN_TOOL_FIELD } from '../../gateway/own-tools.js';

/** A built-in tool as the judge knows its kind: Claude Code's name, and its input by Claude Code's field names. */
export type ToolMapping = Record<string, { as: string; input: (i: Record<string, unknown>) => Record<string, unknown> }>;

/** Gemini CLI's built-in tools (Qwen Code, its fork, keeps most of them: agents/qwen-code/hook-mapping.ts). */
export const GEMINI_TOOLS: ToolMapping = {
  read_file: { as: 'Read', input: (i) => ({ file_path: i.file_path ?? i.absolute_path }) },
  write_file: { as: 'Write', input: (i) => ({ file_path: i.file_path, content: i.content }) },
  replace: { as: 'Edit', input: (i) => ({ file_path: i.file_path, old_string: i.old_string, new_string: i.new_string }) },
  run_shell_command: { as: 'Bash', input: (i) => ({ command: i.command }) },
  list_directory: { as: 'LS', input: (i) => ({ path: i.dir_path ?? i.path }) },
  glob: { as: 'Glob', input: (i) => ({ pattern: i.pattern, ...(i.dir_path ?? i.path ? { path: i.dir_path ?? i.path } : {}) }) },
  // SECURITY: the file-name filter (`include_pattern`, `include` in older versions) narrows the
  // search to the files it selects; the judge reads a walk's filter from Grep's `glob` only, so a
  // search of `.env` alone was judged as an ordinary search of the folder.
  grep_search: { as: 'Grep', input: (i) => ({ pattern: i.pattern, ...(i.dir_path ?? i.path ? { path: i.dir_path ?? i.path } : {}), glob: i.include_pattern ?? i.include }) },
  search_file_content: { as: 'Grep', input: (i) => ({ pattern: i.pattern, ...(i.dir_path ?? i.path ? { path: i.dir_path ?? i.path } : {}), glob: i.include_pattern ?? i.include }) },
  // SECURITY: read_many_files reads the files its `include` patterns (and older versions' `paths`)
  // select: they were no path the judge knew, so `include: [".env"]` read .env unjudged.
  read_many_files: { as: 'read_many_files', input: (i) => manyFiles([...strings(i.include), ...strings(i.paths)]) },
};

const GLOB_CHAR = /(^|[^\\])[*?[\]{}()!+@]/;
/** A wildcard part of a pattern that could climb out of its literal start (as extract.ts's Glob walk tells it). */
const CLIMBS = /(^|[/{,])\.\.($|[/},])|(^|[{,(|])\s*~|[{,(|]\s*\//;

function strings(v: unknown): string[] {
  if (typeof v === 'string') return v === '' ? [] : [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

/**
 * read_many_files' patterns as the judge reads a search (`read_many_files` is a walk of its
 * `paths`, narrowed by `glob`, as Claude Code's Grep: tools.ts). A pattern with no wildcard is a
 * file or a folder read whole; one with wildcards walks its literal start (`src` of `src/**` +
 * `/*.ts`, the workspace for `**` + `/.env`) and selects files by its last part, which is handed
 * to the judge as the walk's file-name filter: a literal name (`.env`) is that file in each
 * walked folder, a pattern that could select a protected name leaves the call unsure. Several
 * filters are joined as one brace pattern (`{*.ts,.env.*}`). A wildcard part that could climb
 * out of its start (`*` + `/../..`) walks the root.
 */
export function manyFiles(patterns: string[]): { paths: string[]; glob?: string } {
  const paths: string[] = [];
  const names = new Set<string>();
  for (const p of patterns) {
    const segs = p.split('/');
    let k = 0;
    while (k < segs.length && !GLOB_CHAR.test(segs[k]!)) k++;
    if (k === segs.length) {
      paths.push(p);
      continue;
    }
    const start = k === 0 ? '.' : segs.slice(0, k).join('/') || '/';
    const wild = segs.slice(k).join('/');
    if (CLIMBS.test(wild)) {
      paths.push('/');
      continue;
    }
    paths.push(start);
    const last = segs[segs.length - 1]!;
    // `**` + `/.env` or `*` + `/.env` names the file in the walked folders; the judge adds it for each.
    if (GLOB_CHAR.test(last)) names.add(last);
    else paths.push(`${start}/${last}`);
  }
  const filters = [...names];
  return { paths, ...(filters.length === 1 ? { glob: filters[0] } : filters.length > 1 ? { glob: `{${filters.join(',')}}` } : {}) };
}

/** The MCP server name Gatehouse is written under: its own tools are judged on the MCP path, not twice. */
const OWN_SERVER = 'gatehouse';

export type GeminiHookInput = { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };

/**
 * Gemini CLI gives a tool call no id its two hooks share, so the call's id is derived from what
 * both carry: the session, the tool and its input as Gemini CLI sent them. The AfterTool report
 * is then linked to the BeforeTool call Gatehouse judged (hook-outcomes.ts). Two identical calls
 * in one session share the id, and are linked in turn; a call whose input a hook replaced (a
 * contained command) reports under another id, and its outcome is recorded unlinked.
 */
export function geminiCallId(session: unknown, tool: string, input: Record<string, unknown>): string {
  return `gemini-${createHash('sha256').update(JSON.stringify([session, tool, input])).digest('hex').slice(0, 32)}`;
}

/**
 * The host's PreToolUse input for a BeforeTool input (`judge`), or its PostToolUse report for an
 * AfterTool input (also `judge`: the host records it and answers no decision, which is exit 0
 * and nothing), none for Gatehouse's own MCP tools (`skip`), or why it cannot be judged.
 */
export function fromGeminiInput(text: string): GeminiHookInput {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    return { invalid: `The hook input is not JSON (${(err as Error).message}). Gatehouse expects Gemini CLI's BeforeTool hook input.` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { invalid: 'The hook input is not a JSON object. Gatehouse expects Gemini CLI\'s BeforeTool hook input.' };
  const event = raw.hook_event_name;
  if (event !== 'BeforeTool' && event !== 'AfterTool') return { invalid: `hook_event_name is ${JSON.stringify(event)}: configure \`gatehouse hook --agent gemini-cli\` for the BeforeTool and AfterTool events only.` };
  const tool = raw.tool_name;
  const input = raw.tool_input;
  if (typeof tool !== 'string' || tool === '') return { invalid: 'tool_name is missing from the BeforeTool input.' };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { invalid: `tool_input of ${tool} is not an object.` };
  const toolInput = input as Record<string, unknown>;
  const mcp = raw.mcp_context as { server_name?: unknown; tool_name?: unknown } | undefined;
  // SECURITY: a server name alone does not prove the server is Gatehouse (a workspace's settings
  // can name one "gatehouse"): as for the other agents (gateway/own-tools.ts), the host is asked,
  // told which of its tools the call claims to be, and leaves only a tool it serves to the MCP path.
  const own = mcp && mcp.server_name === OWN_SERVER && typeof mcp.tool_name === 'string' && mcp.tool_name !== '' ? mcp.tool_name : undefined;
  // The report of a call to Gatehouse's own tool is not needed (Gatehouse ran it).
  if (own !== undefined && event === 'AfterTool') return { skip: `${tool} is Gatehouse's own tool, recorded when Gatehouse ran it.` };
  let cwd = typeof raw.cwd === 'string' ? raw.cwd : '';
  const known = GEMINI_TOOLS[tool];
  // run_shell_command's dir_path is where the command runs: the judge resolves its paths there.
  if (tool === 'run_shell_command' && typeof toolInput.dir_path === 'string' && toolInput.dir_path !== '') cwd = isAbsolute(toolInput.dir_path) ? toolInput.dir_path : resolve(cwd, toolInput.dir_path);
  const name = known ? known.as : mcp && typeof mcp.server_name === 'string' && typeof mcp.tool_name === 'string' ? `mcp__${mcp.server_name}__${mcp.tool_name}` : tool;
  // A field the mapping does not know stays in the input (judged by its name, as any tool's), the mapped ones replace theirs.
  const mapped = known ? { ...toolInput, ...dropUndefined(known.input(toolInput)) } : toolInput;
  const common = { session_id: raw.session_id, transcript_path: raw.transcript_path, cwd, tool_name: name, tool_input: mapped, tool_use_id: geminiCallId(raw.session_id, tool, toolInput) };
  if (event === 'AfterTool') {
    // tool_response is {llmContent, returnDisplay, error}: an error is the tool failing.
    const response = raw.tool_response as { error?: unknown } | undefined;
    const failed = typeof response === 'object' && response !== null && response.error !== undefined && response.error !== null;
    return { judge: JSON.stringify({ ...common, hook_event_name: failed ? 'PostToolUseFailure' : 'PostToolUse', ...(failed ? { error: response.error } : { tool_response: response }) }), tool, toolInput };
  }
  const judge = JSON.stringify({ ...common, hook_event_name: 'PreToolUse', ...(own !== undefined ? { [OWN_TOOL_FIELD]: own } : {}) });
  return { judge, tool, toolInput };
}

export function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What the hook process does: its exit code, stdout and stderr. */
export interface GeminiHookResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
}

/**
 * The host's answer (Claude Code's PreToolUse shape) as Gemini CLI reads it. deny → exit 2, the
 * reason on stderr; "ask" → also exit 2: Gemini CLI's own "ask" cannot reach an operator in a
 * headless run, and Gatehouse's inbox (hookAsk: inbox) is the way to ask one; allow → exit 0
 * with {"decision": "allow"} (and the replaced input for a contained command); no decision → exit
 * 0 and nothing, so Gemini CLI's own approval flow decides.
 */
export function toGeminiAnswer(reply: unknown, original: { tool: string; toolInput: Record<string, unknown> } | null): GeminiHookResult {
  const out = (reply as { hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; updatedInput?: Record<string, unknown> } } | null)?.hookSpecificOutput;
  if (!out) return { code: 0, stdout: '', stderr: '' };
  const reason = typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason !== '' ? out.permissionDecisionReason : 'Gatehouse gave no reason.';
  if (out.permissionDecision === 'allow') {
    const updated = out.updatedInput && original?.tool === 'run_shell_command' && typeof out.updatedInput.command === 'string' ? { ...original.toolInput, command: out.updatedInput.command } : null;
    if (out.updatedInput && !updated) return deny(`Gatehouse let this call through only with a changed input, which Gemini CLI's ${original?.tool ?? 'tool'} cannot take; it is blocked. ${reason}`);
    return { code: 0, stdout: `${JSON.stringify({ decision: 'allow', reason, ...(updated ? { hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: updated } } : {}) })}\n`, stderr: '' };
  }
  if (out.permissionDecision === 'ask') return deny(`${reason} (Gemini CLI cannot ask an operator from a hook; set hookAsk to "inbox" to have the call wait in Gatehouse's inbox.)`);
  return deny(reason);
}

function deny(reason: string): GeminiHookResult {
  // One line: the model reads it whole, and an empty text would let the call run.
  return { code: 2, stdout: '', stderr: `${reason.replace(/\s*\n\s*/g, ' ').trim() || 'Gatehouse blocked this call.'}\n` };
}
