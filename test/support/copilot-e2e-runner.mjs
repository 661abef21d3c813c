// Runs inside a network namespace with only loopback (test/main/agents/copilot-cli-e2e.test.ts starts it with
// `unshare -n`): a scripted mock of an OpenAI-compatible chat completions API (Copilot CLI's
// "bring your own key" provider, COPILOT_PROVIDER_BASE_URL, with COPILOT_OFFLINE so nothing asks
// GitHub), a real Gatehouse host (`gatehouse serve`), the files Gatehouse's own "write it for me"
// writes for Copilot CLI (~/.copilot/hooks/gatehouse.json and ~/.copilot/mcp-config.json), and the
// real Copilot CLI (@github/copilot) in -p mode, once per scenario. The mock asks for one tool call
// per scenario and records the tool result Copilot CLI sends back, so the test sees what reached
// the model. Prints one JSON report on stdout.
// Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, copilot, pkgCache } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
for (const d of [home, join(userHome, '.ssh'), join(userHome, 'project')]) mkdirSync(d, { recursive: true });
writeFileSync(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
writeFileSync(join(userHome, 'project', 'notes.txt'), 'ordinary-notes-content\n');
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent', hookAutonomyAllow: 'defer' }));

// ---- the mock model: the scenario's tool call, then a text answer ----------------------------------
let call = { name: 'view', args: {} };
let requests = 0;
/** Per scenario: the tool names the model was offered, and the tool result it got back. */
let seen = { tools: [], toolResult: null };
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.method !== 'POST') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'mock-model', object: 'model', owned_by: 'e2e' }] }));
    requests++;
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with nothing in it.
    }
    const names = (j.tools ?? []).map((t) => t.function?.name).filter(Boolean);
    if (names.length) seen.tools = names;
    const result = (j.messages ?? []).filter((m) => m.role === 'tool').at(-1);
    if (result) seen.toolResult = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    const delta = result ? { role: 'assistant', content: 'scripted answer' } : { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${requests}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] };
    const chunk = (d, finish, usage) => `data: ${JSON.stringify({ id: `c${requests}`, object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [{ index: 0, delta: d, finish_reason: finish }], ...(usage ? { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } } : {}) })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(chunk(delta, null) + chunk({}, result ? 'stop' : 'tool_calls', true) + 'data: [DONE]\n\n');
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockUrl = `http://127.0.0.1:${mock.address().port}/v1`;

