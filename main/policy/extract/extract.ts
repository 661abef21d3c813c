import { homedir } from 'node:os';
import type { Extraction, ToolCall } from '../types.js';
import { Collector } from './collector.js';
import { hostsInText, scpHost } from './hosts.js';
import { normalisePath } from './paths.js';
import { analyseScript } from './shell-analyze.js';
import { loadGrammar } from './shell-grammar.js';
import { parseShell } from './shell-parse.js';
import { COMMAND_KEYS, CONTENT_KEYS, PATH_KEYS, toolSpec } from './tools.js';

export interface ExtractOptions {
  /** Home directory for `~` and `$HOME` (default: this process's home). */
  home?: string;
  /** Variables the agent's shell would have, for `$VAR` in commands (HOME and PWD are always known). */
  env?: Record<string, string>;
  /** Resolve symlinks against the real file system (default true). */
  resolveSymlinks?: boolean;
}

/**
 * Loads the bash grammar (WebAssembly, ~20 ms, once per process). `extract` is synchronous after
 * this; before it, a call with a shell command throws — the policy step turns that into a denial.
 */
export function initExtractor(): Promise<void> {
  return loadGrammar();
}

let defaultHome: string | undefined;
const SCP_LIKE = /^[^@\s/:]+@[^\s/:]+:/;
const MAX_WALK_DEPTH = 32;

/** What one tool call would touch, as static analysis sees it. */
export function extract(call: ToolCall, opts?: ExtractOptions): Extraction {
  const home = opts?.home ?? (defaultHome ??= homedir());
  const args = call.arguments ?? {};
  const spec = toolSpec(call.tool);
  let cwd = call.cwd || '/';
  const cwdArg = args['cwd'];
  if (typeof cwdArg === 'string' && cwdArg) cwd = normalisePath(cwdArg, cwd, home);
  else if (cwd.charCodeAt(0) !== 47 || cwd.includes('/.') || cwd.includes('//')) cwd = normalisePath(cwd, '/', home);
  const col = new Collector({ cwd, home, resolveSymlinks: opts?.resolveSymlinks ?? true });
  for (const o of spec.ops) col.op(o);

  let command = '';
  for (const k of COMMAND_KEYS) {
    const v = args[k];
    if (typeof v === 'string') command = v;
    else if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string')) command = (v as string[]).map(shellQuote).join(' ');
    else continue;
    break;
  }
  if (command && (spec.shell || spec.ops.includes('execute'))) {
    analyseScript(parseShell(command), cwd, col, parseShell, home, opts?.env);
  } else if (command) {
    command = '';
  }

  for (const key in args) {
    const v = args[key];
    if (PATH_KEYS.has(key)) {
      if (typeof v === 'string') addArgPath(col, v, cwd);
      else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') addArgPath(col, x, cwd);
    }
    if (CONTENT_KEYS.includes(key) && typeof v === 'string') col.addContent(v);
    else if (key === 'edits' && Array.isArray(v)) {
      for (const e of v) {
        if (!e || typeof e !== 'object') continue;
        const r = e as Record<string, unknown>;
        const t = r['new_string'] ?? r['newText'] ?? r['new_text'];
        if (typeof t === 'string') col.addContent(t);
      }
    }
  }
  // Glob patterns name the tree they read when they are absolute (`/etc/**`, `~/.ssh/*`).
  const pattern = args['pattern'];
  if (spec.ops.length === 1 && spec.ops[0] === 'read' && typeof pattern === 'string' && /^(\/|~|\$HOME)/.test(pattern)) col.path(pattern, cwd);

  // Hosts: URLs anywhere in the arguments. The text a file tool writes is not a destination, so
  // writing a README that mentions a URL does not count as contacting it.
  const skipContent = spec.ops.includes('write') && !spec.ops.includes('network');
  const before = col.hosts.length;
  for (const key in args) {
    if (skipContent && (CONTENT_KEYS.includes(key) || key === 'edits' || key === 'old_string')) continue;
    walkHosts(args[key], col, 0);
  }
  // An unknown tool with a URL in its arguments may well fetch it: fail closed.
  if (col.hosts.length > before && !spec.ops.includes('network') && !spec.shell && spec.ops.includes('execute') && !command) col.op('network');
  return col.result(command);
}

function addArgPath(col: Collector, v: string, cwd: string): void {
  if (!v || v.includes('://')) return;
  col.path(v, cwd);
}

function walkHosts(v: unknown, col: Collector, depth: number): void {
  if (typeof v === 'string') {
    hostsInText(v, (h) => col.host(h));
    if (v.length < 512 && SCP_LIKE.test(v)) col.host(scpHost(v, true));
    return;
  }
  if (!v || typeof v !== 'object' || depth > MAX_WALK_DEPTH) return;
  if (Array.isArray(v)) {
    for (const x of v) walkHosts(x, col, depth + 1);
    return;
  }
  for (const k in v as Record<string, unknown>) walkHosts((v as Record<string, unknown>)[k], col, depth + 1);
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
