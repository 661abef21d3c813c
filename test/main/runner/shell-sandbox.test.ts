// The built-in shell tool is confined to what policy judged: an agent's command, run through a
// real host (full autonomy, live), works in its folder but finds no network it did not name, no
// secret of the host's environment, no Gatehouse data under its folder, and, approved although
// Gatehouse could not see what it does, cannot write where policy could not see. Where the
// policy requires a sandbox and there is none, nothing runs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { runShellTool } from '../../../main/gateway/shell-tool.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import { shellPlan } from '../../../main/runner/sandbox-plan.js';
import { needsBwrap, sandbox } from '../../support/bwrap.js';
import { tempDir } from '../../support/temp.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import type { ToolCall } from '../../../main/policy/types.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

/** A live host with full autonomy whose home sits inside the agent's working folder. */
async function liveHost(): Promise<{ host: Host; work: string; home: string }> {
  const work = tempDir('gatehouse-shell-');
  const home = join(work, '.gatehouse-home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full', mode: 'live' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: work, watch: false });
  hosts.push(host);
  await host.ready;
  return { host, work, home };
}

async function shell(host: Host, command: string, cwd: string) {
  return host.gateway.call({ agent: 'claude', session: 's1', tool: 'shell', arguments: { command, cwd }, source: 'api' });
}

/** The shell tool on a real PTY and sandbox, with the extraction policy would judge (policy itself not asked). */
async function direct(command: string, cwd: string, gatehouseHome?: string) {
  await initExtractor();
  const ptys = new PtyManager({ log: () => {}, record: () => {}, events: { output: () => {}, changed: () => {} } });
  try {
    const call: ToolCall = { id: 'c-direct', agent: 'claude', session: 's1', tool: 'shell', arguments: { command }, cwd, source: 'api', receivedAt: 0 };
    return await runShellTool({ ptys, plan: (scope, timeoutMs) => shellPlan(sandbox, scope, { timeoutMs, ...(gatehouseHome ? { gatehouseHome } : {}) }) }, call, extract(call));
  } finally {
    await ptys.close();
  }
}

const outputOf = (r: { content?: unknown[] }) => ((r.content?.[0] as { text?: string } | undefined)?.text ?? '');

describe('the shell tool in a sandbox', () => {
  it('works in its folder, and says it ran sandboxed', async (ctx) => {
    needsBwrap(ctx);
    const { host, work } = await liveHost();
    const r = await shell(host, 'mkdir -p notes && echo kept > notes/a.txt && cat notes/a.txt', work);
    expect(r.decision, r.reason).toBe('allow');
    expect(outputOf(r)).toContain('kept');
    expect(readFileSync(join(work, 'notes', 'a.txt'), 'utf8')).toBe('kept\n');
    expect(r.steps.at(-1)).toMatchObject({ step: 'runner', decision: 'ok' });
    host.audit.flush();
    const ended = host.audit.db.prepare("SELECT payload FROM events WHERE type = 'pty.started' ORDER BY seq DESC LIMIT 1").get() as { payload: string };
    expect(JSON.parse(ended.payload)).toMatchObject({ tool: 'shell' });
  });

  // These two run the tool itself on the extraction policy would judge: the built-in rules deny
  // both commands today (/proc/net is /proc/self/net; `find .` reaches Gatehouse's folder), and
  // what is under test is what the sandbox shows a command that was allowed.
  it('sees no network when the command names no host, and no secret of the host environment', async (ctx) => {
    needsBwrap(ctx);
    const work = tempDir('gatehouse-shell-');
    process.env.GH_SHELL_SECRET = 'sk-never-in-a-shell';
    try {
      const r = await direct('echo "secret=[$GH_SHELL_SECRET]"; cat /proc/net/dev', work);
      expect(r.ok, r.stdout).toBe(true);
      const out = r.stdout;
      expect(out).toContain('secret=[]');
      // A network namespace of its own: the loopback device and nothing else.
      const devices = out.split('\n').map((l) => /^\s*([\w.-]+):/.exec(l)?.[1]).filter(Boolean);
      expect(devices).toEqual(['lo']);
    } finally {
      delete process.env.GH_SHELL_SECRET;
    }
  });

  it("finds no Gatehouse data under its folder: the host's own home is hidden", async (ctx) => {
    needsBwrap(ctx);
    const { host, work, home } = await liveHost();
    expect(existsSync(join(home, 'audit.db'))).toBe(true);
    expect(host.paths.root).toBe(home);
    const r = await direct('find . -name "audit.db*" | wc -l', work, home);
    expect(r.ok, r.stdout).toBe(true);
    expect(r.stdout.split('\n')[0]!.trim()).toBe('0');
  });

  it('writes where the command plainly says it does: the folder policy judged is bound', async (ctx) => {
    needsBwrap(ctx);
    const { host, work } = await liveHost();
    const outside = tempDir('gatehouse-shell-named-');
    const r = await shell(host, `echo named > ${outside}/named.txt`, work);
    expect(r.decision, r.reason).toBe('allow');
    expect(r.steps.at(-1)).toMatchObject({ step: 'runner', decision: 'ok' });
    expect(readFileSync(join(outside, 'named.txt'), 'utf8')).toBe('named\n');
  });

  it('an evasive command an operator approved still cannot write where policy could not see', async (ctx) => {
    needsBwrap(ctx);
    const { host, work } = await liveHost();
    const outside = tempDir('gatehouse-shell-outside-');
    const target = join(outside, 'planted.txt');
    // Gatehouse even works out the path here, but an evasive command's extraction is not trusted.
    const pending = shell(host, `T=${outside}; eval "echo planted > $T/planted.txt"`, work);
    // It waits in the inbox: take it when the host says the inbox changed.
    const item = await new Promise<{ id: string; argsHash: string }>((resolve) => {
      const take = () => {
        const p = host.approvals.list({ state: 'pending' })[0];
        if (!p) return false;
        resolve(p);
        return true;
      };
      if (take()) return;
      const off = host.bus.subscribe((name) => name === 'approvals.changed' && take() && off());
    });
    host.approvals.approve(item.id, { operator: 'alice', argsHash: item.argsHash, scope: 'once' });
    const r = await pending;
    expect(r.decision).toBe('allow');
    expect(r.steps.at(-1)).toMatchObject({ step: 'runner', decision: 'failed' });
    expect(existsSync(target)).toBe(false);
  });

  it("cannot type into an operator's terminal: it holds no terminal's master (node-pty's are not close-on-exec)", async (ctx) => {
    needsBwrap(ctx);
    const { host, work } = await liveHost();
    // The operator's shell, open in the console, and a folder only that shell could write to.
    const outside = tempDir('gatehouse-shell-operator-');
    const operatorShell = await host.ptys.start({ command: '/bin/sh', args: [], cwd: outside, origin: { actor: 'operator:alice', tool: 'shell' } });
    // The agent's command writes a command line to every descriptor it holds beyond its stdio
    // (bash: dash cannot name descriptors past 9; SIGPIPE ignored, as a pipe the runner inherited
    // may have no reader); a terminal's master among them would type it
    // into the operator's shell, outside every sandbox.
    const attack = `bash -c 'trap "" PIPE; n=0; for f in /proc/$$/fd/*; do d=\${f##*/}; [ "$d" -gt 2 ] || continue; printf "touch ${outside}/typed\\r" >&$d 2>/dev/null && n=$((n+1)); done; echo "wrote to $n"'`;
    // Approved if asked: what it could do once run is what is tested.
    const off = host.bus.subscribe((name) => {
      if (name !== 'approvals.changed') return;
      for (const p of host.approvals.list({ state: 'pending' })) host.approvals.approve(p.id, { operator: 'alice', argsHash: p.argsHash, scope: 'once' });
    });
    const r = await shell(host, attack, work);
    off();
    expect(r.decision, r.reason).toBe('allow');
    expect(outputOf(r)).toMatch(/wrote to \d+/);
    // What the operator's shell ran, if anything came: an echo that goes through after it.
    host.ptys.attach(operatorShell.id, 'alice');
    host.ptys.takeOver(operatorShell.id, 'alice', 'alice');
    host.ptys.input(operatorShell.id, 'alice', `echo done > ${outside}/done\r`);
    await expect.poll(() => existsSync(join(outside, 'done')), { timeout: 10_000 }).toBe(true);
    expect(existsSync(join(outside, 'typed'))).toBe(false);
  });
});

