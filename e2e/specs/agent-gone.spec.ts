// An agent that leaves while its call waits (issue #14): a real MCP client (the SDK over
// Streamable HTTP) calls a real plugin on a live `gatehouse serve`, with a short request timeout.
// When it times out the SDK sends notifications/cancelled; the inbox marks the item "agent gone"
// within a second, offers no Approve, the host refuses an approval, and the plugin never runs
// (the marker file it would write is absent). A control call, approved, shows the plugin does
// write its marker when it runs. A second case drops the connection instead (issue #25): a raw
// Streamable HTTP client whose tools/call POST is aborted, no cancel and no DELETE.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ApprovalsPage } from '../pages/approvals-page.ts';
import type { ConsolePage } from '../pages/console-page.ts';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { auditTail, callTool, hostCall, httpAgent, serveFile } from '../support/agents.ts';

/** A WraithRun-style tool that touches the file it is given: its trace if it ever runs. */
function writeMarkerPlugin(home: string, markerDir: string): void {
  const dir = join(home, 'plugins', 'marker');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'tool.toml'),
    [
      'name = "marker"',
      'description = "Touches the file it is given, to show that it ran."',
      'version = "1.0.0"',
      'command = "run.sh"',
      'timeout_secs = 5',
      '',
      '[parameters.path]',
      'type = "string"',
      'required = true',
      'description = "The file to touch."',
      '',
      '[permissions]',
      `write = ["${markerDir}"]`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'run.sh'),
    `#!/bin/sh
# One JSON object in on stdin ({"path": …}); touches that file; one JSON object out.
python3 -c '
import json, sys
path = json.load(sys.stdin)["path"]
open(path, "a").close()
json.dump({"touched": path}, sys.stdout)
'
`,
  );
  chmodSync(join(dir, 'run.sh'), 0o755);
}

/** The marker plugin written, discovered by the watcher and enabled (pinned) by the operator; the inbox open and empty. */
async function markerInbox(app: ConsolePage, home: string, markerDir: string): Promise<ApprovalsPage> {
  writeMarkerPlugin(home, markerDir);
  await app.status.expectConnected();
  await expect
    .poll(async () => (await hostCall<{ plugins: { name: string }[] }>(home, 'plugins.list')).plugins.some((p) => p.name === 'marker'), { message: 'the marker plugin is discovered' })
    .toBe(true);
  await hostCall(home, 'plugins.enable', { name: 'marker' });
  const inbox = new ApprovalsPage(app.page);
  await app.open('approvals');
  await inbox.expectPending(0);
  return inbox;
}

