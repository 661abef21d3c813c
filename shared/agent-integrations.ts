// The agents Gatehouse writes configuration for, as data: what each accepts (one zod schema per
// agent, joined into the agents.preview / agents.write requests of shared/contract.ts) and what
// the console's one "write it for me" dialog shows for it (its choices, in order). The host side
// of each is an AgentIntegration (main/agents/integration.ts), listed in main/agents/index.ts.
import { z } from 'zod';

const scope = z.enum(['user', 'project']);
const projectDir = z.string().max(4096).optional();

/** Each agent's request, by id; `agent` picks the integration. */
export const AGENT_REQUESTS = {
  'claude-code': z
    .object({
      agent: z.literal('claude-code'),
      /** user: ~/.claude/settings.json and ~/.claude.json; project: <projectDir>/.claude/settings.json and <projectDir>/.mcp.json. */
      scope,
      /** The project folder on the host (scope project): absolute, or starting with ~/. */
      projectDir,
      /** Gatehouse as an MCP server: Streamable HTTP with the agent token, the stdio bridge, or not at all. */
      mcp: z.enum(['http', 'stdio', 'none']),
      /** Gatehouse as a PreToolUse hook: command form, HTTP form, or not at all. */
      hook: z.enum(['command', 'http', 'none']),
    })
    .strict(),
  codex: z
    .object({
      agent: z.literal('codex'),
      /** Gatehouse as Codex's MCP server: the stdio bridge (default), or Streamable HTTP with the token from GATEHOUSE_AGENT_TOKEN. */
      mcp: z.enum(['stdio', 'http']),
    })
    .strict(),
  'gemini-cli': z
    .object({
      agent: z.literal('gemini-cli'),
      /** user: ~/.gemini/settings.json; project: <projectDir>/.gemini/settings.json (its hooks run only in a folder Gemini CLI trusts). */
      scope,
      projectDir,
      /** Gatehouse as an MCP server (the stdio bridge), or not at all. */
      mcp: z.enum(['stdio', 'none']),
      /** Gatehouse as a BeforeTool hook (`gatehouse hook --agent gemini-cli`), or not at all. */
      hook: z.enum(['command', 'none']),
    })
    .strict(),
  opencode: z
    .object({
      agent: z.literal('opencode'),
      /** user: ~/.config/opencode (plugins/gatehouse.js, opencode.json); project: <projectDir>/.opencode/plugins/gatehouse.js and <projectDir>/opencode.json. */
      scope,
      projectDir,
      /** Gatehouse as a local MCP server (the stdio bridge), or not at all. */
      mcp: z.enum(['stdio', 'none']),
      /** Gatehouse's plugin, which runs `gatehouse hook --agent opencode` before each tool, or not at all. */
      hook: z.enum(['plugin', 'none']),
    })
    .strict(),
  copilot: z
    .object({
      agent: z.literal('copilot'),
      /** Gatehouse as an MCP server in $COPILOT_HOME/mcp-config.json (the stdio bridge), or not at all. */
      mcp: z.enum(['stdio', 'none']),
      /** Gatehouse as a preToolUse hook in $COPILOT_HOME/hooks/gatehouse.json (`gatehouse hook --agent copilot`), or not at all. */
      hook: z.enum(['command', 'none']),
    })
    .strict(),
  'qwen-code': z
    .object({
      agent: z.literal('qwen-code'),
      /** user: ~/.qwen/settings.json; project: <projectDir>/.qwen/settings.json (its hooks run only in a folder Qwen Code trusts). */
      scope,
      projectDir,
      /** Gatehouse as an MCP server (the stdio bridge), or not at all. */
      mcp: z.enum(['stdio', 'none']),
      /** Gatehouse as a PreToolUse hook (`gatehouse hook --agent qwen-code`), or not at all. */
      hook: z.enum(['command', 'none']),
    })
    .strict(),
} as const;

export type AgentId = keyof typeof AGENT_REQUESTS;
export const AGENT_IDS = Object.keys(AGENT_REQUESTS) as AgentId[];
export type AgentRequest<Id extends AgentId = AgentId> = z.infer<(typeof AGENT_REQUESTS)[Id]>;

