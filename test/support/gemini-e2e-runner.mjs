// Runs inside a network namespace with only loopback (test/main/agents/gemini-cli-e2e.test.ts starts it with
// `unshare -n`): a scripted mock of the Gemini API (generateContent / streamGenerateContent), a
// real Gatehouse host (`gatehouse serve`), the settings.json Gatehouse's own "write it for me"
// writes for Gemini CLI, and the real Gemini CLI (@google/gemini-cli) in -p mode, once per
// scenario. The mock asks for one tool call per scenario and records the functionResponse
// Gemini CLI sends back, so the test sees what reached the model. Prints one JSON report on stdout.
// Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { childrenOf, startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, gemini } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
for (const d of [home, join(userHome, '.ssh'), join(userHome, '.gemini'), join(userHome, 'project')]) mkdirSync(d, { recursive: true });
writeFileSync(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
writeFileSync(join(userHome, 'project', 'notes.txt'), 'ordinary-notes-content\n');
// The user's own setting (API-key auth, which honours GOOGLE_GEMINI_BASE_URL): Gatehouse's write keeps it.
writeFileSync(join(userHome, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }, null, 2) + '\n');
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent' }));

// ---- the mock model: the scenario's tool call, then a text answer ---------------------------------
let toolCall = null;
const requests = [];
/** Per scenario: the tool names the model was offered, and the functionResponse it got back. */
let seen = { tools: [], functionResponse: null };
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with nothing in it.
    }
    const stream = req.url.includes(':streamGenerateContent');
    requests.push({ url: req.url.split('?')[0], stream });
    if (req.url.includes(':countTokens')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens": 1}');
    if (!stream) {
      // Gemini CLI's side questions (next speaker, routing) want JSON text.
      const text = JSON.stringify({ reasoning: 'scripted', next_speaker: 'user', model_choice: 'flash' });
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }] }));
    }
    const names = (j.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    if (names.length) seen.tools = names;
    const response = (j.contents ?? []).flatMap((c) => c.parts ?? []).map((p) => p.functionResponse).filter(Boolean).at(-1);
    if (response) seen.functionResponse = response;
    const parts = response ? [{ text: 'scripted answer' }] : [{ functionCall: toolCall }];
    const chunk = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } };
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockUrl = `http://127.0.0.1:${mock.address().port}`;

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
const req = { agent: 'gemini-cli', scope: 'user', mcp: 'stdio', hook: 'command' };
const preview = await op('agents.preview', req);
await op('agents.write', { ...req, expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const written = JSON.parse(readFileSync(join(userHome, '.gemini', 'settings.json'), 'utf8'));

// ---- Gemini CLI ------------------------------------------------------------------------------------
/** The Gemini CLI of the running scenario (the agent-gone scenarios kill it). */
let current = null;
function runGemini(extraArgs = []) {
  return new Promise((resolve) => {
    const child = (current = spawn(process.execPath, [gemini, '-m', 'gemini-2.5-flash', '-p', 'Do the task.', '--output-format', 'json', ...extraArgs], {
      // The home is the workspace, so ~/.ssh/id_rsa is a path read_file accepts and only the hook stands in its way.
      cwd: userHome,
      env: { ...env, GOOGLE_GEMINI_BASE_URL: mockUrl, GEMINI_API_KEY: 'e2e-dummy', GEMINI_CLI_TRUST_WORKSPACE: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      let result = null;
      try {
        result = JSON.parse(out);
      } catch {
        // Not JSON: `raw` carries the output for the test's message.
      }
      resolve({ code, tools: result?.stats?.tools ?? null, stderr: err.slice(-2000), raw: result ? null : out.slice(-2000) });
    });
  });
}

const marker = (name) => join(root, `marker-${name}`);
const scenarios = [];
async function scenario(name, call, opts = {}) {
  toolCall = call;
  seen = { tools: [], functionResponse: null };
  onAdded = opts.onPending
    ? (id) => {
        onAdded = null;
        void op('approvals.get', { id }).then(opts.onPending);
      }
    : null;
  const t0 = Date.now();
  const r = await runGemini(opts.args);
  onAdded = null;
  scenarios.push({ name, ms: Date.now() - t0, offered: seen.tools, functionResponse: seen.functionResponse, marker: existsSync(marker(name)), ...r });
}
const read = (file_path) => ({ name: 'read_file', args: { file_path } });

// An ordinary read: supervised autonomy has no objection (no decision), Gemini CLI reads it.
await scenario('read', read(join(userHome, 'project', 'notes.txt')));
// A protected read: the built-in credentials rule denies; the reason reaches the model.
await scenario('protected', read(join(userHome, '.ssh', 'id_rsa')));
// A shell command that writes: supervised asks; with hookAsk inbox the call waits in Gatehouse's
// inbox, the operator approves it over the API, the hook answers allow and Gemini CLI runs it.
// (--approval-mode yolo: Gatehouse is the one gate here, so Gemini CLI asks nobody itself.)
await op('settings.update', { hookAsk: 'inbox', hookAutonomyAllow: 'defer' });
await scenario('inbox', { name: 'run_shell_command', args: { command: `touch ${marker('inbox')}` } }, {
  args: ['--approval-mode', 'yolo'],
  onPending: (item) => op('approvals.approve', { id: item.id, argsHash: item.argsHash }),
});
// The agent gone: Gemini CLI is killed while its call waits in the inbox. gemini.js relaunches
// itself (with a larger heap), and the relaunched process runs the hook through `bash -c`; the
// hook outlives it, sees its agent gone, answers and exits, and the closed connection withdraws
// the call: the inbox is empty again and nothing ran.
let withdrawn = null;
await scenario('gone', { name: 'run_shell_command', args: { command: `touch ${marker('gone')}` } }, {
  args: ['--approval-mode', 'yolo'],
  onPending: () => {
    withdrawn = new Promise((resolve) => (onChanged = (p) => p.pending === 0 && resolve()));
    process.kill(childrenOf(current.pid)[0], 'SIGKILL');
  },
});
// Bounded: without the agent-gone check the hook would wait out its own deadline (590 s).
await Promise.race([withdrawn, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
// The launcher gone: only the process started here is killed; the relaunched Gemini CLI lives on.
// The hook sees the launcher gone and denies, and the call is withdrawn.
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
process.stdout.write(JSON.stringify({ home, gatehouseTools: info.tools.map((t) => t.name), written, requests: requests.length, scenarios }) + '\n');
process.exit(0);
