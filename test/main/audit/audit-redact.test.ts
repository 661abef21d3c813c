// Redaction fixtures: each kind of secret is masked, innocent text is left alone, and JSON keeps
// its structure (keys, numbers, arrays) with only string values changed.
import { describe, expect, it } from 'vitest';
import { MASK, redactEvent, redactText, redactValue } from '../../../main/audit/redact.js';

const SECRETS: [string, string, string][] = [
  ['openai key', 'key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123', 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123'],
  ['anthropic key', 'ANTHROPIC sk-ant-api03-AbCdEfGhIjKlMnOpQrSt', 'AbCdEfGhIjKlMnOpQrSt'],
  ['github token', 'git clone https://ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789@github.com/x', 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'],
  ['github oauth', 'gho_AbCdEfGhIjKlMnOpQrStUvWxYz01', 'gho_AbCdEfGhIjKlMnOpQrStUvWxYz01'],
  ['slack bot token', 'SLACK=xoxb-1234567890-abcdefghij', '1234567890-abcdefghij'],
  ['aws access key', 'aws_access_key_id AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
  ['google api key', 'maps?key=AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIzaSyA1234567890abcdefghijklmnopqrstuv'],
  ['bearer token', 'curl -H "Authorization: Bearer abc.def-ghi_jkl012345"', 'abc.def-ghi_jkl012345'],
  ['url password', 'postgres://admin:hunter2secret@db.internal:5432/app', 'hunter2secret'],
  ['password pair', 'mysql --user=root password=correcthorse', 'correcthorse'],
  ['token pair', 'https://x.test/cb?token=4f9a8b7c6d5e&next=/', '4f9a8b7c6d5e'],
  ['json-ish pair', 'api_key: "zz9plural"', 'zz9plural'],
  ['stripe', 'sk_live_AbCdEfGhIjKlMnOpQrSt', 'AbCdEfGhIjKlMnOpQrSt'],
  ['jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlLXZhbHVl', 'eyJzdWIiOiIxMjM0NSJ9'],
];

const INNOCENT = [
  'ls -la /srv/app/build-12',
  'rm -rf /tmp/cache && echo done',
  'the task asks for a password reset page',
  'git checkout sk-learn-notes',
  'https://example.com/docs/getting-started',
  'ssh user@host.example.com',
  'risk-assessment.md and desk-top.txt',
  'AKIA is the prefix of AWS keys',
];

describe('redaction', () => {
  it.each(SECRETS)('masks %s', (_kind, text, secret) => {
    const out = redactText(text);
    expect(out).not.toContain(secret);
    expect(out).toContain(MASK);
  });

  it('masks a private key block whole', () => {
    const pem = 'key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\nafter';
    const out = redactText(pem);
    expect(out).not.toContain('b3BlbnNzaC1rZXkt');
    expect(out).toContain('-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----');
    expect(out.endsWith('\nafter')).toBe(true);
  });

  it.each(INNOCENT)('leaves innocent text alone: %s', (text) => {
    expect(redactText(text)).toBe(text);
  });

  it('keeps JSON structure: keys, numbers, booleans, arrays; masks secret-named keys whole', () => {
    const payload = {
      call: 'c-1',
      tool: 'Bash',
      arguments: { command: 'export OPENAI_API_KEY=sk-AbCdEfGhIjKlMnOpQrStUvWx && run', env: { GITHUB_TOKEN: 'anything-at-all', PATH: '/usr/bin' } },
      headers: [['Authorization', 'Bearer abcdefghijklmnop']],
      exitCode: 0,
      ok: true,
      nothing: null,
      password: 'short',
    };
    const out = redactValue(payload) as typeof payload;
    expect(Object.keys(out)).toEqual(Object.keys(payload));
    expect(out.call).toBe('c-1');
    expect(out.exitCode).toBe(0);
    expect(out.ok).toBe(true);
    expect(out.nothing).toBeNull();
    expect(out.arguments.command).toBe('export OPENAI_API_KEY=[REDACTED] && run');
    expect(out.arguments.env).toEqual({ GITHUB_TOKEN: MASK, PATH: '/usr/bin' });
    expect(out.headers).toEqual([['Authorization', 'Bearer [REDACTED]']]);
    expect(out.password).toBe(MASK);
    // The input is not modified (the stored row is hashed as it was).
    expect(payload.password).toBe('short');
    const e = { seq: 1, ts: 2, type: 'call.received', actor: 'agent:x', payload, hash: 'h' };
    expect(redactEvent(e)).toEqual({ ...e, payload: out });
  });
});
