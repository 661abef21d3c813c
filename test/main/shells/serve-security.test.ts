// The serve shell's guards, against a real host and a real server on 127.0.0.1: the token,
// Host (DNS rebinding), Origin (cross-site WebSocket hijacking), static files only, and the
// process-level contract of `gatehouse serve` (the printed line, serve.json, loopback bind).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openForVerify } from '../../../main/audit/audit-store.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { startServeShell, type ServeShell } from '../../../main/shells/serve/serve-shell.js';
import { WS_PROTOCOL, WS_TOKEN_PREFIX } from '../../../main/shells/serve/guards.js';
import { contentSecurityPolicy } from '../../../shared/csp.js';
import { repoRoot, runCli, startCli } from '../../support/cli.js';
import { http, wsConnect, WsClient, type WsOutcome } from '../../support/net.js';
import { sharedTempDir, tempDir } from '../../support/temp.js';

const TOKEN = 'serve-security-token-0123456789abcdef';
const rendererDir = join(repoRoot, 'out', 'renderer');

describe('serve shell guards (in process, real host, loopback)', () => {
  let tmp: { dir: string; remove: () => void };
  let host: Host;
  let shell: ServeShell;
  let port: number;
  let origin: string;
  const auth = () => ({ Authorization: `Bearer ${TOKEN}` });
  const ws = (opts: { token?: string | null; origin?: string | null; host?: string } = {}): Promise<WsOutcome> => {
    const protocols = [WS_PROTOCOL, ...(opts.token === null ? [] : [WS_TOKEN_PREFIX + (opts.token ?? TOKEN)])];
    return wsConnect(`ws://127.0.0.1:${port}/ws`, {
      protocols,
      ...(opts.origin === null ? {} : { origin: opts.origin ?? origin }),
      ...(opts.host ? { headers: { Host: opts.host } } : {}),
    });
  };
  const call = (body: unknown, headers: Record<string, string> = {}) =>
    http({ port, path: '/api/call', method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    tmp = sharedTempDir();
    host = createHost({ home: join(tmp.dir, 'home'), shell: 'serve', log: () => {} });
    shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token: TOKEN, staticDir: rendererDir, operator: 'tester' });
    port = shell.port;
    origin = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await shell.close();
    await host.close('test done');
    tmp.remove();
  });

  describe('WebSocket', () => {
    it('refuses a connection without a token with 401', async () => {
      await expect(ws({ token: null })).resolves.toEqual({ ok: false, status: 401 });
    });

    it('refuses a wrong token with 401', async () => {
      await expect(ws({ token: 'not-the-token-0123456789abcdef' })).resolves.toEqual({ ok: false, status: 401 });
      await expect(ws({ token: TOKEN.slice(0, -1) })).resolves.toEqual({ ok: false, status: 401 });
    });

    it('does not take the token from the query string', async () => {
      await expect(wsConnect(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`, { protocols: [WS_PROTOCOL], origin })).resolves.toEqual({ ok: false, status: 401 });
    });

    it('refuses a foreign Origin with 403, even with the right token', async () => {
      await expect(ws({ origin: 'http://evil.example' })).resolves.toEqual({ ok: false, status: 403 });
      await expect(ws({ origin: `http://127.0.0.1:${port + 1}` })).resolves.toEqual({ ok: false, status: 403 });
      await expect(ws({ origin: 'null' })).resolves.toEqual({ ok: false, status: 403 });
    });

    it('refuses a foreign Host with 403 (DNS rebinding), even with the right token', async () => {
      await expect(ws({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).resolves.toEqual({ ok: false, status: 403 });
      await expect(ws({ host: `evil.example:${port}`, origin: null })).resolves.toEqual({ ok: false, status: 403 });
    });

    it('accepts the right token and Origin, and records the operator in the audit log', async () => {
      const r = await ws();
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.ws.protocol).toBe(WS_PROTOCOL);
      const client = new WsClient(r.ws);
      const info = await client.call('host.info', {});
      expect(info).toMatchObject({ id: 1, ok: true, result: { shell: 'serve', pid: process.pid } });
      const tail = await client.call('audit.tail', { limit: 100 });
      const connected = (tail.result as { events: { type: string; actor: string; payload: { console: string } }[] }).events.find((e) => e.type === 'operator.connected');
      expect(connected).toMatchObject({ actor: 'operator:tester', payload: { console: 'serve' } });

      // Leaving is recorded too: wait for the commit that carries it.
      const committed = new Promise<void>((resolve) => {
        const off = host.bus.subscribe((name) => {
          if (name === 'audit.appended' && host.audit.tail(100).some((e) => e.type === 'operator.disconnected')) {
            off();
            resolve();
          }
        });
      });
      await client.close();
      await committed;
    });

    it('accepts localhost as the Host and Origin of a loopback bind', async () => {
      const r = await ws({ host: `localhost:${port}`, origin: `http://localhost:${port}` });
      expect(r.ok).toBe(true);
      if (r.ok) await new WsClient(r.ws).close();
    });

    it('answers malformed frames with a structured error and keeps the connection usable', async () => {
      const r = await ws();
      if (!r.ok) throw new Error(`refused: ${r.status}`);
      const client = new WsClient(r.ws);
      try {
        await expect(client.sendMalformed('this is not json')).resolves.toMatchObject({ id: null, ok: false, error: { code: 'bad_request', message: expect.stringMatching(/not JSON/) } });
        await expect(client.sendMalformed(JSON.stringify({ method: 'host.info', params: {} }))).resolves.toMatchObject({ id: null, ok: false, error: { code: 'bad_request' } });
        await expect(client.sendMalformed(JSON.stringify([1, 2, 3]))).resolves.toMatchObject({ id: null, ok: false, error: { code: 'bad_request' } });
        await expect(client.sendMalformed(JSON.stringify({ id: { nested: true }, method: 'host.info' }))).resolves.toMatchObject({ id: null, ok: false, error: { code: 'bad_request' } });
        await expect(client.sendMalformed(Buffer.from([0xde, 0xad, 0xbe, 0xef]))).resolves.toMatchObject({ id: null, ok: false, error: { code: 'bad_request' } });
        await expect(client.call('no.such.method', {})).resolves.toMatchObject({ ok: false, error: { code: 'unknown_method' } });
        await expect(client.call('audit.tail', { limit: 'all' })).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
        await expect(client.call(17, 'params')).resolves.toMatchObject({ ok: false, error: { code: 'unknown_method' } });
        // Still open and answering.
        expect(r.ws.readyState).toBe(r.ws.OPEN);
        await expect(client.call('host.info', {})).resolves.toMatchObject({ ok: true, result: { shell: 'serve' } });
      } finally {
        await client.close();
      }
    });
  });

  describe('HTTP API', () => {
    it('answers a call with the right token', async () => {
      const r = await call({ method: 'host.info', params: {} });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ ok: true, result: { shell: 'serve' } });
    });

    it('refuses /api/call without or with a wrong token with 401', async () => {
      const none = await http({ port, path: '/api/call', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'host.info' }) });
      expect(none.status).toBe(401);
      const wrong = await call({ method: 'host.info' }, { Authorization: 'Bearer wrong-token-0123456789abcdef' });
      expect(wrong.status).toBe(401);
    });

    it('answers /api/session without a token with 401 and nothing but the error', async () => {
      const r = await http({ port, path: '/api/session' });
      expect(r.status).toBe(401);
      const body = JSON.parse(r.body);
      expect(Object.keys(body).sort()).toEqual(['error', 'ok']);
      expect(body.ok).toBe(false);
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
      expect(body.error.code).toBe('unauthorized');
      expect(r.body).not.toMatch(/methods|host\.info|serve|tester/);
      expect(r.headers['set-cookie']).toBeUndefined();
    });

    it('does not take the token from the query string', async () => {
      const r = await http({ port, path: `/api/session?token=${TOKEN}` });
      expect(r.status).toBe(401);
    });

    it('answers /api/session with the right token', async () => {
      const r = await http({ port, path: '/api/session', headers: auth() });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ ok: true, result: { shell: 'serve', methods: expect.arrayContaining(['host.info', 'audit.tail']) } });
    });

    it('refuses a foreign Origin with 403, even with the right token', async () => {
      const r = await call({ method: 'host.info', params: {} }, { Origin: 'http://evil.example' });
      expect(r.status).toBe(403);
      expect(r.body).not.toContain('"result"');
    });

    it('refuses a foreign Host with 403 for the API, even with the right token', async () => {
      const r = await call({ method: 'host.info', params: {} }, { Host: `evil.example:${port}` });
      expect(r.status).toBe(403);
      const s = await http({ port, path: '/api/session', headers: { ...auth(), Host: `evil.example:${port}` } });
      expect(s.status).toBe(403);
    });

    it('answers malformed bodies with structured errors', async () => {
      const notJson = await http({ port, path: '/api/call', method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: '{"method":' });
      expect(notJson.status).toBe(400);
      expect(JSON.parse(notJson.body)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
      const array = await call([1, 2]);
      expect(JSON.parse(array.body)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
      const wrongType = await http({ port, path: '/api/call', method: 'POST', headers: { ...auth(), 'Content-Type': 'text/plain' }, body: '{}' });
      expect(wrongType.status).toBe(415);
      const unknown = await call({ method: 'nope', params: {} });
      expect(JSON.parse(unknown.body)).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    });
  });

  describe('static files', () => {
    it('serves index.html without a token, with the CSP header', async () => {
      const r = await http({ port, path: '/' });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.body).toContain('<div id="root">');
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toBe(contentSecurityPolicy({ connect: [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`], frameAncestors: true }));
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      const index = await http({ port, path: '/index.html' });
      expect(index.status).toBe(200);
      expect(index.headers['content-security-policy']).toBe(csp);
    });

    it('refuses a foreign Host with 403 for static files too', async () => {
      const r = await http({ port, path: '/', headers: { Host: `evil.example:${port}` } });
      expect(r.status).toBe(403);
      expect(r.body).not.toContain('<div id="root">');
      const other = await http({ port, path: '/', headers: { Host: `127.0.0.1:${port + 1}` } });
      expect(other.status).toBe(403);
    });

    it('answers 404 for files that are not there', async () => {
      const r = await http({ port, path: '/no-such-file.js' });
      expect(r.status).toBe(404);
    });
  });
});

describe('serve shell static files: no path leaves the renderer folder', () => {
  let tmp: { dir: string; remove: () => void };
  let shell: ServeShell;
  const SECRET = 'top-secret-audit-contents';

  beforeAll(async () => {
    tmp = sharedTempDir();
    const site = join(tmp.dir, 'site');
    mkdirSync(join(site, 'assets'), { recursive: true });
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>fixture</title>');
    writeFileSync(join(site, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(tmp.dir, 'audit.db'), SECRET);
    // A sibling whose name starts with the site's: a prefix check alone would let it through.
    mkdirSync(join(tmp.dir, 'site-private'));
    writeFileSync(join(tmp.dir, 'site-private', 'key.txt'), SECRET);
    const host = { dispatcher: { methodNames: [], dispatch: async () => ({ ok: false as const, error: { code: 'internal' as const, message: 'unused' } }) }, bus: { subscribe: () => () => {} }, operatorConnected: () => () => {} };
    shell = await startServeShell({ host, bindHost: '127.0.0.1', port: 0, token: TOKEN, staticDir: site, operator: 'tester' });
  });
  afterAll(async () => {
    await shell.close();
    tmp.remove();
  });

  it('serves files inside it', async () => {
    const r = await http({ port: shell.port, path: '/assets/app.js' });
    expect(r.status).toBe(200);
    expect(r.body).toBe('console.log(1)');
  });

  it.each([
    '/../audit.db',
    '/%2e%2e/audit.db',
    '/%2E%2E/audit.db',
    '/..%2faudit.db',
    '/%2e%2e%2faudit.db',
    '/assets/../../audit.db',
    '/assets/%2e%2e/%2e%2e/audit.db',
    '/..%5caudit.db',
    '/../site-private/key.txt',
    '/%2e%2e/site-private/key.txt',
    '/..',
    '/%00',
    '/index.html%00.js',
    '/%',
    '/assets/',
  ])('refuses %s', async (path) => {
    const r = await http({ port: shell.port, path });
    expect([400, 404]).toContain(r.status);
    expect(r.body).not.toContain(SECRET);
  });
});

describe('gatehouse serve (the real CLI as a child process)', () => {
  it('binds loopback by default and prints exactly one console line, with a one-time code and never the token', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home]);
    const [line, port, code] = await cli.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:(\d+)\/#code=([A-Za-z0-9_-]+)$/);
    expect(line).toBe(`Gatehouse console: http://127.0.0.1:${port}/#code=${code}`);
    expect(cli.output().stdout.match(/^Gatehouse console:/gm)).toHaveLength(1);
    // The operator token stays in the home folder: nothing printed carries it.
    const token = readFileSync(join(home, 'operator-token'), 'utf8').trim();
    expect(code).not.toBe(token);
    expect(cli.output().stdout).not.toContain(token);
    expect(cli.output().stderr).not.toContain(token);

    // serve.json: owner-only, and enough for a CLI command to find this host.
    const serveJson = join(home, 'serve.json');
    expect(statSync(serveJson).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(serveJson, 'utf8'));
    expect(info).toMatchObject({ url: `http://127.0.0.1:${port}/`, port: Number(port), pid: cli.child.pid, token, host: '127.0.0.1' });
    expect(statSync(join(home, 'operator-token')).mode & 0o777).toBe(0o600);

    // The token works against the running process; no token gets 401.
    const ok = await http({ port: Number(port), path: '/api/session', headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const refused = await http({ port: Number(port), path: '/api/session' });
    expect(refused.status).toBe(401);

    // Only loopback: another address of this machine does not answer.
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) {
      const refusedExternally = await new Promise<string>((resolve) => {
        const s = connect({ host: external.address, port: Number(port) });
        s.once('connect', () => {
          s.destroy();
          resolve('connected');
        });
        s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
      expect(refusedExternally).toBe('ECONNREFUSED');
    }

    cli.child.kill('SIGTERM');
    const exit = await cli.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(existsSync(serveJson)).toBe(false);

    // The stop is recorded, and the chain is intact after it.
    const verify = await runCli(['audit', 'verify', '--home', home]);
    expect(verify.code).toBe(0);
  });

  it('records the start, each operator connection and the stop in the audit log', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home], { GATEHOUSE_TOKEN: TOKEN });
    const [, port] = await cli.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:(\d+)\//);
    const r = await wsConnect(`ws://127.0.0.1:${port}/ws`, { protocols: [WS_PROTOCOL, WS_TOKEN_PREFIX + TOKEN], origin: `http://127.0.0.1:${port}` });
    if (!r.ok) throw new Error(`refused: ${r.status}`);
    const client = new WsClient(r.ws);
    const tail = await client.call('audit.tail', { limit: 1000 });
    const types = (tail.result as { events: { type: string }[] }).events.map((e) => e.type).reverse();
    expect(types.slice(0, 1)).toEqual(['host.started']);
    expect(types).toContain('operator.connected');
    await client.close();
    cli.child.kill('SIGTERM');
    await cli.exited;

    const db = openForVerify(join(home, 'audit.db'));
    const all = (db.prepare('SELECT type FROM events ORDER BY seq').all() as { type: string }[]).map((e) => e.type);
    db.close();
    expect(all[0]).toBe('host.started');
    expect(all).toContain('operator.connected');
    expect(all.at(-1)).toBe('host.stopped');
  });

  it('binds a non-loopback address only when asked, and warns', async () => {
    const home = tempDir();
    const cli = startCli(['serve', '--port', '0', '--home', home, '--host', '0.0.0.0']);
    // The link sends the browser to loopback (Chromium will not open 0.0.0.0), which a wildcard bind accepts.
    await cli.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\/#code=/);
    expect(cli.output().stdout).toMatch(/Warning: listening on 0\.0\.0\.0, reachable from other machines/);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });
});
