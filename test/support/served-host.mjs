// A real `gatehouse serve` for the real-CLI runners (Claude Code, Codex, Gemini CLI, …): started, its console API
// called as a console calls it, and its inbox watched through the operator WebSocket
// (`approvals.changed`), so a runner acts on the event that adds a scenario's waiting call instead
// of polling approvals.list.
// Plain JavaScript: the runners run under node without the test runner's transform.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';

/**
 * Starts `node CLI serve --home HOME --port 0` with `env` and resolves once it listens and has
 * written serve.json: `{ host, serve, op }`, `op(method, params)` being a console API call.
 * `extraStdio`: what the host is started with beyond its stdout and stderr pipes (fd 3 on).
 */
export async function startServe(cli, home, env, extraStdio = []) {
  const host = spawn(process.execPath, [cli, 'serve', '--home', home, '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe', ...extraStdio] });
  // The namespace has no PID namespace of its own: a runner that fails midway must not leave the host behind.
  process.on('exit', () => host.kill('SIGKILL'));
  let log = '';
  host.stdout.on('data', (d) => (log += d));
  host.stderr.on('data', (d) => (log += d));
  const serveJson = join(home, 'serve.json');
  await new Promise((resolve, reject) => {
    // The host prints its agent endpoints once it listens and serve.json is written.
    const check = () => (existsSync(serveJson) && /Agents: MCP at/.test(log) ? resolve() : undefined);
    host.stdout.on('data', check);
    host.stderr.on('data', check);
    host.on('exit', (code) => reject(new Error(`gatehouse serve exited ${code}: ${log}`)));
  });
  const serve = JSON.parse(readFileSync(serveJson, 'utf8'));
  async function op(method, params = {}) {
    const res = await fetch(new URL('/api/call', serve.url), { method: 'POST', headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ method, params }) });
    const body = await res.json();
    if (!body.ok) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result;
  }
  return { host, serve, op };
}

/**
 * Connects to `serve` (its serve.json); `onAdded(id)` is called for the first item of each event
 * that adds some, `onChanged(payload)` (optional) for every approvals.changed event.
 */
export async function watchInbox(serve, onAdded, onChanged) {
  const url = new URL('/ws', serve.url);
  url.protocol = 'ws:';
  const ws = new WebSocket(url, ['gatehouse.v1', `gatehouse.token.${serve.token}`], { origin: new URL(serve.url).origin });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('message', (data, isBinary) => {
    // Binary frames carry terminal output (shared/event-frame.ts), which this watcher does not read.
    if (isBinary) return;
    const frame = JSON.parse(String(data));
    if (frame.event === 'approvals.changed') onChanged?.(frame.payload);
    if (frame.event === 'approvals.changed' && frame.payload.added.length > 0) onAdded(frame.payload.added[0].id);
  });
  return ws;
}

/** The pids whose parent is `pid` (Linux /proc, as the namespace has it). */
export function childrenOf(pid) {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
