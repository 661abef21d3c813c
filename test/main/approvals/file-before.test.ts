// approvals.fileBefore, the host side of the inbox's Write/Edit diff: a real host on loopback,
// real Claude Code hook requests (hookAsk "inbox", so they wait), real files. The console names an
// approval, never a path; the host reads only that waiting call's own file_path, bounded in size,
// and only with the operator token.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { FILE_BEFORE_MAX_BYTES } from '../../../main/approvals/file-before.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import type { ApprovalItemView } from '../../../shared/contract.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

interface Running {
  host: Host;
  net: Listening;
  project: string;
  op(method: string, params: Record<string, unknown>, token?: string): Promise<{ status: number; body: { ok: boolean; result?: unknown; error?: { code: string; message: string } } }>;
  hook(tool: string, input: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(): Promise<Running> {
  const root = tempDir('gatehouse-file-before-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', hookAsk: 'inbox' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: project, watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
  const port = net.shell.port;
  const r: Running = {
    host,
    net,
    project,
    async op(method, params, token = net.token) {
      const res = await http({ port, path: '/api/call', method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ method, params }) });
      return { status: res.status, body: res.body ? JSON.parse(res.body) : {} };
    },
    hook(tool, input) {
      const body = JSON.stringify({ session_id: 'fb-1', transcript_path: join(project, 't.jsonl'), cwd: project, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `tu-${Math.random()}` });
      const p = http({ port, path: '/hooks/claude/pre-tool-use', method: 'POST', headers: { Authorization: `Bearer ${net.agentToken}`, 'Content-Type': 'application/json' }, body });
      p.catch(() => {});
      return p;
    },
    async close() {
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

/** Waits for the approvals.changed event that adds the next item, then answers it. */
async function waiting(r: Running, tool: string): Promise<ApprovalItemView> {
  for (;;) {
    // Listening before the list is read: a change between the two is not missed.
    let off = () => {};
    const changed = new Promise<void>((resolve) => {
      off = r.host.bus.subscribe((name) => name === 'approvals.changed' && resolve());
    });
    const { body } = await r.op('approvals.list', { state: 'pending', tool });
    const items = (body.result as { items: ApprovalItemView[] }).items;
    if (items.length > 0) {
      off();
      return items[items.length - 1]!;
    }
    await changed;
    off();
  }
}

describe('approvals.fileBefore', () => {
  it('reads the waiting Write call\'s own file, relative paths against the call\'s cwd', async () => {
    const r = await start();
    writeFileSync(join(r.project, 'notes.md'), 'before\n');
    void r.hook('Write', { file_path: 'notes.md', content: 'after\n' });
    const item = await waiting(r, 'Write');
    const res = await r.op('approvals.fileBefore', { id: item.id });
    expect(res.body).toEqual({ ok: true, result: { path: join(r.project, 'notes.md'), exists: true, size: 7, content: 'before\n', note: null } });
  });

  it('a file that does not exist yet is a new file; one over the cap, binary or not a file has no content and says why', async () => {
    const r = await start();
    void r.hook('Write', { file_path: join(r.project, 'new.txt'), content: 'x' });
    const fresh = await waiting(r, 'Write');
    expect((await r.op('approvals.fileBefore', { id: fresh.id })).body.result).toMatchObject({ exists: false, content: null, note: null });

    writeFileSync(join(r.project, 'big.log'), Buffer.alloc(FILE_BEFORE_MAX_BYTES + 1, 'a'));
    writeFileSync(join(r.project, 'blob.bin'), Buffer.from([1, 0, 2]));
    void r.hook('Edit', { file_path: join(r.project, 'big.log'), old_string: 'a', new_string: 'b' });
    const big = await waiting(r, 'Edit');
    expect((await r.op('approvals.fileBefore', { id: big.id })).body.result).toMatchObject({ exists: true, size: FILE_BEFORE_MAX_BYTES + 1, content: null, note: expect.stringContaining('larger than 512 KiB') });
    void r.hook('MultiEdit', { file_path: join(r.project, 'blob.bin'), edits: [{ old_string: 'a', new_string: 'b' }] });
    const bin = await waiting(r, 'MultiEdit');
    expect((await r.op('approvals.fileBefore', { id: bin.id })).body.result).toMatchObject({ content: null, note: 'It is binary.' });
  });

  it('refuses a call that is not a Write/Edit/MultiEdit, an unknown id, a decided item, and any caller without the operator token', async () => {
    const r = await start();
    void r.hook('Bash', { command: `cat ${join(r.project, 'x')} > ${join(r.project, 'y')}` });
    const bash = await waiting(r, 'Bash');
    const notEdit = await r.op('approvals.fileBefore', { id: bash.id });
    expect(notEdit.body).toMatchObject({ ok: false, error: { message: expect.stringContaining('only Write, Edit and MultiEdit calls') } });
    expect((await r.op('approvals.fileBefore', { id: 'appr-nope' })).body).toMatchObject({ ok: false, error: { message: 'There is no approval appr-nope.' } });
    // No path parameter exists to name another file.
    expect((await r.op('approvals.fileBefore', { id: bash.id, path: '/etc/passwd' })).body).toMatchObject({ ok: false, error: { code: 'bad_request' } });

    writeFileSync(join(r.project, 'secret.md'), 'kept\n');
    void r.hook('Write', { file_path: join(r.project, 'secret.md'), content: 'x' });
    const write = await waiting(r, 'Write');
    // The agent token (what an agent holds) and no token cannot read it.
    expect((await r.op('approvals.fileBefore', { id: write.id }, r.net.agentToken)).status).toBe(401);
    expect((await r.op('approvals.fileBefore', { id: write.id }, 'wrong')).status).toBe(401);
    // Once decided, the file is not read any more.
    expect((await r.op('approvals.deny', { id: write.id, reason: 'no' })).body.ok).toBe(true);
    expect((await r.op('approvals.fileBefore', { id: write.id })).body).toMatchObject({ ok: false, error: { message: expect.stringContaining('is denied') } });
  });
});
