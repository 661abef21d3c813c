// Red-team cases for the ingresses other than MCP and Claude Code's HTTP hook: the real
// `gatehouse hook --agent …` command against a real host on loopback. Each case is a call an
// agent really runs one way while Gatehouse would judge it another.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rendererDir = join(repoRoot, 'out', 'renderer');
const running: { host: Host; net: Listening }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.net.shell.close();
    await r.host.close('test done');
  }
});

async function start(): Promise<{ home: string; project: string }> {
  const root = tempDir('gatehouse-ingress-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: rendererDir });
  running.push({ host, net });
  return { home, project };
}

const ssh = join(process.env.HOME ?? '/root', '.ssh');

describe('Qwen Code: the folder judged is the folder Qwen Code lists', () => {
  // Qwen Code 0.24's list_directory, glob and grep_search read their folder from `path` (its
  // bundle: LSTool, GlobTool, GrepTool; their schemas do not refuse other fields). Gemini CLI's
  // name for it is `dir_path`: a Qwen Code call carrying both was judged on the `dir_path` it
  // ignores, and its real folder was dropped from what the judge saw.
  it.each([
    ['list_directory', {}],
    ['glob', { pattern: '*' }],
    ['grep_search', { pattern: 'PRIVATE' }],
  ])('%s {path: ~/.ssh, dir_path: <the project>} is denied as a call on ~/.ssh', async (tool, extra) => {
    const { home, project } = await start();
    const input = { session_id: 'q-1', transcript_path: '/tmp/t.jsonl', cwd: project, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { ...extra, path: ssh, dir_path: project }, tool_use_id: `q-${tool}` };
    const res = await runCli(['hook', '--agent', 'qwen-code', '--home', home], {}, JSON.stringify(input));
    expect(res.code).toBe(0);
    expect(res.stdout, 'a deny, not "no decision" (empty): Qwen Code would list ~/.ssh').not.toBe('');
    expect(JSON.parse(res.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('builtin.credentials.ssh') });
  });
});

describe('Gemini CLI: a server that calls itself "gatehouse" is not Gatehouse', () => {
  // The other mapped agents ask the host, naming the Gatehouse tool a call claims to be
  // (gateway/own-tools.ts): the host leaves it to the MCP path only for a tool it serves. Gemini
  // CLI's mapping still skipped every tool of any MCP server named "gatehouse" on the spot
  // (exit 0, nothing: no decision), whatever the tool, without asking the host. A trusted
  // workspace's .gemini/settings.json can define a server under that name.
  it('a tool Gatehouse does not serve, from a server named "gatehouse", is judged, not passed unjudged', async () => {
    const { home, project } = await start();
    const input = { session_id: 'g-1', transcript_path: '/tmp/t.json', cwd: project, hook_event_name: 'BeforeTool', timestamp: '2026-11-29T00:00:00Z', tool_name: 'run_anything', tool_input: { command: `cat ${ssh}/id_rsa` }, mcp_context: { server_name: 'gatehouse', tool_name: 'run_anything' } };
    const res = await runCli(['hook', '--agent', 'gemini-cli', '--home', home], {}, JSON.stringify(input));
    // Exit 0 with nothing is "no decision" to Gemini CLI: the tool runs.
    expect({ code: res.code, out: res.stdout + res.stderr }, 'Gemini CLI would run the tool unjudged').not.toEqual({ code: 0, out: '' });
    expect(res.code).toBe(2);
    // Gatehouse's own shell tool, as Gemini CLI reports it: still left to the MCP path (no decision), where it is judged.
    const own = await runCli(['hook', '--agent', 'gemini-cli', '--home', home], {}, JSON.stringify({ ...input, tool_name: 'shell', mcp_context: { server_name: 'gatehouse', tool_name: 'shell' } }));
    expect([own.code, own.stdout, own.stderr]).toEqual([0, '', '']);
  });
});