/** agents.preview's request: one agent's request. */
export const agentRequest = z.discriminatedUnion('agent', [AGENT_REQUESTS['claude-code'], AGENT_REQUESTS.codex, AGENT_REQUESTS['gemini-cli'], AGENT_REQUESTS.opencode, AGENT_REQUESTS.copilot, AGENT_REQUESTS['qwen-code']]);
const expected = z.array(z.object({ path: z.string().max(4096), baseHash: z.string().max(100) })).min(1).max(4);
/** agents.write's request: the agent's request and the hash of each file as its preview showed it. */
export const agentWriteRequest = z.discriminatedUnion('agent', [AGENT_REQUESTS['claude-code'].extend({ expected }), AGENT_REQUESTS.codex.extend({ expected }), AGENT_REQUESTS['gemini-cli'].extend({ expected }), AGENT_REQUESTS.opencode.extend({ expected }), AGENT_REQUESTS.copilot.extend({ expected }), AGENT_REQUESTS['qwen-code'].extend({ expected })]);

/** One option of a choice; `needs`: only when the host listens for agents over HTTP. */
export interface AgentChoiceOption {
  value: string;
  label: string;
  help: string;
  needs?: 'mcpUrl' | 'hookUrl';
}

/** One radio group of the dialog; its value goes into the request under `key`. */
export interface AgentChoice {
  key: string;
  legend: string;
  /** The radio inputs' name (the console's tests find the inputs by it). */
  inputName: string;
  options: AgentChoiceOption[];
  /** Asks for the project folder (the request's projectDir) while this value is chosen. */
  folderWhen?: { value: string; placeholder: string };
}

export interface AgentDescriptor {
  id: AgentId;
  displayName: string;
  /** Prefix of the dialog's test ids and its open button's (`${testIdPrefix}-open`). */
  testIdPrefix: string;
  /** The open button's label and the hint beside it. */
  openLabel: string;
  openHint: string;
  choices: AgentChoice[];
  /** Choices of which at least one must not be "none", and what to say when all are. */
  needsOneOf?: { keys: string[]; message: string };
  /** Said after a write. */
  done: string;
}

const TOKEN_ENV_NAME = 'GATEHOUSE_AGENT_TOKEN';

