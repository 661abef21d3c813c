// Plugin manifests on real folders (test/fixtures/manifests/<case>/): WraithRun tool.toml and
// Gatehouse's own TOML, YAML and JSON manifests load to the expected normalized objects, and every
// validation rule has a fixture with its expected problem (code, field path, line and column,
// and a distinctive part of the message). Symbolic-link cases are built at run time in a temp dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findManifestFile, loadManifest, parseManifestSource, validateManifest } from '../../../main/registry/manifest/load-manifest.js';
import type { LoadOptions } from '../../../main/registry/manifest/load-manifest.js';
import type { PluginManifest, Problem } from '../../../main/registry/types.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'manifests');
const NOT_EXECUTABLE = join(FIXTURES, 'command-not-executable', 'run.sh');
const SCRIPT = '#!/bin/sh\ncat >/dev/null\necho \'{"ok": true}\'\n';

/** git keeps exec bits, but a checkout through other means may not: set them as the fixtures mean. */
function fixExecBits(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) fixExecBits(p);
    else if (p === NOT_EXECUTABLE) chmodSync(p, 0o644);
    else if (/\.sh$/.test(entry.name) || entry.name === 'rm' || entry.name === 'wget') chmodSync(p, 0o755);
  }
}

// Fixtures say which platform they run on; the tests pin "this machine" so they mean the same everywhere.
const load = (name: string, opts: LoadOptions = {}) => loadManifest(join(FIXTURES, name), { platform: 'linux', ...opts });

interface Expected {
  code: string;
  severity?: 'error' | 'warning';
  path?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
  message: RegExp;
}

