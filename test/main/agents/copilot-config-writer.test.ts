// "Write it for me" for GitHub Copilot CLI on a temp COPILOT_HOME: what is already in its files
// stays (other hooks, other MCP servers), Gatehouse's own hook is one entry however many copies
// were there, and a file Copilot CLI would not read as a hook file is refused, naming the field.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotConfigWriter } from '../../../main/agents/copilot/config-writer.js';
import { tempDir } from '../../support/temp.js';

const launcher = { node: '/usr/bin/node', entry: '/opt/gatehouse/bin/gatehouse.js' };

function writer() {
  const copilotHome = tempDir('gatehouse-copilot-writer-');
  mkdirSync(join(copilotHome, 'hooks'));
  const recorded: Record<string, unknown>[] = [];
  const w = new CopilotConfigWriter({ copilotHome, gatehouseHome: '/home/u/.gatehouse', launcher, record: (_t, _a, p) => recorded.push(p), now: () => 0 });
  return { w, copilotHome, recorded, hookFile: join(copilotHome, 'hooks', 'gatehouse.json'), mcpFile: join(copilotHome, 'mcp-config.json') };
}

const apply = (w: CopilotConfigWriter, req: { mcp: 'stdio' | 'none'; hook: 'command' | 'none' }) => w.write(req, w.preview(req).files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:tester');

describe('Copilot CLI config writer', () => {
  it('keeps the other hooks and servers, updates a stale Gatehouse hook in place and removes a second one', () => {
    const { w, hookFile, mcpFile, recorded } = writer();
    const theirs = { type: 'command', bash: './lint.sh', timeoutSec: 10 };
    const stale = { type: 'command', bash: 'gatehouse hook --agent copilot --home /old' };
    writeFileSync(hookFile, JSON.stringify({ version: 1, hooks: { preToolUse: [stale, theirs, { ...stale, timeoutSec: 5 }], sessionStart: [theirs] } }, null, 2));
    writeFileSync(mcpFile, JSON.stringify({ mcpServers: { db: { type: 'local', command: 'db-mcp', args: [], tools: ['*'] } } }));
    const preview = w.preview({ mcp: 'stdio', hook: 'command' });
    expect(preview.files.find((f) => f.path === hookFile)!.changes).toEqual([
      'hooks.preToolUse[0]: replaced the Gatehouse hook with the command form',
      'hooks.preToolUse[2]: removed a second Gatehouse hook',
      'hooks.postToolUse: added the Gatehouse report of what ran',
      'hooks.postToolUseFailure: added the Gatehouse report of what failed',
    ]);
    apply(w, { mcp: 'stdio', hook: 'command' });
    const hooks = JSON.parse(readFileSync(hookFile, 'utf8')) as { hooks: { preToolUse: { bash: string; timeoutSec: number }[]; postToolUse: unknown[]; postToolUseFailure: unknown[]; sessionStart: unknown[] } };
    expect(hooks.hooks.preToolUse).toHaveLength(2);
    expect(hooks.hooks.preToolUse[0]).toMatchObject({ timeoutSec: 600, bash: expect.stringContaining("/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook --agent copilot --home /home/u/.gatehouse --timeout 590 || {") });
    expect(hooks.hooks.preToolUse[1]).toEqual(theirs);
    expect(hooks.hooks.sessionStart).toEqual([theirs]);
    // The reports of what ran: not failing closed (the tool has already run).
    expect(hooks.hooks.postToolUse).toEqual([{ type: 'command', bash: '/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook --agent copilot --event postToolUse --home /home/u/.gatehouse', timeoutSec: 30 }]);
    expect(hooks.hooks.postToolUseFailure).toEqual([{ type: 'command', bash: '/usr/bin/node /opt/gatehouse/bin/gatehouse.js hook --agent copilot --event postToolUseFailure --home /home/u/.gatehouse', timeoutSec: 30 }]);
    const servers = (JSON.parse(readFileSync(mcpFile, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers;
    expect(Object.keys(servers)).toEqual(['db', 'gatehouse']);
    expect(servers.gatehouse).toEqual({ type: 'local', command: '/usr/bin/node', args: ['/opt/gatehouse/bin/gatehouse.js', 'mcp', '--home', '/home/u/.gatehouse'], env: {}, tools: ['*'] });
    expect(recorded).toEqual([expect.objectContaining({ client: 'copilot', files: [expect.objectContaining({ path: hookFile, created: false }), expect.objectContaining({ path: mcpFile, created: false })] })]);
    // Written: nothing left to change.
    expect(w.verify({ mcp: 'stdio', hook: 'command' }).ok).toBe(true);
  });

  it('refuses a hook file Copilot CLI would not read as version 1 with a list of preToolUse hooks, naming the field', () => {
    const { w, hookFile } = writer();
    writeFileSync(hookFile, JSON.stringify({ version: 2, hooks: {} }));
    expect(() => w.preview({ mcp: 'none', hook: 'command' })).toThrow(/"version" is 2/);
    writeFileSync(hookFile, JSON.stringify({ version: 1, hooks: { preToolUse: {} } }));
    expect(() => w.preview({ mcp: 'none', hook: 'command' })).toThrow(/"hooks.preToolUse" is an object/);
    expect(() => w.preview({ mcp: 'none', hook: 'none' })).toThrow(/nothing to write/);
  });

  it("keeps the operator's own timeoutSec and derives the command's --timeout from it; refuses one Gatehouse cannot answer within", () => {
    const { w, hookFile } = writer();
    writeFileSync(hookFile, JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: 'command', bash: 'gatehouse hook --agent copilot', timeoutSec: 12 }] } }));
    apply(w, { mcp: 'none', hook: 'command' });
    const pre = (JSON.parse(readFileSync(hookFile, 'utf8')) as { hooks: { preToolUse: { bash: string; timeoutSec: number }[] } }).hooks.preToolUse;
    expect(pre).toEqual([{ type: 'command', timeoutSec: 12, bash: expect.stringContaining(' --timeout 8 || {') }]);
    writeFileSync(hookFile, JSON.stringify({ version: 1, hooks: { preToolUse: [{ type: 'command', bash: 'gatehouse hook --agent copilot', timeoutSec: 2 }] } }));
    expect(() => w.preview({ mcp: 'none', hook: 'command' })).toThrow(/"hooks\.preToolUse\[0\]\.timeoutSec" is 2; .*before Copilot CLI gives up/);
  });

  it('says in the preview where Copilot CLI fails open, and writes only what was chosen', () => {
    const { w, hookFile, mcpFile } = writer();
    const preview = w.preview({ mcp: 'none', hook: 'command' });
    expect(preview.files.map((f) => f.path)).toEqual([hookFile]);
    expect(preview.notes.join(' ')).toMatch(/fails open/);
    expect(w.preview({ mcp: 'stdio', hook: 'none' }).files.map((f) => f.path)).toEqual([mcpFile]);
  });
});
