// Usage mistakes exit 2 with a one-line message on stderr; help and version exit 0.
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from './support/cli.js';
import { tempDir } from './support/temp.js';

/** The message lines (commander adds a hint line after the error; that is still one message). */
function messageLines(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .filter((l) => l !== '(run with --help for usage)');
}

describe('gatehouse CLI usage errors', () => {
  it.each([
    ['a port that is not a number', ['serve', '--port', 'abc'], /--port must be a number from 0 to 65535.*"abc"/],
    ['a port out of range', ['serve', '--port', '70000'], /--port must be a number/],
    ['a negative port', ['serve', '--port=-1'], /--port must be a number/],
    ['an unknown command', ['frobnicate'], /unknown command|too many arguments/],
    ['an unknown flag', ['serve', '--bogus'], /unknown option '--bogus'/],
    ['an unknown top-level flag', ['--bogus'], /unknown option '--bogus'/],
    ['an unknown audit command', ['audit', 'frob'], /unknown command 'frob'/],
    ['a flag without its value', ['serve', '--port'], /argument missing/],
    ['a bad token', ['serve', '--port', '0', '--token', 'short'], /--token must be 16 to 256 characters/],
  ])('exits 2 with one line for %s', async (_what, args, message) => {
    const home = tempDir();
    // serve gets a home of its own, placed first so that it is never taken as another flag's value.
    const r = await runCli(args[0] === 'serve' ? ['serve', '--home', home, ...args.slice(1)] : args);
    expect(r.code, r.stderr).toBe(2);
    const lines = messageLines(r.stderr);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('prints help and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: gatehouse/);
    expect(r.stdout).toMatch(/serve/);
    expect(r.stdout).toMatch(/audit/);
  });

  it('prints the version and exits 0', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('gatehouse without a subcommand (npm start)', () => {
  it('without an Electron binary, says so in one sentence and serves a working console at the printed URL', async () => {
    const home = tempDir();
    // GATEHOUSE_NO_ELECTRON makes the test mean the same on a machine that has the binary.
    const cli = startCli([], { GATEHOUSE_HOME: home, GATEHOUSE_NO_ELECTRON: '1' });
    const [, url, token] = await cli.waitForLine(/^Gatehouse console: (http:\/\/127\.0\.0\.1:\d+\/)#token=([A-Za-z0-9_-]+)$/);
    const lines = cli.output().stdout.split('\n');
    expect(lines[0]).toMatch(/^The Electron binary is not installed \(.+\), so Gatehouse is serving the console to your browser instead; open the URL below\.( \(Port \d+ is in use, so another port was picked\.\))?$/);
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    const session = await fetch(new URL('/api/session', url), { headers: { authorization: `Bearer ${token}` } });
    expect(session.status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  });
});
