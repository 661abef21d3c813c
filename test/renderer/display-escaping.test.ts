// Addresses and reasons a hostile tool or agent supplied, where the console shows them outside
// React's text (a native confirm() prompt, a title tooltip): through the same display escaping as
// the rest of the console (shared/display-text.ts), so a bidi override or control character is
// shown as an escape, not obeyed.
import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ResponseOf } from '../../shared/contract.ts';
import { ReplayResult } from '../../renderer/src/views/audit/replay-result.tsx';
import { terminalLinkHandler, terminalLinkPrompt } from '../../renderer/src/views/terminals/terminal-links.ts';

// Drawn as https://example.com/exe.txt-looking text, it opens …/\u202Etxt.exe; with ESC and a fake line.
const HOSTILE = 'https://example.com/\u202Etxt.exe?x=\x1b[2K\nOK';

describe('a terminal link', () => {
  it('is asked about with its address escaped, never raw', () => {
    const prompt = terminalLinkPrompt(HOSTILE);
    expect(prompt).toContain('https://example.com/\\u202etxt.exe?x=\\x1b[2K\\nOK');
    for (const raw of ['\u202e', '\x1b']) expect(prompt).not.toContain(raw);
    // One line for the address: only the prompt's own line breaks.
    expect(prompt.split('\n')).toContain('https://example.com/\\u202etxt.exe?x=\\x1b[2K\\nOK');
  });

  it('names the host the browser will reach, a look-alike name as punycode', () => {
    // The second letter is Cyrillic а (U+0430).
    expect(terminalLinkPrompt('https://p\u0430ypal.com/login')).toMatch(/^Host: xn--/m);
    expect(terminalLinkPrompt('https://example.com:8443/a')).toContain('\nHost: example.com:8443\n');
  });

  it('opens only what the operator confirmed, the address as the program gave it', () => {
    const asked: string[] = [];
    const opened: string[] = [];
    let answer = false;
    const handler = terminalLinkHandler({ confirm: (m) => (asked.push(m), answer), open: (u) => opened.push(u) });
    expect(handler.allowNonHttpProtocols).toBe(false);
    const range = { start: { x: 1, y: 1 }, end: { x: 5, y: 1 } };
    handler.activate(new Event('click') as MouseEvent, HOSTILE, range);
    expect(asked).toEqual([terminalLinkPrompt(HOSTILE)]);
    expect(opened).toEqual([]);
    answer = true;
    handler.activate(new Event('click') as MouseEvent, HOSTILE, range);
    expect(opened).toEqual([HOSTILE]);
  });
});

describe('a replayed decision\'s reason', () => {
  it('shows in its tooltip escaped', () => {
    const reason = 'denied: rm -rf ~ #\u202E/tmp\x1b[31m';
    const result: ResponseOf<'audit.replay'> = {
      calls: [{ call: 'c1', seq: 7, ts: 0, agent: 'a', session: 's', tool: 'Bash', command: 'rm -rf ~', waiting: false, recorded: { decision: 'allow', decider: null, reason: 'ok' }, replayed: { decision: 'deny', decider: null, reason }, changed: true }],
      changed: 1,
      policyProblems: [],
    };
    const html = renderToStaticMarkup(h(ReplayResult, { result, onOpen: () => undefined }));
    expect(html).toContain('title="denied: rm -rf ~ #\\u202e/tmp\\x1b[31m"');
    for (const raw of ['\u202e', '\x1b']) expect(html).not.toContain(raw);
  });
});
