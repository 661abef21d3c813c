// Runs inside a network namespace with only loopback (test/main/agents/codex-e2e.test.ts starts it with
// `unshare -n`): a scripted mock of the OpenAI Responses API, a real Gatehouse host
// (`gatehouse serve`), Codex's config.toml with the table Gatehouse's own "Write it for Codex"
// writes (the stdio bridge), and the real Codex CLI (`codex exec`), once per scenario. Prints
// one JSON object on stdout: what the mock saw and what each scenario did.
// Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, codex, helloDir } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
const codexHome = join(userHome, '.codex');
const project = join(root, 'project');
for (const d of [join(home, 'plugins'), codexHome, project]) mkdirSync(d, { recursive: true });
cpSync(helloDir, join(home, 'plugins', 'hello'), { recursive: true });
// Supervised: the shell asks; the read-only hello plugin is on the operator's auto-approve list
// (a plugin call counts as execute, which supervised would otherwise ask about).
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', autoApprove: ['hello'] }));

// ---- the mock model (Responses API, streamed): the scenario's tool call, then the tool's output ----
/** The scenario running now, and the call its model makes: { namespace, name, arguments }. */
let current = null;
const requests = [];
/** Anything else Codex asked the mock for. */
const others = [];
let script = null;
const sse = (res, events) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
};
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url.startsWith('/v1/responses')) {
      others.push(`${req.method} ${req.url}`);
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    }
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with no input.
    }
    const input = Array.isArray(j.input) ? j.input : [];
    const output = input.filter((i) => i.type === 'function_call_output').at(-1);
    // Gatehouse's tools as Codex offers them to the model: the namespace mcp__gatehouse.
    const ours = (j.tools ?? []).find((t) => t.type === 'namespace' && t.name === 'mcp__gatehouse');
    requests.push({ scenario: current, gatehouseTools: ours ? ours.tools : null, output: output ?? null });
    const id = `resp_${requests.length}`;
    const item = !output && script
      ? { type: 'function_call', id: `fc_${requests.length}`, call_id: `call_${current}`, name: script.name, ...(script.namespace ? { namespace: script.namespace } : {}), arguments: JSON.stringify(script.arguments) }
      : { type: 'message', role: 'assistant', id: `msg_${requests.length}`, content: [{ type: 'output_text', text: output ? `TOOL OUTPUT: ${typeof output.output === 'string' ? output.output : JSON.stringify(output.output)}` : 'ok' }] };
    sse(res, [
      { type: 'response.created', response: { id } },
      { type: 'response.output_item.done', item },
      { type: 'response.completed', response: { id, usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 } } },
    ]);
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockPort = mock.address().port;

// Codex's own settings, before Gatehouse adds its table: the mock as the model provider, and
// everything that could phone home switched off (the namespace would stop it anyway).
const codexBase = [
  'model = "mock-model"',
  'model_provider = "mock"',
  'check_for_update_on_startup = false',
  '',
  '[model_providers.mock]',
  'name = "scripted mock"',
  `base_url = "http://127.0.0.1:${mockPort}/v1"`,
  'wire_api = "responses"',
  'env_key = "MOCK_API_KEY"',
  'request_max_retries = 0',
  'stream_max_retries = 0',
  '',
  '[analytics]',
  'enabled = false',
  '',
  '[feedback]',
  'enabled = false',
  '',
  '[otel]',
  'exporter = "none"',
  'trace_exporter = "none"',
  'metrics_exporter = "none"',
  '',
].join('\n');
writeFileSync(join(codexHome, 'config.toml'), codexBase);

// ---- the host --------------------------------------------------------------------------------------
const env = { PATH: '/usr/bin:/bin', HOME: userHome, CODEX_HOME: codexHome, LANG: 'C.UTF-8' };
const { host, serve, op } = await startServe(cli, home, env);
// plugins.list answers once the host's first plugin scan is done; then hello can be enabled.
await op('plugins.list');
await op('plugins.enable', { name: 'hello' });

