// Operations, paths and content from a tool's name and argument names — for the tools agents
// actually call (Claude Code's, the MCP filesystem server's) and by naming convention for the rest.
import type { Operation } from '../types.js';
import { dropOldest } from '../../core/drop-oldest.js';

export interface ToolSpec {
  ops: Operation[];
  /** The argument holding a shell command, when the tool runs one. */
  shell?: boolean;
  /**
   * How the tool walks the folders it is given, for containment (a protected tree under a folder
   * the call walks counts as touched):
   * - `tree`: every path argument is walked whole, and the call's folder when none is given
   *   (Claude Code's Grep, the MCP filesystem server's search_files and directory_tree);
   * - `glob`: Claude Code's Glob: the literal start of `pattern`, under `path` (default the
   *   call's folder), is walked whole;
   * - `args`: path arguments are walked whole, nothing by default (search and find tools by
   *   naming convention, whose arguments may not be paths at all).
   * Absent: the tool touches its paths one level deep (Read, LS: a listing shows names only).
   */
  walk?: 'tree' | 'glob' | 'args';
  /** Arguments that narrow a walk to the files whose contents it reads (Grep's `glob`). */
  filters?: string[];
}

const CLAUDE: Record<string, ToolSpec> = {
  read: { ops: ['read'] },
  write: { ops: ['write'] },
  edit: { ops: ['write'] },
  multiedit: { ops: ['write'] },
  notebookedit: { ops: ['write'] },
  notebookread: { ops: ['read'] },
  glob: { ops: ['read'], walk: 'glob' },
  grep: { ops: ['read'], walk: 'tree', filters: ['glob'] },
  ls: { ops: ['read'] },
  bash: { ops: ['execute'], shell: true },
  bashoutput: { ops: ['read'] },
  killshell: { ops: ['execute'] },
  webfetch: { ops: ['network'] },
  websearch: { ops: ['network'] },
  todowrite: { ops: [] },
  todoread: { ops: [] },
  exitplanmode: { ops: [] },
  task: { ops: ['execute'] },
};

const EXACT: Record<string, ToolSpec> = {
  read_file: { ops: ['read'] }, read_text_file: { ops: ['read'] }, read_media_file: { ops: ['read'] },
  read_multiple_files: { ops: ['read'] },
  // Gemini CLI's and Qwen Code's read_many_files, as their hook mappings hand it over: the files
  // and folders its patterns start at (`paths`), read whole, narrowed by the patterns' file names.
  read_many_files: { ops: ['read'], walk: 'tree', filters: ['glob'] },
  list_directory: { ops: ['read'] }, list_directory_with_sizes: { ops: ['read'] },
  directory_tree: { ops: ['read'], walk: 'tree' }, search_files: { ops: ['read'], walk: 'tree' }, get_file_info: { ops: ['read'] },
  list_allowed_directories: { ops: ['read'] },
  write_file: { ops: ['write'] }, edit_file: { ops: ['write'] }, create_directory: { ops: ['write'] },
  move_file: { ops: ['move', 'write', 'delete'] }, copy_file: { ops: ['copy', 'read', 'write'] },
  delete_file: { ops: ['delete'] }, delete_directory: { ops: ['delete'] },
  fetch: { ops: ['network'] }, shell: { ops: ['execute'], shell: true }, run_command: { ops: ['execute'], shell: true },
  execute_command: { ops: ['execute'], shell: true }, exec: { ops: ['execute'], shell: true }, terminal: { ops: ['execute'], shell: true },
  run_shell_command: { ops: ['execute'], shell: true }, shell_exec: { ops: ['execute'], shell: true },
};

