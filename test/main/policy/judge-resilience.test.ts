// Resilience of the judge (issue #13, finding 8 and the first half of 19): what an agent sends
// decides how much work Gatehouse does, so no call may stall the host, break the judging of the
// calls after it, or slip through because the judge failed. A real serve host on loopback with
// Claude Code's HTTP hook, the real tree-sitter grammar and a real worker thread; no timed tests
// (speed is the bench's business): each test checks the answer and that the next call still works.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../../main/shells/serve/run-serve.js';
import { ExtractionFailed, GuardedExtractor } from '../../../main/policy/extract/guarded-extract.js';
import { grammarReady, loadGrammar, parseWithGrammar } from '../../../main/policy/extract/shell-grammar.js';
import { MAX_COMMAND_LENGTH, MAX_HEREDOC_LENGTH, MAX_HOSTS, MAX_NESTING, MAX_PATHS, MAX_PIPELINE_STAGES, MAX_WORDS_PER_COMMAND } from '../../../main/policy/extract/limits.js';
import { OPERATIONS, type Extraction, type ToolCall } from '../../../main/policy/types.js';
import { ClaudeConfigWriter, HTTP_HOOK_CAVEAT } from '../../../main/agents/claude-code/config-writer.js';
import { http } from '../../support/net.js';
import { tempDir } from '../../support/temp.js';

interface Running {
  home: string;
  /** The agent's project folder (outside GATEHOUSE_HOME, which agents may not touch). */
  project: string;
  host: Host;
  net: Listening;
  port: number;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
});

async function start(): Promise<Running> {
  const root = tempDir('gatehouse-judge-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  mkdirSync(project);
  // Full autonomy: a plain command is allowed, so "the next call works" shows as allow.
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full', hookAutonomyAllow: 'allow' }));
  const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await host.ready;
  const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: home });
  const r: Running = {
    home,
    project,
    host,
    net,
    port: net.shell.port,
    async close() {
      await net.shell.close();
      await host.close('test done');
    },
  };
  running.push(r);
  return r;
}

const HOOK = '/hooks/claude/pre-tool-use';
interface Answer {
  status: number;
  decision: string;
  reason: string;
}

async function hook(r: Running, body: string, opts: { token?: string | null; method?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const token = opts.token === undefined ? r.net.agentToken : opts.token;
  if (token !== null) headers['Authorization'] = `Bearer ${token}`;
  const res = await http({ port: r.port, path: HOOK, method: opts.method ?? 'POST', headers, body });
  const out = JSON.parse(res.body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
  return { status: res.status, decision: out.hookSpecificOutput.permissionDecision, reason: out.hookSpecificOutput.permissionDecisionReason };
}

function bash(r: Running, command: string): Promise<Answer> {
  return hook(r, JSON.stringify({ session_id: 's1', cwd: r.project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } }));
}

const pipeline = (stages: number) => Array(stages).fill('a').join('|');

describe('a hostile command through the HTTP hook', () => {
  it('a 200 KB pipeline is answered ask (not parsed: over the size cap), and the next call is judged as usual', async () => {
    const r = await start();
    const big = await bash(r, pipeline(100_000));
    expect(big.status).toBe(200);
    expect(['ask', 'deny']).toContain(big.decision);
    expect(big.reason).toContain(`over the ${MAX_COMMAND_LENGTH / 1024} KiB Gatehouse parses`);
    expect(await bash(r, 'ls')).toMatchObject({ status: 200, decision: 'allow' });
  });

  it('a 2 MB command does not break the parser: `ls` after it is allowed', async () => {
    const r = await start();
    const huge = await bash(r, pipeline(1_000_000));
    expect(['ask', 'deny']).toContain(huge.decision);
    expect(await bash(r, 'ls')).toMatchObject({ status: 200, decision: 'allow' });
  });

  it('an oversized command still names the protected paths it holds, so a locked rule denies it', async () => {
    const r = await start();
    const answer = await bash(r, `cat ~/.ssh/id_rsa; ${pipeline(40_000)}`);
    expect(answer.decision).toBe('deny');
  });

  it('a 3.8 MB Read path is not allowed, and the host judges the next call', async () => {
    const r = await start();
    const read = (file_path: string) => hook(r, JSON.stringify({ session_id: 's1', cwd: r.project, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path } }));
    const huge = await read(`${r.project}/${'a/'.repeat(1_900_000)}x`);
    expect(huge.status).toBe(200);
    expect(['ask', 'deny']).toContain(huge.decision);
    expect(await read(`${r.project}/README.md`)).toMatchObject({ status: 200, decision: 'allow' });
  });

  it('a command between the in-process size and the cap is judged in the worker, like any other', async () => {
    const r = await start();
    const ok = await bash(r, `ls ${Array(2000).fill('src').join(' ')}`);
    expect(ok).toMatchObject({ status: 200, decision: 'allow' });
    const protectedRead = await bash(r, `cat ${Array(2000).fill('src').join(' ')} ~/.ssh/id_rsa`);
    expect(protectedRead.decision).toBe('deny');
  });
});

