// Runs inside a network namespace with only loopback (test/main/agents/qwen-code-e2e.test.ts starts
// it with `unshare -n`): a scripted mock of an OpenAI chat-completions API, a real Gatehouse host
// (`gatehouse serve`), the settings.json Gatehouse's own "write it for me" writes for Qwen Code, and
// the real Qwen Code (@qwen-code/qwen-code) in -p mode, once per scenario. The mock asks for one
// tool call per scenario and records the tool message Qwen Code sends back, so the test sees what
// reached the model. Prints one JSON report on stdout.
// Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { childrenOf, startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, qwen } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
for (const d of [home, join(userHome, '.ssh'), join(userHome, '.qwen'), join(userHome, 'project')]) mkdirSync(d, { recursive: true });
writeFileSync(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
writeFileSync(join(userHome, 'project', 'notes.txt'), 'ordinary-notes-content\n');
// The user's own setting: Gatehouse's write keeps it.
writeFileSync(join(userHome, '.qwen', 'settings.json'), JSON.stringify({ general: { checkpointing: { enabled: false } } }, null, 2) + '\n');
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent' }));

// ---- the mock model: the scenario's tool call, then a text answer ---------------------------------
let toolCall = null;
let requests = 0;
/** Per scenario: the tool names the model was offered, and the tool message it got back. */
let seen = { tools: [], toolResult: null };
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    requests += 1;
    if (req.url.endsWith('/models')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"mock"}]}');
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with nothing in it.
    }
    const names = (j.tools ?? []).map((t) => t.function?.name).filter(Boolean);
    const messages = j.messages ?? [];
    const last = messages.at(-1);
    // Qwen Code's side requests (memory extraction) offer no tools of the main agent: answered with text.
    const main = names.includes(toolCall.name);
    if (main) seen.tools = names;
    if (main && last?.role === 'tool') seen.toolResult = last.content;
    const delta = main && last?.role !== 'tool' ? { role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: toolCall.name, arguments: JSON.stringify(toolCall.args) } }] } : { role: 'assistant', content: 'scripted answer' };
    const chunk = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'mock', choices: [{ index: 0, delta, finish_reason: null }] };
    const end = { ...chunk, choices: [{ index: 0, delta: {}, finish_reason: delta.tool_calls ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    if (j.stream) return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify(end)}\n\ndata: [DONE]\n\n`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'mock', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockUrl = `http://127.0.0.1:${mock.address().port}/v1`;

// ---- the host --------------------------------------------------------------------------------------
const env = { PATH: `${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: userHome, LANG: 'C.UTF-8' };
const { host, serve, op } = await startServe(cli, home, env);
const info = await op('gateway.info', {});
// The inbox, watched as a console watches it: the scenario that waits for an operator acts on the
// approvals.changed event that adds its item.
let onAdded = null;
let onChanged = null;
const consoleWs = await watchInbox(serve, (id) => onAdded?.(id), (payload) => onChanged?.(payload));

// "Write it for me", as the console does it: preview, then apply exactly what was previewed.
const req = { agent: 'qwen-code', scope: 'user', mcp: 'stdio', hook: 'command' };
const preview = await op('agents.preview', req);
await op('agents.write', { ...req, expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const written = JSON.parse(readFileSync(join(userHome, '.qwen', 'settings.json'), 'utf8'));

// ---- Qwen Code -------------------------------------------------------------------------------------
/** The Qwen Code of the running scenario (the agent-gone scenario kills it). */
let current = null;
function runQwen(extraArgs = []) {
  return new Promise((resolve) => {
    const child = (current = spawn(process.execPath, [qwen, '-p', 'Do the task.', '--auth-type', 'openai', '--output-format', 'json', ...extraArgs], {
      // The home is the workspace, so ~/.ssh/id_rsa is a path read_file accepts and only the hook stands in its way.
      cwd: userHome,
      env: { ...env, OPENAI_BASE_URL: mockUrl, OPENAI_API_KEY: 'e2e-dummy', OPENAI_MODEL: 'mock', NO_COLOR: '1', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: err.slice(-2000), raw: out.slice(-1000) });
    });
  });
}

const marker = (name) => join(root, `marker-${name}`);
const scenarios = [];
async function scenario(name, call, opts = {}) {
  toolCall = call;
  seen = { tools: [], toolResult: null };
  onAdded = opts.onPending
    ? (id) => {
        onAdded = null;
        void op('approvals.get', { id }).then(opts.onPending);
      }
    : null;
  const t0 = Date.now();
  const r = await runQwen(opts.args);
  onAdded = null;
  scenarios.push({ name, ms: Date.now() - t0, offered: seen.tools, toolResult: seen.toolResult, marker: existsSync(marker(name)), ...r });
}
const read = (file_path) => ({ name: 'read_file', args: { file_path } });

// An ordinary read: supervised autonomy has no objection (no decision), Qwen Code reads it.
await scenario('read', read(join(userHome, 'project', 'notes.txt')));
// A protected read: the built-in credentials rule denies; the reason reaches the model.
await scenario('protected', read(join(userHome, '.ssh', 'id_rsa')));
// A shell command that writes: supervised asks; with hookAsk inbox the call waits in Gatehouse's
// inbox, the operator approves it over the API, the hook answers allow and Qwen Code runs it.
// (--approval-mode yolo: Gatehouse is the one gate here, so Qwen Code asks nobody itself.)
await op('settings.update', { hookAsk: 'inbox', hookAutonomyAllow: 'defer' });
await scenario('inbox', { name: 'run_shell_command', args: { command: `touch ${marker('inbox')}` } }, {
  args: ['--approval-mode', 'yolo'],
  onPending: (item) => op('approvals.approve', { id: item.id, argsHash: item.argsHash }),
});
// The agent gone: Qwen Code is killed while its call waits in the inbox. Its hook (in a process
// group of its own, which outlives Qwen Code) sees its agent gone, answers and exits; the closed
// connection withdraws the call, and the inbox is empty again. Nothing ran.
let withdrawn = null;
await scenario('gone', { name: 'run_shell_command', args: { command: `touch ${marker('gone')}` } }, {
  args: ['--approval-mode', 'yolo'],
  onPending: () => {
    withdrawn = new Promise((resolve) => (onChanged = (p) => p.pending === 0 && resolve()));
    // cli.js relaunches itself: the agent that runs the hook is the child of the process started here.
    const agent = childrenOf(current.pid)[0];
    process.kill(agent, 'SIGKILL');
  },
});
// Bounded: without the agent-gone check the hook would wait out its own deadline (590 s).
await Promise.race([withdrawn, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
// The launcher gone: only the process started here (cli.js, which relaunched itself) is killed.
// The relaunched Qwen Code lives on and would run the call once it cancels the hook (about 60 s
// later); the hook sees the launcher gone first and denies, and the call is withdrawn.
withdrawn = null;
await scenario('launcher', { name: 'run_shell_command', args: { command: `touch ${marker('launcher')}` } }, {
  args: ['--approval-mode', 'yolo'],
  onPending: () => {
    withdrawn = new Promise((resolve) => (onChanged = (p) => p.pending === 0 && resolve()));
    current.kill('SIGKILL');
  },
});
await Promise.race([withdrawn, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
onChanged = null;
consoleWs.close();
// The host stopped: the hook denies (fails closed), nothing is read.
host.kill('SIGTERM');
await new Promise((resolve) => host.once('exit', resolve));
await scenario('stopped', read(join(userHome, 'project', 'notes.txt')));

mock.close();
process.stdout.write(JSON.stringify({ home, gatehouseTools: info.tools.map((t) => t.name), written, requests, scenarios }) + '\n');
process.exit(0);
