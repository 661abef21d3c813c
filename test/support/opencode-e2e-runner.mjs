// Runs inside a network namespace with only loopback (test/main/agents/opencode-e2e.test.ts starts it with
// `unshare -n`): a scripted mock of an OpenAI-compatible chat API, a real Gatehouse host (`gatehouse
// serve`), the plugin and opencode.json Gatehouse's own "write it for me" writes for opencode, and
// the real opencode (opencode-ai) in `opencode run` mode. Three runs:
// - "supervised": the model asks, one after the other, for an ordinary read, a read of an SSH key,
//   and a bash command that waits in Gatehouse's inbox until the operator approves it;
// - "stopped": the host is down, the model asks for the ordinary read;
// - "broken": the plugin file does not load (a syntax error), the model asks for a bash command:
//   opencode's documented fail-open, which the console's limits name.
// The mock records what each tool call returned to the model, so the test sees what reached it.
// Prints one JSON report on stdout. Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, opencode } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
const project = join(userHome, 'project');
const configDir = join(userHome, '.config', 'opencode');
for (const d of [home, join(userHome, '.ssh'), configDir, project]) mkdirSync(d, { recursive: true });
writeFileSync(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
writeFileSync(join(project, 'notes.txt'), 'ordinary-notes-content\n');
// opencode installs @opencode-ai/plugin into each config folder in the background and loads
// plugins after it: a lock file that already lists it makes that a no-op (its Npm.checkDirty).
mkdirSync(join(configDir, 'node_modules'));
writeFileSync(join(configDir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': '*' } } } }));

// ---- the mock model: OpenAI chat/completions, streamed; one tool call per step, then a text answer ---
let steps = [];
let seen = { tools: [], results: [] };
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'e2e' }] }));
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with nothing in it.
    }
    const tools = (j.tools ?? []).map((t) => (t.function ?? t).name);
    const results = (j.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    let message;
    if (tools.length === 0) {
      // opencode's side request (the session title) has no tools.
      message = { role: 'assistant', content: 'e2e title' };
    } else {
      seen.tools = tools;
      seen.results = results;
      const step = steps[results.length];
      message = step ? { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${results.length + 1}`, type: 'function', function: { name: step.tool, arguments: JSON.stringify(step.args) } }] } : { role: 'assistant', content: 'scripted answer' };
    }
    const finish = message.tool_calls ? 'tool_calls' : 'stop';
    const now = Math.floor(Date.now() / 1000);
    const chunk = (delta, reason, usage) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: now, model: 'mock-model', choices: [{ index: 0, delta, finish_reason: reason }], ...(usage ? { usage } : {}) })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
    res.end(chunk(message, null) + chunk({}, finish, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }) + 'data: [DONE]\n\n');
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockUrl = `http://127.0.0.1:${mock.address().port}`;

// The user's own config: the scripted model. Gatehouse's write keeps it.
const own = {
  $schema: 'https://opencode.ai/config.json',
  provider: { mock: { npm: '@ai-sdk/openai-compatible', name: 'Mock', options: { baseURL: `${mockUrl}/v1`, apiKey: 'e2e-dummy' }, models: { 'mock-model': { name: 'Mock', tool_call: true } } } },
  model: 'mock/mock-model',
  autoupdate: false,
  share: 'disabled',
};
writeFileSync(join(configDir, 'opencode.json'), JSON.stringify(own, null, 2) + '\n');

// ---- the host --------------------------------------------------------------------------------------
const env = { PATH: `${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: userHome, LANG: 'C.UTF-8' };
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox', hookAutonomyAllow: 'defer' }));
const { host, serve, op } = await startServe(cli, home, env);
const info = await op('gateway.info', {});
let onAdded = null;
const consoleWs = await watchInbox(serve, (id) => onAdded?.(id));

// "Write it for me", as the console does it: preview, then apply exactly what was previewed.
const req = { agent: 'opencode', scope: 'user', mcp: 'stdio', hook: 'plugin' };
const preview = await op('agents.preview', req);
await op('agents.write', { ...req, expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const pluginFile = join(configDir, 'plugins', 'gatehouse.js');
const written = { config: JSON.parse(readFileSync(join(configDir, 'opencode.json'), 'utf8')), plugin: readFileSync(pluginFile, 'utf8') };
// Verify as the console does: a fresh preview changes nothing.
const verified = (await op('agents.preview', req)).files.every((f) => !f.changed);

// ---- opencode --------------------------------------------------------------------------------------
function runOpencode() {
  return new Promise((resolve) => {
    const child = spawn(opencode, ['run', '--format', 'json', 'Do the scripted steps.'], {
      cwd: project,
      env: { ...env, OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      // --format json: one event a line; the tool parts say how each call ended.
      const parts = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return null;
          }
        })
        .filter((e) => e?.type === 'tool_use')
        .map((e) => ({ tool: e.part.tool, status: e.part.state.status, error: e.part.state.error ?? null }));
      resolve({ code, parts, stderr: err.slice(-3000), raw: parts.length ? null : out.slice(-3000) });
    });
  });
}

// In the project: opencode's own permissions ask before a command touches a folder outside it.
const marker = (name) => join(project, `marker-${name}`);
const scenarios = [];
async function scenario(name, script, onPending) {
  steps = script;
  seen = { tools: [], results: [] };
  const pending = [];
  onAdded = (id) => {
    void op('approvals.get', { id }).then((item) => {
      pending.push({ tool: item.call.tool, client: item.call.client ?? null, session: item.call.session ?? null, deadlineReason: item.deadlineReason });
      return onPending?.(item);
    });
  };
  const t0 = Date.now();
  const r = await runOpencode();
  onAdded = null;
  scenarios.push({ name, ms: Date.now() - t0, offered: seen.tools, results: seen.results, pending, markers: Object.fromEntries(script.filter((s) => s.marker).map((s) => [s.marker, existsSync(marker(s.marker))])), ...r });
}

// Supervised, asked calls wait in the inbox: an ordinary read (no objection: opencode reads it), a
// protected read (denied by a built-in rule, the reason reaches the model), and a command that
// writes (asked: it waits in the inbox, the operator approves it, it runs).
await scenario(
  'supervised',
  [
    { tool: 'read', args: { filePath: join(project, 'notes.txt') } },
    { tool: 'read', args: { filePath: join(userHome, '.ssh', 'id_rsa') } },
    { tool: 'bash', args: { command: `touch ${marker('approved')}`, description: 'make the marker' }, marker: 'approved' },
  ],
  (item) => op('approvals.approve', { id: item.id, argsHash: item.argsHash }),
);

// The host stopped: the plugin's command denies (fails closed), nothing is read or run.
consoleWs.close();
host.kill('SIGTERM');
await new Promise((resolve) => host.once('exit', resolve));
await scenario('stopped', [
  { tool: 'read', args: { filePath: join(project, 'notes.txt') } },
  { tool: 'bash', args: { command: `touch ${marker('stopped')}`, description: 'make the marker' }, marker: 'stopped' },
]);

// The plugin file does not load: opencode logs it and runs the tool (its fail-open, in the limits).
writeFileSync(pluginFile, written.plugin + '\nsyntax error(\n');
await scenario('broken', [{ tool: 'bash', args: { command: `touch ${marker('broken')}`, description: 'make the marker' }, marker: 'broken' }]);

mock.close();
process.stdout.write(JSON.stringify({ home, gatehouseTools: info.tools.map((t) => t.name), written, verified, preview: { notes: preview.notes, files: preview.files.map((f) => f.path) }, scenarios }) + '\n');
process.exit(0);
