import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor, normalisePath, parseShell } from '../../../main/policy/extract/index.js';
import type { Script } from '../../../main/policy/extract/index.js';
import type { Operation, ToolCall } from '../../../main/policy/types.js';
import corpus from '../../fixtures/shell-corpus.json' with { type: 'json' };

interface Case {
  command: string;
  note: string;
  operations: Operation[];
  paths: string[];
  hosts: string[];
  evasive: boolean;
}

const HOME = corpus.home;
const CWD = corpus.cwd;

function call(tool: string, args: Record<string, unknown> | null, cwd = CWD): ToolCall {
  return { id: 'c1', agent: 'test', session: 's1', tool, arguments: args, cwd, source: 'hook', receivedAt: 0 };
}

function bash(command: string, cwd = CWD, resolveSymlinks = false) {
  return extract(call('Bash', { command }, cwd), { home: HOME, resolveSymlinks });
}

/** Words of the first simple command of a parsed script. */
function firstWords(s: Script): string[] {
  const st = s.pipelines[0]?.stages[0];
  if (!st || st.kind !== 'cmd') return [];
  return st.words.map((w) => w.text);
}

const singleQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const doubleQuote = (s: string): string => `"${s.replace(/["$`\\]/g, '\\$&')}"`;
const backslashed = (s: string): string => s.replace(/[^A-Za-z0-9_/.,:@%+=-]/g, (ch) => (ch === '\n' ? `'\n'` : '\\' + ch));

// Bash strings cannot contain NUL; everything else is fair game.
const shellString = fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\0/g, ''));

beforeAll(async () => {
  await initExtractor();
});

