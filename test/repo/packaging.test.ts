// The packaging configuration (electron-builder.yml), checked without running electron-builder:
// it validates against electron-builder's own schema, ships what the Electron shell loads, leaves
// out what it does not, unpacks every native binary it ships, and sets the security fuses.
//
// Paths are matched the way electron-builder matches them (minimatch with dot: true, patterns in
// order, a later `!` pattern taking a file back out), relative to the project folder; for files
// in node_modules electron-builder applies only the `!` patterns of `files`, after an implicit
// `**/*` (app-builder-lib fileMatcher.js getNodeModuleFileMatcher). picomatch, with the same
// options, reads these globs the same way.
import Ajv from 'ajv';
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUILD_ENTRIES, BUILD_TARGETS } from '../support/build-freshness.js';

const root = join(import.meta.dirname, '..', '..');
const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as Record<string, unknown> & {
  files: string[];
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  extraMetadata: Record<string, unknown>;
  extraResources?: unknown[];
  linux: { target: string[] };
  mac: { target: string[] };
  win: { target: string[] };
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };

/** minimatchAll from app-builder-lib's util/filter.js: patterns in order, the last one that applies wins. */
function selected(path: string, patterns: string[]): boolean {
  let match = false;
  for (const pattern of patterns) {
    const negate = pattern.startsWith('!');
    if (match !== negate) continue;
    const hit: boolean = picomatch(negate ? pattern.slice(1) : pattern, { dot: true })(path);
    match = negate ? !hit : hit;
  }
  return match;
}
const shipsAppFile = (path: string) => selected(path, config.files);
const shipsModuleFile = (path: string) => selected(path, ['**/*', ...config.files.filter((p) => p.startsWith('!'))]);
const unpacked = (path: string) => config.asarUnpack.some((glob) => picomatch(glob, { dot: true })(path));
const posix = (path: string) => path.split(sep).join('/');
// require.resolve answers with real paths: a worktree whose node_modules is a symlink to another
// checkout's still ships them as node_modules/… of this project.
const modulesReal = realpathSync(join(root, 'node_modules'));
const projectPath = (file: string) => posix(file.startsWith(modulesReal + sep) ? join('node_modules', relative(modulesReal, file)) : relative(root, file));

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The packages the Electron main process imports, from the same entry and options as scripts/build.mjs. */
async function packagesImportedByMain(): Promise<string[]> {
  const result = await build({
    entryPoints: [join(root, 'main/shells/electron/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    packages: 'external',
    external: ['electron'],
    define: { 'import.meta.url': 'undefined', __GATEHOUSE_VERSION__: '"0.0.0"' },
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const specs = new Set<string>();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imp of input.imports) if (imp.external) specs.add(imp.path);
  }
  return [...specs].filter((s) => !s.startsWith('node:') && !builtinModules.includes(s) && s !== 'electron');
}

describe('electron-builder.yml', () => {
  it('is a valid electron-builder configuration (app-builder-lib/scheme.json)', () => {
    const schema = JSON.parse(readFileSync(join(root, 'node_modules/app-builder-lib/scheme.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(config), JSON.stringify(validate.errors, null, 2)).toBe(true);
    // The schema is closed, so a misspelt key (a fuse that would silently not be set) is an error.
    expect(validate({ ...config, electronFuses: { ...config.electronFuses, runAsnode: false } })).toBe(false);
    expect(validate({ ...config, electronFuse: {} })).toBe(false);
  });

  it('builds AppImage and deb on Linux, dmg on macOS, NSIS on Windows', () => {
    expect(config.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(config.mac.target).toEqual(expect.arrayContaining(['dmg']));
    expect(config.win.target).toEqual(expect.arrayContaining(['nsis']));
  });

  it('starts the app at the Electron main that scripts/build.mjs writes', () => {
    const buildScript = readFileSync(join(root, 'scripts/build.mjs'), 'utf8');
    const electronJob = buildScript.split('\n').find((l) => l.includes("'main/shells/electron/main.ts'"));
    expect(electronJob).toContain("outfile: out('electron')");
    const outfile = BUILD_ENTRIES.find((e) => e.job === 'electron')?.out;
    expect(outfile).toBe('out/main/electron.cjs');
    expect(config.extraMetadata.main).toBe(outfile);
    expect(pkg.main).toBe(outfile);
    expect(shipsAppFile(outfile!)).toBe(true);
  });

  it('ships the Electron main, the preload and the renderer build, and not sources, tests, maps or the CLI', () => {
    for (const path of ['out/main/electron.cjs', 'out/main/extract-worker.cjs', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer/favicon.svg', 'out/renderer/assets/index-Ab12Cd34.js', 'out/renderer/assets/editor.worker-Ab12Cd34.js', 'out/renderer/assets/codicon-Ab12Cd34.ttf', 'package.json']) {
      expect(shipsAppFile(path), path).toBe(true);
    }
    for (const path of ['out/main/electron.cjs.map', 'out/preload/index.cjs.map', 'out/renderer/assets/index-Ab12Cd34.js.map', 'out/main/cli.js', 'out/bench/run.js', 'main/shells/electron/main.ts', 'renderer/main.tsx', 'shared/contract.ts', 'test/repo/packaging.test.ts', 'test/fixtures/audit/x.json', 'e2e/approvals.spec.ts', 'bench/run.ts', 'scripts/build.mjs', 'native/electron/better_sqlite3.node', 'examples/plugins/path-guard/path_guard.py', 'docs/packaging.md']) {
      expect(shipsAppFile(path), path).toBe(false);
    }
    // What the Electron main process loads by path, relative to its own file (main/shells/electron/main.ts).
    const main = readFileSync(join(root, 'main/shells/electron/main.ts'), 'utf8');
    expect(main).toContain("join(outDir, 'preload', 'index.cjs')");
    expect(main).toContain("join(outDir, 'renderer')");
  });

  it('puts the first-run example plugins in resources/examples/plugins, outside the asar', () => {
    const sets = (config.extraResources ?? []) as { from: string; to: string; filter: string[] }[];
    const examples = sets.find((s) => s.from === 'examples/plugins');
    expect(examples?.to).toBe('examples/plugins');
    const dir = join(root, 'examples/plugins');
    const files = walk(dir).map((f) => posix(relative(dir, f)));
    // The examples a first run copies into a new data folder (main/onboarding); fs-mcp only works from a checkout.
    for (const name of ['hello', 'path-guard', 'rate-limit']) {
      const own = files.filter((f) => f.startsWith(`${name}/`));
      expect(own.length, name).toBeGreaterThan(1);
      for (const f of own) expect(selected(f, examples?.filter ?? []), f).toBe(true);
    }
    for (const f of files.filter((f) => f.startsWith('fs-mcp/'))) expect(selected(f, examples?.filter ?? []), f).toBe(false);
  });

  it('ships every package the Electron main process loads, and leaves out the renderer-only ones', async () => {
    const req = createRequire(join(root, 'out/main/electron.cjs'));
    const imported = await packagesImportedByMain();
    expect(imported).toEqual(expect.arrayContaining(['better-sqlite3', 'node-pty', 'web-tree-sitter', 'yaml', 'zod']));
    // Resolved at run time rather than imported: the TypeScript parser (plugin scan) and the grammars.
    const needed = [...imported, 'typescript', 'better-sqlite3/package.json', 'web-tree-sitter/web-tree-sitter.wasm', 'tree-sitter-bash/tree-sitter-bash.wasm'];
    for (const spec of needed) {
      const file = projectPath(req.resolve(spec));
      expect(file.startsWith('node_modules/'), `${spec} → ${file}`).toBe(true);
      expect(shipsModuleFile(file), `${spec} → ${file}`).toBe(true);
    }
    expect(shipsModuleFile('node_modules/better-sqlite3/lib/index.js')).toBe(true);
    expect(shipsModuleFile('node_modules/node-pty/lib/unixTerminal.js')).toBe(true);

    // Addon sources and build leftovers: compiled before packaging, never loaded.
    for (const file of ['node_modules/better-sqlite3/deps/sqlite3/sqlite3.c', 'node_modules/better-sqlite3/src/better_sqlite3.cpp', 'node_modules/better-sqlite3/build/Release/obj/gen/sqlite3/sqlite3.c', 'node_modules/better-sqlite3/build/Release/test_extension.node', 'node_modules/node-pty/src/unix/pty.cc', 'node_modules/tree-sitter-bash/src/parser.c', 'node_modules/tree-sitter-bash/prebuilds/linux-x64/tree-sitter-bash.node']) {
      expect(shipsModuleFile(file), file).toBe(false);
    }

    const rendererOnly = ['monaco-editor', 'react', 'react-dom', '@xterm/xterm', '@xterm/addon-fit', 'uplot', 'zustand'];
    for (const name of rendererOnly) {
      expect(imported.some((s) => s === name || s.startsWith(`${name}/`)), `main imports ${name}`).toBe(false);
      expect(existsSync(join(root, 'node_modules', name, 'package.json')), name).toBe(true);
      expect(shipsModuleFile(`node_modules/${name}/package.json`), name).toBe(false);
    }
  });

  it('unpacks every native binary it ships from the asar: better-sqlite3, pty.node, spawn-helper, the Windows helpers', () => {
    const binary = (path: string) => /\.(node|exe|dll|dylib|so)$/.test(path) || path.endsWith('/spawn-helper');
    const addons = ['better-sqlite3', 'node-pty', 'tree-sitter-bash'];
    const shipped = addons
      .flatMap((name) => walk(join(root, 'node_modules', name)))
      .map((f) => posix(relative(root, f)))
      .filter((f) => binary(f) && shipsModuleFile(f));
    for (const file of shipped) expect(unpacked(file), file).toBe(true);
    // Real files, so the loop above cannot pass on an empty list.
    expect(shipped).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(shipped.filter((f) => f.endsWith('/pty.node')).length).toBeGreaterThan(0);
    expect(shipped).toEqual(expect.arrayContaining(['node_modules/node-pty/prebuilds/darwin-arm64/spawn-helper', 'node_modules/node-pty/prebuilds/win32-x64/winpty-agent.exe', 'node_modules/node-pty/prebuilds/win32-x64/conpty/OpenConsole.exe']));
    // Where a source build of node-pty (electron-builder's rebuild on macOS) puts them.
    for (const file of ['node_modules/node-pty/build/Release/pty.node', 'node_modules/node-pty/build/Release/spawn-helper', 'node_modules/node-pty/build/Release/winpty-agent.exe', 'node_modules/node-pty/build/Release/conpty/conpty.dll']) {
      expect(unpacked(file), file).toBe(true);
    }
    // JavaScript stays in the asar.
    expect(unpacked('node_modules/node-pty/lib/index.js')).toBe(false);
    expect(unpacked('out/main/electron.cjs')).toBe(false);
  });

  it("rebuilds native modules for Electron's ABI while packaging", () => {
    expect(config.npmRebuild).toBe(true);
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
  });

  it('sets the Electron fuses: no run-as-node, app only from the asar, cookie encryption on', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });
  it('ships exactly the built entries scripts/build-entries.json gives the Electron shell, and unpacks those a real Node runs', () => {
    const listed = BUILD_ENTRIES.flatMap((e) => [{ path: e.out, shell: e.shell }, ...(e.also ?? []).map((g) => ({ path: g.replace('*', 'x-Ab12Cd34'), shell: e.shell }))]);
    for (const { path, shell } of listed) {
      expect(shipsAppFile(path), `${path} is shell ${shell} in scripts/build-entries.json`).toBe(shell !== null);
      expect(unpacked(path), `${path} is shell ${shell} in scripts/build-entries.json`).toBe(shell === 'unpacked');
    }
    // No out/main file in the yml that the list does not know (a renamed entry would ship nothing).
    for (const glob of config.files.filter((p) => p.startsWith('out/main/'))) {
      expect(listed.some((l) => l.shell !== null && picomatch(glob, { dot: true })(l.path)), glob).toBe(true);
    }
    // The hook command agents run with a real Node: its entry and package.json ("type": "module"), unpacked.
    for (const path of ['bin/gatehouse.js', 'package.json']) {
      expect(shipsAppFile(path), path).toBe(true);
      expect(unpacked(path), path).toBe(true);
    }
  });

  it('ships every file of the built tree the Electron shell needs (a missing worker fails here), unpacked with the packages it imports', () => {
    const builtByTests = new Set(BUILD_TARGETS.flatMap((t) => t.jobs));
    const expected = BUILD_ENTRIES.filter((e) => builtByTests.has(e.job));
    for (const e of expected) expect(existsSync(join(root, e.out)), `${e.out} is not built: run node scripts/build.mjs`).toBe(true);
    const entryOf = (path: string) => BUILD_ENTRIES.find((e) => e.out === path || (e.also ?? []).some((g) => picomatch(g, { dot: true })(path)));
    const built = [...walk(join(root, 'out/main')), ...walk(join(root, 'out/preload'))].map((f) => posix(relative(root, f))).filter((f) => !f.endsWith('.map'));
    expect(built).toEqual(expect.arrayContaining(['out/main/hook-chunks/' + readdirSync(join(root, 'out/main/hook-chunks')).find((f) => f.endsWith('.js'))]));
    for (const path of built) {
      const e = entryOf(path);
      expect(e, `${path} is built but not in scripts/build-entries.json`).toBeDefined();
      expect(shipsAppFile(path), path).toBe(e!.shell !== null);
      expect(unpacked(path), path).toBe(e!.shell === 'unpacked');
    }
    // A real Node resolves the packages of what it runs from app.asar.unpacked/node_modules: each
    // one's shipped files must be unpacked too.
    for (const path of built.filter((p) => entryOf(p)?.shell === 'unpacked')) {
      const text = readFileSync(join(root, path), 'utf8');
      const specs = [...text.matchAll(/(?:^import [^;]*?from |\bimport\()["']([^"'./][^"']*)["']/gm)].map((m) => m[1]!).filter((s) => !s.startsWith('node:') && !builtinModules.includes(s));
      for (const spec of specs) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        const files = walk(join(root, 'node_modules', name)).map((f) => posix(relative(root, f))).filter((f) => shipsModuleFile(f));
        expect(files.length, `${path} imports ${name}`).toBeGreaterThan(0);
        for (const f of files) expect(unpacked(f), `${path} imports ${name}: ${f}`).toBe(true);
      }
    }
  });
});