describe('the HTTP hook answers every refusal 200 with a deny decision', () => {
  const input = (over: Record<string, unknown> = {}) => JSON.stringify({ session_id: 's1', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, ...over });

  it('no agent token, a wrong one, or the operator token: deny, and the reason does not repeat the token', async () => {
    const r = await start();
    for (const token of [null, 'not-the-token-0123456789abcdef', r.net.token]) {
      const a = await hook(r, input(), { token });
      expect(a).toMatchObject({ status: 200, decision: 'deny' });
      expect(a.reason).toMatch(/agent token/);
      if (token) expect(a.reason).not.toContain(token);
      expect(a.reason).not.toContain(r.net.agentToken);
    }
  });

  it('malformed JSON, a wrong hook_event_name, a GET and an oversized body: deny, naming what was wrong', async () => {
    const r = await start();
    const bad = await hook(r, '{"session_id": ');
    expect(bad).toMatchObject({ status: 200, decision: 'deny' });
    expect(bad.reason).toMatch(/not JSON/);
    // An event Gatehouse is not configured for (PostToolUse and PostToolUseFailure are reports now).
    const post = await hook(r, input({ hook_event_name: 'Stop' }));
    expect(post).toMatchObject({ status: 200, decision: 'deny' });
    expect(post.reason).toMatch(/hook_event_name must be "PreToolUse"/);
    const get = await hook(r, '', { method: 'GET' });
    expect(get).toMatchObject({ status: 200, decision: 'deny' });
    expect(get.reason).toMatch(/POST/);
    const huge = await hook(r, input({ tool_input: { command: 'x'.repeat(5 << 20) } }));
    expect(huge).toMatchObject({ status: 200, decision: 'deny' });
    expect(huge.reason).toMatch(/over 4 MiB/);
    // And the host still judges the next call.
    expect(await hook(r, input({ cwd: r.project }))).toMatchObject({ status: 200, decision: 'allow' });
  });
});

describe('write it for me', () => {
  it('says to prefer the command form when the HTTP form of the hook is chosen, and not otherwise', () => {
    const dir = tempDir('gatehouse-judge-writer-');
    const writer = new ClaudeConfigWriter({ userHome: dir, gatehouseHome: join(dir, 'gh'), endpoints: () => ({ mcpUrl: 'http://127.0.0.1:1/mcp', hookUrl: 'http://127.0.0.1:1/hooks/claude/pre-tool-use', agentToken: 't' }) });
    expect(writer.preview({ scope: 'user', mcp: 'none', hook: 'http' }).notes).toContain(HTTP_HOOK_CAVEAT);
    expect(writer.preview({ scope: 'user', mcp: 'none', hook: 'command' }).notes).not.toContain(HTTP_HOOK_CAVEAT);
  });
});

