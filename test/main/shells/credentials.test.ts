// Gatehouse's own credentials (issue #13, findings 2, 13, 17 and 19): one-time console links
// traded for sessions that survive a restart, no token on argv, owner-only secret files and
// database, and the Host check of a wildcard bind. Real host, real HTTP and WebSocket on
// loopback, the real CLI as a child process, real files.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import WsWebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../../main/audit/audit-store.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { ensureHome } from '../../../main/home.js';
import { startServeShell, type ServeShell } from '../../../main/shells/serve/serve-shell.js';
import { CONSOLE_LINK_TTL_MS, SESSION_MAX_AGE_MS, SESSION_TTL_MS } from '../../../main/shells/serve/console-session.js';
import { agentToken, operatorToken } from '../../../main/shells/serve/tokens.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import { runCli, startCli } from '../../support/cli.js';
import { http, wsConnect, WsClient } from '../../support/net.js';
import { sharedTempDir, tempDir } from '../../support/temp.js';
import { createServeTransport } from '../../../renderer/src/transport/serve-transport.ts';
import { Backoff } from '../../../renderer/src/transport/backoff.ts';
import type { ConnectionState, Transport } from '../../../renderer/src/transport/types.ts';

const TOKEN = 'credentials-test-token-0123456789abcdef';
const AGENT = 'credentials-agent-token-0123456789abcd';
const LINE = /^Gatehouse console: (http:\/\/127\.0\.0\.1:(\d+)\/)#code=([A-Za-z0-9_-]+)$/;

const mode = (path: string) => statSync(path).mode & 0o777;

interface Reply {
  status: number;
  body: { ok: boolean; result?: Record<string, unknown>; error?: { code: string; message: string; details?: { reason?: string } } };
}

async function exchange(port: number, code: string, headers: Record<string, string> = {}): Promise<Reply> {
  const r = await http({ port, path: '/api/session/exchange', method: 'POST', headers: { 'Content-Type': 'application/json', Origin: `http://127.0.0.1:${port}`, ...headers }, body: JSON.stringify({ code }) });
  return { status: r.status, body: JSON.parse(r.body) };
}

async function sessionCheck(port: number, credential: string): Promise<Reply> {
  const r = await http({ port, path: '/api/session', headers: { Authorization: `Bearer ${credential}` } });
  return { status: r.status, body: JSON.parse(r.body) };
}

async function mintLink(port: number, credential: string): Promise<Reply> {
  const r = await http({ port, path: '/api/console-link', method: 'POST', headers: { Authorization: `Bearer ${credential}` } });
  return { status: r.status, body: JSON.parse(r.body) };
}

function codeOf(url: string): string {
  const m = /#code=([A-Za-z0-9_-]+)$/.exec(url);
  if (!m) throw new Error(`no code in ${url}`);
  return m[1]!;
}

/** Opens /ws with a credential as the console does; resolves true when it is accepted and answers. */
async function wsWorks(port: number, credential: string): Promise<boolean | number> {
  const r = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + credential], origin: `http://127.0.0.1:${port}` });
  if (!r.ok) return r.status;
  const client = new WsClient(r.ws);
  const info = await client.call('host.info', {});
  await client.close();
  return info.ok === true;
}

