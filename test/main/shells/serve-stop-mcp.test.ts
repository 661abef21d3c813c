// `gatehouse serve` stopped (SIGTERM) while an MCP call is still running (#25, found by the soak's
// restart phase): the client must be answered with an error before the host's connections are cut.
// The MCP SDK waits for a POST's answer until its own request timeout when the stream closes
// unanswered, so agents hung across a host restart. A real host (the built CLI), a real plugin
// process that is running when the signal comes, and the real SDK client. No sleeps in the test.
import { chmodSync, existsSync, mkdirSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { homePaths } from '../../../main/home.js';
import { runCli, startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

/** Resolves once `file` exists (watching its folder: the event, not a poll). */
function appears(file: string): Promise<void> {
  return new Promise((resolve) => {
    const dir = join(file, '..');
    const w = watch(dir, () => {
      if (existsSync(file)) {
        w.close();
        resolve();
      }
    });
    if (existsSync(file)) {
      w.close();
      resolve();
    }
  });
}

describe('`gatehouse serve` stopped while an MCP call runs', () => {
  it('answers the running call with an error before it lets go of the connection', { timeout: 60_000 }, async () => {
    const home = join(tempDir('gatehouse-stop-mcp-'), 'home');
    const marks = join(tempDir('gatehouse-stop-marks-'), 'marks');
    mkdirSync(marks, { recursive: true });
    const dir = join(home, 'plugins', 'slow');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gatehouse.toml'), `name = "slow"\ndescription = "Takes its time."\ncommand = "run.sh"\ntimeout_secs = 120\n\n[permissions]\nwrite = [${JSON.stringify(marks)}]\n`);
    // It says it is running (a file the test waits for), then takes far longer than the test.
    writeFileSync(join(dir, 'run.sh'), `#!/bin/sh\ntouch "${marks}/running"\nexec sleep 100\n`);
    chmodSync(join(dir, 'run.sh'), 0o755);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    expect((await runCli(['plugin', 'enable', 'slow', '--home', home])).code).toBe(0);
    const serve = startCli(['serve', '--home', home, '--port', '0']);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    const info = readServeFile(homePaths(home).serveJson)!;
    const client = new Client({ name: 'stop-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(info.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${info.agentToken}` } } }));
    // A request timeout well past the test's own: a hang fails the test by its timeout, not by this.
    const result = client.callTool({ name: 'slow', arguments: {} }, undefined, { timeout: 120_000 }).then(
      (r) => ({ answered: r as { isError?: boolean; content?: { text?: string }[] } }),
      (err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
    );
    await appears(join(marks, 'running'));
    serve.child.kill('SIGTERM');
    const got = await result;
    // An error the client hears now (the session ended), never a wait for its request timeout.
    expect(JSON.stringify(got)).toMatch(/session ended before this request was answered|shutting down/i);
    expect(await serve.exited).toMatchObject({ code: 0 });
    await client.close().catch(() => {});
  });
});
