// `pty = true` tools called by an agent through the gateway, on a real host: the command runs in
// a real PTY (node-pty) listed in the Terminals view with the agent as actor, reads its JSON
// arguments from the terminal, and its last line is the agent's output; a timeout kills it and
// everything it started.
import { chmodSync, mkdirSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { nodePtySpawn } from '../../../main/pty/node-pty-spawn.js';
import { PtyManager } from '../../../main/pty/pty-manager.js';
import type { PtySpawn } from '../../../main/pty/types.js';
import { ptyToolOutput, terminalInput } from '../../../main/runner/pty-tool.js';
import { detectSandbox } from '../../../main/runner/sandbox.js';
import { liveWithArgv } from '../../support/processes.js';
import { tempDir } from '../../support/temp.js';

const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close('test done');
});

function ptyPlugin(home: string, name: string, script: string, timeoutSecs = 10): void {
  const dir = join(home, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'gatehouse.toml'),
    `name = "${name}"\ndescription = "A terminal tool for tests."\ncommand = "run.sh"\npty = true\ntimeout_secs = ${timeoutSecs}\n[parameters.name]\ntype = "string"\nrequired = true\n`,
  );
  writeFileSync(join(dir, 'run.sh'), script);
  chmodSync(join(dir, 'run.sh'), 0o755);
}