// ---- the host --------------------------------------------------------------------------------------
const env = { PATH: `${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: userHome, LANG: 'C.UTF-8' };
const { host, serve, op } = await startServe(cli, home, env);
const info = await op('gateway.info', {});
// The inbox, watched as a console watches it: the 'wait' scenario approves the item it adds.
let onAdded = null;
let onChanged = null;
const consoleWs = await watchInbox(serve, (id) => onAdded?.(id), (payload) => onChanged?.(payload));

// "Write it for me", as the console does it: preview, then apply exactly what was previewed.
const req = { agent: 'copilot', mcp: 'stdio', hook: 'command' };
const preview = await op('agents.preview', req);
await op('agents.write', { ...req, expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const written = {
  hooks: JSON.parse(readFileSync(join(userHome, '.copilot', 'hooks', 'gatehouse.json'), 'utf8')),
  mcp: JSON.parse(readFileSync(join(userHome, '.copilot', 'mcp-config.json'), 'utf8')),
  notes: preview.notes,
};

// ---- Copilot CLI -----------------------------------------------------------------------------------
/** The Copilot CLI of the running scenario (the agent-gone scenario kills it). */
let current = null;
function runCopilot() {
  return new Promise((resolve) => {
    const child = (current = spawn(copilot, ['-p', 'Do the task.', '--allow-all-tools', '--output-format', 'json'], {
      // The home is the workspace, so ~/.ssh/id_rsa is a path the view tool reads and only the hook stands in its way.
      cwd: userHome,
      env: { ...env, COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: mockUrl, COPILOT_MODEL: 'mock-model', COPILOT_AUTO_UPDATE: 'false', COPILOT_PKG_CACHE_HOME: pkgCache, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // The first run unpacks Copilot CLI's package into the shared cache.
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const result = out
        .split('\n')
        .map((l) => {
          try {
            return JSON.parse(l);
          } catch {
            return null;
          }
        })
        .find((e) => e?.type === 'result');
      resolve({ code, sessionId: result?.sessionId ?? null, stderr: err.slice(-2000), raw: result ? null : out.slice(-2000) });
    });
  });
}

const marker = (name) => join(root, `marker-${name}`);
const scenarios = [];
async function scenario(name, tool, args, opts = {}) {
  if (opts.settings) await op('settings.update', opts.settings);
  call = { name: tool, args };
  seen = { tools: [], toolResult: null };
  onAdded = opts.onPending
    ? (id) => {
        onAdded = null;
        void op('approvals.get', { id }).then(opts.onPending);
      }
    : null;
  const t0 = Date.now();
  const r = await runCopilot();
  onAdded = null;
  scenarios.push({ name, ms: Date.now() - t0, offered: seen.tools, toolResult: seen.toolResult, marker: existsSync(marker(name)), ...r });
}

// An ordinary read: supervised autonomy has no objection (no decision), Copilot CLI reads it.
await scenario('read', 'view', { path: join(userHome, 'project', 'notes.txt') });
// A protected read: the built-in credentials rule denies; the reason reaches the model.
await scenario('protected', 'view', { path: join(userHome, '.ssh', 'id_rsa') });
// A shell command that writes: supervised asks, the call waits in the inbox, the operator approves it over the API, it runs.
let approved = null;
await scenario('wait', 'bash', { command: `touch ${marker('wait')} && echo approved-ran`, description: 'make the marker' }, {
  settings: { hookAsk: 'inbox' },
  onPending: async (item) => {
    approved = item;
    await op('approvals.approve', { id: item.id, argsHash: item.argsHash });
  },
});
// A named agent token: the hook command given --agent-token-file files Copilot CLI's calls under
// that agent's name (and its grants), not "default".
const hookFile = join(userHome, '.copilot', 'hooks', 'gatehouse.json');
const named = await op('agents.tokens.create', { name: 'copilot-bot' });
const tokenFile = join(root, 'copilot-bot.token');
writeFileSync(tokenFile, named.token, { mode: 0o600 });
const asWritten = readFileSync(hookFile, 'utf8');
// In the reports too: a report is linked to its call within the same agent's session.
writeFileSync(hookFile, asWritten.replaceAll(' hook --agent copilot ', ` hook --agent copilot --agent-token-file ${tokenFile} `));
await scenario('named', 'view', { path: join(userHome, 'project', 'notes.txt') }, { settings: { hookAsk: 'agent' } });
writeFileSync(hookFile, asWritten);

// One deadline, with a short timeoutSec the operator set by hand: "write it for me", run again,
// keeps it and derives the command's --timeout (8 s) from it; the host's inbox item closes 5 s
// before that as "agent gone" and answers deny. Nobody answers the inbox: Copilot CLI must get
// that deny, not a hook timeout (after which it runs the tool), and the item cannot be approved later.
const SHORT_TIMEOUT_S = 12;
const byHand = readFileSync(hookFile, 'utf8').replace(/"timeoutSec": 600\b/, `"timeoutSec": ${SHORT_TIMEOUT_S}`);
writeFileSync(hookFile, byHand);
const again = await op('agents.preview', req);
await op('agents.write', { ...req, expected: again.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
let unanswered = null;
await scenario('gone', 'bash', { command: `touch ${marker('gone')}`, description: 'make the marker' }, { settings: { hookAsk: 'inbox' }, onPending: (item) => void (unanswered = item) });
const gone = { hookTimeoutS: SHORT_TIMEOUT_S, rewritten: JSON.parse(readFileSync(hookFile, 'utf8')), pending: unanswered, closed: null, lateApprove: null };
if (unanswered) {
  gone.closed = await op('approvals.get', { id: unanswered.id });
  gone.lateApprove = await op('approvals.approve', { id: unanswered.id, argsHash: unanswered.argsHash }).then(() => 'approved', (e) => e.message);
}
// The agent gone: Copilot CLI is killed while its call waits in the inbox. Its hook (bash, in a
// process group of its own that outlives Copilot CLI) sees its agent gone, answers and exits; the
// closed connection withdraws the call, and the inbox is empty again. Nothing ran.
// The hook as first written (timeoutSec 600), so only the agent-gone check can end the wait soon.
writeFileSync(hookFile, asWritten);
let withdrawn = null;
let killedItem = null;
await scenario('killed', 'bash', { command: `touch ${marker('killed')}`, description: 'make the marker' }, {
  settings: { hookAsk: 'inbox' },
  onPending: (item) => {
    killedItem = item;
    withdrawn = new Promise((resolve) => (onChanged = (p) => p.pending === 0 && resolve()));
    current.kill('SIGKILL');
  },
});
// Bounded: without the agent-gone check the hook would wait out its own deadline (590 s).
await Promise.race([withdrawn, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
onChanged = null;
const killed = killedItem && (await op('approvals.get', { id: killedItem.id }));
// The host stopped: the hook denies (fails closed), nothing runs.
consoleWs.close();
host.kill('SIGTERM');
await new Promise((resolve) => host.once('exit', resolve));
await scenario('stopped', 'bash', { command: `touch ${marker('stopped')}`, description: 'make the marker' });

mock.close();
process.stdout.write(JSON.stringify({ home, gatehouseTools: info.tools.map((t) => t.name), written, approved, gone, killed, requests, scenarios }) + '\n');
process.exit(0);