describe('console links and sessions (in process, real host, loopback)', () => {
  let tmp: { dir: string; remove: () => void };
  let host: Host;
  let shell: ServeShell;
  let port: number;
  let now = Date.now();

  beforeAll(async () => {
    tmp = sharedTempDir();
    host = createHost({ home: join(tmp.dir, 'home'), shell: 'serve', log: () => {} });
    shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token: TOKEN, staticDir: join(tmp.dir, 'none'), operator: 'tester', now: () => now });
    port = shell.port;
  });
  afterAll(async () => {
    await shell.close();
    await host.close('test done');
    tmp.remove();
  });

  it('a console URL carries a one-time code of 128+ bits, never the operator token', () => {
    const url = shell.newConsoleUrl();
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#code=[A-Za-z0-9_-]{22,}$`));
    expect(url).not.toContain(TOKEN);
    expect(Buffer.from(codeOf(url), 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(codeOf(shell.newConsoleUrl())).not.toBe(codeOf(url));
  });

  it('a code opens a session once; the second use says it was already used and names `gatehouse url`', async () => {
    const code = codeOf(shell.newConsoleUrl());
    const first = await exchange(port, code);
    expect(first.status).toBe(200);
    const session = first.body.result!.session as string;
    expect(session).toEqual(expect.any(String));
    expect(session).not.toContain(TOKEN);
    const again = await exchange(port, code);
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: 'unauthorized', details: { reason: 'used' } });
    expect(again.body.error!.message).toMatch(/already used.*`gatehouse url`/);
    expect(again.body.result).toBeUndefined();
  });

  it('an expired code is refused, and says it expired', async () => {
    const code = codeOf(shell.newConsoleUrl());
    now += CONSOLE_LINK_TTL_MS;
    const r = await exchange(port, code);
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ details: { reason: 'expired' } });
    expect(r.body.error!.message).toMatch(/expired.*`gatehouse url`/);
  });

  it('an unknown code, the operator token or no code opens nothing', async () => {
    expect((await exchange(port, 'a'.repeat(32))).status).toBe(401);
    expect((await exchange(port, TOKEN)).status).toBe(401);
    const noCode = await http({ port, path: '/api/session/exchange', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(noCode.status).toBe(400);
    const form = await http({ port, path: '/api/session/exchange', method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'code=x' });
    expect(form.status).toBe(415);
  });

  it('refuses an exchange from a foreign Origin or Host, and the code stays unused', async () => {
    const code = codeOf(shell.newConsoleUrl());
    expect((await exchange(port, code, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await exchange(port, code, { Host: `evil.example:${port}`, Origin: `http://evil.example:${port}` })).status).toBe(403);
    expect((await exchange(port, code)).status).toBe(200);
  });

  it('a session opens /api and /ws, is renewed by /api/session, and cannot make console links', async () => {
    const session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    const check = await sessionCheck(port, session);
    expect(check.status).toBe(200);
    expect(check.body.result).toMatchObject({ shell: 'serve', session: expect.any(String), expiresAt: now + SESSION_TTL_MS });
    const call = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'host.info', params: {} }) });
    expect(JSON.parse(call.body)).toMatchObject({ ok: true, result: { shell: 'serve' } });
    await expect(wsWorks(port, session)).resolves.toBe(true);
    // Only the operator token (the CLI reading the home) makes links.
    const minted = await mintLink(port, session);
    expect(minted.status).toBe(403);
    expect(minted.body.result).toBeUndefined();
    expect((await mintLink(port, 'no-such-token-0123456789abcdef')).status).toBe(401);
    const ok = await mintLink(port, TOKEN);
    expect(ok.status).toBe(200);
    expect(ok.body.result).toMatchObject({ url: expect.stringMatching(/#code=/), expiresAt: now + CONSOLE_LINK_TTL_MS });
    // The operator token does not get a session back: the CLI has no use for one.
    expect((await sessionCheck(port, TOKEN)).body.result!.session).toBeUndefined();
  });

  it('a session lasts 12 hours from its last renewal, then /api and /ws refuse it', async () => {
    const session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    now += SESSION_TTL_MS - 60_000;
    const renewed = (await sessionCheck(port, session)).body.result!.session as string;
    now += 120_000;
    // The first one has run out; the renewed one slides on.
    expect((await sessionCheck(port, session)).status).toBe(401);
    await expect(wsWorks(port, session)).resolves.toBe(401);
    expect((await sessionCheck(port, renewed)).status).toBe(200);
    await expect(wsWorks(port, renewed)).resolves.toBe(true);
  });

  it('renewals never carry a session past 7 days from the link it came from', async () => {
    let session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    const born = now;
    // A console (or whoever holds its session) renewing it every 6 hours for a week.
    while (now + 6 * 3_600_000 < born + SESSION_MAX_AGE_MS) {
      now += 6 * 3_600_000;
      const r = await sessionCheck(port, session);
      expect(r.status).toBe(200);
      session = r.body.result!.session as string;
      expect(r.body.result!.expiresAt).toBeLessThanOrEqual(born + SESSION_MAX_AGE_MS);
    }
    now = born + SESSION_MAX_AGE_MS;
    expect((await sessionCheck(port, session)).status).toBe(401);
    await expect(wsWorks(port, session)).resolves.toBe(401);
  });

  it('a WebSocket a session let in closes when that session ends: no frame is answered and no event sent after it', async () => {
    const session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    const r = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + session], origin: `http://127.0.0.1:${port}` });
    if (!r.ok) throw new Error(`the socket was refused (${r.status})`);
    const client = new WsClient(r.ws);
    expect((await client.call('host.info', {})).ok).toBe(true);
    const closed = new Promise<number>((resolve) => r.ws.once('close', (code) => resolve(code)));
    now += SESSION_TTL_MS + 60_000;
    // Its next frame (minting an agent token, an operator's act) is not answered: the socket closes.
    void client.call('agents.tokens.create', { name: 'after-the-session' });
    await expect(closed).resolves.toBe(4401);
    expect((await sessionCheck(port, TOKEN)).status).toBe(200);
    const tokens = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'agents.tokens.list', params: {} }) });
    expect(tokens.body).not.toContain('after-the-session');
  });

  it('an idle WebSocket whose session ended is closed at the next event, not sent it', async () => {
    const session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    const r = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + session], origin: `http://127.0.0.1:${port}` });
    if (!r.ok) throw new Error(`the socket was refused (${r.status})`);
    const client = new WsClient(r.ws);
    const closed = new Promise<number>((resolve) => r.ws.once('close', (code) => resolve(code)));
    now += SESSION_TTL_MS + 60_000;
    host.bus.emit('approvals.changed', { reason: 'test' } as never);
    await expect(closed).resolves.toBe(4401);
    expect(client.events.filter((e) => e.event === 'approvals.changed')).toEqual([]);
  });

  it('refuses a session whose expiry, origin or signature was changed', async () => {
    const session = (await exchange(port, codeOf(shell.newConsoleUrl()))).body.result!.session as string;
    const [v, exp, born, nonce, mac] = session.split('.');
    const later = `${v}.${(parseInt(exp!, 36) + SESSION_TTL_MS).toString(36)}.${born}.${nonce}.${mac}`;
    const younger = `${v}.${exp}.${(parseInt(born!, 36) + SESSION_TTL_MS).toString(36)}.${nonce}.${mac}`;
    // The first character: the last one of a base64url MAC carries padding bits a decoder ignores
    // (A and B there can decode to the same bytes, and the forged session was accepted 1 run in 16).
    const flipped = `${v}.${exp}.${born}.${nonce}.${mac!.startsWith('A') ? 'B' : 'A'}${mac!.slice(1)}`;
    expect((await sessionCheck(port, session)).status).toBe(200);
    for (const forged of [later, younger, flipped, `${v}.${exp}.${born}.${nonce}`, `${session}.x`, '']) {
      expect((await sessionCheck(port, forged)).status, forged).toBe(401);
    }
  });
});

