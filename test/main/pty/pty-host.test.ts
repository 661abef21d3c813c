// The terminals.* methods through the real host: its dispatcher and contract validation, its
// event bus, its SQLite audit log, and console connections as the shells announce them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import type { CallContext } from '../../../main/host/dispatcher.js';
import type { EventPayload } from '../../../shared/contract.js';
import { sharedTempDir } from '../../support/temp.js';
import { gone } from '../../support/processes.js';

type Output = EventPayload<'terminals.output'>;


describe('terminals through the host', () => {
  let host: Host;
  let dir: { dir: string; remove: () => void };
  const outputs: Output[] = [];
  const waiters = new Set<() => void>();
  const cli: CallContext = { console: 'cli', operator: 'tester' };
  // The serve shell makes one context per WebSocket and announces it; so does this test.
  const alice: CallContext = { console: 'serve', operator: 'alice' };
  const bob: CallContext = { console: 'serve', operator: 'bob' };
  let bobLeft: () => void;

  beforeAll(() => {
    dir = sharedTempDir();
    host = createHost({ home: dir.dir, shell: 'serve', log: () => {}, watch: false });
    host.bus.subscribe((name, payload) => {
      if (name === 'terminals.output') outputs.push(payload as Output);
      for (const w of [...waiters]) w();
    });
    host.operatorConnected(alice, {});
    bobLeft = host.operatorConnected(bob, {});
  });
  afterAll(async () => {
    await host.close('test done');
    dir.remove();
  });

  const call = async (method: string, params: unknown, ctx: CallContext) => host.dispatcher.dispatch(method, params, ctx);
  const ok = async <T = Record<string, unknown>>(method: string, params: unknown, ctx: CallContext): Promise<T> => {
    const r = await call(method, params, ctx);
    if (!r.ok) throw new Error(`${method} failed: ${r.error.message}`);
    return r.result as T;
  };
  const until = (check: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const run = () => {
        if (check()) {
          waiters.delete(run);
          clearTimeout(timer);
          resolve();
        }
      };
      // Only a guard against a hang: the wait itself is on bus events.
      const timer = setTimeout(() => {
        waiters.delete(run);
        reject(new Error(`still waiting for: ${what}`));
      }, 15_000);
      waiters.add(run);
      run();
    });
  const text = (id: string) =>
    outputs
      .filter((o) => o.id === id)
      .map((o) => Buffer.from(o.data).toString('utf8'))
      .join('');

  it('starts, attaches, refuses typing before a take-over, records the take-over, kills', async () => {
    const s = await ok<{ id: string; tool: string; actor: string; cols: number; youControl: boolean }>('terminals.start', { command: '/bin/sh', args: ['-c', 'echo hello-host; exec cat'], cols: 90, rows: 20 }, alice);
    expect(s).toMatchObject({ tool: 'shell', actor: 'operator:alice', cols: 90, youControl: false });
    const attached = await ok<{ seq: number; buffer: string }>('terminals.attach', { id: s.id }, alice);
    expect(attached.seq).toBeGreaterThanOrEqual(0);

    // The HTTP API has no connection that could acknowledge: no watching, no typing from it.
    await expect(call('terminals.attach', { id: s.id }, cli)).resolves.toMatchObject({ ok: false, error: { code: 'rejected', details: { reason: 'no_console' } } });
    await expect(call('terminals.input', { id: s.id, data: 'x' }, cli)).resolves.toMatchObject({ ok: false, error: { code: 'rejected' } });

    await expect(call('terminals.input', { id: s.id, data: 'ping\r' }, alice)).resolves.toMatchObject({
      ok: false,
      error: { code: 'rejected', message: expect.stringContaining('take-over first'), details: { reason: 'not_taken_over' } },
    });
    const taken = await ok<{ youControl: boolean; controller: { operator: string } }>('terminals.takeOver', { id: s.id }, alice);
    expect(taken).toMatchObject({ youControl: true, controller: { operator: 'alice' } });
    const asBob = await ok<{ sessions: { id: string; youControl: boolean }[] }>('terminals.list', {}, bob);
    expect(asBob.sessions.find((x) => x.id === s.id)?.youControl).toBe(false);
    await expect(call('terminals.input', { id: s.id, data: 'x' }, bob)).resolves.toMatchObject({ ok: false, error: { details: { reason: 'not_taken_over' } } });

    await ok('terminals.input', { id: s.id, data: 'ping-from-alice\r' }, alice);
    await until(() => (text(s.id) + attached.buffer).split('ping-from-alice').length === 3, 'echo and cat output');
    await expect(ok('terminals.resize', { id: s.id, cols: 100, rows: 30 }, alice)).resolves.toEqual({ applied: true });
    await expect(ok('terminals.resize', { id: s.id, cols: 50, rows: 10 }, bob)).resolves.toEqual({ applied: false });

    const killed = await ok<{ state: string; signal: string; killedBy: string }>('terminals.kill', { id: s.id }, alice);
    expect(killed).toMatchObject({ state: 'exited', signal: 'SIGKILL', killedBy: 'operator:alice' });

    // tail() is newest first.
    const events = host.audit.tail(1000).reverse().filter((e) => e.type.startsWith('pty.') && (e.payload as { id?: string }).id === s.id);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('pty.started');
    expect(types).toContain('pty.take-over');
    expect(types.at(-1)).toBe('pty.exited');
    expect(types.indexOf('pty.killed')).toBeGreaterThan(types.indexOf('pty.take-over'));
    expect(events.find((e) => e.type === 'pty.take-over')).toMatchObject({ actor: 'operator:alice', payload: { id: s.id, previous: null } });
    const transcript = events.filter((e) => e.type === 'pty.transcript').map((e) => (e.payload as { data: string }).data).join('');
    expect(transcript).toContain('hello-host');
    expect(transcript).toContain('ping-from-alice');
    expect(events.find((e) => e.type === 'pty.started')).toMatchObject({ actor: 'operator:alice', payload: { command: '/bin/sh', cols: 90, rows: 20 } });
  });

  it('sends output as bytes that own their buffer, so IPC clones exactly the output', async () => {
    const s = await ok<{ id: string }>('terminals.start', { command: '/bin/sh', args: ['-c', 'read x; printf "small-\\303\\251\\n"'], cols: 80, rows: 24 }, alice);
    await ok('terminals.attach', { id: s.id }, alice);
    await ok('terminals.takeOver', { id: s.id }, alice);
    await ok('terminals.input', { id: s.id, data: 'go\r' }, alice);
    await until(() => text(s.id).includes('small-é'), 'the small output');
    for (const o of outputs.filter((x) => x.id === s.id)) {
      // A view into a larger buffer (Node's pool for small Buffers) would take the rest of it along.
      expect(o.data.byteOffset).toBe(0);
      expect(o.data.buffer.byteLength).toBe(o.data.byteLength);
      expect(o.chars).toBe(Buffer.from(o.data).toString('utf8').length);
    }
    await ok('terminals.kill', { id: s.id }, alice);
  });

  it('validates ids and names unknown sessions', async () => {
    await expect(call('terminals.attach', { id: 'nope' }, alice)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(call('terminals.kill', { id: 'pty-0000000000' }, alice)).resolves.toMatchObject({ ok: false, error: { code: 'rejected', details: { reason: 'not_found' } } });
    await expect(call('terminals.start', { cols: 1, rows: 24 }, alice)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(call('terminals.start', { command: 'no-such-program-here', cols: 80, rows: 24 }, alice)).resolves.toMatchObject({ ok: false, error: { code: 'rejected', message: expect.stringContaining('no such program') } });
  });

  it('stops waiting for a console that disconnects', async () => {
    const s = await ok<{ id: string }>('terminals.start', { command: 'yes', cols: 80, rows: 24 }, alice);
    // Alice keeps up; Bob attaches and never acknowledges, then his WebSocket closes.
    const offAck = host.bus.subscribe((name, payload) => {
      const o = payload as Output;
      if (name === 'terminals.output' && o.id === s.id) void call('terminals.ack', { id: s.id, chars: o.chars }, alice);
    });
    await ok('terminals.attach', { id: s.id }, alice);
    await ok('terminals.attach', { id: s.id }, bob);
    await until(() => host.ptys.get(s.id).paused, 'paused for Bob');
    expect(host.ptys.get(s.id).watchers).toBe(2);
    bobLeft();
    expect(host.ptys.get(s.id).paused).toBe(false);
    expect(host.ptys.get(s.id).watchers).toBe(1);
    const seen = outputs.length;
    await until(() => outputs.length > seen + 3, 'yes streams on for Alice');
    offAck();
    await ok('terminals.kill', { id: s.id }, alice);
  });
});

describe('closing the host', () => {
  it('kills its running terminals and records their exit', async () => {
    const dir = sharedTempDir();
    const host = createHost({ home: dir.dir, shell: 'serve', log: () => {}, watch: false });
    try {
      const ctx: CallContext = { console: 'serve', operator: 'alice' };
      host.operatorConnected(ctx, {});
      const r = await host.dispatcher.dispatch('terminals.start', { command: 'sleep', args: ['1000'], cols: 80, rows: 24 }, ctx);
      if (!r.ok) throw new Error(r.error.message);
      const { id, pid } = r.result as { id: string; pid: number };
      await host.close('test done');
      expect(gone(pid)).toBe(true);
      const { AuditStore } = await import('../../../main/audit/audit-store.js');
      const audit = new AuditStore({ path: host.paths.auditDb });
      try {
        const exited = audit.tail(20).find((e) => e.type === 'pty.exited');
        expect(exited).toMatchObject({ payload: { id, signal: 'SIGKILL', killedBy: 'host' } });
      } finally {
        audit.close();
      }
    } finally {
      dir.remove();
    }
  });
});
