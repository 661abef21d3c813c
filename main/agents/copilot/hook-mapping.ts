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
//
// postToolUse (with "toolResult") and postToolUseFailure (with "error") report what ran, with the
// same fields and no call id either (a denied call gets neither): the report is matched to its
// preToolUse call by an id made of the tool's name and arguments (copilotCallId), so a contained
// call, run with other arguments, is reported unlinked.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { OWN_TOOL_FIELD, OWN_TOOL_PREFIXES, ownToolName } from '../../gateway/own-tools.js';

/** The events `gatehouse hook --agent copilot --event …` is written under: the input does not name its event. */
export const COPILOT_EVENTS = ['preToolUse', 'postToolUse', 'postToolUseFailure'] as const;
export type CopilotEvent = (typeof COPILOT_EVENTS)[number];

/** Copilot CLI's built-in tools, as the judge knows their kind (Claude Code's names, whose inputs it reads by field). */
type Mapping = { as: string; input: (i: Record<string, unknown>) => Record<string, unknown>; drop?: string[] };
const TOOLS: Record<string, Mapping> = {
  view: { as: 'Read', input: (i) => ({ file_path: i.path }) },
  create: { as: 'Write', input: (i) => ({ file_path: i.path, content: i.file_text }) },
  edit: { as: 'Edit', input: (i) => ({ file_path: i.path, old_string: i.old_str, new_string: i.new_str }) },
  bash: { as: 'Bash', input: (i) => ({ command: i.command }) },
  glob: { as: 'Glob', input: (i) => ({ pattern: i.pattern }) },
  grep: { as: 'Grep', input: (i) => ({ pattern: i.pattern, ...(typeof i.path === 'string' ? { path: i.path } : {}) }) },
  // SECURITY: rg is grep under another name (same fields, `glob` its file-name filter): unmapped,
  // a search of `.env` alone was judged as an unknown tool with no path.
  rg: { as: 'Grep', input: (i) => ({ pattern: i.pattern, ...(typeof i.path === 'string' ? { path: i.path } : {}) }) },
  // read_bash reads a running shell's output, stop_bash ends it: Claude Code's BashOutput and KillShell.
  read_bash: { as: 'BashOutput', input: () => ({}) },
  stop_bash: { as: 'KillShell', input: () => ({}) },
};

/**
 * str_replace_editor (Anthropic's text editor tool, which Copilot CLI gives some models): what it
 * does is its `command`. SECURITY: unmapped, that `command` ("create") was parsed as a shell
 * command and its `path` (~/.bashrc, .git/hooks/pre-commit) judged as an argument of it, never
 * as the file written. A sub-command it does not know is judged as an unknown tool on its path
 * (read and written), with `command` dropped so that it is not taken for a shell command.
 */
function editorCall(i: Record<string, unknown>): Mapping {
  switch (i.command) {
    case 'view': return { as: 'Read', input: () => ({ file_path: i.path }), drop: ['command'] };
    case 'create': return { as: 'Write', input: () => ({ file_path: i.path, content: i.file_text }), drop: ['command'] };
    case 'str_replace': return { as: 'Edit', input: () => ({ file_path: i.path, old_string: i.old_str, new_string: i.new_str }), drop: ['command'] };
    case 'insert': return { as: 'Edit', input: () => ({ file_path: i.path, old_string: '', new_string: i.new_str ?? i.insert_text }), drop: ['command'] };
    // undo_edit puts back what an earlier edit replaced: a write of the file.
    case 'undo_edit': return { as: 'Write', input: () => ({ file_path: i.path }), drop: ['command'] };
    default: return { as: 'str_replace_editor', input: () => ({}), drop: ['command'] };
  }
}

/** Keys write_bash types that edit or recall the line instead of typing text (Copilot CLI's write_bash). */
const EDIT_KEYS = /\{(up|down|left|right|backspace|tab|escape|esc|delete|home|end)\}/i;

/**
 * write_bash types `input` into a shell a bash call started (`{enter}` is Enter): the lines it
 * completes run there, so they are judged as bash's command. SECURITY: judged as a write with no
 * path, any command typed this way ran unjudged. What cannot be judged as typed text is refused:
 * keys that edit or recall the line ({up}, {backspace}, …) or other control characters (Tab
 * completes, ^R searches the history), and text left on the line without Enter (the next call
 * would complete it: "cat ~/.ss" then "h/id_rsa{enter}").
 */
function typedCommand(input: unknown): { command: string } | { invalid: string } {
  if (typeof input !== 'string') return { invalid: 'write_bash has no input text to judge.' };
  const text = input.replace(/\{enter\}/gi, '\n').replace(/\r\n?/g, '\n');
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  if (EDIT_KEYS.test(text) || /[\x00-\x09\x0b-\x1f\x7f]/.test(text)) return { invalid: 'write_bash input with keys that edit or recall the line ({up}, {backspace}, Tab, control characters) cannot be judged as the command it runs; it is blocked. Type the whole command, ending in {enter}.' };
  if (text !== '' && !text.endsWith('\n')) return { invalid: 'write_bash input that leaves text on the shell\'s line (no {enter} at its end) cannot be judged with what completes it; it is blocked. Type whole lines, ending in {enter}.' };
  return { command: text };
}

/** Copilot CLI names the tools of Gatehouse's MCP server `gatehouse-<tool>` (gateway/own-tools.ts says how they are told apart). */
const OWN_PREFIX = OWN_TOOL_PREFIXES.copilot;

