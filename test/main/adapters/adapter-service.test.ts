// Adapter sessions with real parts: a real PTY running a real program, the screen model fed by
// the PTY's own output, and the adapter's Lua in its worker. Waits are on the service's own
// results (adapter.wait resolves when the screen settles), never on a timer.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AdapterError, AdapterService } from '../../../main/adapters/adapter-service.js';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import type { PtyAuditEvent } from '../../../main/pty/types.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const actor = 'operator:tester';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function setup(folders: string[], allowPluginLoad = false) {
  const audit: PtyAuditEvent[] = [];
  const ptys = new PtyManager({ record: (e) => audit.push(e), events: { output: () => {}, changed: () => {} }, baseEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8' } });
  const svc = new AdapterService({ ptys, record: (e) => audit.push(e), folders: () => folders, allowPluginLoad });
  svc.discover();
  cleanups.push(async () => {
    await svc.dispose();
    await ptys.close();
    // Every event recorded has the shape docs/audit-events.md gives it.
    expect(audit.map((e) => checkEvent(e)).filter(Boolean)).toEqual([]);
  });
  return { ptys, svc, audit };
}

function adapterFolder(name: string, permissions: string[], lua: string, limits = ''): string {
  const root = tempDir();
  const dir = join(root, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'manifest.toml'), `name = "${name}"\nkind = "adapter"\nversion = "0.1.0"\nruntime = "lua"\nentrypoint = "main.lua"\npermissions = ${JSON.stringify(permissions)}\n[default_target]\nprogram = "/bin/sh"\nargs = ["-c", "cat"]\n${limits}`);
  writeFileSync(join(dir, 'main.lua'), lua);
  return root;
}

const echoLua = 'local M = {} function M.classify() return { state = "ready", confidence = 1.0, evidence = "x" } end function M.send_prompt(i) return { actions = { ptywright.action.text(i.prompt), ptywright.action.key("enter") } } end function M.wait_turn_matcher() return ptywright.matcher.screen_stable(100) end return M';

