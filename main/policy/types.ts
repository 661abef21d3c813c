// The vocabulary of the policy engine: what a tool call would do (extracted from its
// arguments), the rules that judge it, and the decision with who decided it.

import type { DeciderView } from '../../shared/contract.js';
import type { Operation } from '../../shared/operations.js';

export { OPERATIONS, type Operation } from '../../shared/operations.js';

/** One tool call as the gateway hands it over. */
export interface ToolCall {
  id: string;
  agent: string;
  session: string;
  tool: string;
  arguments: Record<string, unknown> | null;
  /** Working directory the call's relative paths are relative to. */
  cwd: string;
  source: 'mcp' | 'hook' | 'api' | 'console';
  receivedAt: number;
  /**
   * What the client said it is (MCP clientInfo.name, "claude-code" for hooks, the API's `agent`
   * field), cleaned to a safe character set: a label only. `agent` is the name of the agent token
   * the call was authenticated with, which grants and the audit log go by.
   */
  client?: string;
}

/** What a call would touch, as static analysis sees it. */
export interface Extraction {
  operations: Operation[];
  /** Absolute, normalised, `~`/`$HOME` expanded, symlinks resolved where they exist. */
  paths: string[];
  /** Host names or IP literals (lower-case, no port), from URLs and network commands. */
  hosts: string[];
  /** The shell command, when the call runs one ("" otherwise). */
  command: string;
  /** Text content the call would write (for checkers' `content`), "" when none. */
  content: string;
  /** Static analysis cannot see through something in the command. */
  evasive: boolean;
  /** Why it is evasive, one short phrase each ("command substitution builds the command"). */
  evasiveReasons: string[];
  /**
   * Paths (also listed in `paths`) that the call reaches as whole trees: `grep -r`, `find`,
   * `tar -c`, Claude Code's Grep and Glob. A protected tree anywhere under one of them counts as
   * touched, by every operation of the call. Absent means none.
   */
  recursive?: string[];
  /**
   * Programs the call starts (shell commands only): each command word, interpreter script and
   * package a runner fetches (`npx NAME`), a bare name as written, a path absolute and also where
   * its links lead. The built-in rule on Gatehouse's own CLI reads these. Absent means none.
   */
  programs?: string[];
}

export type Decision = 'allow' | 'deny' | 'ask';
export type RuleDecision = Decision | 'log';
export type Severity = 'critical' | 'high' | 'warning' | 'info';

export interface Rule {
  name: string;
  description: string;
  source: 'builtin' | 'user' | 'cli';
  /** Where it was defined (file and line) — shown as the decider. */
  origin: string;
  actions: Operation[];
  block_paths: string[];
  block_except: string[];
  block_hosts: string[];
  severity: Severity;
  /** Lower wins. */
  priority: number;
  message: string;
  decision: RuleDecision;
  locked: boolean;
  enabled: boolean;
  /**
   * Allow rules only: what the rule is bound to beyond what the call touches (an "always"
   * approval's rule). `tools`: the call's tool is one of these. `commands`: the shell command is
   * exactly one of these strings. `arguments`: each listed argument equals this value (keys not
   * listed are not constrained here; what they reach is still judged by actions, paths, hosts).
   */
  tools?: string[];
  commands?: string[];
  arguments?: Record<string, unknown>;
}

/** Who decided a call, for the inbox, the agent's answer and the audit log: the contract's type, so the console and the host cannot disagree. */
export type Decider = DeciderView;
