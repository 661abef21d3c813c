// How agents reach this host (gateway.info: the MCP and hook URLs, the agent token, the tools
// agents see) and "write it for me": agents.integrations lists the agents of the table in
// index.ts, agents.preview and agents.write preview and write one agent's own config
// files, each write checked against the previewed file's hash. No agent is named here.
import type { AgentId, AgentRequest } from '../../shared/agent-integrations.js';
import type { GatehouseContract } from '../../shared/contract.js';
import type { Handlers } from '../core/handlers.js';
import type { Gateway } from '../gateway/gateway.js';
import { defaultHookLauncher } from './claude-code/config-writer.js';
import type { AgentIntegrations } from './index.js';
import type { AgentIntegration, AgentOptions } from './integration.js';

type AgentConfigMethods = 'gateway.info' | 'agents.integrations' | 'agents.preview' | 'agents.write';
export type AgentConfigHandlers = Pick<Handlers<GatehouseContract['methods']>, AgentConfigMethods>;

export interface AgentConfigHandlerDeps {
  gateway: Gateway;
  /** Where agents reach this host, once a shell listens (null before, and for CLI commands). */
  endpoints: () => { mcpUrl: string; hookUrl: string; agentToken: string } | null;
  /** Calls waiting for an operator. */
  pending: () => number;
  integrations: AgentIntegrations;
  /** Notes about this host for the write dialog (first run: the example tool is not enabled). */
  hostNotes?: () => string[];
}

/** The integration a request names, and the request without its `agent` (what the integration takes). */
function pick<T extends { agent: AgentId }>(table: AgentIntegrations, req: T): { integration: AgentIntegration; options: AgentOptions<AgentId> } {
  const { agent, ...options } = req;
  // The request was validated against the agent's own schema (shared/agent-integrations.ts): `options` fits its integration.
  return { integration: table[agent] as AgentIntegration, options: options as unknown as AgentOptions<AgentId> };
}

export function agentConfigHandlers(d: AgentConfigHandlerDeps): AgentConfigHandlers {
  const all = () => Object.values(d.integrations) as AgentIntegration[];
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
    'agents.integrations': () => ({
      agents: all().map((i) => ({ id: i.id, displayName: i.displayName, ...i.detect(), limits: [...i.limits] })),
    }),
    'agents.preview': (req: AgentRequest) => {
      const { integration, options } = pick(d.integrations, req);
      const preview = integration.preview(options);
      // Only where the agent will list Gatehouse's tools (an MCP server is written): a hook alone sees none.
      return integration.listsTools(options) ? { ...preview, notes: [...preview.notes, ...(d.hostNotes?.() ?? [])] } : preview;
    },
    'agents.write': (req, ctx) => {
      const { expected, ...rest } = req;
      const { integration, options } = pick(d.integrations, rest as AgentRequest);
      return integration.write(options, expected, `operator:${ctx.operator}`, { console: ctx.console });
    },
  };
}
