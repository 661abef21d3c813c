// The table of agent integrations: every agent Gatehouse writes configuration for, built from the
// host's deps. The handlers (agents.integrations, agents.preview, agents.write), the console's
// dialog and the docs go through this table; none of them names an agent.
import { join } from 'node:path';
import type { AgentId } from '../../shared/agent-integrations.js';
import { ClaudeConfigWriter } from './claude-code/config-writer.js';
import { CodexConfigWriter } from './codex/config-writer.js';
import { CopilotConfigWriter } from './copilot/config-writer.js';
import { GeminiConfigWriter } from './gemini/config-writer.js';
import type { AgentIntegration } from './integration.js';
import { OpencodeConfigWriter } from './opencode/config-writer.js';
import { QwenConfigWriter } from './qwen-code/config-writer.js';

export interface AgentIntegrationDeps {
  /** The user's home (~/.claude, ~/.codex …); injectable for tests. */
  userHome: string;
  /** CODEX_HOME when set (else ~/.codex under userHome). */
  codexHome?: string | undefined;
  /** COPILOT_HOME when set (else ~/.copilot under userHome). */
  copilotHome?: string | undefined;
  gatehouseHome: string;
  endpoints: () => { mcpUrl: string; hookUrl: string; agentToken: string } | null;
  approvalExpiryS: () => number;
  setClientTimeout: (client: string, seconds: number, actor: string) => void;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  now: () => number;
}

export type AgentIntegrations = { readonly [Id in AgentId]: AgentIntegration<Id> };

export function agentIntegrations(d: AgentIntegrationDeps): AgentIntegrations {
  return {
    'claude-code': new ClaudeConfigWriter({ userHome: d.userHome, gatehouseHome: d.gatehouseHome, endpoints: d.endpoints, record: d.record, now: d.now }),
    codex: new CodexConfigWriter({
      codexHome: d.codexHome || join(d.userHome, '.codex'),
      gatehouseHome: d.gatehouseHome,
      endpoints: d.endpoints,
      approvalExpiryS: d.approvalExpiryS,
      setClientTimeout: d.setClientTimeout,
      record: d.record,
      now: d.now,
    }),
    'gemini-cli': new GeminiConfigWriter({ userHome: d.userHome, gatehouseHome: d.gatehouseHome, record: d.record, now: d.now }),
    opencode: new OpencodeConfigWriter({ userHome: d.userHome, gatehouseHome: d.gatehouseHome, approvalExpiryS: d.approvalExpiryS, setClientTimeout: d.setClientTimeout, record: d.record, now: d.now }),
    copilot: new CopilotConfigWriter({ copilotHome: d.copilotHome || join(d.userHome, '.copilot'), gatehouseHome: d.gatehouseHome, record: d.record, now: d.now }),
    'qwen-code': new QwenConfigWriter({ userHome: d.userHome, gatehouseHome: d.gatehouseHome, record: d.record, now: d.now }),
  };
}

