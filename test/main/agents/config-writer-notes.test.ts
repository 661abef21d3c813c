// The config writers' first-run details (issue #26, item 17): writing Codex's config again keeps a
// tool_timeout_sec the user set (and tells the host that value), and Claude Code's notes blame the
// PATH only when the command written names `gatehouse` on it, not when it uses absolute paths.
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { ClaudeConfigWriter } from '../../../main/agents/claude-code/config-writer.js';
import { CodexConfigWriter } from '../../../main/agents/codex/config-writer.js';
import type { RuntimeHost } from '../../../main/core/node-runtime.js';
import { shellQuote } from '../../../shared/claude-config.js';
import { tempDir } from '../../support/temp.js';

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

describe('the packaged desktop app (a stand-in for process.versions.electron, its PATH and resources folder)', () => {
  const realNode = realpathSync(process.execPath);
  const electron = (path: string): RuntimeHost => ({ electron: '40.10.2', execPath: '/nonexistent/Gatehouse/gatehouse', path, platform: process.platform });
  /** resources/ as electron-builder lays it out: bin/gatehouse.js and the hook's bundle unpacked beside app.asar (no full CLI). */
  function resources(): { entry: string; unpacked: string } {
    const dir = tempDir('gatehouse-resources-');
    for (const rel of ['bin/gatehouse.js', 'out/main/hook.js']) {
      mkdirSync(dirname(join(dir, 'app.asar.unpacked', rel)), { recursive: true });
      writeFileSync(join(dir, 'app.asar.unpacked', rel), '');
    }
    return { entry: join(dir, 'app.asar', 'bin', 'gatehouse.js'), unpacked: join(dir, 'app.asar.unpacked', 'bin', 'gatehouse.js') };
  }
  function nodeDir(): string {
    const dir = tempDir('gatehouse-path-');
    symlinkSync(process.execPath, join(dir, 'node'));
    return dir;
  }
  const claude = (deps: Partial<ConstructorParameters<typeof ClaudeConfigWriter>[0]>) => {
    const root = tempDir('gatehouse-claude-electron-');
    mkdirSync(join(root, 'home'));
    return new ClaudeConfigWriter({ userHome: join(root, 'home'), gatehouseHome: join(root, 'gh'), endpoints: () => null, ...deps });
  };
  const hookCommand = (w: ClaudeConfigWriter) => (JSON.parse(w.preview({ scope: 'user', mcp: 'none', hook: 'command' }).files[0]!.after) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } }).hooks.PreToolUse[0]!.hooks[0]!.command;

  it("writes a hook command that runs a real Node from the PATH and the entry unpacked beside the asar, never the app's binary", () => {
    const r = resources();
    const w = claude({ runtime: electron(nodeDir()), entry: r.entry });
    const command = hookCommand(w);
    expect(command.startsWith(`${shellQuote(realNode)} ${shellQuote(r.unpacked)} hook `)).toBe(true);
    expect(command).not.toContain('ELECTRON_RUN_AS_NODE');
    expect(command).not.toContain('/nonexistent/Gatehouse');
  });

  it('says plainly when no Node.js is on the PATH, and names `gatehouse` on the PATH instead of a command that cannot start', () => {
    const r = resources();
    const w = claude({ runtime: electron(''), entry: r.entry });
    expect(hookCommand(w).startsWith('gatehouse hook ')).toBe(true);
    const notes = w.preview({ scope: 'user', mcp: 'none', hook: 'command' }).notes.join(' ');
    expect(notes).toContain('no Node.js 20.19 or later was found on the PATH');
    expect(notes).toContain('runAsNode fuse is off');
  });

  it("Codex's stdio bridge, which the package does not ship, names `gatehouse` on the PATH and says why", () => {
    const r = resources();
    const codexHome = tempDir('gatehouse-codex-electron-');
    const w = new CodexConfigWriter({ codexHome, gatehouseHome: '/g', endpoints: () => null, approvalExpiryS: () => 600, runtime: electron(nodeDir()), entry: r.entry });
    const preview = w.preview({ mcp: 'stdio' });
    const server = (parseToml(preview.files[0]!.after) as { mcp_servers: { gatehouse: { command: string; env?: unknown } } }).mcp_servers.gatehouse;
    expect(server.command).toBe('gatehouse');
    expect(server.env).toBeUndefined();
    expect(preview.notes.join(' ')).toContain('does not ship the full gatehouse command (the stdio bridge)');
  });
});
