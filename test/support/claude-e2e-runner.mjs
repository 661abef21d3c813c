// Runs inside a network namespace with only loopback (test/main/agents/claude-code-e2e.test.ts starts it with
// `unshare -n`): a scripted mock of the Anthropic Messages API, a real Gatehouse host
// (`gatehouse serve`), the hook settings Gatehouse's own "write it for me" writes, and the real
// Claude Code CLI in -p mode, once per scenario. Prints one JSON line per scenario on stdout.
// Plain JavaScript: it runs under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startServe, watchInbox } from './served-host.mjs';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { root, cli, claude } = cfg;
const home = join(root, 'gatehouse');
const userHome = join(root, 'user');
const project = join(root, 'project');
for (const d of [home, join(userHome, '.ssh'), project]) mkdirSync(d, { recursive: true });
writeFileSync(join(userHome, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'agent' }));

// ---- the mock model: a Bash tool_use with the scenario's command, then a text answer ---------------
let command = 'true';
const requests = [];
const sse = (res, events) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  res.end();
};
let toolUses = 0;
const mock = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (!req.url.startsWith('/v1/messages')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    let j = {};
    try {
      j = JSON.parse(body);
    } catch {
      // Not JSON: answered below like a request with no messages.
    }
    requests.push({ url: req.url, stream: j.stream === true });
    const last = (j.messages ?? []).at(-1);
    const result = Array.isArray(last?.content) ? last.content.find((c) => c.type === 'tool_result') : undefined;
    const wantsTool = !result && (j.tools ?? []).some((t) => t.name === 'Bash');
    const start = { type: 'message_start', message: { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: j.model ?? 'claude', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } };
    const block = wantsTool ? { type: 'tool_use', id: `toolu_e2e_${++toolUses}`, name: 'Bash', input: {} } : { type: 'text', text: '' };
    const delta = wantsTool ? { type: 'input_json_delta', partial_json: JSON.stringify({ command, description: 'scripted by the test' }) } : { type: 'text_delta', text: result ? `TOOL RESULT: ${JSON.stringify(result.content)}` : 'ok' };
    const stop = wantsTool ? 'tool_use' : 'end_turn';
    const events = [start, { type: 'content_block_start', index: 0, content_block: block }, { type: 'content_block_delta', index: 0, delta }, { type: 'content_block_stop', index: 0 }, { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }, { type: 'message_stop' }];
    if (j.stream) return sse(res, events);
    const content = wantsTool ? [{ ...block, input: JSON.parse(delta.partial_json) }] : [{ type: 'text', text: delta.text }];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...start.message, content, stop_reason: stop, usage: { input_tokens: 10, output_tokens: 5 } }));
  });
});
await new Promise((resolve) => mock.listen(0, '127.0.0.1', resolve));
const mockUrl = `http://127.0.0.1:${mock.address().port}`;

// ---- the host --------------------------------------------------------------------------------------
const env = { PATH: '/usr/bin:/bin', HOME: userHome, LANG: 'C.UTF-8' };
const { host, serve, op } = await startServe(cli, home, env);

// The inbox, watched as a console watches it (the operator WebSocket): a scenario that waits for an
// operator acts on the approvals.changed event that adds its item.
let onAdded = null;
const consoleWs = await watchInbox(serve, (id) => onAdded?.(id));

