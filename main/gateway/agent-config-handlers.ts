// How agents reach this host (gateway.info: the MCP and hook URLs, the agent token, the tools
// agents see) and "write it for me": the agents.* methods preview and write Claude Code's and
// Codex's own config files, each write checked against the previewed file's hash.
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import { defaultHookLauncher, type ClaudeConfigWriter } from './claude-config-writer.js';
import type { CodexConfigWriter } from './codex-config-writer.js';
import type { Gateway } from './gateway.js';

type AgentConfigMethods = 'gateway.info' | 'agents.previewConfig' | 'agents.writeConfig' | 'agents.previewCodexConfig' | 'agents.writeCodexConfig';
export type AgentConfigHandlers = Pick<Handlers<GatehouseContract['methods']>, AgentConfigMethods>;

export interface AgentConfigHandlerDeps {
  gateway: Gateway;
  /** Where agents reach this host, once a shell listens (null before, and for CLI commands). */
  endpoints: () => { mcpUrl: string; hookUrl: string; agentToken: string } | null;
  /** Calls waiting for an operator. */
  pending: () => number;
  claudeConfig: ClaudeConfigWriter;
  codexConfig: CodexConfigWriter;
  /** Notes about this host for the write dialog (first run: the example tool is not enabled). */
  hostNotes?: () => string[];
}

export function agentConfigHandlers(d: AgentConfigHandlerDeps): AgentConfigHandlers {
  // Only where the agent will list Gatehouse's tools (an MCP server is written): a hook alone sees none.
  const withHostNotes = <T extends { notes: string[] }>(preview: T, listsTools: boolean): T => (listsTools ? { ...preview, notes: [...preview.notes, ...(d.hostNotes?.() ?? [])] } : preview);
  return {
    'gateway.info': () => {
      const e = d.endpoints();
      return {
        mcpUrl: e?.mcpUrl ?? null,
        hookUrl: e?.hookUrl ?? null,
        agentToken: e?.agentToken ?? null,
        hookLauncher: defaultHookLauncher(),
        tools: d.gateway.tools().map((t) => ({ name: t.name, description: t.description, plugin: t.plugin, kind: t.kind })),
        pending: d.pending(),
      };
    },
    'agents.previewConfig': (req) => withHostNotes(d.claudeConfig.preview(req), req.mcp !== 'none'),
    'agents.writeConfig': ({ expected, ...req }, ctx) => d.claudeConfig.write(req, expected, `operator:${ctx.operator}`, { console: ctx.console }),
    'agents.previewCodexConfig': (req) => withHostNotes(d.codexConfig.preview(req), true),
    'agents.writeCodexConfig': ({ expected, ...req }, ctx) => d.codexConfig.write(req, expected, `operator:${ctx.operator}`, { console: ctx.console }),
  };
}
