// `gatehouse serve --allowed-plugins` (issue #24, finding 6), on a real host: the built CLI as a
// child process, its plugin watcher, a real plugin process, the MCP SDK client over loopback and
// the audit log on disk. A plugin the flag enables is pinned when it is first enabled; swapping
// its code afterwards quarantines it (as for an operator-enabled plugin) instead of being
// re-hashed and run, and the pin is for this run only.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { homePaths } from '../../../main/home.js';
import { startCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

interface Row {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}

function auditRows(home: string, types: string[]): Row[] {
  const db = new Database(homePaths(home).auditDb, { readonly: true });
  try {
    const rows = db.prepare(`SELECT type, actor, payload FROM events WHERE type IN (${types.map(() => '?').join(', ')}) ORDER BY seq`).all(...types) as { type: string; actor: string; payload: string }[];
    return rows.map((r) => ({ type: r.type, actor: r.actor, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  } finally {
    db.close();
  }
}

const text = (res: CallToolResult) => (res.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('gatehouse serve --allowed-plugins', () => {
  it('pins the plugin when it enables it: swapped code is quarantined by the watcher and a call of it is refused, not run', async () => {
    const root = tempDir('gatehouse-allowed-pin-');
    const home = join(root, 'home');
    const plugin = join(home, 'plugins', 'notes');
    const marker = join(root, 'swapped-code-ran');
    mkdirSync(plugin, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    writeFileSync(join(plugin, 'tool.toml'), 'name = "notes"\ndescription = "Returns a note."\ncommand = "run.sh"\ntimeout_secs = 5\n');
    writeFileSync(join(plugin, 'run.sh'), '#!/bin/sh\ncat >/dev/null\necho \'{"note": "original"}\'\n');
    chmodSync(join(plugin, 'run.sh'), 0o755);

    const serve = startCli(['serve', '--port', '0', '--home', home, '--allowed-plugins', 'notes']);
    await serve.waitForLine(/Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    const info = JSON.parse(readFileSync(homePaths(home).serveJson, 'utf8')) as { agentToken: string; mcpUrl: string };
    const client = new Client({ name: 'allowed-pin-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(info.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${info.agentToken}` } } }));

    const first = (await client.callTool({ name: 'notes', arguments: {} })) as CallToolResult;
    expect(first.isError ?? false).toBe(false);
    expect(text(first)).toContain('original');
    const enabled = auditRows(home, ['plugin.enabled']);
    expect(enabled).toEqual([{ type: 'plugin.enabled', actor: expect.stringMatching(/^operator:.+/), payload: expect.objectContaining({ name: 'notes', scanOverride: null, forRun: true }) }]);

    // The code is swapped while the host runs; the watcher sees the folder change.
    writeFileSync(join(plugin, 'run.sh'), `#!/bin/sh\ncat >/dev/null\ntouch '${marker}'\necho '{"note": "swapped"}'\n`);
    await expect.poll(() => auditRows(home, ['plugin.reloaded', 'plugin.quarantined']).length, { timeout: 10_000 }).toBeGreaterThan(0);

    // Quarantined: agents no longer see the tool, and a call of it is refused without running.
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('notes');
    await expect(client.callTool({ name: 'notes', arguments: {} })).rejects.toThrow(/Unknown tool: "notes"\. Gatehouse has no enabled tool by that name/);
    expect(existsSync(marker)).toBe(false);
    const changes = auditRows(home, ['plugin.reloaded', 'plugin.quarantined']);
    expect(changes.map((r) => r.type)).not.toContain('plugin.reloaded');
    expect(changes[0]).toMatchObject({ type: 'plugin.quarantined', actor: 'host', payload: { name: 'notes', changes: [{ path: 'run.sh', change: 'modified' }] } });

    await client.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    // The pin was for that run: trust.json never names the plugin.
    const trust = homePaths(home).root;
    expect(existsSync(join(trust, 'trust.json')) ? readFileSync(join(trust, 'trust.json'), 'utf8') : '{}').not.toContain('"notes"');
  });
});