describe('without a sandbox', () => {
  it('the shell tool does not run when the policy requires one; the agent is told why', async () => {
    const ptys = new PtyManager({ log: () => {}, record: () => {}, events: { output: () => {}, changed: () => {} } });
    try {
      const work = tempDir('gatehouse-shell-nosandbox-');
      const r = await runShellTool(
        { ptys, plan: (scope, timeoutMs) => shellPlan({ kind: 'none', reason: 'bubblewrap is not installed' }, scope, { timeoutMs, requireSandbox: true }) },
        { id: 'c1', agent: 'claude', session: 's1', tool: 'shell', arguments: { command: 'touch ran.txt' }, cwd: work, source: 'api', receivedAt: 0 },
        { paths: [join(work, 'ran.txt')], hosts: [], evasive: false },
      );
      expect(r).toMatchObject({ ok: false, failure: 'spawn', sandboxed: false });
      expect(r.error).toBe('The shell command was not run: the policy requires a sandbox, but there is no sandbox on this machine: bubblewrap is not installed. Install bubblewrap or turn off "require sandbox".');
      expect(ptys.list()).toEqual([]);
      expect(existsSync(join(work, 'ran.txt'))).toBe(false);
    } finally {
      await ptys.close();
    }
  });

  it('without the requirement it runs unsandboxed, with limits and a scrubbed environment', async () => {
    const ptys = new PtyManager({ log: () => {}, record: () => {}, events: { output: () => {}, changed: () => {} } });
    process.env.GH_SHELL_SECRET = 'sk-never-in-a-shell';
    try {
      const work = tempDir('gatehouse-shell-nosandbox-');
      const r = await runShellTool(
        { ptys, plan: (scope, timeoutMs) => shellPlan({ kind: 'none', reason: 'bubblewrap is not installed' }, scope, { timeoutMs }) },
        { id: 'c2', agent: 'claude', session: 's1', tool: 'shell', arguments: { command: 'echo "[$GH_SHELL_SECRET] cpu=$(ulimit -t)"' }, cwd: work, source: 'api', receivedAt: 0 },
        { paths: [], hosts: [], evasive: false },
      );
      expect(r).toMatchObject({ ok: true, sandboxed: false });
      expect(r.stdout).toMatch(/\[\] cpu=601\b/);
    } finally {
      delete process.env.GH_SHELL_SECRET;
      await ptys.close();
    }
  });
});
