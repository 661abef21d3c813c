// One interface for every agent Gatehouse writes configuration for (Claude Code, Codex, Gemini
// CLI …): the host's agents.* methods, the console's one "write it for me" dialog and the docs
// iterate the table in main/agents/index.ts and never name an agent. Adding an agent is one
// folder under main/agents/ implementing this, one row in that table, and its choices in
// shared/agent-integrations.ts (docs/architecture.md, "How to add an agent integration").
import type { AgentId, AgentRequest } from '../../shared/agent-integrations.js';

/** An agent's request without its `agent` field: what its integration is given. */
export type AgentOptions<Id extends AgentId> = Omit<AgentRequest<Id>, 'agent'>;
import type { ConfigPreview, WrittenFile } from './config-file.js';
import type { LauncherDeps } from '../gateway/agent-launcher.js';

/** What every config writer of a hook-supervised agent is given, beside where its agent's files live. */
export interface WriterDeps extends LauncherDeps {
  /** This host's GATEHOUSE_HOME, passed to `gatehouse hook` and `gatehouse mcp` as --home. */
  gatehouseHome: string;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now?: () => number;
}

/** What was found of the agent on this host: its configuration folder, its command on the PATH. */
export interface AgentDetection {
  found: boolean;
  /** What was found, in words (paths), for the console; empty when nothing was. */
  evidence: string[];
}

/** Whether the agent's files hold Gatehouse as `req` would write it, read again from disk. */
export interface AgentVerification {
  ok: boolean;
  files: { path: string; ok: boolean }[];
}

export interface AgentIntegration<Id extends AgentId = AgentId> {
  readonly id: Id;
  readonly displayName: string;
  /**
   * What Gatehouse cannot guarantee for this agent, in words (shown with every preview and in
   * docs/security-model.md): e.g. what the agent does when the hook fails, which calls no hook sees.
   */
  readonly limits: readonly string[];
  detect(): AgentDetection;
  /** What writing `req` would change, one diff per file; changes nothing. */
  preview(req: AgentOptions<Id>): ConfigPreview;
  /** Writes what the preview showed, only if every file still has the hash `expected` names; audited. */
  write(req: AgentOptions<Id>, expected: readonly { path: string; baseHash: string }[], actor: string, extra?: Record<string, unknown>): { files: WrittenFile[] };
  verify(req: AgentOptions<Id>): AgentVerification;
  /** Gatehouse's entries as a new file of the agent's would hold them (docs, copyable snippets). */
  snippet(req: AgentOptions<Id>): string;
  /** Whether the agent will list Gatehouse's tools with `req` (an MCP server is written): host notes about tools apply. */
  listsTools(req: AgentOptions<Id>): boolean;
}

/** verify() as every integration does it: the files are as wanted when a fresh preview changes none. */
export function verifyByPreview(preview: ConfigPreview): AgentVerification {
  const files = preview.files.map((f) => ({ path: f.path, ok: !f.changed }));
  return { ok: files.every((f) => f.ok), files };
}
