// "Write it for me" on real files in a temporary folder: the user's home is injected, so nothing
// here touches the real ~/.claude. Each result must be JSON in the shape Claude Code documents
// (hooks in settings.json, MCP servers in ~/.claude.json or .mcp.json), and the user's other
// keys and hooks must come through unchanged.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { checkEvent } from '../../../main/audit/event-schemas.js';
import { ClaudeConfigWriter, isGatehouseHook, type ClaudeConfigRequest } from '../../../main/agents/claude-code/config-writer.js';
import { ConfigFileError } from '../../../main/agents/config-file.js';
import { HOOK_CLIENT_FAIL_CLOSED, shellQuote } from '../../../shared/claude-config.js';
import { repoRoot } from '../../support/cli.js';
import { createHost } from '../../../main/host/create-host.js';
import { OperationError } from '../../../main/core/operation-error.js';
import { tempDir } from '../../support/temp.js';

const TOKEN = 'agent-token-0123456789abcdefghij';
const endpoints = { mcpUrl: 'http://127.0.0.1:43111/mcp', hookUrl: 'http://127.0.0.1:43111/hooks/claude/pre-tool-use', agentToken: TOKEN };

// Claude Code's documented shapes (code.claude.com/docs/en/hooks, /mcp), strict where Gatehouse writes.
// `timeout` is written explicitly: the hook's own --timeout and the inbox wait are derived from it.
const commandHookShape = z.object({ type: z.literal('command'), command: z.string().min(1), timeout: z.number().int().positive() }).strict();
const httpHookShape = z.object({ type: z.literal('http'), url: z.url(), headers: z.record(z.string(), z.string()), allowedEnvVars: z.array(z.string()), timeout: z.number().int().positive() }).strict();
const anyHook = z.looseObject({ type: z.enum(['command', 'http', 'prompt', 'agent']) });
const settingsShape = z.looseObject({
  hooks: z.looseObject({ PreToolUse: z.array(z.object({ matcher: z.string(), hooks: z.array(anyHook).min(1) }).strict()) }),
});
const gatehouseServer = z.union([
  z.object({ type: z.literal('http'), url: z.url(), headers: z.record(z.string(), z.string()) }).strict(),
  z.object({ type: z.literal('stdio'), command: z.string(), args: z.array(z.string()) }).strict(),
]);
const mcpShape = z.looseObject({ mcpServers: z.object({ gatehouse: gatehouseServer }).catchall(z.looseObject({})) });

interface Recorded {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}