describe('adapter sessions', () => {
  it("ptywright's echo adapter, unchanged, drives a session: start, send a prompt, wait for the screen to settle, read the snapshot", async () => {
    const { svc, audit } = setup([join(repoRoot, 'examples/plugins')]);
    expect(svc.list().map((p) => p.name)).toContain('echo');
    const s = await svc.start({ plugin: 'echo' }, actor);
    const sent = await svc.send(s.session, 'hello from the adapter', actor);
    expect(sent).toEqual({ actions: [{ type: 'text', text: 'hello from the adapter' }, { type: 'key', key: 'enter' }], last_intent: 'prompt_submitted' });
    // The screen settles only once cat has echoed the line back: wait until it shows twice.
    await expect.poll(async () => {
      await svc.wait(s.session, 5000, actor);
      return (await svc.snapshot(s.session, actor)).lines.filter((l) => l === 'hello from the adapter').length;
    }).toBe(2);
    expect(await svc.state(s.session, actor)).toEqual({ state: 'ready', confidence: 1, evidence: 'echo plugin' });
    expect(svc.transcript(s.session, actor).text).toContain('hello from the adapter');
    expect(audit.map((e) => e.type)).toEqual(expect.arrayContaining(['adapter.started', 'adapter.sent']));
    await svc.close(s.session, actor);
    expect(svc.live()).toEqual([]);
  });

  it('a manifest without input.write gets -32004 with the method and the permission on adapter.send, audited', async () => {
    const root = adapterFolder('noinput', ['session.spawn', 'screen.read'], echoLua);
    const { svc, audit } = setup([root]);
    const s = await svc.start({ plugin: 'noinput' }, actor);
    const err = await svc.send(s.session, 'x', actor).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as AdapterError).code).toBe(-32004);
    expect((err as AdapterError).data).toEqual({ method: 'adapter.send', required_permission: 'input.write' });
    expect(audit.find((e) => e.type === 'adapter.denied')?.payload).toMatchObject({ method: 'adapter.send', required_permission: 'input.write', plugin: 'noinput', session: s.session });
    // adapter.close needs session.kill, which it lacks too.
    expect(((await svc.close(s.session, actor).catch((e: unknown) => e)) as AdapterError).data).toEqual({ method: 'adapter.close', required_permission: 'session.kill' });
  });

  it('an action the adapter returns is checked again when it is carried out', async () => {
    // send_prompt itself is allowed (input.write), but the plan asks for a resize it was not granted.
    const lua = 'local M = {} function M.send_prompt() return { actions = { { type = "resize", cols = 10, rows = 5 } } } end return M';
    const { svc } = setup([adapterFolder('sneaky', ['session.spawn', 'input.write'], lua)]);
    const s = await svc.start({ plugin: 'sneaky' }, actor);
    expect(((await svc.send(s.session, 'x', actor).catch((e: unknown) => e)) as AdapterError).data).toEqual({ method: 'adapter.send (action resize)', required_permission: 'session.resize' });
  });

  it('plugin.load without --allow-plugin-load is refused with the server reason', async () => {
    const { svc, audit } = setup([]);
    const err = (await Promise.resolve().then(() => svc.load(join(repoRoot, 'examples/plugins/echo/manifest.toml'), actor)).catch((e: unknown) => e)) as AdapterError;
    expect(err.code).toBe(-32004);
    expect(err.data).toEqual({ method: 'plugin.load', reason: 'server_did_not_grant_plugin_load' });
    expect(audit.find((e) => e.type === 'adapter.denied')?.payload).toMatchObject({ reason: 'server_did_not_grant_plugin_load' });
    const allowed = setup([], true);
    expect(allowed.svc.load(join(repoRoot, 'examples/plugins/echo/manifest.toml'), actor).name).toBe('echo');
  });

  it('an endless loop and unbounded allocation end the adapter session with a named error; the terminal survives both', async () => {
    const lua = 'local M = {} function M.classify() while true do end end function M.send_prompt() local t = {} while true do t[#t + 1] = string.rep("y", 1000) .. #t end end return M';
    const { svc, ptys, audit } = setup([adapterFolder('runaway', ['session.spawn', 'screen.read', 'input.write', 'transcript.read'], lua, '[limits]\nops = 100000\nmemory_mb = 2\n')]);
    for (const [call, code] of [[(id: string) => svc.state(id, actor), 'ops_exceeded'], [(id: string) => svc.send(id, 'x', actor), 'memory_exceeded']] as const) {
      const s = await svc.start({ plugin: 'runaway' }, actor);
      const err = (await call(s.session).catch((e: unknown) => e)) as AdapterError;
      expect(err.reason).toBe(code);
      expect(svc.get(s.session)).toMatchObject({ state: 'ended', ended: { code } });
      expect(audit.filter((e) => e.type === 'adapter.limit-exceeded').at(-1)?.payload).toMatchObject({ session: s.session, code });
      // The program still runs and still answers its operator.
      expect(ptys.get(s.terminal).state).toBe('running');
      ptys.feed(s.terminal, `still here ${code}\r`);
      await expect.poll(() => svc.transcript(s.session, actor).text).toContain(`still here ${code}\r\n`);
    }
  });

  it('an adapter changed on disk after it was read is quarantined', async () => {
    const root = adapterFolder('changing', ['session.spawn'], echoLua);
    const { svc, audit } = setup([root]);
    writeFileSync(join(root, 'changing', 'main.lua'), `${echoLua}\n-- changed`);
    const err = (await svc.start({ plugin: 'changing' }, actor).catch((e: unknown) => e)) as AdapterError;
    expect(err.reason).toBe('quarantined');
    expect(audit.find((e) => e.type === 'adapter.quarantined')?.payload).toMatchObject({ plugin: 'changing' });
    // Listing reads the folders again: still quarantined, recorded once.
    expect(svc.list().find((p) => p.name === 'changing')?.quarantined).toMatch(/changed on disk/);
    expect(audit.filter((e) => e.type === 'adapter.quarantined')).toHaveLength(1);
  });

  it('when the program exits, the adapter session ends with it and its screen stays readable', async () => {
    const { svc, audit } = setup([join(repoRoot, 'examples/plugins')]);
    const s = await svc.start({ plugin: 'echo', command: '/bin/sh', args: ['-c', 'echo goodbye'] }, actor);
    await expect.poll(() => svc.get(s.session).ended?.code).toBe('exited');
    expect((await svc.snapshot(s.session, actor)).lines).toContain('goodbye');
    expect(audit.find((e) => e.type === 'adapter.closed')?.payload).toMatchObject({ session: s.session, code: 'exited' });
    expect(svc.live()).toEqual([]);
  });
});