/** The dialog's data, in the order the console lists the agents. */
export const AGENT_DESCRIPTORS: readonly AgentDescriptor[] = [
  {
    id: 'claude-code',
    displayName: 'Claude Code',
    testIdPrefix: 'write-config',
    openLabel: 'Write it for me…',
    openHint: 'Adds Gatehouse to Claude Code’s settings (yours, or one project’s) after showing you the diff; keeps a backup; recorded in the audit log.',
    choices: [
      {
        key: 'scope',
        legend: 'Where',
        inputName: 'config-scope',
        options: [
          { value: 'project', label: 'One project', help: '.claude/settings.json (the hook) and .mcp.json (the MCP server) in the project folder; commit them to share with the team.' },
          { value: 'user', label: 'You, in every project', help: '~/.claude/settings.json (the hook) and ~/.claude.json (the MCP server) in your home folder on the host.' },
        ],
        folderWhen: { value: 'project', placeholder: '/path/to/project (the folder you start Claude Code in)' },
      },
      {
        key: 'mcp',
        legend: 'MCP server',
        inputName: 'config-mcp',
        options: [
          { value: 'http', label: 'Streamable HTTP', help: `With the agent token (a project’s .mcp.json names ${TOKEN_ENV_NAME} instead).`, needs: 'mcpUrl' },
          { value: 'stdio', label: 'stdio bridge', help: 'Claude Code starts gatehouse mcp, which relays to this host; no token.' },
          { value: 'none', label: 'None', help: 'Leave the MCP server out.' },
        ],
      },
      {
        key: 'hook',
        legend: 'PreToolUse hook',
        inputName: 'config-hook',
        options: [
          { value: 'command', label: 'Command', help: 'Claude Code runs gatehouse hook before each of its own tools.' },
          { value: 'http', label: 'HTTP', help: `Claude Code posts to this host, with the token from ${TOKEN_ENV_NAME}.`, needs: 'hookUrl' },
          { value: 'none', label: 'None', help: 'Leave the hook out.' },
        ],
      },
    ],
    needsOneOf: { keys: ['mcp', 'hook'], message: 'Choose an MCP server, a hook, or both.' },
    done: 'Done. Restart Claude Code (or open a new session) so it reads the files again; /hooks and /mcp show what it loaded.',
  },
  {
    id: 'codex',
    displayName: 'Codex',
    testIdPrefix: 'codex-config',
    openLabel: 'Write it for Codex…',
    openHint: 'Adds Gatehouse to Codex’s config.toml (the stdio bridge, Gatehouse’s approvals instead of Codex’s, a tool timeout above the approval deadline) after showing you the diff.',
    choices: [
      {
        key: 'mcp',
        legend: 'How Codex reaches Gatehouse',
        inputName: 'codex-mcp',
        options: [
          { value: 'stdio', label: 'stdio bridge', help: 'Codex starts gatehouse mcp in its workspace, so calls run there; no token.' },
          { value: 'http', label: 'Streamable HTTP', help: `Codex reads the agent token from ${TOKEN_ENV_NAME}.`, needs: 'mcpUrl' },
        ],
      },
    ],
    done: 'Done. Restart Codex so it reads config.toml again (codex mcp list shows gatehouse).',
  },
  {
    id: 'gemini-cli',
    displayName: 'Gemini CLI',
    testIdPrefix: 'gemini-config',
    openLabel: 'Write it for Gemini CLI…',
    openHint: 'Adds Gatehouse to Gemini CLI’s settings.json (the stdio bridge and a BeforeTool hook that fails closed) after showing you the diff.',
    choices: [
      {
        key: 'scope',
        legend: 'Where',
        inputName: 'gemini-scope',
        options: [
          { value: 'user', label: 'You, in every project', help: '~/.gemini/settings.json in your home folder on the host.' },
          { value: 'project', label: 'One project', help: '.gemini/settings.json in the project folder; Gemini CLI runs its hooks only once you trust that folder.' },
        ],
        folderWhen: { value: 'project', placeholder: '/path/to/project (the folder you start Gemini CLI in)' },
      },
      {
        key: 'mcp',
        legend: 'MCP server',
        inputName: 'gemini-mcp',
        options: [
          { value: 'stdio', label: 'stdio bridge', help: 'Gemini CLI starts gatehouse mcp, which relays to this host; trusted, so Gatehouse asks instead of Gemini CLI.' },
          { value: 'none', label: 'None', help: 'Leave the MCP server out.' },
        ],
      },
      {
        key: 'hook',
        legend: 'BeforeTool hook',
        inputName: 'gemini-hook',
        options: [
          { value: 'command', label: 'Command', help: 'Gemini CLI runs gatehouse hook before each of its own tools; a deny reaches the model with its reason.' },
          { value: 'none', label: 'None', help: 'Leave the hook out.' },
        ],
      },
    ],
    needsOneOf: { keys: ['mcp', 'hook'], message: 'Choose the MCP server, the hook, or both.' },
    done: 'Done. Restart Gemini CLI so it reads settings.json again (/hooks and /mcp show what it loaded).',
  },
  {
    id: 'opencode',
    displayName: 'opencode',
    testIdPrefix: 'opencode-config',
    openLabel: 'Write it for opencode…',
    openHint: 'Adds Gatehouse’s plugin (it asks Gatehouse before each tool and blocks what Gatehouse denies) and the stdio bridge to opencode’s config after showing you the diff.',
    choices: [
      {
        key: 'scope',
        legend: 'Where',
        inputName: 'opencode-scope',
        options: [
          { value: 'user', label: 'You, in every project', help: '~/.config/opencode/plugins/gatehouse.js and ~/.config/opencode/opencode.json on the host.' },
          { value: 'project', label: 'One project', help: '.opencode/plugins/gatehouse.js and opencode.json in the project folder.' },
        ],
        folderWhen: { value: 'project', placeholder: '/path/to/project (the folder you start opencode in)' },
      },
      {
        key: 'mcp',
        legend: 'MCP server',
        inputName: 'opencode-mcp',
        options: [
          { value: 'stdio', label: 'stdio bridge', help: 'opencode starts gatehouse mcp, which relays to this host.' },
          { value: 'none', label: 'None', help: 'Leave the MCP server out.' },
        ],
      },
      {
        key: 'hook',
        legend: 'Plugin',
        inputName: 'opencode-hook',
        options: [
          { value: 'plugin', label: 'Gatehouse plugin', help: 'opencode asks Gatehouse before each of its own tools; a deny reaches the model with its reason. opencode runs tools unsupervised if the plugin fails to load.' },
          { value: 'none', label: 'None', help: 'Leave the plugin out.' },
        ],
      },
    ],
    needsOneOf: { keys: ['mcp', 'hook'], message: 'Choose the MCP server, the plugin, or both.' },
    done: 'Done. Restart opencode so it loads the plugin and config again (opencode mcp list shows gatehouse).',
  },
  {
    id: 'copilot',
    displayName: 'GitHub Copilot CLI',
    testIdPrefix: 'copilot-config',
    openLabel: 'Write it for Copilot CLI…',
    openHint: 'Adds Gatehouse to GitHub Copilot CLI’s home (~/.copilot, or COPILOT_HOME): a preToolUse hook that fails closed and the stdio bridge, after showing you the diff.',
    choices: [
      {
        key: 'mcp',
        legend: 'MCP server',
        inputName: 'copilot-mcp',
        options: [
          { value: 'stdio', label: 'stdio bridge', help: 'mcp-config.json: Copilot CLI starts gatehouse mcp, which relays to this host; no token.' },
          { value: 'none', label: 'None', help: 'Leave the MCP server out.' },
        ],
      },
      {
        key: 'hook',
        legend: 'preToolUse hook',
        inputName: 'copilot-hook',
        options: [
          { value: 'command', label: 'Command', help: 'hooks/gatehouse.json: Copilot CLI runs gatehouse hook before each of its own tools; a deny reaches the model with its reason.' },
          { value: 'none', label: 'None', help: 'Leave the hook out.' },
        ],
      },
    ],
    needsOneOf: { keys: ['mcp', 'hook'], message: 'Choose the MCP server, the hook, or both.' },
    done: 'Done. Restart Copilot CLI so it reads its files again (/mcp shows what it loaded).',
  },
  {
    id: 'qwen-code',
    displayName: 'Qwen Code',
    testIdPrefix: 'qwen-config',
    openLabel: 'Write it for Qwen Code…',
    openHint: 'Adds Gatehouse to Qwen Code’s settings.json (the stdio bridge and a PreToolUse hook that fails closed) after showing you the diff.',
    choices: [
      {
        key: 'scope',
        legend: 'Where',
        inputName: 'qwen-scope',
        options: [
          { value: 'user', label: 'You, in every project', help: '~/.qwen/settings.json in your home folder on the host.' },
          { value: 'project', label: 'One project', help: '.qwen/settings.json in the project folder; with folder trust on, Qwen Code runs its hooks only once you trust that folder.' },
        ],
        folderWhen: { value: 'project', placeholder: '/path/to/project (the folder you start Qwen Code in)' },
      },
      {
        key: 'mcp',
        legend: 'MCP server',
        inputName: 'qwen-mcp',
        options: [
          { value: 'stdio', label: 'stdio bridge', help: 'Qwen Code starts gatehouse mcp, which relays to this host; trusted, so Gatehouse asks instead of Qwen Code.' },
          { value: 'none', label: 'None', help: 'Leave the MCP server out.' },
        ],
      },
      {
        key: 'hook',
        legend: 'PreToolUse hook',
        inputName: 'qwen-hook',
        options: [
          { value: 'command', label: 'Command', help: 'Qwen Code runs gatehouse hook before each of its own tools; a deny reaches the model with its reason.' },
          { value: 'none', label: 'None', help: 'Leave the hook out.' },
        ],
      },
    ],
    needsOneOf: { keys: ['mcp', 'hook'], message: 'Choose the MCP server, the hook, or both.' },
    done: 'Done. Restart Qwen Code so it reads settings.json again (/hooks and /mcp show what it loaded).',
  },
];