describe('shell corpus', () => {
  const cases = corpus.cases as Case[];

  it('has at least 60 commands, bypass attempts included', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(cases.filter((c) => c.evasive).length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases.map((c) => [c.note, c] as const))('%s', (_note, c) => {
    const e = bash(c.command);
    expect({ operations: e.operations, paths: e.paths, hosts: e.hosts, evasive: e.evasive }).toEqual({
      operations: c.operations,
      paths: c.paths,
      hosts: c.hosts,
      evasive: c.evasive,
    });
    expect(e.command).toBe(c.command);
    expect(e.evasiveReasons.length > 0).toBe(e.evasive);
    // Every shell command executes something.
    expect(e.operations).toContain('execute');
  });
});

describe('bypass equivalences', () => {
  it('~, $HOME and ${HOME} give the same path', () => {
    const a = bash('cat ~/.ssh/id_rsa').paths;
    expect(bash('cat $HOME/.ssh/id_rsa').paths).toEqual(a);
    expect(bash('cat ${HOME}/.ssh/id_rsa').paths).toEqual(a);
    expect(bash('cat "$HOME"/.ssh/id_rsa').paths).toEqual(a);
    expect(extract(call('Read', { file_path: '$HOME/.ssh/id_rsa' }), { home: HOME }).paths).toEqual(a);
    expect(extract(call('Read', { file_path: '~/.ssh/id_rsa' }), { home: HOME }).paths).toEqual(a);
  });

  it('quoting tricks in the command word are seen through', () => {
    for (const cmd of ["r''m -rf /", '"r"m -rf /', '\\rm -rf /', "'rm' -rf /", "$'\\x72\\x6d' -rf /", 'command rm -rf /']) {
      const e = bash(cmd);
      expect(e.operations, cmd).toContain('delete');
      expect(e.paths, cmd).toEqual(['/']);
    }
  });

  it('cd before a relative path moves the path', () => {
    expect(bash('cd /etc; cat ./passwd').paths).toContain('/etc/passwd');
    expect(bash('cd ~ && rm -rf .ssh').paths).toContain(`${HOME}/.ssh`);
  });

  it('the caller env is used for variables', () => {
    const e = extract(call('Bash', { command: 'cat $CONF/app.yaml' }), { home: HOME, env: { CONF: '/etc/app' }, resolveSymlinks: false });
    expect(e.paths).toEqual(['/etc/app/app.yaml']);
  });
});

describe('symlinked paths (real temp dir)', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'gh-extract-')));
    mkdirSync(join(dir, 'real', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'real', 'secret'), 'x');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    symlinkSync('real/secret', join(dir, 'rel-link'));
    symlinkSync(join(dir, 'real', 'not-yet'), join(dir, 'dangling'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a file under a symlinked dir resolves to the target, and the lexical path is kept', () => {
    const e = extract(call('Read', { file_path: join(dir, 'link', 'secret') }), { home: HOME });
    expect(e.paths).toEqual([join(dir, 'link', 'secret'), join(dir, 'real', 'secret')]);
  });

  it('a path that does not exist yet resolves its longest existing prefix', () => {
    const e = extract(call('Write', { file_path: join(dir, 'link', 'sub', 'new', 'file.txt'), content: 'hi' }), { home: HOME });
    expect(e.paths).toContain(join(dir, 'real', 'sub', 'new', 'file.txt'));
    expect(e.content).toBe('hi');
  });

  it('relative symlinks and dangling symlinks are followed', () => {
    expect(bash('cat rel-link', dir, true).paths).toContain(join(dir, 'real', 'secret'));
    expect(bash('echo x > dangling', dir, true).paths).toContain(join(dir, 'real', 'not-yet'));
  });

  it('shell paths through ../ and a symlink agree with the direct path', () => {
    const e = bash(`cat ${dir}/link/../link/./secret`, '/', true);
    expect(e.paths).toContain(join(dir, 'real', 'secret'));
  });

  it('a .. after a link is applied where the link leads, as the kernel does: with b -> . in real/sub, b/b/../secret is real/secret, not real/sub/secret', () => {
    symlinkSync('.', join(dir, 'real', 'sub', 'b'));
    const cwd = join(dir, 'real', 'sub');
    // As text, b/.. cancels out (real/sub/b/secret, which is real/sub/secret); the kernel follows
    // b (to real/sub) before the `..`, and reads real/secret.
    expect(bash('cat b/b/../secret', cwd, true).paths).toContain(join(dir, 'real', 'secret'));
    expect(bash('echo x >> b/b/../secret', cwd, true).paths).toContain(join(dir, 'real', 'secret'));
    expect(extract(call('Read', { file_path: `${cwd}/b/b/../secret` }), { home: HOME }).paths).toContain(join(dir, 'real', 'secret'));
    expect(bash('grep -r x b/b/..', cwd, true).paths).toContain(join(dir, 'real'));
    // A dangling link whose target climbs the same way (made by something the judge did not see):
    // a write through it is judged where the kernel would create the file.
    symlinkSync('b/b/../made-later', join(cwd, 'dangling-climb'));
    expect(bash('echo x > dangling-climb', cwd, true).paths).toContain(join(dir, 'real', 'made-later'));
  });

  it('a repeated command is resolved afresh: a path swapped for a symlink between two calls is followed', () => {
    // The parse of `cat swap/secret` is cached after the first call; the file system is not.
    mkdirSync(join(dir, 'swap'));
    writeFileSync(join(dir, 'swap', 'secret'), 'harmless');
    const before = bash('cat swap/secret', dir, true).paths;
    expect(before).toEqual([join(dir, 'swap', 'secret')]);
    rmSync(join(dir, 'swap'), { recursive: true });
    symlinkSync(join(dir, 'real'), join(dir, 'swap'));
    const after = bash('cat swap/secret', dir, true).paths;
    expect(after).toEqual([join(dir, 'swap', 'secret'), join(dir, 'real', 'secret')]);
  });
});

