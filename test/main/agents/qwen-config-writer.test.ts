// "Write it for me" for Qwen Code (issue #30), on a temp home: the user's own hooks and keys kept
// beside Gatehouse's, an older Gatehouse hook replaced in place rather than added twice,
// disableAllHooks turned back off, the notes saying where Qwen Code fails open, and a settings
// file whose hooks are not an object refused naming the file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QwenConfigWriter } from '../../../main/agents/qwen-code/config-writer.js';
import { tempDir } from '../../support/temp.js';

const launcher = { node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' };
const req = { scope: 'user', mcp: 'stdio', hook: 'command' } as const;

function setup(settings: unknown) {
  const home = tempDir('gatehouse-qwen-writer-');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  const file = join(home, '.qwen', 'settings.json');
  writeFileSync(file, JSON.stringify(settings, null, 2) + '\n');
  return { file, w: new QwenConfigWriter({ userHome: home, gatehouseHome: join(home, 'gh'), launcher, now: () => Date.UTC(2026, 0, 1) }) };
}

describe('Qwen Code config writer', () => {
  it("keeps the user's hooks and keys, replaces an older Gatehouse hook in place, and turns disableAllHooks off", () => {
    const theirs = { type: 'command', command: 'lint-hook', timeout: 5 };
    const { file, w } = setup({ ui: { theme: 'dark' }, disableAllHooks: true, hooks: { PreToolUse: [{ matcher: 'edit', hooks: [theirs] }, { matcher: '*', hooks: [{ type: 'command', command: 'gatehouse hook --agent qwen-code' }] }] } });
    const preview = w.preview(req);
    expect(preview.notes.join(' ')).toContain('fails open');
    w.write(req, preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:tester');
    const written = JSON.parse(readFileSync(file, 'utf8')) as { ui: unknown; disableAllHooks: boolean; hooks: Record<string, { matcher: string; hooks: Record<string, unknown>[] }[]>; mcpServers: Record<string, unknown> };
    expect(written.ui).toEqual({ theme: 'dark' });
    expect(written.disableAllHooks).toBe(false);
    expect(written.hooks.PreToolUse).toHaveLength(2);
    expect(written.hooks.PreToolUse![0]).toEqual({ matcher: 'edit', hooks: [theirs] });
    expect(written.hooks.PreToolUse![1]!.hooks).toEqual([expect.objectContaining({ name: 'gatehouse', timeout: 600, command: expect.stringContaining("/opt/gatehouse/bin/gatehouse.js hook --agent qwen-code --home") })]);
    expect(written.hooks.PostToolUseFailure).toEqual([{ matcher: '*', hooks: [expect.objectContaining({ timeout: 30 })] }]);
    expect(written.mcpServers.gatehouse).toEqual({ command: '/usr/bin/node', args: ['/opt/gatehouse/bin/gatehouse.js', 'mcp', '--home', expect.stringMatching(/gh$/)], trust: true, alwaysLoadTools: true });
    expect(w.verify(req).ok).toBe(true);
  });

  it('refuses a settings file whose hooks are not an object, naming the file', () => {
    const { file, w } = setup({ hooks: [] });
    expect(() => w.preview(req)).toThrow(`${file}: "hooks" is`);
  });
});
