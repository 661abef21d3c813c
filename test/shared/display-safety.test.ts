// Display safety: agent-supplied text (agent and session names, commands, paths, reasons) reaches
// the operator's terminal and the console escaped, so it cannot erase or forge lines, or reorder
// what is drawn. The helper itself, then the real CLI (a child process) printing `approvals list`
// from a real host with a pending call, and `audit search` over a real audit database.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/audit-store.js';
import { createHost, type Host } from '../../main/host/create-host.js';
import { listenForConsolesAndAgents, type Listening } from '../../main/shells/serve/run-serve.js';
import { approvalNotice, deceptiveKinds, displaySegments, displayText, jsonText } from '../../shared/display-text.js';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const ESC = '\u001b';
// Every character a terminal or a renderer would act on or hide, and none of them may reach the output raw.
// eslint-disable-next-line no-control-regex -- control characters are what this test looks for
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\u{e0041}/u;

describe('displayText', () => {
  it('writes C0 (tab and newline too), DEL and C1 as visible escapes', () => {
    expect(displayText(`a${ESC}[2K\rb\tc\nd\u0000e\u007ff\u009bg`)).toBe('a\\x1b[2K\\rb\\tc\\nd\\x00e\\x7ff\\u009bg');
  });

  it('writes bidi controls, zero-width and other invisible characters, and look-alike spaces as \\u escapes', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(displayText(bidi)).toBe('\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c');
    expect(displayText('r\u200bm\u200c\u200d\u2060\ufeff\u00ad')).toBe('r\\u200bm\\u200c\\u200d\\u2060\\ufeff\\u00ad');
    expect(displayText('ls\u00a0-la\u3000x\u2028y')).toBe('ls\\u00a0-la\\u3000x\\u2028y');
    // Tag characters spell hidden ASCII; a lone surrogate cannot be drawn.
    expect(displayText('ok\u{e0041}\u{e0042}')).toBe('ok\\u{e0041}\\u{e0042}');
    expect(displayText('x\ud800y')).toBe('x\\ud800y');
    // Default-ignorable code points outside Cf draw nothing too: Khmer inherent vowels, Mongolian
    // free variation selectors, U+2065, U+FFF0, an unassigned tag-plane point.
    expect(displayText('r\u17b4m\u180b \u2065-\ufff0rf\u{e0080}')).toBe('r\\u17b4m\\u180b \\u2065-\\ufff0rf\\u{e0080}');
    expect(deceptiveKinds('r\u17b5m')).toEqual(['invisible']);
  });

  it('leaves ordinary text alone: spaces, accents, CJK, emoji, right-to-left letters', () => {
    for (const s of ['rm -rf /tmp/build', 'Müller café', '日本語のファイル', 'deploy 🚀 done', 'שלום عالم', 'C:\\Users\\x']) expect(displayText(s)).toBe(s);
  });

  it('keeps line feeds only when asked (multi-line views), never carriage returns', () => {
    expect(displayText('one\ntwo\r', { multiline: true })).toBe('one\ntwo\\r');
  });

  it('cuts text into plain runs and one token per hidden character, with its kind and code point', () => {
    expect(displaySegments('rm\u202e x')).toEqual([
      { kind: 'text', text: 'rm' },
      { kind: 'bidi', raw: '\u202e', escape: '\\u202e', codePoint: 'U+202E' },
      { kind: 'text', text: ' x' },
    ]);
    expect(displaySegments(`${ESC}`)[0]).toMatchObject({ kind: 'control', codePoint: 'U+001B' });
    expect(displaySegments('\u200b')[0]).toMatchObject({ kind: 'invisible' });
    expect(displaySegments('\u00a0')[0]).toMatchObject({ kind: 'space' });
  });

  it('names the deceptive kinds a command holds (for the console warning badge)', () => {
    expect(deceptiveKinds('rm -rf ~ #\u202e/tmp')).toEqual(['bidi']);
    expect(deceptiveKinds('r\u200bm x')).toEqual(['invisible']);
    expect(deceptiveKinds(`plain ${ESC} text`)).toEqual([]);
  });

  it('jsonText is the same JSON value, with the hidden characters as \\u escapes', () => {
    const value = { agent: `a${ESC}\u009b\u202e\u200b`, list: ['\u2066x'] };
    const out = jsonText(value, 2);
    expect(JSON.parse(out)).toEqual(value);
    expect(out).not.toMatch(HIDDEN);
    expect(out).toContain('\\u202e');
  });
});

/** What an agent would put in a name to rewrite the operator's screen: erase the line, print a forged verdict. */
const FORGED = `x${ESC}[2K\r${ESC}[32mAPPROVED by operator${ESC}[0m\nfake-line`;

describe('the desktop notification of a new inbox item (both shells)', () => {
  it('shows the tool name an agent chose with its hidden characters escaped', () => {
    // A hook call's tool_name is any 1-200 characters the agent sends. The Electron main process
    // built its native notification from it raw: a newline forged a second line, a bidi override
    // reordered it.
    const tool = `Read\nGatehouse: approved automatically, nothing to do\u202e`;
    const body = approvalNotice([{ agent: 'claude', tool }]);
    expect(body).not.toMatch(HIDDEN);
    expect(body).toBe('claude wants to call Read\\nGatehouse: approved automatically, nothing to do\\u202e');
    expect(approvalNotice([{ agent: 'a', tool: 't' }, { agent: 'b', tool: 'u' }])).toBe('2 new calls wait for approval');
  });
});