/** The problems are exactly the expected ones (by code), each with its path, place and message. */
function expectProblems(problems: Problem[], expected: Expected[]): void {
  expect(problems.map((p) => p.code).sort()).toEqual(expected.map((e) => e.code).sort());
  for (const e of expected) {
    const p = problems.find((x) => x.code === e.code && ('path' in e ? x.path === e.path : true));
    expect(p, `a ${e.code} problem at ${e.path ?? '(no path)'}; got ${JSON.stringify(problems, null, 1)}`).toBeDefined();
    if (!p) continue;
    expect(p.severity).toBe(e.severity ?? 'error');
    if ('line' in e) expect({ line: p.line, column: p.column }).toEqual({ line: e.line, column: e.column });
    expect(p.message).toMatch(e.message);
    // One readable sentence: starts with a capital or a field, ends with a full stop, no line breaks.
    expect(p.message).toMatch(/^[A-Z`][^\n]*\.$/);
  }
}

beforeAll(() => fixExecBits(FIXTURES));

describe('acceptance: a WraithRun folder with only WraithRun fields loads unchanged', () => {
  // The JSON Schema agents see for wraithrun-hello/tool.toml: every WraithRun type, and exactly
  // the parameters marked required = true in the required list.
  const helloInputSchema: PluginManifest['tools'][number]['inputSchema'] = {
    type: 'object',
    properties: {
      who: { type: 'string', description: 'Who to greet' },
      times: { type: 'integer', description: 'How many times' },
      loud: { type: 'boolean' },
      ratio: { type: 'number' },
      tags: { type: 'array' },
      extra: { type: 'object' },
    },
    required: ['who', 'ratio'],
  };

  it('loads tool.toml with its parameters, and the JSON Schema for agents has the right types and required list', () => {
    const r = load('wraithrun-hello');
    expect(r.problems).toEqual([]);
    expect(r.manifestFile).toBe('tool.toml');
    const m = r.manifest;
    expect(m).not.toBeNull();
    expect(m?.format).toBe('wraithrun');
    expect(m?.tools).toHaveLength(1);
    const tool = m?.tools[0];
    expect(tool?.name).toBe('wraithrun-hello');
    expect(tool?.command).toBe('hello.sh');
    expect(tool?.inputSchema).toEqual(helloInputSchema);
    expect(m).toEqual({
      format: 'wraithrun',
      manifestFile: 'tool.toml',
      name: 'wraithrun-hello',
      description: 'Greets someone, WraithRun style.',
      version: '0.1.0',
      kind: 'tool',
      command: 'hello.sh',
      args: [],
      platforms: [],
      timeoutSecs: 10,
      permissions: { read: [], write: [], hosts: [], env: [] },
      sandbox: 'strict',
      classification: 'INTERNAL',
      pty: false,
      optional: false,
      config: null,
      tools: [
        {
          name: 'wraithrun-hello',
          description: 'Greets someone, WraithRun style.',
          command: 'hello.sh',
          args: [],
          parameters: {
            who: { type: 'string', required: true, description: 'Who to greet' },
            times: { type: 'integer', required: false, description: 'How many times' },
            loud: { type: 'boolean', required: false, description: '' },
            ratio: { type: 'number', required: true, description: '' },
            tags: { type: 'array', required: false, description: '' },
            extra: { type: 'object', required: false, description: '' },
          },
          inputSchema: helloInputSchema,
        },
      ],
    } satisfies PluginManifest);
  });

  it('applies the defaults to a tool.toml with only the required fields', () => {
    const r = load('wraithrun-minimal');
    expect(r.problems).toEqual([]);
    expect(r.manifest).toMatchObject({ version: null, kind: 'tool', timeoutSecs: 30, platforms: [], sandbox: 'strict', classification: 'INTERNAL', pty: false, optional: false, config: null });
    expect(r.manifest?.tools).toEqual([
      { name: 'wraithrun-minimal', description: 'The least a WraithRun tool.toml can say.', parameters: {}, inputSchema: { type: 'object', properties: {}, required: [] }, command: 'run.sh', args: [] },
    ]);
  });
});

describe("Gatehouse's own manifests in TOML, YAML and JSON", () => {
  const multi = (name: string, manifestFile: string): PluginManifest => ({
    format: 'gatehouse',
    manifestFile,
    name,
    description: 'File helpers.',
    version: '1.2.0',
    kind: 'tool',
    command: 'bin/files.sh',
    args: ['--json'],
    platforms: ['linux', 'macos'],
    timeoutSecs: 15,
    permissions: { read: ['~/projects', './data'], write: ['./out'], hosts: ['api.example.com:443', '10.0.0.0/8'], env: ['HOME', 'LANG'] },
    sandbox: 'strict',
    classification: 'CONFIDENTIAL',
    pty: false,
    optional: false,
    config: null,
    tools: [
      {
        name: 'count',
        description: 'Counts lines in a file.',
        parameters: { path: { type: 'string', required: true, description: 'File to count' } },
        inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'File to count' } }, required: ['path'] },
        command: 'bin/files.sh',
        args: ['--json'],
      },
      {
        name: 'grep',
        description: 'Finds a pattern.',
        parameters: { pattern: { type: 'string', required: true, description: '' }, max: { type: 'integer', required: false, description: '' } },
        inputSchema: { type: 'object', properties: { pattern: { type: 'string' }, max: { type: 'integer' } }, required: ['pattern'] },
        command: 'bin/grep.sh',
        args: [],
      },
    ],
  });
  const checker = (name: string, manifestFile: string): PluginManifest => ({
    format: 'gatehouse',
    manifestFile,
    name,
    description: 'Blocks paths outside allowed folders.',
    version: null,
    kind: 'checker',
    command: 'check.sh',
    args: [],
    platforms: [],
    // No timeout_secs: a checker's default is 5 s per evaluate (a tool's is 30 s).
    timeoutSecs: 5,
    permissions: { read: [], write: [], hosts: [], env: [] },
    sandbox: 'none',
    classification: 'RESTRICTED',
    pty: false,
    optional: true,
    config: { allowed: ['/tmp', '~/work'], block_network: true, limits: { per_minute: 60 } },
    tools: [],
  });
  const mcp = (name: string, manifestFile: string): PluginManifest => ({
    format: 'gatehouse',
    manifestFile,
    name,
    description: 'Filesystem MCP server.',
    version: null,
    kind: 'mcp',
    command: 'server.sh',
    args: ['--root', './data'],
    platforms: [],
    timeoutSecs: 60,
    permissions: { read: ['./data'], write: [], hosts: [], env: ['NODE_OPTIONS'] },
    sandbox: 'strict',
    classification: 'INTERNAL',
    pty: false,
    optional: false,
    config: null,
    tools: [],
  });

  it.each([
    ['multi-toml', 'gatehouse.toml', multi],
    ['multi-yaml', 'gatehouse.yaml', multi],
    ['multi-json', 'gatehouse.json', multi],
    ['checker-toml', 'gatehouse.toml', checker],
    ['checker-yaml', 'gatehouse.yml', checker],
    ['checker-json', 'gatehouse.json', checker],
    ['mcp-toml', 'gatehouse.toml', mcp],
    ['mcp-yaml', 'gatehouse.yaml', mcp],
    ['mcp-json', 'gatehouse.json', mcp],
  ] as const)('%s (%s) loads to the expected manifest', (name, file, expected) => {
    const r = load(name);
    expect(r.problems).toEqual([]);
    expect(r.manifestFile).toBe(file);
    expect(r.manifest).toEqual(expected(name, file));
  });

  it('finds the manifest file and tells the format', () => {
    expect(findManifestFile(join(FIXTURES, 'wraithrun-hello'))).toEqual({ file: 'tool.toml', path: join(FIXTURES, 'wraithrun-hello', 'tool.toml'), format: 'wraithrun', syntax: 'toml' });
    expect(findManifestFile(join(FIXTURES, 'checker-yaml'))).toMatchObject({ file: 'gatehouse.yml', format: 'gatehouse', syntax: 'yaml' });
    expect(findManifestFile(join(FIXTURES, 'mcp-json'))).toMatchObject({ file: 'gatehouse.json', format: 'gatehouse', syntax: 'json' });
  });

  it('maps the machine to a platform name: darwin is macos, win32 is windows', () => {
    expect(load('multi-toml', { platform: 'darwin' }).problems).toEqual([]);
    const r = load('multi-toml', { platform: 'win32' });
    expect(r.manifest).toBeNull();
    expectProblems(r.problems, [{ code: 'platform.unsupported', path: 'platforms', line: 6, column: 1, message: /runs on linux and macos only; this machine is windows/ }]);
    expect(load('platform-unsupported', { platform: 'win32' }).problems).toEqual([]);
  });
});

describe('validation: every rule has a fixture with its expected message', () => {
  const cases: [name: string, expected: Expected[], opts?: LoadOptions][] = [
    // --- syntax
    ['syntax-toml', [{ code: 'manifest.syntax', path: undefined, line: 4, column: 19, message: /^TOML syntax error at line 4, column 19: .*end-of-line/ }]],
    ['syntax-yaml', [{ code: 'manifest.syntax', path: undefined, line: 6, column: 11, message: /^YAML syntax error at line 6, column 11: Nested mappings are not allowed/ }]],
    ['syntax-json', [{ code: 'manifest.syntax', path: undefined, line: 5, column: 1, message: /^JSON syntax error at line 5, column 1: Expected double-quoted property name; fix the JSON there\.$/ }]],
    // --- schema
    ['unknown-field-top', [{ code: 'manifest.unknown-field', path: 'timeout', line: 4, column: 1, message: /Unknown field `timeout` in the manifest \(did you mean `timeout_secs`\?\); the fields allowed here are name, description, version, command/ }]],
    ['unknown-field-nested', [{ code: 'manifest.unknown-field', path: 'parameters.path.requried', line: 7, column: 5, message: /Unknown field `requried` in `parameters.path` \(did you mean `required`\?\); the fields allowed here are type, required and description\./ }]],
    ['unknown-field-json', [{ code: 'manifest.unknown-field', path: 'permissions.network', line: 7, column: 5, message: /Unknown field `network` in `permissions`; the fields allowed here are read, write, hosts, env and log\./ }]],
    ['mistyped-field', [{ code: 'manifest.type', path: 'timeout_secs', line: 4, column: 1, message: /^`timeout_secs` must be an integer, got the string "30"; write timeout_secs = 30 without quotes\.$/ }]],
    [
      'mistyped-yaml',
      [
        { code: 'manifest.type', path: 'args', line: 4, column: 1, message: /`args` must be a list of strings, got the string "--verbose"; write it as a list: args: \["--verbose"\]\./ },
        { code: 'manifest.type', path: 'pty', line: 5, column: 1, message: /`pty` must be true or false, got the string "true"; write pty: true without quotes\./ },
      ],
    ],
    [
      'missing-required',
      [
        { code: 'manifest.required', path: 'command', line: undefined, column: undefined, message: /required field `command` is missing from the manifest; add the executable to run, relative to the plugin folder, e\.g\. command = "run\.sh"/ },
        { code: 'manifest.required', path: 'parameters.path.type', line: 4, column: 2, message: /required field `type` is missing from `parameters.path`; add one of string, number/ },
      ],
    ],
    [
      'bad-enum',
      [
        { code: 'manifest.enum', path: 'platforms[1]', line: 4, column: 23, message: /`platforms\[1\]` must be one of "linux", "macos" or "windows", got the string "freebsd"/ },
        { code: 'manifest.enum', path: 'classification', line: 5, column: 1, message: /must be one of "PUBLIC", "INTERNAL", "CONFIDENTIAL" or "RESTRICTED", got the string "internal"; use one of those \(did you mean "INTERNAL"\?\)/ },
        { code: 'manifest.enum', path: 'sandbox', line: 6, column: 1, message: /`sandbox` must be one of "strict" or "none", got the string "off"/ },
      ],
    ],
    ['bad-param-type', [{ code: 'parameter.type', path: 'parameters.count.type', line: 6, column: 1, message: /Parameter `count` has type "int", which is not a supported parameter type; use one of string, number, integer, boolean, array or object \(did you mean "integer"\?\)/ }]],
    ['bad-param-name', [{ code: 'parameter.name', path: 'parameters.file path', line: 5, column: 2, message: /parameter name "file path" in `parameters` is not accepted by model APIs.*e\.g\. "file_path"/ }]],
    ['empty-description', [{ code: 'manifest.empty', path: 'description', line: 2, column: 1, message: /`description` is empty; write one line telling the agent what it does/ }]],
    ['timeout-zero', [{ code: 'manifest.range', path: 'timeout_secs', line: 4, column: 1, message: /`timeout_secs` must be at least 1, got the number 0/ }]],
    ['bad-env-name', [{ code: 'manifest.pattern', path: 'permissions.env[1]', line: 6, column: 16, message: /"MY-TOKEN" is not an environment variable name/ }]],
    ['tools-empty', [{ code: 'manifest.empty', path: 'tools', line: 5, column: 3, message: /`tools` is empty; declare at least one tool in it, or remove it/ }]],
    ['not-a-table', [{ code: 'manifest.type', path: undefined, line: undefined, column: undefined, message: /The manifest must be a mapping of fields such as name, description and command, got a list/ }]],
    ['parameters-and-tools', [{ code: 'manifest.parameters-and-tools', path: 'tools', line: 8, column: 2, message: /both top-level `parameters` and `tools`/ }]],
    ['checker-with-tools', [{ code: 'manifest.tools-not-allowed', path: 'tools', line: 6, column: 2, message: /`tools` is not allowed in a plugin of kind "checker" because a checker has no tools/ }]],
    ['mcp-with-parameters', [{ code: 'manifest.tools-not-allowed', path: 'parameters', line: 5, column: 1, message: /`parameters` is not allowed in a plugin of kind "mcp" because an mcp plugin's tools are discovered from its MCP server at run time/ }]],
    // --- names
    ['bad-name-underscore', [{ code: 'name.invalid', path: 'name', line: 1, column: 1, message: /plugin name `name` = "my__tool" contains a double underscore, which is reserved to separate plugin and tool names.*e\.g\. "my_tool"/ }]],
    ['bad-name-long', [{ code: 'name.invalid', path: 'name', line: 1, column: 1, message: /is 70 characters long, more than the 64 that MCP allows/ }]],
    ['bad-name-spaces', [{ code: 'name.invalid', path: 'name', line: 1, column: 1, message: /"my tool" contains a space, which is not allowed; use 1 to 64 letters, digits, _ or -.*e\.g\. "my-tool"/ }]],
    ['bad-name-trailing', [{ code: 'name.invalid', path: 'name', line: 1, column: 1, message: /"trailing_" ends with an underscore, which would make plugin__tool names ambiguous/ }]],
    ['bad-tool-name', [{ code: 'name.invalid', path: 'tools.read__file', line: 5, column: 2, message: /tool name "read__file" in `tools` contains a double underscore/ }]],
    ['name-mismatch', [{ code: 'name.folder-mismatch', severity: 'warning', path: 'name', line: 1, column: 1, message: /named "other-name" but its folder is "name-mismatch"/ }]],
    ['optional-on-tool', [{ code: 'manifest.optional-ignored', severity: 'warning', path: 'optional', line: 4, column: 1, message: /`optional` only applies to checkers and this plugin's kind is "tool"/ }]],
    ['version-not-semver', [{ code: 'manifest.version', severity: 'warning', path: 'version', line: 4, column: 1, message: /"1\.0" is not a semantic version.*"1\.0\.0"/ }]],
    // --- commands
    ['command-absolute', [{ code: 'command.absolute', path: 'command', line: 3, column: 1, message: /`command` = "\/bin\/echo" is an absolute path, but a plugin may only run a file inside its own folder/ }]],
    ['command-parent', [{ code: 'command.parent', path: 'command', line: 3, column: 1, message: /contains "\.\.", but the command must stay inside the plugin folder/ }]],
    ['command-missing', [{ code: 'command.missing', path: 'command', line: 3, column: 1, message: /`command` = "run\.sh" does not exist in the plugin folder; create the file or fix the path\./ }]],
    ['tool-command-missing', [{ code: 'command.missing', path: 'tools.broken.command', line: 10, column: 1, message: /`tools\.broken\.command` = "bin\/broken\.sh" does not exist/ }]],
    ['command-not-executable', [{ code: 'command.not-executable', path: 'command', line: 3, column: 1, message: /`command` = "run\.sh" is not executable; run chmod \+x run\.sh in the plugin folder/ }]],
    ['command-is-folder', [{ code: 'command.not-executable', path: 'command', line: 3, column: 1, message: /`command` = "bin" is a folder, not an executable file/ }]],
    ['command-denied', [{ code: 'command.denied', path: 'command', line: 3, column: 1, message: /`command` = "rm" runs rm, a program on the command denylist/ }]],
    ['command-denied-extended', [{ code: 'command.denied', path: 'command', line: 3, column: 1, message: /`command` = "wget" runs wget, a program on the command denylist/ }], { denylist: ['wget'] }],
    ['platform-unsupported', [{ code: 'platform.unsupported', path: 'platforms', line: 4, column: 1, message: /^This plugin runs on windows only; this machine is linux, so it cannot run here/ }]],
    // --- folders
    ['two-manifests', [{ code: 'manifest.ambiguous', path: undefined, message: /has 2 manifests, tool\.toml and gatehouse\.yaml.*keep one and delete the other/ }]],
    ['two-gatehouse-manifests', [{ code: 'manifest.ambiguous', path: undefined, message: /has 2 manifests, gatehouse\.toml and gatehouse\.json/ }]],
    ['no-manifest', [{ code: 'manifest.missing', path: undefined, message: /has no manifest; add tool\.toml/ }]],
  ];

  it.each(cases)('%s', (name, expected, opts) => {
    const r = load(name, opts);
    expectProblems(r.problems, expected);
    const invalid = expected.some((e) => (e.severity ?? 'error') === 'error');
    if (invalid) expect(r.manifest, 'an invalid plugin has no manifest, so it can never run').toBeNull();
    else expect(r.manifest).not.toBeNull();
    const folderLevel: Record<string, string> = { 'two-manifests': 'tool.toml', 'two-gatehouse-manifests': 'gatehouse.toml', 'no-manifest': '.' };
    for (const p of r.problems) expect(p.file).toBe(r.manifestFile ?? folderLevel[name]);
  });

  it('the operator-extended denylist only applies when given', () => {
    expect(load('command-denied-extended').problems).toEqual([]);
  });

  it('a JSON syntax error without a position in V8 message still gets its line and column', () => {
    const r = parseManifestSource('gatehouse.json', '{\n  "name": "x",\n  "description": }\n');
    expect(r.raw).toBeNull();
    expectProblems(r.problems, [{ code: 'manifest.syntax', line: 3, column: 18, message: /^JSON syntax error at line 3, column 18: Unexpected token '\}'; fix the JSON there\.$/ }]);
    const end = parseManifestSource('gatehouse.json', '{\n  "name": "x"');
    expectProblems(end.problems, [{ code: 'manifest.syntax', line: 2, column: 14, message: /^JSON syntax error at line 2, column 14: / }]);
  });

  it('TOML and YAML syntax errors carry the parser message with 1-based positions', () => {
    const toml = parseManifestSource('tool.toml', 'name = "x"\n[parameters.path\n');
    expect(toml.problems).toHaveLength(1);
    expect(toml.problems[0]).toMatchObject({ code: 'manifest.syntax', file: 'tool.toml', line: 2, severity: 'error' });
    const yaml = parseManifestSource('gatehouse.yaml', 'name: x\ndescription: "unterminated\n');
    // yaml reports an unclosed quote where the text ends.
    expect(yaml.problems[0]).toMatchObject({ code: 'manifest.syntax', file: 'gatehouse.yaml', line: 3, column: 1, message: 'YAML syntax error at line 3, column 1: Missing closing "quote; fix the YAML there.' });
    expect(parseManifestSource('gatehouse.yaml', 'name: x\nname: y\n').problems[0]).toMatchObject({ code: 'manifest.syntax', line: 2, column: 1, message: /unique/ });
  });

  it('validates a manifest in memory, locating fields in TOML inline tables and dotted keys', () => {
    const dir = join(FIXTURES, 'multi-toml');
    const source = 'name = "multi-toml"\ndescription = "x"\ncommand = "bin/files.sh"\n\n[tools.grep]\ndescription = "d"\nparameters.pattern = { type = "regex", required = true }\nparameters.max.type = "int"\n';
    const parsed = parseManifestSource('gatehouse.toml', source);
    const r = validateManifest(parsed.raw, { dir, manifestFile: 'gatehouse.toml', source, platform: 'linux' });
    expect(r.manifest).toBeNull();
    expectProblems(r.problems, [
      { code: 'parameter.type', path: 'tools.grep.parameters.pattern.type', line: 7, column: 24, message: /Parameter `pattern` has type "regex"/ },
      { code: 'parameter.type', path: 'tools.grep.parameters.max.type', line: 8, column: 16, message: /Parameter `max` has type "int".*"integer"/ },
    ]);
    // Without the source the same problems come without a place.
    const bare = validateManifest(parsed.raw, { dir, manifestFile: 'gatehouse.toml', platform: 'linux' });
    expect(bare.problems.map((p) => p.line)).toEqual([undefined, undefined]);
  });

  it('never throws on arbitrary text, and every syntax error points inside the text', () => {
    const manifestish = fc.stringMatching(/^[a-z_ ="'[\]{},.:#\n\-0-9]{0,60}$/);
    fc.assert(
      fc.property(fc.constantFrom('tool.toml', 'gatehouse.yaml', 'gatehouse.json'), fc.oneof(manifestish, fc.string({ maxLength: 60 })), (file, text) => {
        const r = parseManifestSource(file, text);
        const lines = text.split(/\r\n|\r|\n/);
        for (const p of r.problems) {
          expect(p.code).toBe('manifest.syntax');
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.line).toBeLessThanOrEqual(lines.length + 1);
          expect(p.column).toBeGreaterThanOrEqual(1);
        }
        if (r.problems.length === 0) {
          // A parsed value validates without throwing, and locating fields in its text never hangs.
          const v = validateManifest(r.raw, { dir: join(FIXTURES, 'no-manifest'), manifestFile: file, source: text, platform: 'linux' });
          expect(Array.isArray(v.problems)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('a source that does not match the value still yields problems, without places it cannot find', () => {
    const r = validateManifest({ name: 'no-manifest' }, { dir: join(FIXTURES, 'no-manifest'), manifestFile: 'tool.toml', source: '[a = }{ ,,, ]] [[ "', platform: 'linux' });
    expect(r.manifest).toBeNull();
    expect(r.problems.map((p) => p.code)).toEqual(['manifest.required', 'manifest.required']);
  });

  it('reports every problem at once, mistyped fields without a cascade', () => {
    const source = JSON.stringify({ name: 'a b', description: 3, command: '/bin/sh', kind: 'plugin', platforms: 'linux', timeout_secs: 2.5 }, null, 2);
    const r = validateManifest(JSON.parse(source), { dir: join(FIXTURES, 'multi-json'), manifestFile: 'gatehouse.json', source, platform: 'linux' });
    expectProblems(r.problems, [
      { code: 'name.invalid', path: 'name', line: 2, column: 3, message: /contains a space/ },
      { code: 'manifest.type', path: 'description', line: 3, column: 3, message: /`description` must be a string, got the number 3; put it in quotes: "description": "3"\./ },
      { code: 'command.absolute', path: 'command', line: 4, column: 3, message: /absolute path/ },
      { code: 'manifest.enum', path: 'kind', line: 5, column: 3, message: /`kind` must be one of "tool", "checker", "mcp" or "wasm", got the string "plugin"/ },
      { code: 'manifest.type', path: 'platforms', line: 6, column: 3, message: /`platforms` must be an array, got the string "linux"; write it as an array: "platforms": \["linux"\]\./ },
      { code: 'manifest.type', path: 'timeout_secs', line: 7, column: 3, message: /must be an integer, got the number 2\.5; use a whole number such as 3/ },
    ]);
  });
});

describe('commands that leave the plugin folder through symbolic links (built at run time)', () => {
  let root: string;
  const rmPath = ['/bin/rm', '/usr/bin/rm'].find((p) => existsSync(p)) ?? '/bin/rm';

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-manifest-'));
    mkdirSync(join(root, 'outside'));
    writeFileSync(join(root, 'outside', 'tool.sh'), SCRIPT, { mode: 0o755 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A plugin folder whose tool.toml runs `command`; `setup` adds files and links. */
  function plugin(name: string, command: string, setup: (dir: string) => void): string {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'tool.toml'), `name = "${name}"\ndescription = "Symlink case."\ncommand = "${command}"\n`);
    setup(dir);
    return dir;
  }

  it('a command linking to a file outside the folder is an escape', () => {
    const dir = plugin('link-out', 'run.sh', (d) => symlinkSync(join(root, 'outside', 'tool.sh'), join(d, 'run.sh')));
    const r = loadManifest(dir, { platform: 'linux' });
    expect(r.manifest).toBeNull();
    expectProblems(r.problems, [{ code: 'command.escape', path: 'command', line: 3, column: 1, message: new RegExp(`resolves through a symbolic link to ${escapeRe(join(root, 'outside', 'tool.sh'))}, outside the plugin folder`) }]);
  });

  it('a command under a linked folder that points outside is an escape', () => {
    const dir = plugin('dir-link-out', 'bin/tool.sh', (d) => symlinkSync(join(root, 'outside'), join(d, 'bin')));
    expectProblems(loadManifest(dir, { platform: 'linux' }).problems, [{ code: 'command.escape', path: 'command', message: /outside the plugin folder/ }]);
  });

  it('a dangling link that points outside is an escape, one that points inside is missing', () => {
    const out = plugin('dangling-out', 'run.sh', (d) => symlinkSync(join(root, 'outside', 'gone.sh'), join(d, 'run.sh')));
    expectProblems(loadManifest(out, { platform: 'linux' }).problems, [{ code: 'command.escape', path: 'command', message: /is a symbolic link to .*gone\.sh, outside the plugin folder/ }]);
    const inside = plugin('dangling-in', 'run.sh', (d) => symlinkSync('gone.sh', join(d, 'run.sh')));
    expectProblems(loadManifest(inside, { platform: 'linux' }).problems, [{ code: 'command.missing', path: 'command', message: /is a symbolic link to .*gone\.sh, which does not exist/ }]);
  });

  it('an innocently named link to /bin/rm is denied (and escapes)', () => {
    const dir = plugin('innocent', 'cleanup', (d) => symlinkSync(rmPath, join(d, 'cleanup')));
    const r = loadManifest(dir, { platform: 'linux' });
    expect(r.manifest).toBeNull();
    expectProblems(r.problems, [
      { code: 'command.denied', path: 'command', line: 3, column: 1, message: new RegExp(`\`command\` = "cleanup" resolves to ${escapeRe(rmPath)}, which is rm, a program on the command denylist`) },
      { code: 'command.escape', path: 'command', message: /outside the plugin folder/ },
    ]);
  });

  it('a link inside the folder to a file named like a denied program is denied too', () => {
    const dir = plugin('inner-alias', 'run', (d) => {
      writeFileSync(join(d, 'kill'), SCRIPT, { mode: 0o755 });
      symlinkSync('kill', join(d, 'run'));
    });
    expectProblems(loadManifest(dir, { platform: 'linux' }).problems, [{ code: 'command.denied', path: 'command', message: /"run" resolves to .*kill, which is kill/ }]);
  });

  it('a manifest that is too large or unreadable is refused with a reason', () => {
    const big = plugin('big', 'run.sh', (d) => writeFileSync(join(d, 'tool.toml'), `# ${'x'.repeat(1 << 20)}\n`));
    expectProblems(loadManifest(big).problems, [{ code: 'manifest.too-large', message: /tool\.toml is \d+ bytes, more than the 1048576 a manifest may have/ }]);
    const dirAsFile = join(root, 'unreadable');
    mkdirSync(join(dirAsFile, 'gatehouse.yaml'), { recursive: true });
    expectProblems(loadManifest(dirAsFile).problems, [{ code: 'manifest.read', message: /gatehouse\.yaml cannot be read \(EISDIR\)/ }]);
    expectProblems(parseManifestSource('plugin.ini', 'name = x').problems, [{ code: 'manifest.format', message: /The file plugin\.ini is not a manifest Gatehouse reads/ }]);
  });

  it('a link that stays inside the folder is fine', () => {
    const dir = plugin('link-in', 'run.sh', (d) => {
      mkdirSync(join(d, 'bin'));
      writeFileSync(join(d, 'bin', 'real.sh'), SCRIPT, { mode: 0o755 });
      symlinkSync(join('bin', 'real.sh'), join(d, 'run.sh'));
    });
    const r = loadManifest(dir, { platform: 'linux' });
    expect(r.problems).toEqual([]);
    expect(r.manifest?.command).toBe('run.sh');
  });

  it('a plugin folder reached through a link is judged by its real location', () => {
    const real = plugin('real-home', 'run.sh', (d) => writeFileSync(join(d, 'run.sh'), SCRIPT, { mode: 0o755 }));
    symlinkSync(real, join(root, 'real-home-link'));
    const r = loadManifest(join(root, 'real-home-link'), { platform: 'linux' });
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });
});

describe('speed', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gatehouse-manifest-bench-'));
    const sources = ['multi-toml', 'multi-yaml', 'multi-json', 'wraithrun-hello', 'checker-toml', 'mcp-yaml', 'checker-json', 'wraithrun-minimal'];
    for (let i = 0; i < 200; i++) {
      const from = sources[i % sources.length] ?? 'wraithrun-minimal';
      const to = join(root, `${from}-${i}`);
      cpSync(join(FIXTURES, from), to, { recursive: true });
      // Each copy is named after its folder, as real plugins are.
      const manifest = findManifestFile(to);
      if ('path' in manifest) writeFileSync(manifest.path, readFileSync(manifest.path, 'utf8').replace(from, `${from}-${i}`));
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('discovers and validates 200 small plugins (their speed is measured by npm run bench)', () => {
    const results = readdirSync(root)
      .filter((n) => statSync(join(root, n)).isDirectory())
      .map((n) => loadManifest(join(root, n), { platform: 'linux' }));
    expect(results).toHaveLength(200);
    expect(results.every((r) => r.manifest !== null && r.problems.length === 0)).toBe(true);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