describe('non-shell tool calls', () => {
  const opts = { home: HOME, resolveSymlinks: false };

  it('Claude Code Read, Write, Edit, MultiEdit', () => {
    expect(extract(call('Read', { file_path: 'src/a.ts' }), opts)).toMatchObject({ operations: ['read'], paths: [`${CWD}/src/a.ts`], hosts: [], command: '', evasive: false });
    const w = extract(call('Write', { file_path: '/tmp/../etc/hosts', content: 'see http://docs.example.com' }), opts);
    expect(w).toMatchObject({ operations: ['write'], paths: ['/etc/hosts'], hosts: [], content: 'see http://docs.example.com' });
    const ed = extract(call('Edit', { file_path: '~/.bashrc', old_string: 'a', new_string: 'curl x | sh' }), opts);
    expect(ed).toMatchObject({ operations: ['write'], paths: [`${HOME}/.bashrc`], content: 'curl x | sh' });
    const me = extract(call('MultiEdit', { file_path: 'a.txt', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }] }), opts);
    expect(me.content).toBe('b\nd');
  });

  it('Glob, Grep, LS, NotebookEdit', () => {
    expect(extract(call('Glob', { pattern: '**/*.ts', path: 'src' }), opts).paths).toEqual([`${CWD}/src`]);
    // An absolute pattern walks its literal start, whole.
    expect(extract(call('Glob', { pattern: '~/.ssh/*' }), opts)).toMatchObject({ paths: [`${HOME}/.ssh`], recursive: [`${HOME}/.ssh`] });
    expect(extract(call('Grep', { pattern: 'password', path: '/etc' }), opts)).toMatchObject({ operations: ['read'], paths: ['/etc'] });
    expect(extract(call('LS', { path: '.' }), opts).paths).toEqual([CWD]);
    expect(extract(call('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x=1' }), opts)).toMatchObject({ operations: ['write'], paths: [`${CWD}/n.ipynb`], content: 'x=1' });
  });

  it('WebFetch and WebSearch are network', () => {
    expect(extract(call('WebFetch', { url: 'HTTP://Docs.Example.COM:8443/a?b', prompt: 'x' }), opts)).toMatchObject({ operations: ['network'], hosts: ['docs.example.com'], paths: [] });
    expect(extract(call('WebFetch', { url: 'http://0x7f.1/' }), opts).hosts).toEqual(['127.0.0.1']);
    expect(extract(call('WebSearch', { query: 'tree-sitter' }), opts).operations).toEqual(['network']);
  });

  it('MCP filesystem tools', () => {
    const mv = extract(call('mcp__fs__move_file', { source: 'a.txt', destination: '/etc/cron.d/x' }), opts);
    expect(mv.operations).toEqual(['write', 'delete', 'move']);
    expect(mv.paths).toEqual([`${CWD}/a.txt`, '/etc/cron.d/x']);
    expect(extract(call('mcp__filesystem__read_multiple_files', { paths: ['/a', 'b'] }), opts).paths).toEqual(['/a', `${CWD}/b`]);
    expect(extract(call('mcp__fs__list_directory', { path: '/srv' }), opts).operations).toEqual(['read']);
    expect(extract(call('mcp__fs__create_directory', { path: 'x' }), opts).operations).toEqual(['write']);
    expect(extract(call('mcp__fs__delete_file', { path: 'x' }), opts).operations).toEqual(['delete']);
    expect(extract(call('mcp__fs__edit_file', { path: 'x', edits: [{ oldText: 'a', newText: 'b' }] }), opts).content).toBe('b');
  });

  it('generic tool names by convention', () => {
    expect(extract(call('read_config', { filename: 'c.yaml' }), opts)).toMatchObject({ operations: ['read'], paths: [`${CWD}/c.yaml`] });
    expect(extract(call('mcp__x__http_get', { uri: 'https://API.example.net/v1' }), opts)).toMatchObject({ operations: ['network'], hosts: ['api.example.net'] });
    expect(extract(call('fetch', { url: 'http://[::1]:8080/' }), opts).hosts).toEqual(['::1']);
    expect(extract(call('deleteRecord', { target: 'db/x' }), opts).operations).toEqual(['delete']);
  });

  it('an unknown tool with a URL nested deep in its arguments is network, and unknown tools execute', () => {
    const e = extract(call('mcp__custom__do_thing', { a: [{ b: { c: ['x', { d: 'go to http://169.254.169.254/latest then' }] } }], repo: 'git@GitHub.com:o/r.git' }), opts);
    expect(e.hosts).toEqual(['169.254.169.254', 'github.com']);
    expect(e.operations).toEqual(['execute', 'network']);
    expect(extract(call('frobnicate', {}), opts).operations).toEqual(['execute']);
    expect(extract(call('frobnicate', null), opts).operations).toEqual(['execute']);
  });

  it('a shell tool with cwd and cmd arguments', () => {
    const e = extract(call('mcp__term__run_command', { cmd: 'rm -rf build', cwd: '/srv/app' }), opts);
    expect(e.command).toBe('rm -rf build');
    expect(e.operations).toEqual(['delete', 'execute']);
    expect(e.paths).toEqual(['/srv/app/build', '/srv/app']);
  });
});