describe('gatehouse audit search prints hostile agent and session names escaped (real CLI, real database)', () => {
  it('the table and --json hold no raw control or bidi character', async () => {
    const home = tempDir('gatehouse-display-audit-');
    const store = new AuditStore({ path: join(home, 'audit.db'), log: () => {} });
    const agent = `evil${FORGED}`;
    const session = `s\u202eexe.txt`;
    store.append({ type: 'call.received', actor: `agent:${agent}`, payload: { call: 'c-1', agent, session, tool: `shell${ESC}]0;owned${ESC}\\`, arguments: { command: 'rm -rf ~ #\u202e/tmp' } } });
    await store.append({ type: 'call.decided', actor: 'host', payload: { call: 'c-1', decision: 'deny', reason: `locked rule\u009b2K${ESC}[1A` } }).durable;
    store.close();

    const table = await runCli(['audit', 'search', '--home', home]);
    expect(table.code).toBe(0);
    expect(table.stdout).not.toMatch(HIDDEN);
    // Visible instead: the escapes themselves, on the event's own line.
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.includes('call.received'))).toContain('agent:evilx\\x1b[2K\\r\\x1b[32mAPPROVED by operator\\x1b[0m\\nfake-line');
    expect(table.stdout).toContain('session=s\\u202eexe.txt');
    expect(table.stdout).toContain('reason=locked rule\\u009b2K\\x1b[1A');

    const json = await runCli(['audit', 'search', '--json', '--home', home]);
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(HIDDEN);
    const parsed = JSON.parse(json.stdout) as { events: { payload: { agent?: string; session?: string } }[] };
    // The data is unchanged: only its display is escaped.
    expect(parsed.events.find((e) => e.payload.agent)!.payload).toMatchObject({ agent, session });

    const exported = await runCli(['audit', 'export', '--home', home]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u);
  });
});

interface Running {
  home: string;
  host: Host;
  net: Listening;
}
const running: Running[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.net.shell.close();
    await r.host.close('test done');
  }
});

describe('gatehouse approvals list prints a hostile call escaped (real CLI, real host on loopback)', () => {
  it('paths, arguments and reasons that carry escape codes, newlines and bidi controls cannot rewrite the terminal', async () => {
    const home = join(tempDir('gatehouse-display-approvals-'), 'home');
    mkdirSync(home, { recursive: true });
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
    await host.ready;
    const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
    running.push({ home, host, net });
    const pending = new Promise<void>((resolve) => {
      const off = host.bus.subscribe((name) => {
        if (name === 'approvals.changed' && host.approvals.list({ state: 'pending' }).length > 0) {
          off();
          resolve();
        }
      });
    });
    // A delete under /tmp asks at the default (supervised) autonomy; the path is the agent's.
    const command = `rm -f '/tmp/\u202eexe.txt' '/tmp/\u009b2Kx' '/tmp/${process.pid}${FORGED}'`;
    const call = host.gateway.call({ agent: 'claude', session: 's-1', tool: 'shell', arguments: { command }, source: 'api' });
    await pending;

    const human = await runCli(['approvals', 'list', '--home', home]);
    expect(human.code).toBe(0);
    expect(human.stdout).not.toMatch(HIDDEN);
    // In the paths line (the arguments line is JSON, whose own \u escapes cover C0 but not bidi or C1).
    expect(human.stdout).toContain('paths: /tmp/\\u202eexe.txt, /tmp/\\u009b2Kx, /tmp/');
    expect(human.stdout).toContain('x\\x1b[2K\\r\\x1b[32mAPPROVED');
    expect(human.stdout).toContain(`{"command":"rm -f '/tmp/\\u202eexe.txt' '/tmp/\\u009b2Kx'`);
    // The record is as many lines as formatItem writes: no line came from the agent.
    expect(human.stdout.trimEnd().split('\n').filter((l) => !l.startsWith('  '))).toHaveLength(1);

    const json = await runCli(['approvals', 'list', '--json', '--home', home]);
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(HIDDEN);
    expect((JSON.parse(json.stdout) as { call: { arguments: { command: string } } }[])[0]!.call.arguments.command).toBe(command);

    const item = host.approvals.list({ state: 'pending' })[0]!;
    await host.dispatcher.dispatch('approvals.deny', { id: item.id, reason: 'test over' }, { operator: 'tester', console: 'serve' });
    await call;
  });
});

describe('gatehouse approvals list shows the whole call it asks about (real CLI, real host on loopback)', () => {
  it('a long command does not push what it really does out of the listing', async () => {
    const home = join(tempDir('gatehouse-display-long-'), 'home');
    mkdirSync(home, { recursive: true });
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: home });
    await host.ready;
    const net = await listenForConsolesAndAgents(host, { bindHost: '127.0.0.1', port: 0, staticDir: join(repoRoot, 'out', 'renderer') });
    running.push({ home, host, net });
    const pending = new Promise<void>((resolve) => {
      const off = host.bus.subscribe((name) => {
        if (name === 'approvals.changed' && host.approvals.list({ state: 'pending' }).length > 0) {
          off();
          resolve();
        }
      });
    });
    // Twelve build caches, then the file that matters: the listing cut the arguments at 120
    // characters and the paths at 80, so an operator approving from it read "delete build caches".
    const caches = Array.from({ length: 12 }, (_, i) => `/tmp/build-cache-${String(i).padStart(2, '0')}`);
    const decisive = `/tmp/${process.pid}-signing-key.pem`;
    const command = `rm -f ${caches.join(' ')} ${decisive}`;
    const call = host.gateway.call({ agent: 'claude', session: 's-1', tool: 'shell', arguments: { command }, source: 'api' });
    await pending;

    const human = await runCli(['approvals', 'list', '--home', home]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(decisive);
    expect(human.stdout).toContain(command);

    const item = host.approvals.list({ state: 'pending' })[0]!;
    await host.dispatcher.dispatch('approvals.deny', { id: item.id, reason: 'test over' }, { operator: 'tester', console: 'serve' });
    await call;
  });
});
