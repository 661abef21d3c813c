// The config writers' first-run details (issue #26, item 17): writing Codex's config again keeps a
// tool_timeout_sec the user set (and tells the host that value), and Claude Code's notes blame the
// PATH only when the command written names `gatehouse` on it, not when it uses absolute paths.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { ClaudeConfigWriter } from '../main/gateway/claude-config-writer.js';
import { CodexConfigWriter } from '../main/gateway/codex-config-writer.js';
import { tempDir } from './support/temp.js';

describe('Codex: a hand-set tool_timeout_sec', () => {
  it('is kept when "Write it for Codex" runs again, and the host is told that value', () => {
    const codexHome = tempDir('gatehouse-codex-keep-');
    const file = join(codexHome, 'config.toml');
    const timeouts: Record<string, number> = {};
    const w = new CodexConfigWriter({ codexHome, gatehouseHome: '/g', endpoints: () => null, approvalExpiryS: () => 600, setClientTimeout: (c, s) => (timeouts[c] = s), launcher: { node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' } });
    const first = w.preview({ mcp: 'stdio' }).files[0]!;
    w.write({ mcp: 'stdio' }, [{ path: file, baseHash: first.baseHash }], 'operator:tester');
    // The user raises it by hand.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/tool_timeout_sec = \d+/, 'tool_timeout_sec = 1800'));
    const again = w.preview({ mcp: 'stdio' });
    expect(again.files[0]!.changed).toBe(false);
    expect(again.notes.join(' ')).toContain('Codex waits 1800 s');
    w.write({ mcp: 'stdio' }, [{ path: file, baseHash: again.files[0]!.baseHash }], 'operator:tester');
    expect((parseToml(readFileSync(file, 'utf8')) as { mcp_servers: { gatehouse: { tool_timeout_sec: number } } }).mcp_servers.gatehouse.tool_timeout_sec).toBe(1800);
    expect(timeouts).toEqual({ 'codex-mcp-client': 1800 });
  });
});

describe("Claude Code: the PATH note", () => {
  const writer = (launcher: { node: string; entry: string } | null) => {
    const root = tempDir('gatehouse-claude-notes-');
    mkdirSync(join(root, 'home'), { recursive: true });
    return new ClaudeConfigWriter({ userHome: join(root, 'home'), gatehouseHome: join(root, 'gh'), endpoints: () => null, launcher });
  };
  it('is not given when the command names node and Gatehouse by absolute path', () => {
    const notes = writer({ node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' }).preview({ scope: 'user', mcp: 'none', hook: 'command' }).notes.join(' ');
    expect(notes).not.toContain('must be on the PATH');
    expect(notes).toContain('/opt/gatehouse/bin/gatehouse.js');
  });
  it('is given when the command is `gatehouse` from the PATH', () => {
    expect(writer(null).preview({ scope: 'user', mcp: 'none', hook: 'command' }).notes.join(' ')).toContain('must be on the PATH');
  });
});
