// Help and version exit 0; `gatehouse` alone opens the console. Usage mistakes: cli-help.test.ts.
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

describe('gatehouse help and version', () => {
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
    const [, url, code] = await cli.waitForLine(/^Gatehouse console: (http:\/\/127\.0\.0\.1:\d+\/)#code=([A-Za-z0-9_-]+)$/);
    const lines = cli.output().stdout.split('\n');
    expect(lines[0]).toMatch(/^The Electron binary is not installed \(.+\), so Gatehouse is serving the console to your browser instead; open the URL below\.( \(Port \d+ is in use, so another port was picked\.\))?$/);
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    // What the console does with the URL: trade the one-time code for a session, then use it.
    const exchanged = await fetch(new URL('/api/session/exchange', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(exchanged.status).toBe(200);
    const { result } = (await exchanged.json()) as { result: { session: string } };
    const session = await fetch(new URL('/api/session', url), { headers: { authorization: `Bearer ${result.session}` } });
    expect(session.status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  });
});