describe('gatehouse serve and gatehouse url (the real CLI)', () => {
  it('a console session survives a host restart; --new-token revokes it', async () => {
    const home = tempDir();
    let cli = startCli(['serve', '--port', '0', '--home', home]);
    const [, , firstPort, code] = await cli.waitForLine(LINE);
    let port = firstPort;
    const session = (await exchange(Number(port), code!)).body.result!.session as string;
    await expect(wsWorks(Number(port), session)).resolves.toBe(true);
    cli.child.kill('SIGTERM');
    await cli.exited;

    // A new process, a new port: the console left open reconnects with what its tab holds.
    cli = startCli(['serve', '--port', '0', '--home', home]);
    [, , port] = await cli.waitForLine(LINE);
    expect((await sessionCheck(Number(port), session)).status).toBe(200);
    await expect(wsWorks(Number(port), session)).resolves.toBe(true);
    // The old run's link is no use to this one.
    cli.child.kill('SIGTERM');
    await cli.exited;

    cli = startCli(['serve', '--port', '0', '--home', home, '--new-token']);
    [, , port] = await cli.waitForLine(LINE);
    expect((await sessionCheck(Number(port), session)).status).toBe(401);
    await expect(wsWorks(Number(port), session)).resolves.toBe(401);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('`gatehouse url` prints a fresh one-time link for the running host, using the token from the home', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home]);
    const [, , port, printed] = await cli.waitForLine(LINE);
    // The line after the link names the command, with this run's data folder.
    await cli.waitForLine(new RegExp(`^\\(The link works once, within 2 minutes; \`gatehouse url --home ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` prints a new one\\.\\)$`));
    const r = await runCli(['url', '--home', home]);
    expect(r.code, r.stderr).toBe(0);
    const m = r.stdout.trim().match(LINE);
    expect(m?.[2]).toBe(port);
    expect(m![3]).not.toBe(printed);
    expect(r.stdout).not.toContain(readFileSync(join(home, 'operator-token'), 'utf8').trim());
    expect((await exchange(Number(port), m![3]!)).status).toBe(200);
    cli.child.kill('SIGTERM');
    await cli.exited;

    const none = await runCli(['url', '--home', home]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^gatehouse: No Gatehouse is running for .+ Start one with `gatehouse serve`; it prints a console URL\.$/m);
  });
});

/** The console's own transport (renderer code) against a real host, with Node's fetch and `ws`. */
function consoleTransport(port: number, credential: { code: string | null; session: string | null }): Transport {
  const base = `http://127.0.0.1:${port}`;
  return createServeTransport({
    credential: { ...credential, problem: null },
    origin: { protocol: 'http:', host: `127.0.0.1:${port}` },
    fetch: ((input: string, init?: RequestInit) => fetch(new URL(input, base), init)) as typeof fetch,
    WebSocket: WsWebSocket as unknown as typeof WebSocket,
    backoff: new Backoff(50, 200),
  });
}

function reaches(t: Transport, wanted: ConnectionState): Promise<void> {
  if (t.getState() === wanted) return Promise.resolve();
  return new Promise((resolve) => {
    const off = t.onState((state) => {
      if (state !== wanted) return;
      off();
      resolve();
    });
  });
}

describe('the console transport (renderer code, real CLI host)', () => {
  it('trades the printed code for a session, and reconnects by itself after the host restarts', async () => {
    const home = tempDir();
    let cli = startCli(['serve', '--port', '0', '--home', home]);
    const [, , port, code] = await cli.waitForLine(LINE);
    const t = consoleTransport(Number(port), { code: code!, session: null });
    try {
      const connected = reaches(t, 'connected');
      t.start();
      await connected;
      await expect(t.invoke('host.info', {})).resolves.toMatchObject({ ok: true, result: { shell: 'serve', pid: cli.child.pid } });

      const lost = reaches(t, 'reconnecting');
      cli.child.kill('SIGTERM');
      await cli.exited;
      await lost;
      // Same home, same port, a new process: the console comes back with the session its tab holds.
      cli = startCli(['serve', '--port', port!, '--home', home]);
      await cli.waitForLine(LINE);
      await reaches(t, 'connected');
      await expect(t.invoke('host.info', {})).resolves.toMatchObject({ ok: true, result: { pid: cli.child.pid } });
    } finally {
      t.close();
    }

    // The printed URL opened again (from the browser's history): refused, and the console says why.
    const replay = consoleTransport(Number(port), { code: code!, session: null });
    try {
      const refused = reaches(replay, 'unauthorized');
      replay.start();
      await refused;
      expect(replay.getDetail()).toMatch(/not valid for this host.*`gatehouse url`/);
    } finally {
      replay.close();
    }
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('shows "already used" for a link opened a second time while the host still runs', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home]);
    const [, , port, code] = await cli.waitForLine(LINE);
    expect((await exchange(Number(port), code!)).status).toBe(200);
    const t = consoleTransport(Number(port), { code: code!, session: null });
    try {
      const refused = reaches(t, 'unauthorized');
      t.start();
      await refused;
      expect(t.getDetail()).toMatch(/already used.*`gatehouse url`/);
      await expect(t.invoke('host.info', {})).rejects.toMatchObject({ code: 'unauthorized' });
    } finally {
      t.close();
    }
    cli.child.kill('SIGTERM');
    await cli.exited;
  });
});

describe('tokens never on the command line (the real CLI)', () => {
  it.each([
    ['--token', 'GATEHOUSE_TOKEN', '--token-file'],
    ['--agent-token', 'GATEHOUSE_AGENT_TOKEN', '--agent-token-file'],
  ])('refuses %s T, saying to use a file, stdin or %s, and starts nothing', async (option, variable, fileOption) => {
    const home = tempDir();
    const r = await runCli(['serve', '--port', '0', '--home', home, option, TOKEN]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`gatehouse: ${option} is refused: a token on the command line is visible to every process on this machine (/proc/PID/cmdline).`);
    expect(r.stderr).toContain(`${fileOption} PATH`);
    expect(r.stderr).toContain(`${fileOption} -`);
    expect(r.stderr).toContain(variable);
    expect(r.stdout).not.toMatch(/Gatehouse console/);
    expect(existsSync(join(home, 'serve.json'))).toBe(false);
  });

  it('takes the tokens from GATEHOUSE_TOKEN and GATEHOUSE_AGENT_TOKEN; neither is in the process\'s argv, nor passed on to what the host starts', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home], { GATEHOUSE_TOKEN: TOKEN, GATEHOUSE_AGENT_TOKEN: AGENT });
    const [, , port] = await cli.waitForLine(LINE);
    expect((await sessionCheck(Number(port), TOKEN)).status).toBe(200);
    const info = JSON.parse(readFileSync(join(home, 'serve.json'), 'utf8'));
    expect(info).toMatchObject({ token: TOKEN, agentToken: AGENT });
    const cmdline = readFileSync(`/proc/${cli.child.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain(TOKEN);
    expect(cmdline).not.toContain(AGENT);
    // Read once, then out of the host's environment: what it starts (here a terminal) does not inherit them.
    const r = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://127.0.0.1:${port}` });
    if (!r.ok) throw new Error(`refused: ${r.status}`);
    const client = new WsClient(r.ws);
    const script = 'printf "T=%s A=%s P=%s END\\n" "${GATEHOUSE_TOKEN:-unset}" "${GATEHOUSE_AGENT_TOKEN:-unset}" "${PATH:+set}"; exec cat';
    const started = (await client.call('terminals.start', { command: '/bin/sh', args: ['-c', script], cols: 200, rows: 24 })) as { ok: boolean; result: { id: string } };
    expect(started.ok).toBe(true);
    const attached = (await client.call('terminals.attach', { id: started.result.id })) as { result: { buffer: string; seq: number } };
    let output = attached.result.buffer;
    if (!output.includes('END')) {
      await client.waitForEvent((e) => {
        const p = e.payload as { id: string; seq: number; data: Uint8Array };
        if (e.event !== 'terminals.output' || p.id !== started.result.id || p.seq <= attached.result.seq) return false;
        output += Buffer.from(p.data).toString('utf8');
        return output.includes('END');
      });
    }
    expect(output).toContain('T=unset A=unset P=set END');
    expect(output).not.toContain(TOKEN);
    await client.call('terminals.kill', { id: started.result.id });
    await client.close();
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('takes the operator token from --token-file PATH and the agent token from stdin (--agent-token-file -)', async () => {
    const home = tempDir();
    const file = join(tempDir(), 'operator-token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const cli = startCli(['serve', '--port', '0', '--home', home, '--token-file', file, '--agent-token-file', '-']);
    cli.child.stdin.end(`${AGENT}\n`);
    const [, , port] = await cli.waitForLine(LINE);
    expect((await sessionCheck(Number(port), TOKEN)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(home, 'serve.json'), 'utf8'))).toMatchObject({ token: TOKEN, agentToken: AGENT });
    expect(readFileSync(`/proc/${cli.child.pid}/cmdline`, 'utf8')).not.toContain(TOKEN);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('names the variable when the token it holds is malformed, and refuses two sources at once', async () => {
    const bad = await runCli(['serve', '--port', '0', '--home', tempDir()], { GATEHOUSE_TOKEN: 'short' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^gatehouse: The token read from GATEHOUSE_TOKEN is not valid\. The operator token \(--token-file or GATEHOUSE_TOKEN\) must be 16 to 256 characters/m);
    expect(bad.stderr).not.toContain('short');
    const file = join(tempDir(), 't');
    writeFileSync(file, TOKEN, { mode: 0o600 });
    const both = await runCli(['serve', '--port', '0', '--home', tempDir(), '--token-file', file], { GATEHOUSE_TOKEN: TOKEN });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('gatehouse: Give the token one way: --token-file or GATEHOUSE_TOKEN, not both.');
  });
});

describe('secret files and the audit log are owner-only (0600)', () => {
  it('a token file someone made 0644 is 0600 once rotated, and once read', () => {
    const home = ensureHome(join(tempDir(), 'home')).root;
    for (const name of ['operator-token', 'agent-token']) {
      writeFileSync(join(home, name), 'x'.repeat(24) + '\n');
      chmodSync(join(home, name), 0o644);
    }
    const rotated = operatorToken(home, { rotate: true });
    expect(rotated).not.toBe('x'.repeat(24));
    expect(mode(join(home, 'operator-token'))).toBe(0o600);
    expect(readFileSync(join(home, 'operator-token'), 'utf8').trim()).toBe(rotated);
    // Kept as it is (a valid token), but no longer readable by others.
    expect(agentToken(home)).toBe('x'.repeat(24));
    expect(mode(join(home, 'agent-token'))).toBe(0o600);
    // Rewritten because it is malformed: 0600 too.
    writeFileSync(join(home, 'agent-token'), 'bad\n');
    chmodSync(join(home, 'agent-token'), 0o644);
    agentToken(home);
    expect(mode(join(home, 'agent-token'))).toBe(0o600);
  });

  it('a new audit log and its -wal and -shm are 0600, whatever the umask', () => {
    const path = join(tempDir(), 'audit.db');
    const old = process.umask(0o022);
    let store: AuditStore;
    try {
      store = new AuditStore({ path, log: () => {} });
    } finally {
      process.umask(old);
    }
    store.append({ type: 'host.started', actor: 'system', payload: {} });
    store.flush();
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(mode(f), f).toBe(0o600);
    store.close();
  });

  it('an audit log made 0644 before (with -wal and -shm) is 0600 once opened', () => {
    const path = join(tempDir(), 'audit.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    // Left open, so the -wal and -shm files exist when the store opens the log.
    for (const f of [path, `${path}-wal`, `${path}-shm`]) chmodSync(f, 0o644);
    const store = new AuditStore({ path, log: () => {} });
    for (const f of [path, `${path}-wal`, `${path}-shm`]) expect(mode(f), f).toBe(0o600);
    store.close();
    db.close();
  });

  it('every secret file of a served home is 0600, the home 0700, including a stale serve.json left 0644', async () => {
    const home = ensureHome(join(tempDir(), 'home')).root;
    writeFileSync(join(home, 'serve.json'), '{}');
    chmodSync(join(home, 'serve.json'), 0o644);
    const cli = startCli(['serve', '--port', '0', '--home', home]);
    const [, , port] = await cli.waitForLine(LINE);
    // A console connected: the log has been written through its WAL.
    await expect(wsWorks(Number(port), readFileSync(join(home, 'operator-token'), 'utf8').trim())).resolves.toBe(true);
    expect(mode(home)).toBe(0o700);
    for (const name of ['operator-token', 'agent-token', 'serve.json', 'audit.db', 'audit.db-wal', 'audit.db-shm']) expect(mode(join(home, name)), name).toBe(0o600);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });
});

describe('a wildcard bind (0.0.0.0)', () => {
  let tmp: { dir: string; remove: () => void };
  let host: Host;
  let shell: ServeShell;

  beforeAll(async () => {
    tmp = sharedTempDir();
    host = createHost({ home: join(tmp.dir, 'home'), shell: 'serve', log: () => {} });
    shell = await startServeShell({ host, bindHost: '0.0.0.0', port: 0, token: TOKEN, staticDir: join(tmp.dir, 'none'), operator: 'tester' });
  });
  afterAll(async () => {
    await shell.close();
    await host.close('test done');
    tmp.remove();
  });

  const external = () =>
    Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);

  it('accepts Host headers naming loopback or this machine\'s own addresses, with the bound port', async () => {
    const port = shell.port;
    for (const name of ['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', ...external()]) {
      const r = await http({ port, path: '/api/session', headers: { Host: `${name}:${port}`, Authorization: `Bearer ${TOKEN}` } });
      expect(r.status, name).toBe(200);
    }
    const ws = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://localhost:${port}`, headers: { Host: `localhost:${port}` } });
    expect(ws.ok).toBe(true);
    if (ws.ok) await new WsClient(ws.ws).close();
  });

  it('still refuses a foreign name (DNS rebinding) and another port', async () => {
    const port = shell.port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `127.0.0.1:${port + 1}`, `localhost`]) {
      const r = await http({ port, path: '/api/session', headers: { Host: host, Authorization: `Bearer ${TOKEN}` } });
      expect(r.status, host).toBe(403);
    }
    const ws = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://evil.example:${port}`, headers: { Host: `evil.example:${port}` } });
    expect(ws).toEqual({ ok: false, status: 403 });
  });

  it('sends the browser to loopback: the console URL names 127.0.0.1', () => {
    expect(shell.newConsoleUrl()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${shell.port}/#code=`));
  });
});