function setup(opts: { endpoints?: typeof endpoints | null } = {}) {
  const root = tempDir('gatehouse-claude-config-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const events: Recorded[] = [];
  let now = Date.parse('2026-03-04T05:06:07.089Z');
  const writer = new ClaudeConfigWriter({
    userHome: home,
    gatehouseHome: join(root, 'gatehouse home'),
    endpoints: () => (opts.endpoints === undefined ? endpoints : opts.endpoints),
    record: (type, actor, payload) => events.push({ type, actor, payload }),
    now: () => (now += 1000),
  });
  /** Preview, then apply exactly what was previewed. */
  const apply = (req: ClaudeConfigRequest) => {
    const preview = writer.preview(req);
    const result = writer.write(req, preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:alice');
    return { preview, result };
  };
  return { root, home, project, writer, events, apply };
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const backupsOf = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.gatehouse-backup-`));

describe('ClaudeConfigWriter', () => {
  it('creates fresh user files: the diff shows every line added, the result has the documented shape', () => {
    const { home, apply, events } = setup();
    const req = { scope: 'user', mcp: 'http', hook: 'command' } as const;
    const { preview, result } = apply(req);

    const settingsFile = join(home, '.claude', 'settings.json');
    const mcpFile = join(home, '.claude.json');
    expect(preview.files.map((f) => [f.path, f.kind, f.exists, f.changed, f.baseHash])).toEqual([
      [settingsFile, 'settings', false, true, 'absent'],
      [mcpFile, 'mcp', false, true, 'absent'],
    ]);
    for (const f of preview.files) {
      const body = f.diff.split('\n').filter((l) => /^[+-](?![+-]{2})/.test(l));
      expect(body.length).toBeGreaterThan(3);
      expect(body.every((l) => l.startsWith('+'))).toBe(true);
      expect(f.diff).toContain('new file');
    }
    expect(result.files).toEqual([
      { path: settingsFile, written: true, created: true, backup: null },
      { path: mcpFile, written: true, created: true, backup: null },
    ]);

    const settings = settingsShape.parse(readJson(settingsFile));
    expect(settings.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [expect.anything()] }]);
    const hook = commandHookShape.parse(settings.hooks.PreToolUse[0]!.hooks[0]);
    // Absolute paths of bash and of this installation's hook client (bash and curl are here, so no
    // Node starts before each tool call): nothing depends on Claude Code's PATH.
    const client = join(repoRoot, 'out', 'main', 'gatehouse-hook.sh');
    expect(hook.command).toBe(`/bin/bash ${shellQuote(client)} --home '${join(home, '..', 'gatehouse home')}' --timeout 590 ${HOOK_CLIENT_FAIL_CLOSED}`);
    expect(hook.timeout).toBe(600);
    // What ran is reported back: PostToolUse and PostToolUseFailure, the same command (--report) without the fail-closed tail.
    const all = readJson(settingsFile).hooks as Record<string, { matcher: string; hooks: { command: string; timeout: number }[] }[]>;
    expect(Object.keys(all)).toEqual(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
    for (const ev of ['PostToolUse', 'PostToolUseFailure']) {
      expect(all[ev]).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: `/bin/bash ${shellQuote(client)} --report --home '${join(home, '..', 'gatehouse home')}'`, timeout: 30 }] }]);
    }
    const mcp = mcpShape.parse(readJson(mcpFile));
    // ~/.claude.json is the user's own: the token itself, as `claude mcp add --scope user --header` writes it.
    expect(mcp.mcpServers.gatehouse).toEqual({ type: 'http', url: endpoints.mcpUrl, headers: { Authorization: `Bearer ${TOKEN}` } });
    // New files in the home are the user's alone; the .claude folder too.
    expect(statSync(settingsFile).mode & 0o777).toBe(0o600);
    expect(statSync(mcpFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.claude')).mode & 0o777).toBe(0o700);
    expect(readFileSync(settingsFile, 'utf8').endsWith('}\n')).toBe(true);

    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('agent.config-written');
    expect(checkEvent(events[0]!)).toBeNull();
    expect(JSON.stringify(events)).not.toContain(TOKEN);
    expect(events[0]!.payload).toMatchObject({ scope: 'user', projectDir: null, mcp: 'http', hook: 'command', files: [{ path: settingsFile, created: true, backup: null }, { path: mcpFile, created: true, backup: null }] });
  });

  it('keeps the user’s other keys, hooks, formatting and mode; the backup holds the old content', () => {
    const { project, apply, events } = setup();
    const settingsFile = join(project, '.claude', 'settings.json');
    mkdirSync(join(project, '.claude'));
    const own = {
      model: 'opus',
      permissions: { allow: ['Bash(npm test:*)'], deny: ['Read(./.env)'] },
      hooks: {
        PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/check-bash.sh', timeout: 10 }] }],
      },
      zeta: 1,
      alpha: [1, 2, 3],
    };
    const before = JSON.stringify(own, null, 4) + '\n';
    writeFileSync(settingsFile, before);
    chmodSync(settingsFile, 0o640);
    const mcpFile = join(project, '.mcp.json');
    const beforeMcp = JSON.stringify({ mcpServers: { github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } } }, null, 2) + '\n';
    writeFileSync(mcpFile, beforeMcp);

    const { preview, result } = apply({ scope: 'project', projectDir: project, mcp: 'http', hook: 'http' });
    expect(preview.files.every((f) => f.exists && f.changed)).toBe(true);
    // Nothing the user wrote is removed or changed: the diff only adds lines.
    for (const f of preview.files) expect(f.diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'))).toEqual([]);

    const after = readJson(settingsFile);
    expect(Object.keys(after)).toEqual(['model', 'permissions', 'hooks', 'zeta', 'alpha']);
    expect(after.model).toBe('opus');
    expect(after.permissions).toEqual(own.permissions);
    const post = (after.hooks as Record<string, unknown[]>).PostToolUse!;
    expect(post[0]).toEqual(own.hooks.PostToolUse[0]);
    expect(post[1]).toEqual({ matcher: '*', hooks: [{ type: 'http', url: endpoints.hookUrl, headers: { Authorization: 'Bearer $GATEHOUSE_AGENT_TOKEN', 'X-Gatehouse-Hook-Deadline-Ms': '30000' }, allowedEnvVars: ['GATEHOUSE_AGENT_TOKEN'], timeout: 30 }] });
    const pre = settingsShape.parse(after).hooks.PreToolUse;
    expect(pre[0]).toEqual(own.hooks.PreToolUse[0]);
    expect(pre).toHaveLength(2);
    expect(pre[1]!.matcher).toBe('*');
    const hook = httpHookShape.parse(pre[1]!.hooks[0]);
    // The deadline header tells the host how long this hook waits (an inbox wait ends before it).
    expect(hook).toEqual({ type: 'http', url: endpoints.hookUrl, headers: { Authorization: 'Bearer $GATEHOUSE_AGENT_TOKEN', 'X-Gatehouse-Hook-Deadline-Ms': '600000' }, allowedEnvVars: ['GATEHOUSE_AGENT_TOKEN'], timeout: 600 });
    // The file's own four-space indentation is kept, and its mode.
    expect(readFileSync(settingsFile, 'utf8')).toContain('\n    "model": "opus"');
    expect(readFileSync(settingsFile, 'utf8')).toMatch(/\n {16}"matcher": "\*"/);
    expect(statSync(settingsFile).mode & 0o777).toBe(0o640);

    // .mcp.json is committed: it names the variable (Claude Code expands ${VAR} there), never the token.
    const mcp = mcpShape.parse(readJson(mcpFile));
    expect(Object.keys(readJson(mcpFile).mcpServers as object)).toEqual(['github', 'gatehouse']);
    expect(mcp.mcpServers.gatehouse).toEqual({ type: 'http', url: endpoints.mcpUrl, headers: { Authorization: 'Bearer ${GATEHOUSE_AGENT_TOKEN}' } });
    expect(readFileSync(mcpFile, 'utf8')).not.toContain(TOKEN);

    // One backup each, next to the file, byte for byte what was there, with the file's mode.
    const settingsBackup = result.files[0]!.backup!;
    const mcpBackup = result.files[1]!.backup!;
    expect(settingsBackup).toBe(`${settingsFile}.gatehouse-backup-2026-03-04T05-06-08-089Z`);
    expect(readFileSync(settingsBackup, 'utf8')).toBe(before);
    expect(statSync(settingsBackup).mode & 0o777).toBe(0o640);
    expect(readFileSync(mcpBackup, 'utf8')).toBe(beforeMcp);
    expect(backupsOf(join(project, '.claude'), 'settings.json')).toHaveLength(1);

    expect(events).toHaveLength(1);
    expect(checkEvent(events[0]!)).toBeNull();
    expect(events[0]!.payload).toMatchObject({ scope: 'project', projectDir: project, files: [{ path: settingsFile, created: false, backup: settingsBackup }, { path: mcpFile, created: false, backup: mcpBackup }] });
    expect((events[0]!.payload.files as { changes: string[] }[])[1]!.changes.join(' ')).toContain('${GATEHOUSE_AGENT_TOKEN}');
  });

  it('is idempotent: a second run changes nothing, keeps no new backup and records nothing', () => {
    const { project, apply, events, writer } = setup();
    const req = { scope: 'project', projectDir: project, mcp: 'stdio', hook: 'command' } as const;
    apply(req);
    const settingsText = readFileSync(join(project, '.claude', 'settings.json'), 'utf8');
    const mcpText = readFileSync(join(project, '.mcp.json'), 'utf8');
    expect(mcpShape.parse(JSON.parse(mcpText)).mcpServers.gatehouse).toMatchObject({ type: 'stdio', command: 'gatehouse', args: ['mcp', '--home', expect.stringContaining('gatehouse home')] });

    const again = writer.preview(req);
    expect(again.files.map((f) => [f.changed, f.diff, f.changes])).toEqual([
      [false, '', []],
      [false, '', []],
    ]);
    const { result } = apply(req);
    expect(result.files.every((f) => !f.written && f.backup === null)).toBe(true);
    expect(readFileSync(join(project, '.claude', 'settings.json'), 'utf8')).toBe(settingsText);
    expect(readFileSync(join(project, '.mcp.json'), 'utf8')).toBe(mcpText);
    expect(backupsOf(join(project, '.claude'), 'settings.json')).toEqual([]);
    expect(events).toHaveLength(1);
  });

  it('switching forms replaces Gatehouse’s hook in place and drops a second copy, leaving the others', () => {
    const { home, apply } = setup();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    writeFileSync(
      file,
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: '*', hooks: [{ type: 'command', command: 'gatehouse hook --home /old/home' }, { type: 'command', command: 'audit-logger' }] },
            { matcher: 'Bash', hooks: [{ type: 'http', url: 'http://127.0.0.1:1/hooks/claude/pre-tool-use' }] },
          ],
        },
      }),
    );
    const { preview } = apply({ scope: 'user', mcp: 'none', hook: 'http' });
    expect(preview.files).toHaveLength(1);
    expect(preview.files[0]!.changes).toEqual([
      'hooks.PreToolUse[0]: replaced the Gatehouse hook with the HTTP form',
      'hooks.PreToolUse[1]: removed a second Gatehouse hook (its group held nothing else)',
      'hooks.PostToolUse: added the Gatehouse report of what ran (HTTP form) for every tool',
      'hooks.PostToolUseFailure: added the Gatehouse report of what failed (HTTP form) for every tool',
    ]);
    const pre = settingsShape.parse(readJson(file)).hooks.PreToolUse;
    expect(pre).toHaveLength(1);
    expect(pre[0]!.hooks).toEqual([httpHookShape.parse(pre[0]!.hooks[0]), { type: 'command', command: 'audit-logger' }]);
    expect(pre[0]!.hooks[0]!.url).toBe(endpoints.hookUrl);
    expect(isGatehouseHook({ type: 'command', command: 'node /opt/gatehouse/bin/gatehouse.js hook' })).toBe(true);
    expect(isGatehouseHook({ type: 'command', command: 'gatehouse-hook-like' })).toBe(false);
    expect(isGatehouseHook({ type: 'command', command: "/bin/bash '/opt/gate house/out/main/gatehouse-hook.sh' --home /h --timeout 590 || exit 2" })).toBe(true);
    expect(isGatehouseHook({ type: 'command', command: '/bin/bash /opt/x/gatehouse-hook.sh.bak' })).toBe(false);
  });

  it('keeps a timeout the operator set on Gatehouse’s hook and derives the command’s --timeout and the HTTP deadline from it; refuses one it cannot answer within', () => {
    const { home, apply, writer } = setup();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    // The operator shortened the hook's timeout by hand, leaving the command's --timeout at 590 s:
    // Claude Code would give up after 12 s, long before Gatehouse answers.
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'gatehouse hook --timeout 590', timeout: 12 }] }] } }));
    const { preview } = apply({ scope: 'user', mcp: 'none', hook: 'command' });
    expect(preview.files[0]!.changes[0]).toBe('hooks.PreToolUse[0]: replaced the Gatehouse hook with the command form, keeping your timeout of 12 s');
    let pre = settingsShape.parse(readJson(file)).hooks.PreToolUse[0]!.hooks[0]!;
    expect(commandHookShape.parse(pre)).toMatchObject({ timeout: 12, command: expect.stringMatching(/gatehouse-hook\.sh --home .* --timeout 8 \|\| /) });
    // Running it again changes nothing; the default stays 600 / 590 when no timeout was set.
    expect(writer.preview({ scope: 'user', mcp: 'none', hook: 'command' }).files[0]!.changed).toBe(false);
    // The HTTP form takes it too: the deadline header the host derives the inbox wait from.
    apply({ scope: 'user', mcp: 'none', hook: 'http' });
    pre = settingsShape.parse(readJson(file)).hooks.PreToolUse[0]!.hooks[0]!;
    expect(httpHookShape.parse(pre)).toMatchObject({ timeout: 12, headers: { 'X-Gatehouse-Hook-Deadline-Ms': '12000' } });

    for (const [timeout, why] of [
      [2, 'is 2 s; Gatehouse needs from 5 to 6000 s'],
      ['12', 'is "12", not a whole number of seconds'],
    ] as const) {
      const bad = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit-logger' }, { type: 'command', command: 'gatehouse hook', timeout }] }] } });
      writeFileSync(file, bad);
      expect(() => writer.preview({ scope: 'user', mcp: 'none', hook: 'command' })).toThrow(`"hooks.PreToolUse[0].hooks[1].timeout" ${why}`);
      expect(readFileSync(file, 'utf8')).toBe(bad);
    }
    writeFileSync(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'gatehouse hook' }] }] } }));
    apply({ scope: 'user', mcp: 'none', hook: 'command' });
    expect(settingsShape.parse(readJson(file)).hooks.PreToolUse[0]!.hooks[0]).toMatchObject({ timeout: 600, command: expect.stringContaining(' --timeout 590 ') });
  });

  it('any valid settings file, in any layout, comes out valid, with everything else as it was, and stays put', () => {
    const { project, writer } = setup();
    mkdirSync(join(project, '.claude'));
    const file = join(project, '.claude', 'settings.json');
    const group = fc.record({ matcher: fc.constantFrom('*', 'Bash', 'Edit|Write', ''), hooks: fc.array(fc.record({ type: fc.constant('command'), command: fc.string() }), { minLength: 1, maxLength: 3 }) });
    const settings = fc.record(
      { other: fc.dictionary(fc.string().filter((k) => k !== 'hooks'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), pre: fc.option(fc.array(group, { maxLength: 3 }), { nil: undefined }) },
    );
    const layout = fc.constantFrom<[string | number, string]>([0, '\n'], [2, '\n'], [4, '\n'], ['\t', '\n'], [2, '\r\n']);
    fc.assert(
      fc.property(settings, layout, fc.constantFrom('command' as const, 'http' as const), ({ other, pre }, [indent, eol], hook) => {
        const original = { ...other, ...(pre ? { hooks: { PreToolUse: pre } } : {}) };
        writeFileSync(file, JSON.stringify(original, null, indent).replace(/\n/g, eol));
        const req = { scope: 'project', projectDir: project, mcp: 'none', hook } as const;
        const [planned] = writer.preview(req).files;
        const after = JSON.parse(planned!.after) as Record<string, unknown>;
        const { hooks, ...rest } = after;
        // What the file held: JSON has no -0, so fc.jsonValue's -0 was written as 0.
        expect(rest).toEqual(JSON.parse(JSON.stringify(other)));
        const groups = settingsShape.parse(after).hooks.PreToolUse;
        expect(groups.slice(0, -1)).toEqual(pre ?? []);
        expect(groups.at(-1)).toMatchObject({ matcher: '*', hooks: [{ type: hook }] });
        expect(Object.keys(hooks as object)).toEqual(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
        writeFileSync(file, planned!.after);
        expect(writer.preview(req).files[0]!.changed).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a file that is not valid JSON, naming the file, line and column; nothing is written', () => {
    const { project, writer } = setup();
    mkdirSync(join(project, '.claude'));
    const file = join(project, '.claude', 'settings.json');
    const broken = '{\n  "model": "opus"\n  "hooks": {}\n}\n';
    writeFileSync(file, broken);
    const req = { scope: 'project', projectDir: project, mcp: 'none', hook: 'command' } as const;
    let err: unknown;
    try {
      writer.preview(req);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigFileError);
    const e = err as ConfigFileError;
    expect([e.file, e.line, e.column]).toEqual([file, 3, 3]);
    expect(e.message).toContain(`${file} is not valid JSON: line 3, column 3: a comma was expected`);
    expect(e.message).toContain('fix that line');
    expect(() => writer.write(req, [{ path: file, baseHash: 'x' }], 'operator:alice')).toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(backupsOf(join(project, '.claude'), 'settings.json')).toEqual([]);

    // Comments and trailing commas are not JSON either; nor is a list at the top.
    writeFileSync(file, '{\n  // mine\n  "a": 1\n}\n');
    expect(() => writer.preview(req)).toThrow(/line 2, column 3: a comment/);
    writeFileSync(file, '{"a": [1, 2,]}');
    expect(() => writer.preview(req)).toThrow(/line 1, column 13: a value was expected/);
    writeFileSync(file, '[]');
    expect(() => writer.preview(req)).toThrow(/holds a list, not a JSON object/);
    writeFileSync(file, '{"hooks": {"PreToolUse": {"matcher": "*"}}}');
    expect(() => writer.preview(req)).toThrow(/"hooks.PreToolUse" is an object, not a list/);
  });

  it('refuses to write a file that changed since the preview, and writes none of the others', () => {
    const { project, writer, events } = setup();
    const req = { scope: 'project', projectDir: project, mcp: 'stdio', hook: 'command' } as const;
    const preview = writer.preview(req);
    const mcpFile = join(project, '.mcp.json');
    // Another program writes .mcp.json between the preview and the apply.
    writeFileSync(mcpFile, '{"mcpServers": {}}\n');
    let err: unknown;
    try {
      writer.write(req, preview.files.map((f) => ({ path: f.path, baseHash: f.baseHash })), 'operator:alice');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OperationError);
    expect((err as OperationError).reason).toBe('changed');
    expect((err as Error).message).toBe(`${mcpFile} was created since the preview (another program, or Claude Code itself, wrote it). Nothing was written: look at the new diff and apply again.`);
    expect(existsSync(join(project, '.claude', 'settings.json'))).toBe(false);
    expect(readFileSync(mcpFile, 'utf8')).toBe('{"mcpServers": {}}\n');
    expect(events).toEqual([]);

    // A path the preview did not show is refused too.
    expect(() => writer.write(req, [{ path: mcpFile, baseHash: 'absent' }], 'operator:alice')).toThrow(/was not in the preview/);
  });

  it('writes through a symbolic link, keeping the link', () => {
    const { root, home, apply } = setup();
    const dotfiles = join(root, 'dotfiles');
    mkdirSync(dotfiles);
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(dotfiles, 'settings.json'), '{"theme": "dark"}\n');
    symlinkSync(join(dotfiles, 'settings.json'), join(home, '.claude', 'settings.json'));
    const { result } = apply({ scope: 'user', mcp: 'none', hook: 'command' });
    expect(result.files[0]!.written).toBe(true);
    expect(readJson(join(dotfiles, 'settings.json'))).toMatchObject({ theme: 'dark', hooks: { PreToolUse: [{ matcher: '*' }] } });
    expect(readFileSync(result.files[0]!.backup!, 'utf8')).toBe('{"theme": "dark"}\n');
  });

  it('says what is missing: a project folder, an HTTP endpoint, anything to write', () => {
    const { writer, project } = setup({ endpoints: null });
    expect(() => writer.preview({ scope: 'project', mcp: 'stdio', hook: 'none' })).toThrow(/Enter the project folder/);
    expect(() => writer.preview({ scope: 'project', projectDir: 'relative/dir', mcp: 'stdio', hook: 'none' })).toThrow(/must be an absolute path/);
    expect(() => writer.preview({ scope: 'project', projectDir: join(project, 'nope'), mcp: 'stdio', hook: 'none' })).toThrow(/does not exist/);
    expect(() => writer.preview({ scope: 'project', projectDir: project, mcp: 'http', hook: 'none' })).toThrow(/no MCP URL to write: choose the stdio bridge/);
    expect(() => writer.preview({ scope: 'project', projectDir: project, mcp: 'none', hook: 'http' })).toThrow(/no hook URL to write: choose the command form/);
    expect(() => writer.preview({ scope: 'user', mcp: 'none', hook: 'none' })).toThrow(/nothing to write/);
    // Without HTTP endpoints the stdio bridge and the command hook still work.
    expect(writer.preview({ scope: 'project', projectDir: project, mcp: 'stdio', hook: 'command' }).files.every((f) => f.changed)).toBe(true);
  });
});

describe('agents.preview / agents.write for Claude Code on a real host', () => {
  it('go through the contract, write the files and append agent.config-written without the token', async () => {
    const root = tempDir('gatehouse-claude-host-');
    const home = join(root, 'gatehouse');
    const userHome = join(root, 'user');
    mkdirSync(userHome);
    const host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false, claudeUserHome: userHome });
    try {
      host.setAgentEndpoints(endpoints);
      const op = (method: string, params: unknown) => host.dispatcher.dispatch(method, params, { operator: 'alice', console: 'serve' });
      const req = { agent: 'claude-code', scope: 'user', mcp: 'http', hook: 'http' };
      const preview = (await op('agents.preview', req)) as { ok: true; result: { files: { path: string; baseHash: string; diff: string }[]; notes: string[] } };
      expect(preview.ok).toBe(true);
      expect(preview.result.files.map((f) => f.path)).toEqual([join(userHome, '.claude', 'settings.json'), join(userHome, '.claude.json')]);
      expect(preview.result.notes.join(' ')).toContain('GATEHOUSE_AGENT_TOKEN');
      const expected = preview.result.files.map((f) => ({ path: f.path, baseHash: f.baseHash }));
      expect(await op('agents.write', { ...req, expected })).toEqual({
        ok: true,
        result: { files: expected.map((e) => ({ path: e.path, written: true, created: true, backup: null })) },
      });
      // A broken file comes back as a readable refusal, not an internal error.
      writeFileSync(join(userHome, '.claude.json'), '{"numStartups": 3,}');
      expect(await op('agents.preview', req)).toMatchObject({ ok: false, error: { code: 'rejected', message: expect.stringContaining('line 1, column 19') } });
    } finally {
      await host.close('test done');
    }
    const db = new Database(join(home, 'audit.db'), { readonly: true });
    const rows = db.prepare("SELECT type, actor, payload FROM events WHERE type = 'agent.config-written'").all() as { type: string; actor: string; payload: string }[];
    const all = (db.prepare('SELECT payload FROM events').all() as { payload: string }[]).map((r) => r.payload).join('\n');
    db.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actor).toBe('operator:alice');
    expect(checkEvent({ ...rows[0]!, payload: JSON.parse(rows[0]!.payload) })).toBeNull();
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ console: 'serve', scope: 'user', hook: 'http', mcp: 'http' });
    expect(all).not.toContain(TOKEN);
  });
});
