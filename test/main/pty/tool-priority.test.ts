// Tools run below the host's priority (main/pty/tool-priority.ts): every way a tool process is
// started is asked, with real processes, what nice value the tool runs at (coreutils' `nice`
// prints it), and the host's own thread is checked to have kept its own.
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { entryFile } from '../../../main/core/entry-file.js';
import { ForkThread } from '../../../main/pty/fork-thread.js';
import { createNodePtySpawn, type NodePtyProcess } from '../../../main/pty/node-pty-spawn.js';
import { killSession } from '../../../main/pty/process-tree.js';
import { sharedChildStarter, Spawner } from '../../../main/pty/spawner.js';
import { toolNice, TOOL_NICE_STEP } from '../../../main/pty/tool-priority.js';
import { runOneShot, scrubEnv, type OneShotSpec } from '../../../main/runner/one-shot.js';
import { terminalOutput } from '../../support/terminal-output.js';

const forkThreadSource = fileURLToPath(new URL('../../../main/pty/fork-thread.ts', import.meta.url));
const workerFile = () => entryFile({ name: 'pty-fork-worker', ext: '.cjs', callerUrl: pathToFileURL(forkThreadSource).href, what: 'the fork thread', packagesExternal: true });

const NICE = ['/usr/bin/nice', '/bin/nice'].find((p) => existsSync(p));
if (!NICE) console.log('tool-priority.test.ts: no coreutils nice here to print a process’s nice value, so these cases are skipped');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LANG: 'C.UTF-8', TERM: 'xterm-256color' };
const terminal = { cwd: '/', env, cols: 80, rows: 24 };
const PRINT_NICE = ['-c', `echo "nice=$(${NICE})"`];

/** A one-shot tool that answers with the nice value it runs at. */
function niceTool(more: Partial<OneShotSpec>): OneShotSpec {
  return { plugin: 'nice-probe', command: '/bin/sh', args: ['-c', `echo "{\\"nice\\": $(${NICE})}"`], cwd: '/', input: {}, timeoutMs: 10_000, env: scrubEnv(process.env, []), ...more };
}

async function niceOf(spec: OneShotSpec): Promise<number> {
  const r = await runOneShot(spec);
  if (!r.ok) throw new Error(`the probe tool failed: ${r.message}`);
  return (r.output as { nice: number }).nice;
}

/** A terminal's program: its output once it exited. */
function terminalText(p: NodePtyProcess): Promise<string> {
  const out = terminalOutput(p);
  return new Promise((resolve) => p.onExit(() => resolve(out.text())));
}

describe.runIf(process.platform === 'linux' && NICE !== undefined)('tool processes run below the host', () => {
  it(`a one-shot process started by the spawner process, and a terminal's program, run ${TOOL_NICE_STEP} nice levels below the host; the host's thread keeps its own`, async () => {
    const host = getPriority(0);
    const expected = toolNice(host);
    // The premise: there is a level below the host (one already at the lowest has none).
    expect(expected).toBeGreaterThan(host);

    expect(sharedChildStarter()).toBeInstanceOf(Spawner);
    expect(await niceOf(niceTool({}))).toBe(expected);
    // A terminal the host opened itself, its program started by the spawner (the default).
    expect(await terminalText(await createNodePtySpawn()('/bin/sh', PRINT_NICE, terminal))).toContain(`nice=${expected}`);

    expect(getPriority(0)).toBe(host);
    expect(getPriority(process.pid)).toBe(host);
  });

  it('without a spawner: a one-shot process and a terminal forked by the fork thread run below the host too, and only that thread was lowered', async () => {
    const host = getPriority(0);
    const thread = new ForkThread(killSession, workerFile());
    expect(await niceOf(niceTool({ forkThread: thread }))).toBe(toolNice(host));
    // node-pty's own fork of a terminal, on that thread.
    const p = await createNodePtySpawn({ forkThread: thread, starter: false })('/bin/sh', PRINT_NICE, terminal);
    expect(p.forkedOnThread).not.toBe(0);
    expect(await terminalText(p)).toContain(`nice=${toolNice(host)}`);
    // What the host forks on its own thread (forkThread: false, which only tests use) keeps its priority.
    expect(await niceOf(niceTool({ forkThread: false }))).toBe(host);
    expect(getPriority(0)).toBe(host);
  });

  it('the step stops at the lowest priority', () => {
    expect(toolNice(0)).toBe(TOOL_NICE_STEP);
    expect(toolNice(17)).toBe(19);
    expect(toolNice(19)).toBe(19);
  });
});