// "Write it for Codex", as the console does it: preview, then apply exactly what was previewed.
const preview = await op('agents.preview', { agent: 'codex', mcp: 'stdio' });
await op('agents.write', { agent: 'codex', mcp: 'stdio', expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const configFile = join(codexHome, 'config.toml');
const written = readFileSync(configFile, 'utf8');

// The inbox, watched as a console watches it (the operator WebSocket): a scenario that waits for an
// operator acts on the approvals.changed event that adds its item.
let onAdded = null;
const consoleWs = await watchInbox(serve, (id) => onAdded?.(id));

// ---- Codex -------------------------------------------------------------------------------------------
/** Variables the next runs of Codex get beside the base environment. */
const codexEnv = {};
function runCodex(onPending) {
  return new Promise((resolve) => {
    // --strict-config: a key this Codex does not know (a telemetry switch that was renamed) fails the run.
    const child = spawn(codex, ['exec', '--strict-config', '--skip-git-repo-check', '--ephemeral', '--json', 'Use the tool.'], {
      cwd: project,
      env: { ...env, ...codexEnv, MOCK_API_KEY: 'sk-e2e-dummy' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // A scenario that hangs is a failure the test reports, not a test that never ends.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    onAdded = onPending
      ? (id) => {
          onAdded = null;
          void op('approvals.get', { id }).then(onPending);
        }
      : null;
    child.on('close', (code) => {
      onAdded = null;
      clearTimeout(timer);
      const events = out.split('\n').filter(Boolean).map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return { raw: l };
        }
      });
      resolve({ code, events, stderr: err.slice(-3000) });
    });
  });
}

const marker = (name) => join(project, `marker-${name}`);
const scenarios = [];
async function scenario(name, call, opts = {}) {
  current = name;
  script = call;
  const t0 = Date.now();
  const r = await runCodex(opts.onPending);
  const mine = requests.filter((q) => q.scenario === name);
  scenarios.push({
    name,
    ms: Date.now() - t0,
    marker: existsSync(marker(name)),
    code: r.code,
    events: r.events,
    stderr: r.stderr,
    requests: mine.length,
    // What the model was offered first, and the tool's output as Codex sent it back.
    firstTools: mine[0]?.gatehouseTools ?? null,
    output: mine.map((q) => q.output).find(Boolean) ?? null,
    after: opts.after ? await opts.after() : null,
  });
}
const shell = (command) => ({ namespace: 'mcp__gatehouse', name: 'shell', arguments: { command } });

// A read-only plugin tool: autonomy lets it run, and Codex does not ask on its own.
await scenario('read', { namespace: 'mcp__gatehouse', name: 'hello', arguments: { name: 'Ada' } });
// A shell command that writes: it waits in the inbox; the operator approves it over the API.
let approved = null;
await scenario('approve', shell(`touch ${marker('approve')} && echo approved-ran`), {
  onPending: async (item) => {
    approved = item;
    await op('approvals.approve', { id: item.id, argsHash: item.argsHash });
  },
});
// Gatehouse knows how long Codex waits (tool_timeout_sec and mcpClientTimeouts agree): the approval
// expires first and Codex reads "expired", never a timeout of its own.
writeFileSync(configFile, written.replace(/^tool_timeout_sec = \d+$/m, 'tool_timeout_sec = 8'));
await op('settings.update', { mcpClientTimeouts: { 'codex-mcp-client': 8 } });
let expiring = null;
await scenario('expire', shell(`touch ${marker('expire')}`), { onPending: (item) => void (expiring = item) });
// Codex's timeout is shorter than Gatehouse knows (tool_timeout_sec lowered by hand): Codex gives
// up at 5 s and cancels; the item is withdrawn as agent gone and can no longer be approved.
writeFileSync(configFile, written.replace(/^tool_timeout_sec = \d+$/m, 'tool_timeout_sec = 5'));
await op('settings.update', { mcpClientTimeouts: { 'codex-mcp-client': 635 } });
let gone = null;
await scenario('gone', shell(`touch ${marker('gone')}`), {
  onPending: (item) => void (gone = item),
  // After Codex exited: the item as the inbox shows it, and what approving it now answers.
  after: async () => {
    if (!gone) return null;
    const item = await op('approvals.get', { id: gone.id });
    const late = await op('approvals.approve', { id: gone.id, argsHash: gone.argsHash }).then(() => 'approved', (err) => String(err.message));
    return { item, late };
  },
});
// Without default_tools_approval_mode (a hand-written entry): Codex trusts the read-only hint of
// hello and runs it, but refuses the shell on its own (exec cannot ask), before Gatehouse sees it.
writeFileSync(configFile, written.replace(/^default_tools_approval_mode = .*\n/m, ''));
await scenario('hint-read', { namespace: 'mcp__gatehouse', name: 'hello', arguments: { name: 'Grace' } });
await scenario('hint-shell', shell(`touch ${marker('hint-shell')}`));
// The Streamable HTTP form as Write it for Codex writes it: the token from GATEHOUSE_AGENT_TOKEN.
const httpPreview = await op('agents.preview', { agent: 'codex', mcp: 'http' });
await op('agents.write', { agent: 'codex', mcp: 'http', expected: httpPreview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const writtenHttp = readFileSync(configFile, 'utf8');
codexEnv.GATEHOUSE_AGENT_TOKEN = serve.agentToken;
await scenario('http-read', { namespace: 'mcp__gatehouse', name: 'hello', arguments: { name: 'Linus' } });
delete codexEnv.GATEHOUSE_AGENT_TOKEN;
const items = {};
for (const [k, v] of Object.entries({ approve: approved, expire: expiring, gone })) items[k] = v ? await op('approvals.get', { id: v.id }) : null;

// The host stopped: the bridge cannot reach it, and with required = true Codex does not start.
writeFileSync(configFile, written);
consoleWs.close();
host.kill('SIGTERM');
await new Promise((resolve) => host.on('exit', resolve));
await scenario('stopped', shell(`touch ${marker('stopped')}`));
mock.close();
process.stdout.write(JSON.stringify({ written, writtenHttp, notes: preview.notes, home, requests: requests.length, others, scenarios, items }) + '\n');
