// "Write it for me" for opencode (issue #30), on a temp home: which files each choice writes, the
// user's own config kept, the MCP timeout above the approval expiry and told to the host, a
// plugin file changed by hand found by verify and put back, and a config it cannot read refused.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpencodeConfigWriter } from '../../../main/agents/opencode/config-writer.js';
import { tempDir } from '../../support/temp.js';

const launcher = { node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' };

function writer(userHome: string) {
  const timeouts: [string, number][] = [];
  const w = new OpencodeConfigWriter({ userHome, gatehouseHome: join(userHome, 'gh'), approvalExpiryS: () => 600, setClientTimeout: (client, s) => timeouts.push([client, s]), launcher, now: () => Date.UTC(2026, 0, 1) });
  return { w, timeouts };
}

function apply(w: OpencodeConfigWriter, req: Parameters<OpencodeConfigWriter['preview']>[0]) {
  const preview = w.preview(req);
  return w.write(req, preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:tester');
}

describe('opencode config writer', () => {
  it('writes the plugin into the plugins folder and the stdio bridge into opencode.json, keeping the user\'s keys; the host learns the timeout', () => {
    const home = tempDir('gatehouse-opencode-writer-');
    const dir = join(home, '.config', 'opencode');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'opencode.json'), '{\n\t"model": "x/y",\n\t"mcp": {"db": {"type": "local", "command": ["db"]}}\n}\n');
    const { w, timeouts } = writer(home);
    const req = { scope: 'user', mcp: 'stdio', hook: 'plugin' } as const;
    expect(w.targets(req).map((t) => t.path)).toEqual([join(dir, 'plugins', 'gatehouse.js'), join(dir, 'opencode.json')]);
    apply(w, req);
    const text = readFileSync(join(dir, 'opencode.json'), 'utf8');
    // The user's layout (tabs) kept.
    expect(text).toMatch(/^{\n\t"model": "x\/y",/);
    const config = JSON.parse(text) as { model: string; mcp: Record<string, unknown> };
    expect(config.model).toBe('x/y');
    expect(config.mcp.db).toEqual({ type: 'local', command: ['db'] });
    expect(config.mcp.gatehouse).toEqual({ type: 'local', command: ['/usr/bin/node', '/opt/gatehouse/bin/gatehouse.js', 'mcp', '--home', join(home, 'gh')], enabled: true, timeout: w.toolTimeoutS() * 1000 });
    expect(w.toolTimeoutS()).toBeGreaterThan(600);
    expect(timeouts).toEqual([['opencode', w.toolTimeoutS()]]);
    expect(readFileSync(join(dir, 'plugins', 'gatehouse.js'), 'utf8')).toContain(JSON.stringify(['/usr/bin/node', '/opt/gatehouse/bin/gatehouse.js', 'hook', '--agent', 'opencode', '--home', join(home, 'gh'), '--timeout', '590']));
    expect(w.verify(req).ok).toBe(true);
  });

  it('verify finds a plugin file changed by hand; writing again puts Gatehouse\'s back, keeping a backup', () => {
    const home = tempDir('gatehouse-opencode-writer-edit-');
    const { w } = writer(home);
    const req = { scope: 'user', mcp: 'none', hook: 'plugin' } as const;
    apply(w, req);
    const file = join(home, '.config', 'opencode', 'plugins', 'gatehouse.js');
    const ours = readFileSync(file, 'utf8');
    writeFileSync(file, ours.replace('if (a.blocked) throw new Error(a.blocked);', ''));
    expect(w.verify(req)).toEqual({ ok: false, files: [{ path: file, ok: false }] });
    expect(w.preview(req).files[0]!.changes).toEqual([expect.stringMatching(/^replaced Gatehouse's opencode plugin/)]);
    const { files } = apply(w, req);
    expect(files[0]!.backup).not.toBeNull();
    expect(readFileSync(file, 'utf8')).toBe(ours);
  });

  it('one project: .opencode/plugins and the project\'s opencode.json; nothing chosen, or an "mcp" that is not an object, is refused by name', () => {
    const home = tempDir('gatehouse-opencode-writer-project-');
    const project = join(home, 'p');
    mkdirSync(project);
    const { w } = writer(home);
    expect(w.targets({ scope: 'project', projectDir: project, mcp: 'stdio', hook: 'plugin' }).map((t) => t.path)).toEqual([join(project, '.opencode', 'plugins', 'gatehouse.js'), join(project, 'opencode.json')]);
    expect(w.targets({ scope: 'project', projectDir: project, mcp: 'stdio', hook: 'none' }).map((t) => t.path)).toEqual([join(project, 'opencode.json')]);
    expect(() => w.preview({ scope: 'user', mcp: 'none', hook: 'none' })).toThrow(/nothing to write/);
    writeFileSync(join(project, 'opencode.json'), '{"mcp": []}\n');
    expect(() => w.preview({ scope: 'project', projectDir: project, mcp: 'stdio', hook: 'none' })).toThrow(/opencode\.json: "mcp" is a list, not an object/);
  });
});