describe('the guarded extraction', () => {
  const guards: GuardedExtractor[] = [];
  afterAll(async () => {
    for (const g of guards) await g.close();
  });
  const guard = (opts: ConstructorParameters<typeof GuardedExtractor>[0] = {}) => {
    const g = new GuardedExtractor({ home: '/home/u', resolveSymlinks: false, ...opts });
    guards.push(g);
    return g;
  };
  const call = (command: string, tool = 'Bash'): ToolCall => ({ id: 'c', agent: 'a', session: 's', tool, arguments: { command }, cwd: '/w', source: 'api', receivedAt: 0 });

  it('an extraction over its deadline is denied with the deadline in the reason, and the next one works', async () => {
    const g = guard({ deadlineMs: 1, inProcessMaxLength: 16 });
    await expect(g.extract(call(pipeline(30_000)))).rejects.toThrow(new ExtractionFailed('extraction took longer than 1 ms'));
    // The overrun worker was terminated; the next large call gets a new one.
    g.deadlineMs = 60_000;
    const x = await g.extract(call('cat /w/a.txt && echo done'));
    expect(x.paths).toEqual(['/w/a.txt']);
    expect(x.operations).toContain('read');
  });

  it("an extraction past the calling thread's deadline is judged again in the worker (load is not a hostile call); the worker's deadline still denies", async () => {
    // Small enough for the calling thread (under 4 KiB), long enough to outlast a microsecond.
    const many = Array(150).fill(0).map((_, i) => `cat /w/d-${i}`).join('; ');
    const x = await guard({ inProcessDeadlineMs: 0.001 }).extract(call(many));
    expect(x.paths).toHaveLength(150);
    expect(x.evasive).toBe(false);
    await expect(guard({ inProcessDeadlineMs: 0.001, deadlineMs: 0.001 }).extract(call(many))).rejects.toThrow(new ExtractionFailed('extraction took longer than 0.001 ms'));
    const after = await guard().extract(call('cat /w/after.txt'));
    expect(after.paths).toEqual(['/w/after.txt']);
  });

  it('a call naming more than MAX_PATHS paths is evasive and judged on the first ones', async () => {
    const x = await guard().extract(call('cat ' + Array(MAX_PATHS + 100).fill(0).map((_, i) => `/w/${i}`).join(' ')));
    expect(x.paths).toHaveLength(MAX_PATHS);
    expect(x.evasiveReasons).toContain(`the call names more than ${MAX_PATHS} paths; Gatehouse judged the first ${MAX_PATHS}`);
  });

  it('a call naming more than MAX_HOSTS hosts is evasive and judged on the first ones', async () => {
    const x = await guard().extract(call('curl ' + Array(MAX_HOSTS + 20).fill(0).map((_, i) => `https://h${i}.example/`).join(' ')));
    expect(x.hosts).toHaveLength(MAX_HOSTS);
    expect(x.evasiveReasons).toContain(`the call names more than ${MAX_HOSTS} hosts; Gatehouse judged the first ${MAX_HOSTS}`);
  });

  it('a parse cancelled on its budget leaves the parser reset and ready: the next parse starts afresh', async () => {
    await loadGrammar();
    expect(() => parseWithGrammar(pipeline(4000), 0)).toThrow(/parsing took longer than 0 ms/);
    // Kept (a reload would make the next call wait) and reset (not resumed half-way through).
    expect(grammarReady()).toBe(true);
    const x = await guard().extract(call('ls /w/src'));
    expect(x.operations).toEqual(['read', 'execute']);
    expect(x.paths).toEqual(['/w/src']);
    expect(x.evasive).toBe(false);
  });

  it("a small command the grammar is slow on costs the host's thread only its deadline: the worker judges it, and it is never allowed on its own say", async () => {
    await loadGrammar();
    // 4,000 `)`: under 4 KiB, so judged on the calling thread first, but tree-sitter's error
    // recovery on it takes over half a second, far past the calling thread's deadline.
    const g = guard();
    const pending = g.extract(call('cat /w/a.txt; ' + ')'.repeat(4000)));
    // Handed to the worker (a promise), not answered on this thread.
    expect(pending).toBeInstanceOf(Promise);
    const x = await pending;
    expect(x.evasive).toBe(true);
    expect(x.evasiveReasons).toContain('the shell grammar could not parse part of the command');
    // The host's parser was not torn down by the cancelled parse: the next small call is answered at once.
    const next = g.extract(call('cat /w/b.txt'));
    expect(next).not.toBeInstanceOf(Promise);
    expect((next as Extraction).paths).toEqual(['/w/b.txt']);
  });

  it('NUL characters are left out of the parse, reported, and cost no more than the rest of the command', async () => {
    await loadGrammar();
    const x = await guard().extract(call('cat /w/a.txt' + '\u0000'.repeat(4000) + ' ~/.ssh/id_rsa'));
    expect(x.evasive).toBe(true);
    expect(x.evasiveReasons.join('; ')).toContain('NUL characters, which no shell runs as written');
    // Judged on the calling thread: 4,000 NULs used to take tree-sitter a quarter of a second.
    expect(x.paths).toEqual(['/w/a.txt', '/home/u/.ssh/id_rsa']);
    // A NUL is also the converter's variable marker: one in the command cannot forge a variable.
    const forged = await guard().extract(call('cat \u0000HOME\u0000/.ssh/id_rsa'));
    expect(forged.paths).toEqual(['/w/HOME/.ssh/id_rsa']);
  });

  it.each([
    ['pipeline stages', pipeline(MAX_PIPELINE_STAGES + 1), `more than ${MAX_PIPELINE_STAGES} stages`],
    ['nesting', '$('.repeat(MAX_NESTING + 10) + 'ls' + ')'.repeat(MAX_NESTING + 10), `more than ${MAX_NESTING} levels`],
    ['words', 'echo ' + Array(MAX_WORDS_PER_COMMAND + 1).fill('w').join(' '), `more than ${MAX_WORDS_PER_COMMAND} words`],
    ['here-document size', `cat <<'E' > /w/f\n${'x'.repeat(MAX_HEREDOC_LENGTH + 1)}\nE\nrm -rf /w/src`, 'here-document is longer'],
  ])('a command over the cap on %s is evasive, with the cap as the reason', async (_what, command, reason) => {
    const x = await guard().extract(call(command));
    expect(x.evasive).toBe(true);
    expect(x.evasiveReasons.join('; ')).toContain(reason);
  });

  it('a long `&&` chain is judged whole (walked by a loop, not by recursion)', async () => {
    const x = await guard().extract(call(Array(3000).fill('true').join(' && ') + ' && rm /w/x'));
    expect(x.operations).toContain('delete');
    expect(x.paths).toContain('/w/x');
    expect(x.evasive).toBe(false);
    // 20,000 operators overflowed the stack when each one was a level of recursion.
    const long = await guard().extract(call(Array(20_000).fill('a').join('&&')));
    expect(long.evasiveReasons.join('; ')).toContain('more than 4096 commands');
  });

  it('property: random shell-ish text up to a few KB never throws out of it and always gives a well-formed extraction', async () => {
    const g = guard();
    const piece = fc.constantFrom('a', 'ls', 'cat', '~/.ssh/id_rsa', '/etc/passwd', '$HOME', '${x:-y}', '$(', ')', '`', '"', "'", '\\', '|', '||', '&&', ';', '&', '\n', ' ', '<', '>', '>>', '<<E\n', '\nE\n', '<<<', '{', '}', '(', '((', '))', '[[', ']]', '*', '?', '[a-z]', '{a,b}', 'sh -c ', 'eval ', 'bash <(', 'curl http://x.example/ ', '# c', '\u0000', 'é', '\u202e');
    const text = fc.oneof(fc.array(piece, { maxLength: 400 }).map((a) => a.join('')), fc.string({ maxLength: 3000 }));
    await fc.assert(
      fc.asyncProperty(text, async (command) => {
        const x: Extraction = await g.extract(call(command));
        expect(Array.isArray(x.operations) && x.operations.every((o) => (OPERATIONS as readonly string[]).includes(o))).toBe(true);
        expect(x.paths.every((p) => typeof p === 'string' && p.startsWith('/'))).toBe(true);
        expect(x.hosts.every((h) => typeof h === 'string')).toBe(true);
        expect(typeof x.command).toBe('string');
        expect(x.evasive).toBe(x.evasiveReasons.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});