test.describe('a live host with a plugin that leaves a marker', () => {
  test.use({ homeSetup: { settings: { mode: 'live' } } });

  test('an MCP client times out while its call waits: agent gone within a second, no Approve, the tool never runs', async ({ console: app, home }) => {
    const markerDir = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-e2e-marker-')));
    const marker = join(markerDir, 'ran');
    try {
      const inbox = await markerInbox(app, home, markerDir);

      const agent = await httpAgent(home, 'e2e-leaving-agent');
      try {
        // The client gives up after 3 s (the SDK's own request timeout), then cancels the request.
        const call = agent.callTool({ name: 'marker', arguments: { path: marker } }, undefined, { timeout: 3_000 });
        const gaveUp = call.then(
          () => 'answered',
          (err: unknown) => String(err),
        );
        const item = inbox.item(marker);
        await expect(item).toHaveCount(1);
        await expect(inbox.detail.getByTestId('approval-approve')).toBeVisible();
        // The row counts down to the nearest deadline: this client sends no progress token, so
        // Gatehouse knows it gives up within the SDK's 60 s, sooner than the 10-minute expiry.
        await expect(item.getByTestId('approval-countdown')).toHaveAttribute('data-deadline-reason', /e2e-leaving-agent's request timeout/);
        await expect(item.getByTestId('approval-countdown')).toHaveText(/^0:5\d left \(agent\)$/);
        const id = await inbox.idOf(item);

        expect(await gaveUp).toMatch(/timed out|timeout/i);
        // Within a second of the client giving up: marked agent gone, no longer offered.
        const row = inbox.historyRow(id);
        await expect(row).toHaveAttribute('data-state', 'gone', { timeout: 1_000 });
        await expect(row.getByTestId('history-outcome')).toHaveText('Agent gone');
        await expect(row.getByTestId('history-reason')).toContainText('Agent gone');
        await expect(app.page.locator(`[data-testid="approval-item"][data-id="${id}"]`)).toHaveCount(0);
        await expect(app.page.locator(`[data-testid="approval-item"][data-id="${id}"] [data-testid="approval-approve"]`)).toHaveCount(0);
        await inbox.expectPending(0);

        // The host refuses it too, whoever asks.
        const approve = hostCall(home, 'approvals.get', { id }).then((i) => hostCall(home, 'approvals.approve', { id, argsHash: (i as { argsHash: string }).argsHash, scope: 'once' }));
        await expect(approve).rejects.toThrow(/its agent is gone/);

        const events = await auditTail(home);
        expect(events.filter((e) => e.type === 'approval.withdrawn').map((e) => (e.payload as { id: string; state: string }))).toEqual([expect.objectContaining({ id, state: 'gone' })]);
        expect(events.some((e) => e.type === 'execution.started')).toBe(false);
        expect(existsSync(marker), 'the plugin never ran').toBe(false);

        // Control: the same plugin, approved, does leave its marker.
        const control = join(markerDir, 'control');
        const approved = callTool(agent, 'marker', { path: control });
        const second = inbox.item('control');
        await expect(second).toHaveCount(1);
        await (await inbox.select('control')).getByTestId('approval-approve').click();
        const result = await approved.result;
        expect(result.isError ?? false).toBe(false);
        expect(existsSync(control), 'an approved call of the plugin writes its marker').toBe(true);
        expect(existsSync(marker)).toBe(false);
      } finally {
        await agent.close();
      }
    } finally {
      rmSync(markerDir, { recursive: true, force: true });
    }
  });
  test('an MCP client whose HTTP connection drops (fetch aborted, no cancel) while its call waits: agent gone, Approve refused, the withdrawal on record', async ({ console: app, home }) => {
    const markerDir = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-e2e-marker-')));
    const marker = join(markerDir, 'dropped');
    try {
      const inbox = await markerInbox(app, home, markerDir);

      // A client speaking Streamable HTTP itself: initialize, then a tools/call on a fetch it aborts.
      const s = await serveFile(home);
      const headers: Record<string, string> = { authorization: `Bearer ${s.agentToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(s.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'e2e-dropped-agent', version: '1.0.0' } } }) });
      expect(init.ok).toBe(true);
      await init.text();
      const session = init.headers.get('mcp-session-id');
      expect(session).toBeTruthy();
      const inSession = { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
      await (await fetch(s.mcpUrl, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      const connection = new AbortController();
      // The response is a stream (headers first, the answer later): the abort ends the reading of it.
      const call = fetch(s.mcpUrl, { method: 'POST', headers: inSession, signal: connection.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'marker', arguments: { path: marker } } }) })
        .then((res) => res.text())
        .catch((err: unknown) => String(err));

      const item = inbox.item(marker);
      await expect(item).toHaveCount(1);
      await expect(inbox.detail.getByTestId('approval-approve')).toBeVisible();
      const id = await inbox.idOf(item);
      const { argsHash } = await hostCall<{ argsHash: string }>(home, 'approvals.get', { id });

      // The connection drops: the response stream that was to carry the answer is gone.
      connection.abort();
      expect(await call).toMatch(/abort/i);
      const row = inbox.historyRow(id);
      await expect(row).toHaveAttribute('data-state', 'gone', { timeout: 2_000 });
      await expect(row.getByTestId('history-outcome')).toHaveText('Agent gone');
      await expect(app.page.locator(`[data-testid="approval-item"][data-id="${id}"] [data-testid="approval-approve"]`)).toHaveCount(0);
      await inbox.expectPending(0);
      await expect(hostCall(home, 'approvals.approve', { id, argsHash, scope: 'once' })).rejects.toThrow(/its agent is gone/);

      const events = await auditTail(home);
      expect(events.filter((e) => e.type === 'approval.withdrawn').map((e) => e.payload as { id: string; state: string; reason: string })).toEqual([expect.objectContaining({ id, state: 'gone', reason: expect.any(String) })]);
      expect(events.some((e) => e.type === 'execution.started')).toBe(false);
      expect(existsSync(marker), 'the plugin never ran').toBe(false);
    } finally {
      rmSync(markerDir, { recursive: true, force: true });
    }
  });
});
