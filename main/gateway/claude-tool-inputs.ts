// The inputs of Claude Code's own tools, as Gatehouse judges them. A hook names one of these
// tools, which Claude Code runs itself; the judge reads its fields by name (file_path, command,
// path, url…) and skips a field that is not a string. So `Read {"file_path": 5}`, `{"file_path":
// {…}}`, `{}` or `null` were judged as reading nothing, harmless, and allowed (issue #24,
// finding 7). Each tool's schema therefore requires the fields the judge reads, with their types;
// fields it does not list are allowed (Claude Code adds some from version to version).
// Security-sensitive: a field dropped here, or loosened to any type, is judged as absent again.
import { checkArguments, type ArgumentCheck, type ArgumentWording } from './tool-arguments.js';

type Schema = Record<string, unknown>;

const STRING = { type: 'string' };
const NUMBER = { type: 'number' };
const BOOLEAN = { type: 'boolean' };
const STRINGS = { type: 'array', items: STRING };

const input = (properties: Record<string, Schema>, required: string[]): Schema => ({ type: 'object', properties, required });

const EDIT = { old_string: STRING, new_string: STRING, replace_all: BOOLEAN };

/** By the tool's name in lower case: the judge knows these tools in any letter case (extract/tools.ts). */
const INPUTS: Record<string, Schema> = {
  read: input({ file_path: STRING, offset: NUMBER, limit: NUMBER }, ['file_path']),
  write: input({ file_path: STRING, content: STRING }, ['file_path', 'content']),
  edit: input({ file_path: STRING, ...EDIT }, ['file_path', 'old_string', 'new_string']),
  multiedit: input({ file_path: STRING, edits: { type: 'array', minItems: 1, items: input(EDIT, ['old_string', 'new_string']) } }, ['file_path', 'edits']),
  notebookedit: input({ notebook_path: STRING, new_source: STRING, cell_id: STRING }, ['notebook_path']),
  notebookread: input({ notebook_path: STRING, cell_id: STRING }, ['notebook_path']),
  bash: input({ command: STRING, timeout: NUMBER, description: STRING, run_in_background: BOOLEAN }, ['command']),
  grep: input({ pattern: STRING, path: STRING, glob: STRING, type: STRING }, ['pattern']),
  glob: input({ pattern: STRING, path: STRING }, ['pattern']),
  ls: input({ path: STRING, ignore: STRINGS }, ['path']),
  webfetch: input({ url: STRING, prompt: STRING }, ['url']),
  websearch: input({ query: STRING, allowed_domains: STRINGS, blocked_domains: STRINGS }, ['query']),
};

/**
 * Checks the input of a call of one of Claude Code's own tools (null: not one of them, judged as
 * before). `root` is what the input is called where it came from (`tool_input` in a hook).
 */
export function checkClaudeToolInput(tool: string, args: unknown, root: string): ArgumentCheck | null {
  // As extract/tools.ts finds them: any letter case, never an MCP name (those have underscores).
  const schema = tool.includes('_') ? undefined : INPUTS[tool.toLowerCase()];
  if (!schema) return null;
  const wording: ArgumentWording = { root, hint: `Claude Code's ${tool} tool takes ${describeInput(schema)}; Gatehouse refuses an input it cannot judge.` };
  return checkArguments(tool, schema, args, wording);
}

/** "file_path (a string)" for the required fields of a schema. */
function describeInput(schema: Schema): string {
  const props = schema['properties'] as Record<string, { type?: string }>;
  return (schema['required'] as string[]).map((k) => `${k} (${props[k]?.type === 'array' ? 'an array' : `a ${props[k]?.type ?? 'value'}`})`).join(', ');
}
