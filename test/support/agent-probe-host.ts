// Review probe harness: agent-format hook payloads → the agent's own mapping (as `gatehouse hook
// --agent X` applies it) → a real `gatehouse serve` host (dry-run), at supervised and full.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromCopilotInput } from '../../main/agents/copilot/hook-mapping.js';
import { fromGeminiInput } from '../../main/agents/gemini/hook-mapping.js';
import { fromOpencodeInput } from '../../main/agents/opencode/hook-mapping.js';
import { fromQwenInput } from '../../main/agents/qwen-code/hook-mapping.js';
import { cliPath } from './cli.js';
import { http } from './net.js';

export type Agent = 'copilot' | 'gemini-cli' | 'opencode' | 'qwen-code' | 'claude-code';
export interface Fake { root: string; home: string; proj: string; gatehouse: string }

function put(file: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, mode);
}

export function makeFake(): Fake {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-review-'));
  const home = join(root, 'home');
  const proj = join(home, 'work', 'proj');
  const gatehouse = join(home, '.config', 'gatehouse');
  put(join(home, '.ssh', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\ndummy\n-----END OPENSSH PRIVATE KEY-----\n', 0o600);
  put(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = dummy\n', 0o600);
  put(join(home, '.bashrc'), 'export PATH="$HOME/bin:$PATH"\n');
  put(join(proj, 'README.md'), '# proj\n');
  put(join(proj, 'src', 'index.ts'), 'export {};\n');
  put(join(proj, '.env'), 'API_KEY=dummy\n', 0o600);
  put(join(proj, '.git', 'config'), '[core]\n');
  put(join(proj, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(join(proj, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(gatehouse, 'plugins'), { recursive: true, mode: 0o700 });
  put(join(gatehouse, 'settings.json'), JSON.stringify({ mode: 'dry-run', autonomy: 'supervised', hookAsk: 'agent' }), 0o600);
  return { root, home, proj, gatehouse };
}

export function fill<T>(v: T, f: Fake): T {
  return JSON.parse(JSON.stringify(v).replaceAll('{PROJ}', f.proj).replaceAll('{HOME}', f.home).replaceAll('{GH}', f.gatehouse)) as T;
}

export interface Host { child: ChildProcess; port: number; op: string; agent: string }

export function startHost(f: Fake): Promise<Host> {
  const env = { ...process.env, HOME: f.home, GATEHOUSE_HOME: f.gatehouse, XDG_CONFIG_HOME: join(f.home, '.config'), GATEHOUSE_NO_ELECTRON: '1', NO_COLOR: '1' };
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], { cwd: f.proj, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = out.match(/Gatehouse console: http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        const info = JSON.parse(readFileSync(join(f.gatehouse, 'serve.json'), 'utf8')) as { token: string; agentToken: string };
        resolve({ child, port: Number(m[1]), op: info.token, agent: info.agentToken });
      }
    });
    child.once('exit', (c) => reject(new Error(`serve exited ${c}: ${out} ${err}`)));
  });
}

export async function setLevel(h: Host, autonomy: 'supervised' | 'full'): Promise<void> {
  const res = await http({ port: h.port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${h.op}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'settings.update', params: { autonomy, mode: 'dry-run', hookAsk: 'agent' } }) });
  if (!(JSON.parse(res.body) as { ok: boolean }).ok) throw new Error(res.body);
}

export function mapFor(agent: Agent, payload: unknown): { judge: string } | { skip: string } | { invalid: string } {
  const text = JSON.stringify(payload);
  switch (agent) {
    case 'copilot': return fromCopilotInput(text);
    case 'gemini-cli': return fromGeminiInput(text);
    case 'opencode': return fromOpencodeInput(text);
    case 'qwen-code': return fromQwenInput(text);
    default: return { judge: text };
  }
}

/** allow | ask | deny (what the host in dry-run says it would have done), or invalid/skip. */
export async function judge(h: Host, agent: Agent, payload: unknown): Promise<{ decision: string; reason: string }> {
  const m = mapFor(agent, payload);
  if ('invalid' in m) return { decision: 'deny', reason: `invalid: ${m.invalid}` };
  if ('skip' in m) return { decision: 'skip', reason: m.skip };
  const res = await http({ port: h.port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${h.agent}`, 'Content-Type': 'application/json', 'x-gatehouse-hook-client': agent }, body: m.judge });
  const body = JSON.parse(res.body) as { continue?: boolean; hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
  const r = body.hookSpecificOutput?.permissionDecisionReason ?? '';
  if (/would have allowed/.test(r)) return { decision: 'allow', reason: r };
  if (/would have asked/.test(r)) return { decision: 'ask', reason: r };
  if (/would have denied/.test(r)) return { decision: 'deny', reason: r };
  return { decision: body.hookSpecificOutput?.permissionDecision ?? 'none', reason: r || res.body.slice(0, 300) };
}

export async function stopHost(h: Host, f: Fake): Promise<void> {
  if (h.child.exitCode === null) {
    const done = new Promise((r) => h.child.once('exit', r));
    h.child.kill('SIGTERM');
    await done;
  }
  rmSync(f.root, { recursive: true, force: true });
}
