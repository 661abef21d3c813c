// Every command of the built CLI has --help ending in an example, and every usage mistake reads
// the same: one error line, that command's usage line, exit 2. The command list comes from the
// program itself (buildProgram), so a command added later is checked without touching this file.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../main/cli/program.js';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

interface Node {
  path: string[];
  cmd: Command;
}

function walk(cmd: Command, path: string[] = []): Node[] {
  return [{ path, cmd }, ...cmd.commands.flatMap((c) => walk(c, [...path, c.name()]))];
}

const tree = walk(buildProgram());
const name = (n: Node) => ['gatehouse', ...n.path].join(' ');
const groups = tree.filter((n) => n.cmd.commands.length > 0);
const withRequiredArgument = tree.filter((n) => n.cmd.registeredArguments.some((a) => a.required));

/** stderr as lines; a usage mistake must be exactly [error, usage]. */
function lines(stderr: string): string[] {
  return stderr.trimEnd().split('\n');
}

/** Asserts the two-line shape and returns the error line. */
function expectUsageMistake(r: { code: number | null; stdout: string; stderr: string }, usage: RegExp | string): string {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  const l = lines(r.stderr);
  expect(l, r.stderr).toHaveLength(2);
  expect(l[0]).toMatch(/^(error|gatehouse): /);
  if (typeof usage === 'string') expect(l[1]).toBe(usage);
  else expect(l[1]).toMatch(usage);
  return l[0]!;
}

describe('the command tree', () => {
  it('holds every command group (so the checks below cannot pass on an empty walk)', () => {
    const names = tree.map(name);
    for (const n of ['gatehouse', 'gatehouse serve', 'gatehouse doctor', 'gatehouse mcp', 'gatehouse hook', 'gatehouse plugin list', 'gatehouse plugin trust', 'gatehouse approvals deny', 'gatehouse audit search', 'gatehouse audit verify']) {
      expect(names).toContain(n);
    }
    expect(groups.map(name)).toEqual(expect.arrayContaining(['gatehouse', 'gatehouse plugin', 'gatehouse approvals', 'gatehouse audit']));
  });

  it.each(tree.map((n) => [name(n), n] as const))('%s has a description', (_name, n) => {
    expect(n.cmd.description().trim()).not.toBe('');
  });
});