const PREFIX: Array<[RegExp, ToolSpec]> = [
  [/^(search|find|grep|glob|walk)(_|$)/, { ops: ['read'], walk: 'args' }],
  [/^(read|get|list|search|find|view|cat|stat|glob|grep|query|describe|show|inspect)(_|$)/, { ops: ['read'] }],
  [/^(write|create|update|edit|put|set|save|append|patch|insert|replace|mkdir|upload)(_|$)/, { ops: ['write'] }],
  [/^(delete|remove|rm|unlink|drop|destroy|purge|erase)(_|$)/, { ops: ['delete'] }],
  [/^(move|rename|mv)(_|$)/, { ops: ['move', 'write', 'delete'] }],
  [/^(copy|cp|duplicate)(_|$)/, { ops: ['copy', 'read', 'write'] }],
  [/^(fetch|http|https|curl|download|browse|navigate|web|url|request|scrape|crawl)(_|$)/, { ops: ['network'] }],
  [/(^|_)(url|http|fetch|download|request|web)$/, { ops: ['network'] }],
  [/^(exec|execute|run|shell|bash|sh|terminal|command|spawn)(_|$)/, { ops: ['execute'] }],
];

/**
 * Unknown tools execute something we cannot see: fail closed with `execute`, so read-only
 * autonomy (which judges by operations, not tool names) never lets them through as "reads".
 */
const UNKNOWN: ToolSpec = { ops: ['execute'] };

/** Tool names whose spec is kept; past it the older half is dropped (agents call a few tools, over and over). */
const SPECS_KEPT = 1024;
const specs = new Map<string, ToolSpec>();

/**
 * The spec of a tool, by its name. A pure function of the name, asked for every call (the
 * name rewriting and prefix patterns below were a few percent of a decision), so answers are kept.
 */
export function toolSpec(tool: string): ToolSpec {
  let spec = specs.get(tool);
  if (spec === undefined) {
    spec = specOf(tool);
    if (specs.size >= SPECS_KEPT) dropOldest(specs, SPECS_KEPT >> 1);
    specs.set(tool, spec);
  }
  return spec;
}

function specOf(tool: string): ToolSpec {
  const claude = CLAUDE[tool.toLowerCase()];
  if (claude && !tool.includes('_')) return claude;
  let name = tool;
  // mcp__<server>__<tool>
  if (name.startsWith('mcp__')) {
    const i = name.indexOf('__', 5);
    name = i >= 0 ? name.slice(i + 2) : name.slice(5);
  }
  // camelCase and kebab-case to snake_case.
  name = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-.\s]+/g, '_').toLowerCase();
  const exact = EXACT[name];
  if (exact) return exact;
  for (const [re, spec] of PREFIX) if (re.test(name)) return spec;
  return UNKNOWN;
}

/**
 * A file tool whose arguments Gatehouse knows (Claude Code's Read, Write, Edit …, the MCP
 * filesystem server's read_file, write_file …): its path arguments say what it touches, the rest
 * only how (an offset, the new text). Named by convention (`deploy_path`, `write_config`) or not
 * at all, a tool's other arguments may change what it does.
 */
export function isKnownFileTool(tool: string): boolean {
  const spec = toolSpec(tool);
  return !spec.shell && spec.ops.length > 0 && !spec.ops.includes('execute') && !spec.ops.includes('network') && (Object.values(CLAUDE).includes(spec) || Object.values(EXACT).includes(spec));
}

/** Argument names whose string values are paths (arrays of strings too). */
export const PATH_KEYS = new Set([
  'file_path', 'filepath', 'filePath', 'path', 'paths', 'filename', 'file', 'files', 'source', 'destination',
  'src', 'dst', 'dest', 'target', 'directory', 'dir', 'cwd', 'notebook_path', 'notebookPath', 'root', 'folder',
  'source_path', 'target_path', 'destination_path', 'old_path', 'new_path', 'output', 'output_path', 'input_path',
]);

/** Argument names holding a shell command. */
export const COMMAND_KEYS = ['command', 'cmd', 'script', 'shell_command', 'commandLine', 'command_line'];

/** Argument names holding text the call writes. */
export const CONTENT_KEYS = ['content', 'new_string', 'new_source', 'newText', 'new_text', 'text', 'data', 'body'];
