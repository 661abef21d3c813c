// The table of agent integrations (main/agents/index.ts, issue #27 item 5): every agent the
// console's dialog offers has an integration and the other way round, and each one detects,
// previews, writes, verifies and gives its snippet through the one interface, on a temp home.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_DESCRIPTORS, AGENT_IDS, AGENT_REQUESTS, type AgentId } from '../../../shared/agent-integrations.js';
import { agentIntegrations } from '../../../main/agents/index.js';
import type { AgentOptions } from '../../../main/agents/integration.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

/** The first option of each choice, as the dialog offers it by default on a host without HTTP. */
function defaultOptions(id: AgentId, projectDir: string): AgentOptions<AgentId> {
  const d = AGENT_DESCRIPTORS.find((x) => x.id === id)!;
  const values = Object.fromEntries(d.choices.map((c) => [c.key, c.options.find((o) => !o.needs)!.value]));
  const folder = d.choices.some((c) => c.folderWhen && values[c.key] === c.folderWhen.value);
  const req = AGENT_REQUESTS[id].parse({ agent: id, ...values, ...(folder ? { projectDir } : {}) });
  const { agent: _agent, ...options } = req;
  return options as AgentOptions<AgentId>;
}

function table(userHome: string) {
  const recorded: { type: string; payload: Record<string, unknown> }[] = [];
  const integrations = agentIntegrations({
    userHome,
    gatehouseHome: join(userHome, 'gh'),
    endpoints: () => null,
    approvalExpiryS: () => 600,
    setClientTimeout: () => {},
    record: (type, _actor, payload) => recorded.push({ type, payload }),
    now: () => Date.UTC(2026, 0, 1),
  });
  return { integrations, recorded };
}

describe('agent integrations', () => {
  it('the dialog offers exactly the agents of the table, each with its own request schema', () => {
    const { integrations } = table(tempDir('gatehouse-agents-ids-'));
    expect(Object.keys(integrations).sort()).toEqual([...AGENT_IDS].sort());
    expect(AGENT_DESCRIPTORS.map((d) => d.id).sort()).toEqual([...AGENT_IDS].sort());
    for (const i of Object.values(integrations)) {
      expect(i.displayName).not.toBe('');
      // Every agent says what Gatehouse cannot guarantee for it.
      expect(i.limits.length, i.id).toBeGreaterThan(0);
    }
  });

  for (const id of AGENT_IDS) {
    it(`${id}: not found on an empty home; verify is false, then preview, write, verify true; the snippet is what a new file gets`, () => {
      const userHome = tempDir(`gatehouse-agents-${id}-`);
      const project = join(userHome, 'project');
      mkdirSync(project);
      const { integrations, recorded } = table(userHome);
      const integration = integrations[id];
      const options = defaultOptions(id, project);
      // The PATH of this machine may hold the agent's command (the e2e tests install them): only the home is asked about here.
      expect(integration.detect().evidence.filter((e) => e.startsWith(userHome))).toEqual([]);
      expect(integration.verify(options as never).ok).toBe(false);
      const preview = integration.preview(options as never);
      expect(preview.files.every((f) => f.changed && !f.exists)).toBe(true);
      const snippet = integration.snippet(options as never);
      for (const f of preview.files) expect(snippet).toContain(f.after.trim());
      const { files } = integration.write(options as never, preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:tester');
      expect(files.every((f) => f.written && f.created)).toBe(true);
      expect(recorded.map((r) => r.type)).toEqual(['agent.config-written']);
      expect(integration.verify(options as never)).toEqual({ ok: true, files: preview.files.map((f) => ({ path: f.path, ok: true })) });
      expect(integration.detect().evidence.some((e) => e.startsWith(userHome)) || id === 'claude-code').toBe(true);
    });
  }

  it('`gatehouse agent integrations` lists every agent of the table from the host, found or not, with its limits', async () => {
    const root = tempDir('gatehouse-agents-cli-');
    const home = join(root, 'gatehouse');
    const userHome = join(root, 'user');
    mkdirSync(join(userHome, '.gemini'), { recursive: true });
    const r = await runCli(['agent', 'integrations', '--json', '--home', home], { GATEHOUSE_HOME: home, HOME: userHome });
    expect(r.code, r.stderr).toBe(0);
    const agents = JSON.parse(r.stdout) as { id: string; found: boolean; evidence: string[]; limits: string[] }[];
    expect(agents.map((a) => a.id)).toEqual(AGENT_DESCRIPTORS.map((d) => d.id));
    expect(agents.find((a) => a.id === 'gemini-cli')!.evidence).toContain(join(userHome, '.gemini'));
    expect(agents.every((a) => a.limits.length > 0)).toBe(true);
  });
});