describe('tokenizer properties', () => {
  it('a single-quoted string comes back as exactly one word', () => {
    fc.assert(
      fc.property(shellString, (s) => {
        expect(firstWords(parseShell(`echo ${singleQuote(s)}`))).toEqual(['echo', s]);
      }),
      { numRuns: 1000 },
    );
  });

  it('a double-quoted string with escapes comes back as exactly one word', () => {
    fc.assert(
      fc.property(shellString, (s) => {
        expect(firstWords(parseShell(`echo ${doubleQuote(s)}`))).toEqual(['echo', s]);
      }),
      { numRuns: 1000 },
    );
  });

  it('concatenated parts in any quoting style form one word', () => {
    const part = fc.tuple(fc.constantFrom(singleQuote, doubleQuote, backslashed), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const src = parts.map(([q, s]) => q(s)).join('');
        const script = parseShell(`printf %s ${src}`);
        // tree-sitter-bash cannot parse an escaped blank at the very end of a line; it reports a
        // syntax error, which extract() turns into `evasive` — never a silent misreading.
        if (script.error) expect(/\\[ \t]$/.test(src)).toBe(true);
        else expect(firstWords(script)).toEqual(['printf', '%s', parts.map(([, s]) => s).join('')]);
      }),
      { numRuns: 1000 },
    );
  });

  it('words separated by operators land in separate commands', () => {
    const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'in', 'do', 'done', 'while', 'until', 'case', 'esac', 'function', 'select', 'time', 'coproc']);
    const word = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/).filter((w) => !RESERVED.has(w));
    fc.assert(
      fc.property(fc.array(fc.tuple(word, word), { minLength: 1, maxLength: 4 }), fc.constantFrom(';', '&&', '||', '|', '\n'), (cmds, op) => {
        const script = parseShell(cmds.map(([a, b]) => `${a} ${b}`).join(` ${op} `));
        const all = script.pipelines.flatMap((p) => p.stages.map((s) => (s.kind === 'cmd' ? s.words.map((w) => w.text) : [])));
        expect(all).toEqual(cmds.map(([a, b]) => [a, b]));
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary input never throws and always reports execute', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (s) => {
        const e = bash(s);
        expect(e.operations).toContain('execute');
      }),
      { numRuns: 500 },
    );
  });

  it('shell-ish fragments never throw', () => {
    const frag = fc.constantFrom('$(', ')', '`', "'", '"', '\\', '${', '}', '<<', 'EOF\n', '|', '&&', ';', '>', '<', '(', '{ ', ' ', 'rm', 'sh -c', 'eval', '$IFS', '${!x}', '~', '\n', '#', '<<<', '$((', '))');
    fc.assert(
      fc.property(fc.array(frag, { maxLength: 25 }), (fs) => {
        expect(() => bash(fs.join(''))).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });
});

describe('path normaliser properties', () => {
  const segment = fc.constantFrom('a', 'b', '.', '..', '', 'etc', '.ssh', 'x y', '~', '...');
  const rawPath = fc.tuple(fc.constantFrom('', '/', '~/', '$HOME/', './', '../'), fc.array(segment, { maxLength: 8 })).map(([p, segs]) => p + segs.join('/'));
  const cwd = fc.array(fc.constantFrom('w', 'p', '..', '.', ''), { maxLength: 4 }).map((s) => '/' + s.join('/'));

  it('is idempotent, absolute, and free of ., .. and duplicate slashes', () => {
    fc.assert(
      fc.property(rawPath, cwd, (p, c) => {
        const n = normalisePath(p, c, HOME);
        expect(normalisePath(n, c, HOME)).toBe(n);
        expect(n.startsWith('/')).toBe(true);
        expect(n).not.toMatch(/\/\//);
        expect(n === '/' || !n.endsWith('/')).toBe(true);
        expect(n.split('/').some((s) => s === '.' || s === '..')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('answers as posix.resolve does, for paths already in normal form too', () => {
    const anyCwd = fc.tuple(fc.constantFrom('/', '', '~/'), fc.array(fc.constantFrom('w', 'p', '..', '.', '', '.x', 'a b'), { maxLength: 4 }), fc.constantFrom('', '/')).map(([lead, s, tail]) => lead + s.join('/') + tail);
    fc.assert(
      fc.property(rawPath, anyCwd, (p, c) => {
        const expanded = p.replace(/^(~|\$HOME)(?=\/|$)/, HOME);
        expect(normalisePath(p, c, HOME)).toBe(posix.resolve(c.startsWith('/') ? c : posix.resolve('/', c), expanded));
      }),
      { numRuns: 1000 },
    );
  });

  it('~/x and $HOME/x agree, for file tools and in the shell', () => {
    const rest = fc.array(fc.constantFrom('a', '.ssh', 'id_rsa', '..', '.'), { maxLength: 5 }).map((s) => s.join('/'));
    fc.assert(
      fc.property(rest, (r) => {
        expect(normalisePath(`~/${r}`, '/w', HOME)).toBe(normalisePath(`$HOME/${r}`, '/w', HOME));
        expect(normalisePath(`~/${r}`, '/w', HOME)).toBe(normalisePath(`\${HOME}/${r}`, '/w', HOME));
        expect(bash(`cat ~/${r}`).paths).toEqual(bash(`cat $HOME/${r}`).paths);
      }),
      { numRuns: 200 },
    );
  });
});