// "Write it for me", as the console does it: preview, then apply exactly what was previewed.
const req = { agent: 'claude-code', scope: 'user', mcp: 'none', hook: 'command' };
const preview = await op('agents.preview', req);
await op('agents.write', { ...req, expected: preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const settingsFile = join(userHome, '.claude', 'settings.json');
const written = readFileSync(settingsFile, 'utf8');

// ---- Claude Code -----------------------------------------------------------------------------------
const claudeEnv = {};
function runClaude(onPending) {
  return new Promise((resolve) => {
    const child = spawn(claude, ['-p', 'Run the command.', '--max-turns', '2', '--output-format', 'json'], {
      cwd: project,
      env: { ...env, ...claudeEnv, ANTHROPIC_BASE_URL: mockUrl, ANTHROPIC_API_KEY: 'sk-ant-e2e-dummy', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
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
      let result = null;
      try {
        result = JSON.parse(out);
      } catch {
        // Not JSON: `raw` below carries the output for the test's message.
      }
      resolve({ code, result: result?.result ?? null, denials: result?.permission_denials ?? null, stderr: err.slice(-2000), raw: result ? null : out.slice(-2000) });
    });
  });
}

const marker = (name) => join(root, `marker-${name}`);
const scenarios = [];
async function scenario(name, settings, cmd, opts = {}) {
  if (settings) await op('settings.update', settings);
  command = cmd;
  const t0 = Date.now();
  const r = await runClaude(opts.onPending);
  scenarios.push({ name, ms: Date.now() - t0, marker: existsSync(marker(name)), ...r });
}

// Denied by a built-in rule: the key is never read and the marker never made.
await scenario('deny', null, `cat ~/.ssh/id_rsa > ${marker('deny')}`);
// Full autonomy alone lets it through, so the hook gives no decision: Claude Code's own
// permission flow applies, and in -p with the default mode it refuses a Bash call that writes.
// (Containment off here: a contained call is answered "allow" with the boxed command, see 'contained'.)
await scenario('defer', { autonomy: 'full', hookAutonomyAllow: 'defer', containment: [] }, `touch ${marker('defer')}`);
// Allowed (autonomy's allow answered as allow): it runs, and PostToolUse reports it.
await scenario('allow', { autonomy: 'full', hookAutonomyAllow: 'allow', containment: [] }, `touch ${marker('allow')} && echo made-it`);
// Headless wait: supervised asks, the call waits in the inbox, the operator approves over the API.
await scenario('wait', { autonomy: 'supervised', hookAsk: 'inbox', hookAutonomyAllow: 'defer' }, `touch ${marker('wait')}`, {
  onPending: (item) => op('approvals.approve', { id: item.id, argsHash: item.argsHash }),
});
// A wrong agent token in the hook command: denied, never run.
const badToken = join(root, 'wrong-token');
writeFileSync(badToken, 'x'.repeat(40), { mode: 0o600 });
// Both commands Gatehouse writes (the bash client, `gatehouse hook`) take --agent-token-file before --home.
writeFileSync(settingsFile, written.replaceAll(' --home ', ` --agent-token-file ${badToken} --home `));
await scenario('wrong-token', { autonomy: 'full', hookAutonomyAllow: 'allow', hookAsk: 'agent' }, `touch ${marker('wrong-token')}`);
// The HTTP form, as write it for me writes it (the token from GATEHOUSE_AGENT_TOKEN): a deny, and
// "no decision" ({"continue": true}), which Claude Code accepts and then applies its own rules.
const httpReq = { agent: 'claude-code', scope: 'user', mcp: 'none', hook: 'http' };
const httpPreview = await op('agents.preview', httpReq);
await op('agents.write', { ...httpReq, expected: httpPreview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
claudeEnv.GATEHOUSE_AGENT_TOKEN = serve.agentToken;
await scenario('http-deny', { autonomy: 'supervised', hookAutonomyAllow: 'defer' }, `cat ~/.ssh/id_rsa > ${marker('http-deny')}`);
await scenario('http-defer', { autonomy: 'full', containment: [] }, `touch ${marker('http-defer')}`);
delete claudeEnv.GATEHOUSE_AGENT_TOKEN;
// One deadline, with a short hook timeout the operator set by hand: "write it for me", run again,
// keeps it and derives the command's --timeout (8 s) from it; the command sends that deadline to
// the host, whose inbox item closes 5 s before it as "agent gone" and answers deny. Nobody answers
// the inbox: Claude Code must get that deny, not a hook timeout (after which its own flow decides,
// without Gatehouse), and the item cannot be approved later.
const SHORT_HOOK_TIMEOUT_S = 12;
const byHand = written.replace(/"timeout": 600\b/, `"timeout": ${SHORT_HOOK_TIMEOUT_S}`);
if (byHand === written) throw new Error(`the written PreToolUse hook has no "timeout": 600: ${written}`);
writeFileSync(settingsFile, byHand);
const again = await op('agents.preview', req);
await op('agents.write', { ...req, expected: again.files.map((f) => ({ path: f.path, baseHash: f.baseHash })) });
const rewritten = readFileSync(settingsFile, 'utf8');
let unanswered = null;
await scenario('timeout', { autonomy: 'supervised', hookAsk: 'inbox', hookAutonomyAllow: 'defer' }, `touch ${marker('timeout')}`, {
  onPending: (item) => void (unanswered = item),
});
const timeout = { hookTimeoutS: SHORT_HOOK_TIMEOUT_S, rewritten: JSON.parse(rewritten), pending: unanswered, closed: null, lateApprove: null };
if (unanswered) {
  timeout.closed = await op('approvals.get', { id: unanswered.id });
  timeout.lateApprove = await op('approvals.approve', { id: unanswered.id, argsHash: unanswered.argsHash }).then(() => 'approved', (e) => e.message);
}
writeFileSync(settingsFile, written);
// Contained (the default at full autonomy): the agent runs a project script the judge cannot see
// into, which tries to read the SSH key and append to ~/.bashrc. Gatehouse answers "allow" with
// the command boxed (updatedInput): the script runs, the key is not there, ~/.bashrc stays as it was.
writeFileSync(join(userHome, '.bashrc'), 'export E2E=1\n');
writeFileSync(join(project, 'steal.sh'), `cat ~/.ssh/id_rsa; echo pwned >> ~/.bashrc; echo script-ran > ${marker('contained')}; echo script-ran\n`);
await scenario('contained', { autonomy: 'full', hookAutonomyAllow: 'defer', hookAsk: 'agent', containment: ['full', 'grants'] }, 'sh ./steal.sh');
const bashrcAfter = readFileSync(join(userHome, '.bashrc'), 'utf8');
// The host stopped: the command form denies (fails closed).
consoleWs.close();
host.kill('SIGTERM');
await new Promise((resolve) => host.on('exit', resolve));
await scenario('stopped', null, `touch ${marker('stopped')}`);

mock.close();
process.stdout.write(JSON.stringify({ written: JSON.parse(written), requests: requests.length, streamed: requests.filter((r) => r.stream).length, scenarios, timeout, home, bashrcAfter }) + '\n');
