// The audit event taxonomy against a realistic run of a real host: start, an operator console,
// a plugin enabled, settings and policy changes, calls asked and approved (a plugin tool and the
// shell in a real PTY), a grant made and revoked, a denial by a rule, an approval left to expire,
// then stop. Every event in the log must match its schema, and no type may lack one.
import Database from 'better-sqlite3';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS, checkEvent } from '../../../main/audit/event-schemas.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { tempDir } from '../../support/temp.js';
import { changeHello, HELLO_DIR, HELLO_WRITES } from '../../support/hello-variants.js';

/** Resolves with the next pending inbox item, waiting for approvals.changed (no polling). */
function nextPending(host: Host): Promise<{ id: string; argsHash: string }> {
  return new Promise((resolve) => {
    let off = () => {};
    const check = () => {
      const items = host.approvals.list({ state: 'pending' });
      if (items.length === 0) return;
      off();
      resolve(items[0] as never);
    };
    off = host.bus.subscribe((name) => {
      if (name === 'approvals.changed') check();
    });
    check();
  });
}

describe('audit event taxonomy', () => {
  it('every event of a realistic run matches its schema, and every type has one', async () => {
    const root = tempDir('gatehouse-taxonomy-');
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    mkdirSync(work, { recursive: true });
    cpSync(HELLO_DIR, join(home, 'plugins', 'hello'), { recursive: true });
    // Given a write path, hello is no confined reader: at supervised its call asks (approval and grant events).
    changeHello(join(home, 'plugins', 'hello'), HELLO_WRITES);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'supervised' }));
    const db = join(home, 'audit.db');

    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false });
    try {
      await host.ready;
      const left = host.operatorConnected({ operator: 'alice', console: 'serve' }, { remote: '127.0.0.1' });
      const op = (method: string, params: unknown) => host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });
      expect(await op('plugins.enable', { name: 'hello' })).toMatchObject({ ok: true });
      expect(await op('settings.update', { mode: 'live', approvalExpiryMinutes: 0.05 })).toMatchObject({ ok: true });
      const policy = `rules:\n  - name: no-deletes-in-work\n    actions: [delete]\n    block_paths: ["${work}/**"]\n    message: Nothing is deleted here.\n    decision: deny\n`;
      expect(await op('policy.save', { text: policy })).toMatchObject({ ok: true, result: { saved: true } });
      // policy.yaml edited on disk (an editor, a deploy) is reloaded with its diff; broken, the last
      // good policy stays and the event says so. (The watcher calls reload(); it is off here.)
      writeFileSync(join(home, 'policy.yaml'), policy.replace('Nothing is deleted here.', 'No deletes in the work folder.'));
      host.policy.reload();
      writeFileSync(join(home, 'policy.yaml'), 'rules: [oops\n');
      host.policy.reload();
      writeFileSync(join(home, 'policy.yaml'), policy);
      host.policy.reload();
      expect(await op('health.reset', { name: 'hello' })).toMatchObject({ ok: true });

      // A plugin tool asked, approved for the session (a grant), executed.
      const hello = host.gateway.call({ agent: 'claude', session: 's1', tool: 'hello', arguments: { name: 'Ada' }, source: 'mcp' });
      const asked = await nextPending(host);
      expect(await op('approvals.approve', { id: asked.id, argsHash: asked.argsHash, scope: 'session' })).toMatchObject({ ok: true });
      expect(await hello).toMatchObject({ decision: 'allow', executed: true });
      const grant = host.approvals.grants.list()[0]!;
      expect(await op('grants.revoke', { id: grant.id })).toMatchObject({ ok: true });

      // The shell in a real PTY, approved once (another session: s1 now holds the plugin's INTERNAL data).
      const shell = host.gateway.call({ agent: 'claude', session: 's2', tool: 'shell', arguments: { command: 'echo taxonomy', cwd: work }, source: 'mcp' });
      const askedShell = await nextPending(host);
      expect(await op('approvals.approve', { id: askedShell.id, argsHash: askedShell.argsHash, scope: 'once' })).toMatchObject({ ok: true });
      expect(await shell).toMatchObject({ decision: 'allow', executed: true });

      // A denial by a rule, then an approval nobody answers (3 s expiry: the call waits for it).
      expect(await host.gateway.call({ agent: 'claude', session: 's3', tool: 'shell', arguments: { command: `rm ${work}/x.txt` }, source: 'mcp' })).toMatchObject({ decision: 'deny' });
      expect(await host.gateway.call({ agent: 'claude', session: 's4', tool: 'shell', arguments: { command: `touch ${work}/y.txt` }, source: 'mcp' })).toMatchObject({ decision: 'expired' });
      left();
    } finally {
      await host.close('test done');
    }

    const conn = new Database(db, { readonly: true });
    const events = (conn.prepare('SELECT seq, type, actor, payload FROM events ORDER BY seq').all() as { seq: number; type: string; actor: string; payload: string }[]).map((e) => ({ ...e, payload: JSON.parse(e.payload) as unknown }));
    conn.close();

    const problems = events.map(checkEvent).filter((p) => p !== null);
    expect(problems).toEqual([]);
    const types = new Set(events.map((e) => e.type));
    expect([...types].filter((t) => !(t in EVENT_SCHEMAS))).toEqual([]);
    // The run covered what it set out to: the test fails if one of these steps recorded nothing.
    for (const t of [
      'host.started', 'host.stopped', 'operator.connected', 'operator.disconnected', 'plugin.discovered', 'plugin.scanned', 'plugin.enabled',
      'settings.changed', 'gateway.mode-changed', 'policy.saved', 'policy.reloaded', 'breaker.reset', 'call.received', 'call.extracted', 'rule.matched', 'call.decided', 'call.result',
      'approval.requested', 'approval.decided', 'approval.expired', 'grant.created', 'grant.revoked', 'execution.started', 'execution.ended',
      'pty.started', 'pty.transcript', 'pty.exited',
    ]) {
      expect(types, t).toContain(t);
    }
    const ended = events.find((e) => e.type === 'execution.ended' && (e.payload as { plugin: string }).plugin === 'hello')!;
    expect(ended.payload).toMatchObject({ ok: true, outputTruncated: false, output: expect.stringContaining('Ada') });
    // Every operator action says who (the OS user the console runs as) and from which console.
    // (A call's own events name the operator who decided it; the action itself is approval.decided.)
    const operatorEvents = events.filter((e) => e.actor.startsWith('operator:') && !e.type.startsWith('call.'));
    expect(operatorEvents.map((e) => e.type)).toEqual(expect.arrayContaining(['plugin.enabled', 'settings.changed', 'policy.saved', 'approval.decided', 'grant.created', 'grant.revoked']));
    for (const e of operatorEvents) expect({ type: e.type, actor: e.actor, console: (e.payload as { console?: string }).console }).toEqual({ type: e.type, actor: 'operator:alice', console: 'serve' });
    // Policy changes carry their diff, whoever made them.
    const saved = events.find((e) => e.type === 'policy.saved')!.payload as { diff: string };
    expect(saved.diff).toContain('+  - name: no-deletes-in-work');
    const reloads = events.filter((e) => e.type === 'policy.reloaded').map((e) => e.payload as { diff: string; loaded: boolean; error: string | null });
    expect(reloads.map((r) => r.loaded)).toEqual([true, false, true]);
    expect(reloads[0]!.diff).toMatch(/^- {4}message: Nothing is deleted here\.$/m);
    expect(reloads[0]!.diff).toMatch(/^\+ {4}message: No deletes in the work folder\.$/m);
    expect(reloads[1]!.diff).toMatch(/^\+rules: \[oops$/m);
    expect(reloads[1]!.error).toMatch(/has errors, so the last good policy stays active/);
    const settings = events.find((e) => e.type === 'settings.changed')!;
    expect(settings.payload).toMatchObject({ changes: { mode: { from: 'dry-run', to: 'live' } } });
  });

  it('names the event, field and problem when an event does not match', () => {
    expect(checkEvent({ seq: 7, type: 'call.decided', actor: 'host', payload: { call: 'c1', decision: 'maybe', decider: { kind: 'rule' }, reason: 'x' } })).toMatchObject({ seq: 7, type: 'call.decided', message: expect.stringContaining('decision') });
    expect(checkEvent({ type: 'call.teleported', actor: 'host', payload: {} })).toMatchObject({ message: expect.stringContaining('has no schema') });
    expect(checkEvent({ type: 'plugin.enabled', actor: 'host', payload: { name: 'x', hash: 'h', scanOverride: null } })).toMatchObject({ message: expect.stringContaining('actor') });
  });
});
