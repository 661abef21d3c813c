// Layers import only downwards: renderer → shared, preload → shared (+ electron),
// main → shared, and only the Electron shell in main/ may import `electron`. Inside main/, the
// folders form an ordered stack (MAIN_LAYERS below) and a file may import only its own folder or
// one lower in the stack. renderer/src/ is likewise one stack (RENDERER_LAYERS), with no folder
// cycles and no direct host calls in views/ or components/ (they go through sync/).
// Imports are read with the TypeScript parser (not regexes), so comments and strings never
// count, and type-only imports are told apart from runtime ones.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';

const statOrNull = (path: string): Stats | null => {
  try {
    return statSync(path);
  } catch {
    return null;
  }
};
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
  line: number;
}

/** Every module reference in a source file: import/export from, import =, require(), import(), import types. */
function importsOf(fileName: string, text: string): ImportRef[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : fileName.endsWith('.jsx') ? ts.ScriptKind.JSX : fileName.match(/\.[cm]?js$/) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out: ImportRef[] = [];
  const add = (node: ts.Node, spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (spec && ts.isStringLiteralLike(spec)) out.push({ specifier: spec.text, typeOnly, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      // Under verbatimModuleSyntax only `import type` is erased; `import { type A }` stays as a
      // runtime `import {} from`, so it counts as a runtime import.
      add(node, node.moduleSpecifier, node.importClause?.isTypeOnly === true);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

type Layer = 'main' | 'electron-shell' | 'preload' | 'renderer' | 'shared' | 'other';

function layerOf(relPath: string): Layer {
  const p = relPath.split(sep).join('/');
  if (p.startsWith('main/shells/electron/')) return 'electron-shell';
  const top = p.split('/')[0];
  return top === 'main' || top === 'preload' || top === 'renderer' || top === 'shared' ? top : 'other';
}

const nodeBuiltins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isElectron = (spec: string) => spec === 'electron' || spec.startsWith('electron/');
const isNodeBuiltin = (spec: string) => nodeBuiltins.has(spec) || spec.startsWith('node:');

interface Violation {
  file: string;
  line: number;
  specifier: string;
  rule: string;
}

/** The layering rules for one file (path relative to the repo root). */
function checkSource(relPath: string, text: string): Violation[] {
  const from = layerOf(relPath);
  const violations: Violation[] = [];
  for (const ref of importsOf(relPath, text)) {
    const target: Layer | 'package' = ref.specifier.startsWith('.') ? layerOf(relative(repoRoot, resolve(repoRoot, dirname(relPath), ref.specifier))) : 'package';
    const flag = (rule: string) => violations.push({ file: relPath, line: ref.line, specifier: ref.specifier, rule });
    switch (from) {
      case 'renderer':
        if (target === 'main' || target === 'electron-shell') flag('the renderer must not import main/');
        // The bridge's type lives in shared/bridge.ts; the renderer needs nothing from preload/.
        if (target === 'preload') flag('the renderer must not import preload/');
        if (target === 'package' && isElectron(ref.specifier)) flag('the renderer must not import electron');
        if (target === 'package' && isNodeBuiltin(ref.specifier) && !ref.typeOnly) flag('the renderer runs in a browser: no Node.js modules');
        break;
      case 'main':
      case 'electron-shell':
        if (target === 'renderer') flag('main/ must not import the renderer');
        if (target === 'preload') flag('main/ must not import preload/');
        if (from === 'main' && target === 'package' && isElectron(ref.specifier)) flag('only main/shells/electron/ may import electron (type imports included)');
        break;
      case 'preload':
        if (target === 'main' || target === 'electron-shell') flag('the preload must not import main/');
        if (target === 'renderer') flag('the preload must not import the renderer');
        break;
      case 'shared':
        if (target !== 'shared' && target !== 'package') flag('shared/ must import only shared/ and packages');
        if (target === 'package' && isElectron(ref.specifier)) flag('shared/ must not import electron');
        if (target === 'package' && isNodeBuiltin(ref.specifier) && !ref.typeOnly) flag('shared/ also runs in the renderer: no Node.js modules');
        break;
      case 'other':
        break;
    }
  }
  return violations;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(?:[cm]?tsx?|[cm]?jsx?)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/**
 * The folders of main/, bottom first. A file may import its own folder and any folder listed
 * before it, never one after it. The order is the one the code supports; why each sits where it does:
 */
const MAIN_LAYERS = [
  // Helpers with no domain of their own (OperationError, the clock, handler types, readBody,
  // canonical JSON, the checker wire types, the usage error); the root files of main/ (home.ts,
  // chunked.ts, version.ts, json-depth.ts, yaml-nesting.ts) count as core too.
  'core',
  // Pure judgement (extraction, rules, autonomy, network): needs only core.
  'policy',
  // The hash-chained log; replay re-judges recorded calls, so it sits above policy.
  'audit',
  // PTY sessions record their transcripts in the audit log.
  'pty',
  // Plugin discovery, manifests and trust (a wasm module's imports are judged here, with the ABI
  // table in registry/manifest/wasm-abi.ts that the runner links against).
  'registry',
  // Runs plugins (and the shell tool in a PTY) under the sandbox; reads the registry's types,
  // judges a wasm/module plugin's own requests with policy.
  'runner',
  // Checker processes reuse the runner's breaker, metrics and sandbox plan.
  'checkers',
  // Plugin bundles for publishing: built from the registry's view of a plugin.
  'catalog',
  // The inbox and grants: decisions over policy's operations.
  'approvals',
  // Terminal adapters: Lua in a worker over a PTY session (pty) and a screen model; manifests
  // located with the registry's source positions; a permission question goes to the inbox (approvals).
  'adapters',
  // One call through extract, rules, checkers, autonomy, approval and the runner.
  'pipeline',
  // Agents' ingresses, each turning a request into a call for the pipeline.
  'gateway',
  // The agents Gatehouse writes configuration for (their files, the agents.* handlers): they name
  // the gateway's routes, launcher and deadlines.
  'agents',
  // First-run state and the getting-started checklist, read from the gateway and the registry.
  'onboarding',
  // Team mode: ships the audit log's chained events to PostgreSQL and reads them back.
  'team',
  // The composition root: builds every service above and holds the handler table.
  'host',
  // Electron and serve put a host on screen.
  'shells',
  // The command line drives everything, serve included.
  'cli',
] as const;

/**
 * Upward imports that could not move yet, each with its reason. An entry that no longer matches
 * any import fails the test, so the list only shrinks.
 */
const ALLOWED_UPWARD: { from: string; to: string; reason: string }[] = [];

/** The main/ layer a repo-relative path belongs to, or null outside main/ (or the Electron shell's own folder, which is part of shells). */
function mainLayerOf(relPath: string): string | null {
  const parts = relPath.split(sep).join('/').split('/');
  if (parts[0] !== 'main') return null;
  if (parts.length === 2) return 'core';
  return parts[1]!;
}

/** Imports that run up MAIN_LAYERS from one file; `used` collects the allow-list entries that matched. */
function checkMainLayers(relPath: string, text: string, used: Set<string> = new Set()): Violation[] {
  const from = mainLayerOf(relPath);
  if (from === null) return [];
  const rank = (layer: string) => (MAIN_LAYERS as readonly string[]).indexOf(layer);
  const violations: Violation[] = [];
  if (rank(from) < 0) {
    return [{ file: relPath, line: 1, specifier: '', rule: `main/${from}/ is not in MAIN_LAYERS: add it in test/repo/layering.test.ts where its imports put it` }];
  }
  for (const ref of importsOf(relPath, text)) {
    if (!ref.specifier.startsWith('.')) continue;
    const target = relative(repoRoot, resolve(repoRoot, dirname(relPath), ref.specifier)).split(sep).join('/');
    const to = mainLayerOf(target);
    if (to === null || to === from || (rank(to) >= 0 && rank(to) < rank(from))) continue;
    const allowed = ALLOWED_UPWARD.find((a) => a.from === relPath.split(sep).join('/') && target.startsWith(a.to));
    if (allowed) {
      used.add(`${allowed.from} -> ${allowed.to}`);
      continue;
    }
    violations.push({ file: relPath, line: ref.line, specifier: ref.specifier, rule: `main/${from}/ must not import main/${to}/, which sits above it in MAIN_LAYERS` });
  }
  return violations;
}

/** Every layering violation in a tree laid out like the repo (its main/ folder, at least). */
function scanMain(root: string, used?: Set<string>): Violation[] {
  return sourceFiles(join(root, 'main')).flatMap((file) => checkMainLayers(relative(root, file), readFileSync(file, 'utf8'), used));
}

/**
 * The folders of renderer/src/, bottom first, like MAIN_LAYERS: a file may import its own folder
 * and any folder listed before it. Files at the root of renderer/src/ (main.tsx) count as app.
 */
const RENDERER_LAYERS = [
  // Pure helpers: formatting, summaries, folds; no state, no host.
  'lib',
  // The wire to the host (Electron IPC or the serve shell's HTTP/SSE) and the typed client.
  'transport',
  // Zustand stores: the console's state, filled by sync/ and read by everything above.
  'stores',
  // The one place that talks to the host: each domain's bind (load, events, refresh) and its
  // actions (sync/<domain>-actions.ts), and the client's React context.
  'sync',
  // The Monaco editor and its diagnostics: a component kit with no host access of its own.
  'editor',
  // Shared widgets and chrome (sidebar, dialogs, status bar) and the list of views' names,
  // shortcuts and icons (components/view-nav.ts) that the chrome shows.
  'components',
  // One folder of screens per domain, and view-registry.ts that pairs each view with its bind.
  'views',
  // The shell: layout, keyboard shortcuts, startup (main.tsx).
  'app',
] as const;

/**
 * Direct `client.call(` in views/ and components/ that has not moved into its domain's
 * sync/<domain>-actions.ts yet (file → how many). A count that grows, or a file missing here,
 * fails; a count that shrinks must be lowered here too, so the list only shrinks. Empty since
 * every one moved (there were 37 in 16 files): add the action to sync/ instead of an entry here.
 */
const CLIENT_CALL_ALLOWANCE: Record<string, number> = {};

const rendererSrc = 'renderer/src';

/** The folder of renderer/src/ a repo-relative path sits in ('app' for the root files), or null outside it. */
function rendererFolderOf(relPath: string): string | null {
  const p = relPath.split(sep).join('/');
  if (!p.startsWith(`${rendererSrc}/`)) return null;
  const parts = p.slice(rendererSrc.length + 1).split('/');
  return parts.length === 1 ? 'app' : parts.slice(0, -1).join('/');
}

interface RendererEdge {
  file: string;
  line: number;
  specifier: string;
  from: string;
  to: string;
}

/** Every import between files of renderer/src/, with the folders at each end. */
function rendererEdges(relPath: string, text: string): RendererEdge[] {
  const from = rendererFolderOf(relPath);
  if (from === null) return [];
  const out: RendererEdge[] = [];
  for (const ref of importsOf(relPath, text)) {
    if (!ref.specifier.startsWith('.')) continue;
    const to = rendererFolderOf(relative(repoRoot, resolve(repoRoot, dirname(relPath), ref.specifier)));
    if (to !== null) out.push({ file: relPath.split(sep).join('/'), line: ref.line, specifier: ref.specifier, from, to });
  }
  return out;
}

const layerRank = (folder: string) => (RENDERER_LAYERS as readonly string[]).indexOf(folder.split('/')[0]!);

/** Imports that run up RENDERER_LAYERS (or start in a folder the list does not place). */
function rendererUpward(edges: RendererEdge[]): Violation[] {
  const out: Violation[] = [];
  for (const e of edges) {
    if (layerRank(e.from) < 0) out.push({ file: e.file, line: 1, specifier: '', rule: `renderer/src/${e.from.split('/')[0]}/ is not in RENDERER_LAYERS: add it in test/repo/layering.test.ts where its imports put it` });
    else if (layerRank(e.to) > layerRank(e.from)) out.push({ file: e.file, line: e.line, specifier: e.specifier, rule: `renderer ${e.from.split('/')[0]}/ must not import ${e.to.split('/')[0]}/, which sits above it in RENDERER_LAYERS` });
  }
  return out;
}

/**
 * Folder cycles (views/ ↔ views/catalog/ counts as much as app/ ↔ views/): every import on a
 * cycle between folders, found as the strongly connected components of the folder graph.
 */
function rendererCycles(edges: RendererEdge[]): Violation[] {
  const graph = new Map<string, Set<string>>();
  for (const e of edges) if (e.from !== e.to) (graph.get(e.from) ?? graph.set(e.from, new Set()).get(e.from)!).add(e.to);
  // Tarjan's algorithm, iterative enough for a few dozen folders.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const component = new Map<string, number>();
  let next = 0;
  let components = 0;
  const strong = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.set(w, components);
      } while (w !== v);
      components++;
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) strong(v);
  return edges
    .filter((e) => e.from !== e.to && component.get(e.from) === component.get(e.to))
    .map((e) => ({ file: e.file, line: e.line, specifier: e.specifier, rule: `folder cycle: ${e.from}/ → ${e.to}/ and back` }));
}

/** Direct host calls (`client.call(`) per file under views/ and components/. */
function directCalls(relPath: string, text: string): number {
  const folder = rendererFolderOf(relPath);
  if (folder === null || !/^(?:views|components)(?:\/|$)/.test(folder)) return 0;
  return (text.match(/\bclient\s*\.\s*call\s*\(/g) ?? []).length;
}

function scanRenderer(root: string): { edges: RendererEdge[]; calls: Record<string, number> } {
  const edges: RendererEdge[] = [];
  const calls: Record<string, number> = {};
  for (const file of sourceFiles(join(root, rendererSrc))) {
    const rel = relative(root, file);
    const text = readFileSync(file, 'utf8');
    edges.push(...rendererEdges(rel, text));
    const n = directCalls(rel, text);
    if (n > 0) calls[rel.split(sep).join('/')] = n;
  }
  return { edges, calls };
}

const describeViolation = (v: Violation) => `${v.file}:${v.line} imports '${v.specifier}': ${v.rule}`;

describe('renderer layers', () => {
  it('every folder of renderer/src/ has a place in RENDERER_LAYERS, and every entry is a folder', () => {
    const folders = readdirSync(join(repoRoot, rendererSrc), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'styles')
      .map((e) => e.name);
    expect([...folders, 'app'].filter((f, i, a) => a.indexOf(f) === i).sort()).toEqual([...RENDERER_LAYERS].sort());
  });

  it('no import runs up RENDERER_LAYERS', () => {
    expect(rendererUpward(scanRenderer(repoRoot).edges).map(describeViolation)).toEqual([]);
  });

  it('no folder of renderer/src/ imports, through any chain, a folder that imports it', () => {
    expect(rendererCycles(scanRenderer(repoRoot).edges).map(describeViolation)).toEqual([]);
  });

  it('views/ and components/ reach the host only through sync/ (the allowance only shrinks)', () => {
    expect(scanRenderer(repoRoot).calls).toEqual(CLIENT_CALL_ALLOWANCE);
  });

  it('catches an upward import and a folder cycle, with file and line', () => {
    const edges = [
      ...rendererEdges('renderer/src/sync/x-actions.ts', "import { a } from '../lib/format.ts';\nimport { CONNECT } from '../views/settings/agent-connect.tsx';"),
      ...rendererEdges('renderer/src/views/catalog-view.tsx', "import { Page } from './catalog/plugin-page.tsx';"),
      ...rendererEdges('renderer/src/views/catalog/plugin-page.tsx', "import { KeyIds } from '../catalog-view.tsx';"),
      ...rendererEdges('renderer/src/main.tsx', "import { viewRegistry } from './views/view-registry.ts';"),
    ];
    expect(rendererUpward(edges).map(describeViolation)).toEqual([
      "renderer/src/sync/x-actions.ts:2 imports '../views/settings/agent-connect.tsx': renderer sync/ must not import views/, which sits above it in RENDERER_LAYERS",
    ]);
    expect(rendererCycles(edges).map(describeViolation)).toEqual([
      "renderer/src/views/catalog-view.tsx:1 imports './catalog/plugin-page.tsx': folder cycle: views/ → views/catalog/ and back",
      "renderer/src/views/catalog/plugin-page.tsx:1 imports '../catalog-view.tsx': folder cycle: views/catalog/ → views/ and back",
    ]);
    expect(directCalls('renderer/src/views/x.tsx', "await client.call('plugins.list', {});\nconst y = 'client.caller';\nclient\n  .call('catalog.plugin', {});")).toBe(2);
    expect(directCalls('renderer/src/sync/x-actions.ts', "await client.call('plugins.list', {});")).toBe(0);
  });
});

describe('test/ mirrors the source folders', () => {
  // A reader finds a folder's tests in the same place under test/: test/main/audit/ for
  // main/audit/, test/renderer/ for renderer/, test/shared/ for shared/; test/repo/ holds the
  // checks of the whole repository (docs, lint, layering, packaging) and test/bench/ the harness's.
  const SOURCE_ROOTS = ['main', 'renderer', 'shared', 'bench'];
  const OWN = ['repo', 'support', 'fixtures'];
  const testFolders = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => [`${dir}/${e.name}`, ...testFolders(`${dir}/${e.name}`)]);
  const misplaced = () => {
    const found: string[] = [];
    for (const e of readdirSync(join(repoRoot, 'test'), { withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith('.test.ts')) found.push(`test/${e.name} sits at the top of test/: move it to the folder of the source it tests`);
      if (e.isDirectory() && !SOURCE_ROOTS.includes(e.name) && !OWN.includes(e.name)) found.push(`test/${e.name}/ names no source folder`);
    }
    for (const folder of SOURCE_ROOTS.flatMap((r) => testFolders(`test/${r}`))) {
      const source = folder.slice('test/'.length);
      if (!statOrNull(join(repoRoot, source))?.isDirectory()) found.push(`${folder}/ has no source folder ${source}/`);
    }
    return found;
  };
  it('every test file sits in the folder of the source it tests', () => {
    expect(misplaced()).toEqual([]);
  });
});

describe('layering', () => {
  it('holds across main/, preload/, renderer/ and shared/', () => {
    const files = ['main', 'preload', 'renderer', 'shared'].flatMap((d) => sourceFiles(join(repoRoot, d)));
    const perLayer = new Map<Layer, number>();
    const violations: Violation[] = [];
    for (const file of files) {
      const rel = relative(repoRoot, file);
      perLayer.set(layerOf(rel), (perLayer.get(layerOf(rel)) ?? 0) + 1);
      violations.push(...checkSource(rel, readFileSync(file, 'utf8')));
    }
    // The scan really covered every layer.
    for (const layer of ['main', 'electron-shell', 'preload', 'renderer', 'shared'] as const) expect(perLayer.get(layer) ?? 0, layer).toBeGreaterThan(0);
    expect(violations.map((v) => `${v.file}:${v.line} imports '${v.specifier}': ${v.rule}`)).toEqual([]);
  });

  describe('main/ layers', () => {
    it('every folder under main/ has a place in MAIN_LAYERS, and every entry is a folder', () => {
      const folders = readdirSync(join(repoRoot, 'main'), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      expect([...folders].sort()).toEqual([...MAIN_LAYERS].sort());
    });

    it('no import runs up MAIN_LAYERS, and every allow-list entry is still needed', () => {
      const used = new Set<string>();
      const violations = scanMain(repoRoot, used);
      expect(violations.map((v) => `${v.file}:${v.line} imports '${v.specifier}': ${v.rule}`)).toEqual([]);
      expect([...used].sort()).toEqual(ALLOWED_UPWARD.map((a) => `${a.from} -> ${a.to}`).sort());
    });

    it('fails on an upward import planted in a copy of main/', () => {
      const copy = mkdtempSync(join(tmpdir(), 'gatehouse-layers-'));
      try {
        cpSync(join(repoRoot, 'main'), join(copy, 'main'), { recursive: true });
        expect(scanMain(copy)).toEqual([]);
        // The import that used to run upward: a lower module reaching into host/ for a helper.
        const planted = join(copy, 'main', 'policy', 'autonomy.ts');
        writeFileSync(planted, `import { readBody } from '../host/http-body.js';\n${readFileSync(planted, 'utf8')}`);
        const violations = scanMain(copy);
        expect(violations).toHaveLength(1);
        expect(violations[0]).toMatchObject({ file: join('main', 'policy', 'autonomy.ts'), line: 1, specifier: '../host/http-body.js' });
        expect(violations[0]!.rule).toBe('main/policy/ must not import main/host/, which sits above it in MAIN_LAYERS');
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    });

    const upward: [string, string, string][] = [
      ['main/core/x.ts', "import { createHost } from '../host/create-host.js';", 'main/core/ must not import main/host/'],
      ['main/chunked.ts', "import type { AuditStore } from './audit/audit-store.js';", 'main/core/ must not import main/audit/'],
      ['main/policy/rules/x.ts', "import type { RuleSnapshot } from '../../checkers/protocol.js';", 'main/policy/ must not import main/checkers/'],
      ['main/gateway/x.ts', "import { describeIssues } from '../host/dispatcher.js';", 'main/gateway/ must not import main/host/'],
      ['main/shells/serve/x.ts', "import { UsageError } from '../../cli/usage-error.js';", 'main/shells/ must not import main/cli/'],
      ['main/runner/x.ts', "const m = await import('../checkers/checker-pool.js');", 'main/runner/ must not import main/checkers/'],
      ['main/registry/manifest/wasm-checks.ts', "import { judgeImports } from '../../runner/wasm/abi.js';", 'main/registry/ must not import main/runner/'],
      ['main/audit/x.ts', "type H = typeof import('../host/create-host.js');", 'main/audit/ must not import main/host/'],
      ['main/newthing/x.ts', "export const a = 1;", 'main/newthing/ is not in MAIN_LAYERS'],
    ];
    it.each(upward)('catches %s: %s', (file, text, rule) => {
      const v = checkMainLayers(file, text);
      expect(v.length).toBeGreaterThan(0);
      expect(v[0]!.rule).toContain(rule);
    });

    const downward: [string, string][] = [
      ['main/host/x.ts', "import { OperationError } from '../core/operation-error.js';"],
      ['main/cli/x.ts', "import { runServe } from '../shells/serve/run-serve.js';"],
      ['main/audit/replay.ts', "import { evaluate } from '../policy/rules/engine.js';"],
      ['main/policy/x.ts', "import { homePaths } from '../home.js';\nimport { z } from 'zod';\nimport { contract } from '../../shared/contract.js';"],
      ['main/runner/wasm/x.ts', "import { judgeImports } from '../../registry/manifest/wasm-abi.js';"],
    ];
    it.each(downward)('allows %s: %s', (file, text) => {
      expect(checkMainLayers(file, text)).toEqual([]);
    });
  });

  it('reads every form of import, and nothing in comments or strings', () => {
    const text = [
      "import a from 'pkg-a';",
      "import type { B } from 'pkg-b';",
      "import { type C } from 'pkg-c';",
      "export * from 'pkg-d';",
      "export type { E } from 'pkg-e';",
      "import f = require('pkg-f');",
      "const g = require('pkg-g');",
      "const h = await import('pkg-h');",
      "type I = typeof import('pkg-i');",
      "// import x from 'in-a-comment';",
      "const s = \"import y from 'in-a-string'\";",
      "const t = `require('in-a-template')`;",
    ].join('\n');
    expect(importsOf('x.ts', text)).toEqual([
      { specifier: 'pkg-a', typeOnly: false, line: 1 },
      { specifier: 'pkg-b', typeOnly: true, line: 2 },
      { specifier: 'pkg-c', typeOnly: false, line: 3 },
      { specifier: 'pkg-d', typeOnly: false, line: 4 },
      { specifier: 'pkg-e', typeOnly: true, line: 5 },
      { specifier: 'pkg-f', typeOnly: false, line: 6 },
      { specifier: 'pkg-g', typeOnly: false, line: 7 },
      { specifier: 'pkg-h', typeOnly: false, line: 8 },
      { specifier: 'pkg-i', typeOnly: true, line: 9 },
    ]);
  });

  describe('self-check: the scanner catches violations', () => {
    const caught: [string, string, string][] = [
      ['main/audit/x.ts', "import { app } from 'electron';", 'only main/shells/electron/'],
      ['main/host/x.ts', "import type { IpcMain } from 'electron';", 'only main/shells/electron/'],
      ['main/host/x.ts', "const { app } = require('electron');", 'only main/shells/electron/'],
      ['main/host/x.ts', "const m = await import('electron/main');", 'only main/shells/electron/'],
      ['main/host/x.ts', "type W = typeof import('electron');", 'only main/shells/electron/'],
      ['main/host/x.ts', "export { view } from '../../renderer/src/app/app.tsx';", 'must not import the renderer'],
      ['main/shells/electron/x.ts', "import { thing } from '../../../renderer/src/x.ts';", 'must not import the renderer'],
      ['main/host/x.ts', "import { createBridge } from '../../preload/api.ts';", 'must not import preload/'],
      ['renderer/src/x.tsx', "import { createHost } from '../../main/host/create-host.ts';\nexport const C = () => <div />;", 'must not import main/'],
      ['renderer/src/x.ts', "import type { Host } from '../../main/host/create-host.ts';", 'must not import main/'],
      ['renderer/src/x.ts', "import { windowOptions } from '../../main/shells/electron/window-options.ts';", 'must not import main/'],
      ['renderer/src/x.ts', "import { createBridge } from '../../preload/api.ts';", 'must not import preload/'],
      ['renderer/src/x.ts', "import type { GatehouseBridge } from '../../preload/api.ts';", 'must not import preload/'],
      ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';", 'must not import electron'],
      ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';", 'no Node.js modules'],
      ['preload/x.ts', "import { createHost } from '../main/host/create-host.js';", 'must not import main/'],
      ['shared/x.ts', "import { readFileSync } from 'fs';", 'no Node.js modules'],
      ['shared/x.ts', "import { createHost } from '../main/host/create-host.js';", 'only shared/ and packages'],
    ];
    it.each(caught)('%s: %s', (file, text, rule) => {
      const v = checkSource(file, text);
      expect(v.length).toBeGreaterThan(0);
      expect(v[0]!.rule).toContain(rule);
    });

    const allowed: [string, string][] = [
      ['main/shells/electron/x.ts', "import { app, BrowserWindow } from 'electron';"],
      ['main/shells/electron/x.ts', "import type { WebContents } from 'electron';"],
      ['main/host/x.ts', "// import { app } from 'electron'\nconst s = \"require('electron')\";\nimport { z } from 'zod';"],
      ['main/host/x.ts', "import { contract } from '../../shared/contract.js';"],
      ['preload/x.ts', "import { contextBridge } from 'electron';\nimport { methods } from '../shared/contract.js';"],
      ['renderer/src/x.ts', "import type { GatehouseBridge } from '../../shared/bridge.ts';\nimport { methods } from '../../shared/contract.ts';"],
    ];
    it.each(allowed)('allows %s: %s', (file, text) => {
      expect(checkSource(file, text)).toEqual([]);
    });
  });
});