async function startHost(plugins: Record<string, { script: string; timeoutSecs?: number }>): Promise<Host> {
  const home = join(tempDir('gatehouse-ptytool-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  for (const [name, p] of Object.entries(plugins)) ptyPlugin(home, name, p.script, p.timeoutSecs);
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  hosts.push(host);
  await host.ready;
  for (const name of Object.keys(plugins)) await host.registry.enable(name, 'tester');
  return host;
}

const call = (host: Host, tool: string, args: Record<string, unknown>) => host.gateway.call({ agent: 'pty-agent', session: 's1', tool, arguments: args, source: 'api' });

// Reads all of stdin (to the Ctrl-D), says something first, then prints one JSON line.
const ECHO_TOOL = `#!/bin/sh
input=$(cat)
echo "thinking about it..."
if [ -t 0 ] && [ -t 1 ]; then tty=true; else tty=false; fi
printf '{"got":%s,"env":%s,"tool":"%s","tty":%s,"cwd":"%s","home":"%s"}\\n' "$input" "$GATEHOUSE_INPUT" "$GATEHOUSE_TOOL" "$tty" "$(pwd)" "\${HOME:-unset}"
`;

describe('pty = true tools called by an agent', () => {
  it('run in a terminal listed with the agent as actor, read their input, and return their last JSON line', async () => {
    const host = await startHost({ ptyecho: { script: ECHO_TOOL } });
    const r = await call(host, 'ptyecho', { name: 'Ada' });
    expect(r).toMatchObject({ decision: 'allow', executed: true });
    expect(r.result).toMatchObject({ ok: true, sandboxed: detectSandbox().kind === 'bwrap' });
    const out = r.result!.output as Record<string, unknown>;
    expect(out).toEqual({ got: { name: 'Ada' }, env: { name: 'Ada' }, tool: 'ptyecho', tty: true, cwd: join(host.paths.root, 'run-cache', host.registry.get('ptyecho')!.digest!.hash), home: 'unset' });
    expect(r.structuredContent).toEqual(out);
    const session = host.ptys.list().find((s) => s.callId === r.call.id);
    expect(session).toMatchObject({ actor: 'agent:pty-agent', tool: 'ptyecho', state: 'exited', exitCode: 0, title: 'pty-agent: ptyecho' });
    // What the operators saw: the typed input echoed, then the tool's own words.
    const seen = host.ptys.attach(session!.id, 'test').buffer;
    expect(seen).toContain('thinking about it...');
    const audit = host.audit.tail(200);
    expect(audit.find((e) => e.type === 'pty.started' && (e.payload as { callId?: string }).callId === r.call.id)).toMatchObject({ actor: 'agent:pty-agent', payload: { plugin: 'ptyecho' } });
    expect(audit.find((e) => e.type === 'execution.ended')!.payload).toMatchObject({ plugin: 'ptyecho', ok: true, terminal: session!.id });
  });

  it('passes a large input with DEL and non-ASCII text intact, past the terminal line limit', async () => {
    const host = await startHost({ ptyecho: { script: ECHO_TOOL } });
    const name = `${'ä€😀x\u007f'.repeat(3000)}end`;
    const r = await call(host, 'ptyecho', { name });
    expect(r.result).toMatchObject({ ok: true });
    expect((r.result!.output as { got: unknown }).got).toEqual({ name });
  });

  it('text that is not a JSON line comes back as { output }, and a non-zero exit is a tool error with the tail', async () => {
    const host = await startHost({
      chatty: { script: '#!/bin/sh\ncat >/dev/null\necho "just words"\n' },
      broken: { script: '#!/bin/sh\ncat >/dev/null\necho "disk on fire"\nexit 3\n' },
    });
    const ok = await call(host, 'chatty', { name: 'x' });
    expect(ok.result).toMatchObject({ ok: true, output: { output: 'just words\n' } });
    const bad = await call(host, 'broken', { name: 'x' });
    expect(bad.result).toMatchObject({ ok: false, failure: 'crash', exitCode: 3 });
    expect(bad.result!.error).toMatch(/broken exited with code 3: disk on fire/);
  });

  it('is killed at its timeout, with everything it started', async () => {
    const host = await startHost({ stuck: { script: '#!/bin/sh\nsleep 987 &\nexec sleep 986\n', timeoutSecs: 1 } });
    const r = await call(host, 'stuck', { name: 'x' });
    expect(r.result).toMatchObject({ ok: false, failure: 'timeout' });
    expect(r.result!.error).toMatch(/did not finish within 1 s/);
    const session = host.ptys.list().find((s) => s.callId === r.call.id);
    expect(session).toMatchObject({ state: 'exited', killedBy: 'host:timeout' });
    expect(liveWithArgv(['sleep', '987'])).toEqual([]);
    expect(liveWithArgv(['sleep', '986'])).toEqual([]);
    expect(host.health.row('stuck').metrics.failures.timeout).toBe(1);
  });
});

describe('pty = true tools and their verified copy', () => {
  it('a tool run from its verified copy sees nothing of its original folder, even through a link in a folder it may read (the host\'s own sandbox wiring)', async (ctx) => {
    const sandbox = detectSandbox();
    if (sandbox.kind !== 'bwrap') {
      console.warn(`skipped "${ctx.task.name}": bubblewrap is not usable here: ${sandbox.reason}`);
      ctx.skip();
    }
    const root = tempDir('gatehouse-ptytool-');
    const home = join(root, 'home');
    const proj = join(root, 'proj');
    const dir = join(proj, '.gatehouse', 'plugins', 'ptyalias');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    // It reads the project it lives in; a link there leads back to its own folder.
    writeFileSync(join(dir, 'gatehouse.toml'), `name = "ptyalias"\ndescription = "A terminal tool for tests."\ncommand = "run.sh"\npty = true\ntimeout_secs = 10\n[permissions]\nread = ["${proj}"]\n[parameters.name]\ntype = "string"\nrequired = true\n`);
    writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\ncat >/dev/null\nr=$(sh ${join(proj, 'alias', 'impl.sh')} 2>/dev/null)\nprintf '{"alias":"%s","own":"%s"}\\n' "$r" "$(sh ./impl.sh)"\n`);
    chmodSync(join(dir, 'run.sh'), 0o755);
    writeFileSync(join(dir, 'impl.sh'), 'echo reviewed\n');
    symlinkSync(dir, join(proj, 'alias'));
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: proj, watch: false });
    hosts.push(host);
    await host.ready;
    await host.registry.enable('ptyalias', 'tester');
    const r = await call(host, 'ptyalias', { name: 'x' });
    expect(r.result).toMatchObject({ ok: true, sandboxed: true });
    // Its own file, from the copy, runs; the original folder, reached by the link, is empty.
    expect(r.result!.output).toEqual({ alias: '', own: 'reviewed' });
  });
});

describe('pty tool helpers', () => {
  it('types the input in pieces the line discipline keeps, then end of file', () => {
    const { pieces, echo } = terminalInput(JSON.stringify({ s: 'a\u007fb'.repeat(600) }));
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.at(-1)).toEqual({ text: '\x04', echo: '' });
    expect(pieces.at(-2)!.text.endsWith('\n')).toBe(true);
    for (const piece of pieces.slice(0, -2)) expect(piece.text).toBe(`${piece.echo}\x04`);
    for (const piece of pieces) expect(Buffer.byteLength(piece.text)).toBeLessThan(4095);
    expect(pieces.map((p) => p.echo).join('')).toBe(echo);
    expect(echo).not.toContain('\u007f');
    expect(JSON.parse(echo)).toEqual({ s: 'a\u007fb'.repeat(600) });
  });

  it('takes the last non-empty line when it is a JSON object, else the text', () => {
    expect(ptyToolOutput('working\n{"a":1}\n\n')).toEqual({ a: 1 });
    expect(ptyToolOutput('[1,2]\n')).toEqual({ output: '[1,2]\n' });
    expect(ptyToolOutput('{"a":1}\ndone\n')).toEqual({ output: '{"a":1}\ndone\n' });
  });
});

// The input typed into a real terminal, read back as runPtyTool reads it (pty-tool.ts): the
// echo of the input first, whole, then the tool's output with its JSON line intact.
describe('typing a tool\'s input into its terminal', () => {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', TERM: 'xterm-256color' };

  async function typeInto(script: string, json: string, opts: { spawn?: (progress: string) => PtySpawn; typingEchoWaitMs?: number } = {}): Promise<{ echo: string; text: string }> {
    const dir = tempDir('gatehouse-ptytyping-');
    // What the tool has read so far (it tees its stdin here).
    const progress = join(dir, 'read');
    writeFileSync(progress, '');
    writeFileSync(join(dir, 'run.sh'), script.replaceAll('$PROGRESS', progress));
    chmodSync(join(dir, 'run.sh'), 0o755);
    const mgr = new PtyManager({
      record: () => {},
      events: { output: () => {}, changed: () => {} },
      ...(opts.spawn ? { spawn: opts.spawn(progress) } : {}),
      ...(opts.typingEchoWaitMs !== undefined ? { limits: { typingEchoWaitMs: opts.typingEchoWaitMs } } : {}),
      baseEnv: env,
      log: () => {},
    });
    onTestFinished(() => mgr.close());
    const { id } = await mgr.start({ command: join(dir, 'run.sh'), cwd: dir, env, origin: { actor: 'agent:tester', tool: 'ptyecho' } });
    const input = terminalInput(json);
    mgr.typeInput(id, input.pieces);
    expect(await mgr.exited(id)).toEqual({ exitCode: 0, signal: null });
    return { echo: input.echo, text: mgr.attach(id, 'test').buffer.replace(/\r\n/g, '\n') };
  }

  /**
   * A host that reads the terminal late, as a loaded one does: after each write of input,
   * nothing is read until the tool has read all that was written (it tees it to `progress`).
   */
  const lateReader =
    (progress: string): PtySpawn =>
    async (command, args, opts) => {
      const p = await nodePtySpawn(command, args, opts);
      let written = 0;
      const readIfCaughtUp = () => {
        if (statSync(progress).size >= written) p.resume();
      };
      const watcher = watch(progress, readIfCaughtUp);
      onTestFinished(() => watcher.close());
      const write = p.write.bind(p);
      p.write = (data) => {
        p.pause();
        // The tool reads all but the Ctrl-Ds.
        written += Buffer.byteLength(data.replaceAll('\x04', ''));
        write(data);
        readIfCaughtUp();
      };
      p.pause();
      return p;
    };

  const TEE_TOOL = `#!/bin/sh
input=$(tee "$PROGRESS")
echo "thinking about it..."
printf '{"got":%s}\\n' "$input"
`;

  it('echoes the input whole and before the tool\'s output when the host reads the terminal late', async () => {
    // Typed at once, the kernel kept ~17 KB of this 160 KB echo and 4 KB more pending, the rest
    // overwritten, and wrote the pending echo into the tool's output: failed every run.
    const name = `${'ä€😀x\u007f'.repeat(10000)}end`;
    const { echo, text } = await typeInto(TEE_TOOL, JSON.stringify({ name }), { spawn: lateReader });
    expect(text.startsWith(echo), 'the echo is the input, whole, and first').toBe(true);
    // The tool prints what it read as it read it: the JSON text with DEL as \u007f.
    const out = text.slice(echo.length);
    expect(out === `thinking about it...\n{"got":${echo.trimEnd()}}\n`, 'then the tool\'s output, intact').toBe(true);
    expect(ptyToolOutput(out)).toEqual({ got: { name } });
  });

  it('still gives the whole input to a tool that turns echo off after its first piece', async () => {
    // Its first byte is read with echo on, then `stty -echo`: the rest is never echoed, so the
    // typing stops waiting for echo after typingEchoWaitMs and writes it all.
    const name = `${'ä€😀x'.repeat(2000)}end`;
    const script = `#!/bin/sh
first=$(dd bs=1 count=1 2>/dev/null)
stty -echo
rest=$(cat)
printf '{"got":%s%s}\\n' "$first" "$rest"
`;
    const { text } = await typeInto(script, JSON.stringify({ name }), { typingEchoWaitMs: 100 });
    // What was echoed before `stty -echo` has no newline of its own: the JSON follows it on its line.
    expect(text.endsWith(`${JSON.stringify({ got: { name } })}\n`), 'the tool read the whole input').toBe(true);
  });
});
