// What the host was started with beyond its stdio is no plugin's to reach (core/sealed-fds.ts:
// every spawn covers every descriptor open above stdio). A real `gatehouse serve` is started with
// one more descriptor than usual, as a launcher or a supervisor may leave one open, and an agent's
// shell command, approved, writes to every descriptor it holds: nothing reaches the other end.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from '../../support/cli.js';
import { connectAgent, resultText } from '../../support/mcp-agent.js';
import { startServe, watchInbox } from '../../support/served-host.mjs';
import { tempDir } from '../../support/temp.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('descriptors the host inherited', () => {
  it('do not reach an agent’s command: a file the host was started with holding gets nothing written to it', async (ctx) => {
    if (process.platform !== 'linux') ctx.skip(true, 'the host reads which descriptors it inherited from /proc (Linux)');
    const home = tempDir('gatehouse-inherited-home-');
    const work = tempDir('gatehouse-inherited-work-');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ autonomy: 'full', mode: 'live' }));
    // fd 40 of the host: a file the test opened (what a launcher left open, say). The host never
    // writes to it. A descriptor libuv hands a child keeps close-on-exec where the parent's number
    // is the same (and Node's own 'pipe' entries can be so), which would hide a leak: a file's
    // descriptor is dup2'd to 40 and is not.
    const leakFile = join(work, '..', `${basename(work)}-reached.txt`);
    const leakFd = openSync(leakFile, 'a');
    const served = await startServe(cliPath, home, { ...process.env, GATEHOUSE_HOME: home, NO_COLOR: '1' }, [...Array<'ignore'>(37).fill('ignore'), leakFd]);
    closeSync(leakFd);
    cleanup.push(async () => {
      if (served.host.exitCode === null && served.host.signalCode === null) {
        const gone = new Promise((r) => served.host.once('exit', r));
        served.host.kill('SIGTERM');
        await gone;
      }
    });
    // Approved if asked: what the command could reach once run is what is tested.
    const inbox = await watchInbox(served.serve, (id) => {
      void (async () => {
        const { items } = (await served.op('approvals.list', { state: 'pending' })) as { items: { id: string; argsHash: string }[] };
        const item = items.find((i) => i.id === id);
        if (item) await served.op('approvals.approve', { id: item.id, argsHash: item.argsHash });
      })();
    });
    cleanup.push(() => inbox.close());
    const agent = await connectAgent(served.serve);
    cleanup.push(() => agent.client.close());
    // bash: dash cannot name descriptors past 9. SIGPIPE ignored: a descriptor may be a pipe with no reader.
    const attack = `bash -c 'trap "" PIPE; n=0; for f in /proc/$$/fd/*; do d=\${f##*/}; [ "$d" -gt 2 ] || continue; printf "reached from fd $d\\n" >&$d 2>/dev/null && n=$((n+1)); done; echo "wrote to $n"'`;
    const res = (await agent.client.callTool({ name: 'shell', arguments: { command: attack, cwd: work } })) as CallToolResult;
    expect(res.isError, resultText(res)).toBeFalsy();
    expect(resultText(res)).toMatch(/wrote to \d+/);
    expect(readFileSync(leakFile, 'utf8')).toBe('');
  });
});
