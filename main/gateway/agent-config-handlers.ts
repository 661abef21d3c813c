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
}

export function agentConfigHandlers(d: AgentConfigHandlerDeps): AgentConfigHandlers {
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
    'agents.previewConfig': (req) => d.claudeConfig.preview(req),
    'agents.writeConfig': ({ expected, ...req }, ctx) => d.claudeConfig.write(req, expected, `operator:${ctx.operator}`, { console: ctx.console }),
    'agents.previewCodexConfig': (req) => d.codexConfig.preview(req),
    'agents.writeCodexConfig': ({ expected, ...req }, ctx) => d.codexConfig.write(req, expected, `operator:${ctx.operator}`, { console: ctx.console }),
  };
}