export type CopilotHookInput = { judge: string; tool: string; toolInput: Record<string, unknown> } | { skip: string } | { invalid: string };

/**
 * The id a call's preToolUse and its report share (Copilot CLI gives none): the same tool with the
 * same arguments in one session is the same id, which the host links in order.
 */
export function copilotCallId(tool: string, args: unknown): string {
  return `copilot-${createHash('sha256').update(`${tool}\0${typeof args === 'string' ? args : JSON.stringify(args)}`).digest('hex').slice(0, 32)}`;
}

/**
 * The host's input for one of Copilot CLI's hook inputs: for preToolUse the PreToolUse input to
 * judge (`judge`), none for Gatehouse's own MCP tools (`skip`), or why it cannot be judged
 * (`invalid`, answered deny); for a report the PostToolUse / PostToolUseFailure input, or `skip`
 * (a report that cannot be read is lost, never a deny: the tool has already run).
 */
export function fromCopilotInput(text: string, event: CopilotEvent = 'preToolUse'): CopilotHookInput {
  const r = readCopilotInput(text, event);
  return event !== 'preToolUse' && 'invalid' in r ? { skip: `Not reported: ${r.invalid}` } : r;
}

function readCopilotInput(text: string, event: CopilotEvent): CopilotHookInput {
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
  if (typeof tool !== 'string' || tool === '') return { invalid: `toolName is missing from the ${event} input: write \`gatehouse hook --agent copilot\` with --event naming the event it is under.` };
  const report = event === 'preToolUse' ? null : event === 'postToolUse' ? raw.toolResult : raw.error;
  if (event !== 'preToolUse' && report === undefined) return { invalid: `${event === 'postToolUse' ? 'toolResult' : 'error'} is missing from the ${event} input.` };
  const id = copilotCallId(tool, raw.toolArgs ?? {});
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
  const own = ownToolName(tool, OWN_PREFIX);
  // The report of a call to Gatehouse's own tool is not needed (Gatehouse ran it); the call itself is checked by the host.
  if (own !== undefined && event !== 'preToolUse') return { skip: `${tool} is Gatehouse's own tool, recorded when Gatehouse ran it.` };
  const cwd = typeof raw.cwd === 'string' ? raw.cwd : '';
  let known: Mapping | undefined = Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined;
  if (tool === 'str_replace_editor') known = editorCall(toolInput);
  if (tool === 'write_bash') {
    const typed = typedCommand(toolInput.input);
    // A report of what ran is recorded as it came (under the name it was judged by).
    if ('invalid' in typed && event === 'preToolUse') return typed;
    const command = 'command' in typed ? typed.command : toolInput.input;
    known = { as: 'Bash', input: () => ({ command }) };
  }
  // A field the mapping does not know stays in the input (judged by its name, as any tool's), the mapped ones replace theirs.
  const mapped = known ? { ...toolInput, ...dropUndefined(known.input(toolInput)) } : toolInput;
  for (const k of known?.drop ?? []) delete mapped[k];
  // Relative paths are the workspace's: the judge resolves them against cwd.
  if (known && typeof mapped.file_path === 'string' && mapped.file_path !== '' && !isAbsolute(mapped.file_path) && cwd) mapped.file_path = resolve(cwd, mapped.file_path);
  const outcome = event === 'postToolUse' ? { hook_event_name: 'PostToolUse', tool_response: report } : event === 'postToolUseFailure' ? { hook_event_name: 'PostToolUseFailure', error: report } : { hook_event_name: 'PreToolUse' };
  const judge = JSON.stringify({ session_id: raw.sessionId, transcript_path: '', cwd, tool_name: known ? known.as : tool, tool_input: mapped, tool_use_id: id, ...outcome, ...(own !== undefined ? { [OWN_TOOL_FIELD]: own } : {}) });
  return { judge, tool, toolInput };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** What the hook process does: its exit code and stdout (stderr stays empty: Copilot CLI reads only stdout). */
export interface CopilotHookResult {
  code: 0 | 2;
  stdout: string;
  stderr: string;
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
  if (!out) return { code: 0, stdout: '', stderr: '' };
  const reason = typeof out.permissionDecisionReason === 'string' && out.permissionDecisionReason !== '' ? out.permissionDecisionReason : 'Gatehouse gave no reason.';
  if (out.permissionDecision === 'allow') {
    const modified = out.updatedInput && original?.tool === 'bash' && typeof out.updatedInput.command === 'string' ? { ...original.toolInput, command: out.updatedInput.command } : null;
    if (out.updatedInput && !modified) return copilotDeny(`Gatehouse let this call through only with a changed input, which Copilot CLI's ${original?.tool ?? 'tool'} cannot take; it is blocked. ${reason}`);
    return { code: 0, stdout: `${JSON.stringify({ permissionDecision: 'allow', permissionDecisionReason: oneLine(reason), ...(modified ? { modifiedArgs: modified } : {}) })}\n`, stderr: '' };
  }
  if (out.permissionDecision === 'ask') return { code: 0, stdout: `${JSON.stringify({ permissionDecision: 'ask', permissionDecisionReason: oneLine(reason) })}\n`, stderr: '' };
  return copilotDeny(reason);
}

/** A deny as Copilot CLI shows it to the model: one JSON object on stdout, and exit 2 in case it is not read. */
export function copilotDeny(reason: string): CopilotHookResult {
  return { code: 2, stdout: `${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: oneLine(reason) || 'Gatehouse blocked this call.' })}\n`, stderr: '' };
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