describe.concurrent('--help', () => {
  it.each(tree.map((n) => [name(n), n] as const))('%s --help exits 0 and ends with an example', async (full, n) => {
    const r = await runCli([...n.path, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const out = r.stdout.trimEnd().split('\n');
    expect(out[0]).toMatch(new RegExp(`^Usage: ${full.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
    // The last section is Example(s): indented lines only, at least one that is not a comment.
    const head = out.findLastIndex((l) => /^Examples?:$/.test(l));
    expect(head, r.stdout).toBeGreaterThan(0);
    const section = out.slice(head + 1);
    expect(section.every((l) => l === '' || l.startsWith('  ')), r.stdout).toBe(true);
    expect(section.filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#')).length, r.stdout).toBeGreaterThan(0);
  });
});

describe.concurrent('usage mistakes: one error line, the usage line, exit 2', () => {
  it.each(tree.map((n) => [name(n), n] as const))('%s with an unknown option', async (full, n) => {
    // Commander reports a missing required option before an unknown one; give those.
    const required = n.cmd.options.filter((o) => o.mandatory).flatMap((o) => [o.long!, 'x']);
    const r = await runCli([...n.path, ...required, '--no-such-flag']);
    const error = expectUsageMistake(r, new RegExp(`^Usage: ${full} \\[options\\]`));
    expect(error).toBe("error: unknown option '--no-such-flag'");
  });

  it.each(groups.map((n) => [name(n), n] as const))('%s with an unknown subcommand names the commands', async (full, n) => {
    const r = await runCli([...n.path, 'no-such-command']);
    const error = expectUsageMistake(r, `Usage: ${full} [options] [command]`);
    const commands = n.cmd.commands.map((c) => c.name()).join(', ');
    expect(error).toBe(`error: unknown command 'no-such-command' (commands: ${commands})`);
  });

  it.each(withRequiredArgument.map((n) => [name(n), n] as const))('%s without its argument', async (full, n) => {
    const r = await runCli(n.path);
    const error = expectUsageMistake(r, new RegExp(`^Usage: ${full} \\[options\\] <`));
    // Commander checks required options before arguments; either way one "missing" line.
    expect(error).toMatch(/^error: (missing required argument '.+'|required option '.+' not specified)$/);
  });

  it.each([
    ['a misspelt command at the top', ['serv'], "error: unknown command 'serv' (Did you mean serve?)", 'Usage: gatehouse [options] [command]'],
    ['a misspelt audit command', ['audit', 'serch'], "error: unknown command 'serch' (Did you mean search?)", 'Usage: gatehouse audit [options] [command]'],
    ['a misspelt option', ['approvals', 'approve', 'appr-1', '--sesion'], "error: unknown option '--sesion' (Did you mean --session?)", 'Usage: gatehouse approvals approve [options] <id>'],
    ['a missing argument', ['approvals', 'approve'], "error: missing required argument 'id'", 'Usage: gatehouse approvals approve [options] <id>'],
    ['a missing required option', ['approvals', 'deny', 'appr-1'], "error: required option '--reason <text>' not specified", 'Usage: gatehouse approvals deny [options] <id>'],
    ['an extra argument', ['plugin', 'validate', 'a', 'b'], "error: too many arguments for 'validate'. Expected 1 argument but got 2.", 'Usage: gatehouse plugin validate [options] <dir>'],
    ['an option without its value', ['audit', 'export', '--since'], "error: option '--since <when>' argument missing", 'Usage: gatehouse audit export [options]'],
    ['a bad port', ['serve', '--port', 'abc'], 'gatehouse: --port must be a number from 0 to 65535 (0 picks a free port), not "abc".', 'Usage: gatehouse serve [options]'],
    ['a port out of range', ['serve', '--port', '70000'], 'gatehouse: --port must be a number from 0 to 65535 (0 picks a free port), not "70000".', 'Usage: gatehouse serve [options]'],
    ['a negative port', ['serve', '--port=-1'], 'gatehouse: --port must be a number from 0 to 65535 (0 picks a free port), not "-1".', 'Usage: gatehouse serve [options]'],
    ['a token on the command line (readable by every process)', ['serve', '--port', '0', '--token', 'short'], /^gatehouse: --token is refused: a token on the command line is visible to every process on this machine \(\/proc\/PID\/cmdline\)\. .*--token-file PATH.*GATEHOUSE_TOKEN\.$/, 'Usage: gatehouse serve [options]'],
    ['a token file that does not exist', ['serve', '--port', '0', '--token-file', '/nonexistent/gatehouse-token'], /^gatehouse: Cannot read the token from --token-file \/nonexistent\/gatehouse-token: ENOENT/, 'Usage: gatehouse serve [options]'],
    ['a bad language', ['plugin', 'new', 'x', '--lang', 'cobol'], /^gatehouse: --lang must be one of .*, not "cobol"\.$/, 'Usage: gatehouse plugin new [options] <name>'],
    ['a bad hook answer', ['hook', '--unreachable', 'maybe'], 'gatehouse: --unreachable must be deny or ask, not "maybe".', 'Usage: gatehouse hook [options]'],
    ['a bad limit', ['audit', 'search', 'x', '--limit', '0'], 'gatehouse: --limit must be a whole number from 1 to 1000, not "0".', 'Usage: gatehouse audit search [options] [query]'],
    ['a doctor option without its value', ['doctor', '--plugins-dir'], "error: option '--plugins-dir <dir>' argument missing", 'Usage: gatehouse doctor [options]'],
    ['an mcp option without its value', ['mcp', '--home'], "error: option '--home <dir>' argument missing", 'Usage: gatehouse mcp [options]'],
  ] as const)('%s', async (_what, args, message, usage) => {
    const home = tempDir();
    // Commands that reach their action get a home of their own, never the user's.
    const r = await runCli([...args], { GATEHOUSE_HOME: home, XDG_CONFIG_HOME: home });
    const error = expectUsageMistake(r, usage);
    if (typeof message === 'string') expect(error).toBe(message);
    else expect(error).toMatch(message);
  });

  it.each(groups.filter((n) => n.path.length > 0).map((n) => [name(n), n] as const))('%s alone prints its help on stderr and exits 2', async (full, n) => {
    const r = await runCli(n.path);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^Usage: ${full} \\[options\\] \\[command\\]\\n`));
    for (const c of n.cmd.commands) expect(r.stderr).toContain(`  ${c.name()}`);
    expect(r.stderr).toMatch(/\nExamples?:\n/);
  });
});
