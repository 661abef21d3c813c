// JavaScript and TypeScript rules, on the syntax tree the TypeScript compiler builds. Parsing is
// the point: `eval` in a comment, a string or a property name (`math.eval`) is not a call to the
// global eval, and `/x/.exec(s)` is not child_process — only a tree tells those apart.
//
// One parse and one walk per file. The walk records declarations (imports, requires, const
// aliases, destructuring) and the nodes worth a closer look; the rules then run over those nodes,
// resolving names through the declarations, so an alias declared after its use still resolves.
// Scopes are not modelled: a name means what any of its declarations in the file says it means.
// That errs towards reporting (a parameter named `fs` shadowing the fs module is still "fs").

import { createRequire } from 'node:module';
import { posix } from 'node:path';
import type * as TS from 'typescript';
import { Collector } from './collector.js';
import type { RuleId } from './rules.js';

// TypeScript is loaded on first use, through require: an ESM `import` of its 9 MB CommonJS file
// makes Node scan it for named exports (about a second here), require takes a fifth of that, and a
// registry of shell and Python plugins never pays for it at all. In the Electron shell's CommonJS
// bundle import.meta is empty, so the require is anchored at __filename there (esbuild warns about
// the import.meta it sees, but that branch never runs in CommonJS).
let tsModule: typeof TS | undefined;
function typescript(): typeof TS {
  tsModule ??= createRequire(typeof __filename === 'string' ? __filename : import.meta.url)('typescript') as typeof TS;
  return tsModule;
}

export type JsDialect = 'js' | 'jsx' | 'ts' | 'tsx';

/** A name resolved to where it comes from: a module and a property path, or a global. */
interface Ref {
  /** Module name without `node:`, or '@global'. */
  module: string;
  path: string[];
}

type Decl =
  | { kind: 'expr'; expr: TS.Expression }
  | { kind: 'member'; base: Decl; path: string[] }
  | { kind: 'module'; module: string; path: string[] }
  /** A parameter, function, class or catch variable: shadows a global, resolves to nothing. */
  | { kind: 'opaque' };

/** `here` is the plugin's folder (`__dirname`), `hereFile` a file in it (`__filename`, import.meta.url). */
type PathPart = { k: 'lit'; s: string } | { k: 'home' } | { k: 'tmp' } | { k: 'here' } | { k: 'hereFile' } | { k: 'unknown' };

const GLOBAL_OBJECTS = new Set(['globalThis', 'window', 'global', 'self', 'frames', 'top', 'parent']);
const NETWORK_SERVER_MODULES = new Set(['http', 'https', 'http2', 'net', 'tls']);
const FS_MODULES = new Set(['fs', 'fs/promises', 'graceful-fs', 'fs-extra']);
/** fs functions that write, with the indexes of the path arguments that get written or removed. */
const FS_WRITES: Record<string, number[]> = {
  writeFile: [0], appendFile: [0], createWriteStream: [0], rm: [0], rmdir: [0], unlink: [0],
  rename: [0, 1], copyFile: [1], cp: [1], truncate: [0], symlink: [1], link: [1],
};
const FS_EXTRA_WRITES: Record<string, number[]> = {
  outputFile: [0], outputJson: [0], outputJSON: [0], writeJson: [0], writeJSON: [0], remove: [0], emptyDir: [0],
  move: [0, 1], copy: [1],
};
const ENV_HOME = new Set(['HOME', 'USERPROFILE', 'HOMEPATH', 'APPDATA', 'LOCALAPPDATA', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME']);
const ENV_TMP = new Set(['TMPDIR', 'TMP', 'TEMP']);
const INTERESTING_NAMES = new Set(['eval', 'Function', 'require', 'getBuiltinModule', 'env', 'binding', '_linkedBinding', 'dlopen', 'Deno', 'atob', 'btoa']);
// Deno's APIs as Triggerfish's scanner weighs them. Gatehouse runs module plugins on Node, where
// none of them exists: describe-module.ts refuses a module that uses any (denoUses below).
const DENO_SUBPROCESS = new Set(['run', 'Command', 'command', 'spawn', 'spawnSync', 'spawnChild']);
const DENO_LISTEN = new Set(['listen', 'listenTls', 'listenDatagram', 'serve', 'serveHttp']);
const DENO_FS = /^(?:(?:read|write)(?:Text)?File|open|create|remove|mkdir|readDir|copyFile|rename|symlink|link|truncate|chmod|chown|makeTempDir|makeTempFile|readLink|realPath|stat|lstat|utime)(?:Sync)?$/;
const URL_SPECIFIER = /^[a-z][a-z0-9+.-]*:/i;
const DOTDOT_SEGMENT = /(^|[\\/])\.\.($|[\\/])/;
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/]|\\\\)/;
const TEMP_PREFIX = /^(\/tmp|\/var\/tmp|\/private\/tmp|\/private\/var\/folders)(\/|$)/;
const HARMLESS_DEVICE = /^\/dev\/(null|stdout|stderr)$/;

export function scanJs(c: Collector, dialect: JsDialect): void {
  analyse(c, dialect);
}

function analyse(c: Collector, dialect: JsDialect): JsAnalysis {
  const ts = typescript();
  const kind = { js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX, ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX }[dialect];
  // JSDoc is never code, so the parser skips it (about 40% faster on small files).
  const sf = ts.createSourceFile(c.file, c.text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, true, kind);
  const a = new JsAnalysis(ts, sf, c);
  a.run();
  return a;
}

/** Where a file uses Deno's global (`Deno.env.get`, `Deno.readTextFile`…), found by the same walk as the scan's Deno rules; `member` is null when Deno itself is passed around. */
export function denoUses(file: string, text: string, dialect: JsDialect): { line: number; column: number; member: string | null }[] {
  const c = new Collector(file, text);
  return analyse(c, dialect).denoUses.map((u) => ({ ...c.lines.position(u.offset), member: u.member }));
}

class JsAnalysis {
  private readonly decls = new Map<string, Decl[]>();
  private readonly calls: (TS.CallExpression | TS.NewExpression)[] = [];
  private readonly refs: (TS.Identifier | TS.PropertyAccessExpression | TS.ElementAccessExpression)[] = [];
  private readonly aliasIdents: TS.Identifier[] = [];
  private readonly moduleDecls: { spec: TS.Expression; at: TS.Node }[] = [];
  private readonly envReported = new Set<TS.Node>();
  private readonly envNames: string[] = [];
  private readonly envUses: TS.Node[] = [];
  private resolving = 0;
  readonly denoUses: { offset: number; member: string | null }[] = [];
  private readonly nameCache = new Map<string, Ref | null | 'pending'>();

  constructor(private readonly ts: typeof TS, private readonly sf: TS.SourceFile, private readonly c: Collector) {}

  run(): void {
    this.walk(this.sf);
    // In a declaration file (.d.ts) every import is a type import. Calls are still checked: a .d.ts
    // name does not stop a runtime that strips types from executing the code in it.
    if (!this.sf.isDeclarationFile) for (const { spec, at } of this.moduleDecls) this.checkSpecifier(this.fold(spec), at, 'imports');
    for (const call of this.calls) this.checkCall(call);
    for (const ref of this.refs) this.checkRef(ref);
    for (const id of this.aliasIdents) {
      if (!this.decls.has(id.text)) continue;
      const r = this.resolve(id);
      if (r && r.module === 'process' && r.path.length === 1 && r.path[0] === 'env') this.checkEnvUse(id);
    }
    if (this.envUses.length > 0) {
      // One finding per file (the rule is perFile): the message names every variable read.
      const names = [...new Set(this.envNames)];
      const what = names.length > 0 ? `environment variable${names.length > 1 ? 's' : ''} ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}` : 'environment variables';
      const message = `Reads ${what} from process.env; the environment can hold tokens and secrets, so check the plugin only reads what its manifest declares.`;
      const uses = [...this.envUses].sort((x, y) => x.getStart(this.sf) - y.getStart(this.sf));
      for (const node of uses) this.report('js.env-access', node, message);
    }
  }

  // ── walk ────────────────────────────────────────────────────────────────────────────────────

  private walk(root: TS.Node): void {
    const ts = this.ts;
    const SK = ts.SyntaxKind;
    const visit = (node: TS.Node): void => {
      switch (node.kind) {
        case SK.VariableDeclaration: {
          const d = node as TS.VariableDeclaration;
          const init: Decl = d.initializer ? { kind: 'expr', expr: d.initializer } : { kind: 'opaque' };
          this.bindName(d.name, init);
          break;
        }
        case SK.Parameter:
          this.bindName((node as TS.ParameterDeclaration).name, { kind: 'opaque' });
          break;
        case SK.FunctionDeclaration:
        case SK.ClassDeclaration: {
          const name = (node as TS.FunctionDeclaration | TS.ClassDeclaration).name;
          if (name) this.addDecl(name.text, { kind: 'opaque' });
          break;
        }
        case SK.CatchClause: {
          const v = (node as TS.CatchClause).variableDeclaration;
          if (v) this.bindName(v.name, { kind: 'opaque' });
          break;
        }
        case SK.ImportDeclaration:
          this.recordImport(node as TS.ImportDeclaration);
          break;
        case SK.ExportDeclaration: {
          const e = node as TS.ExportDeclaration;
          if (e.moduleSpecifier && !e.isTypeOnly) this.moduleDecls.push({ spec: e.moduleSpecifier, at: e.moduleSpecifier });
          break;
        }
        case SK.ImportEqualsDeclaration: {
          const e = node as TS.ImportEqualsDeclaration;
          if (ts.isExternalModuleReference(e.moduleReference)) {
            const spec = e.moduleReference.expression;
            if (!e.isTypeOnly) this.moduleDecls.push({ spec, at: spec });
            const m = this.fold(spec);
            this.addDecl(e.name.text, m === undefined ? { kind: 'opaque' } : { kind: 'module', module: normaliseModule(m), path: [] });
          } else this.addDecl(e.name.text, { kind: 'opaque' });
          break;
        }
        case SK.BinaryExpression: {
          const b = node as TS.BinaryExpression;
          if (b.operatorToken.kind === SK.EqualsToken && ts.isIdentifier(b.left)) this.addDecl(b.left.text, { kind: 'expr', expr: b.right });
          // ROT13: (c - base + 13) % 26, Triggerfish's "obfuscation" row.
          if (b.operatorToken.kind === SK.PercentToken && ts.isNumericLiteral(b.right) && b.right.text === '26' && /(?<![\w.])13(?![\w.])/.test(b.left.getText(this.sf))) {
            this.report('js.obfuscation', b, `${this.snippet(b, 50)} rotates letters by 13 (ROT13), a way to hide text from review; write the text out.`);
          }
          break;
        }
        case SK.CallExpression:
        case SK.NewExpression:
          this.calls.push(node as TS.CallExpression | TS.NewExpression);
          break;
        case SK.Identifier: {
          const id = node as TS.Identifier;
          if (/rot-?13/i.test(id.text) && !this.isValuePosition(id)) this.report('js.obfuscation', id, `${id.text} names a ROT13 step, a way to hide text from review; write the text out.`);
          if (this.isValuePosition(id)) {
            if (INTERESTING_NAMES.has(id.text)) this.refs.push(id);
            // Possible aliases of process.env (`const env = process.env`, `import { env } from 'process'`).
            else this.aliasIdents.push(id);
          }
          break;
        }
        case SK.PropertyAccessExpression: {
          const p = node as TS.PropertyAccessExpression;
          if (INTERESTING_NAMES.has(p.name.text)) this.refs.push(p);
          break;
        }
        case SK.ElementAccessExpression: {
          const e = node as TS.ElementAccessExpression;
          const key = this.fold(e.argumentExpression);
          if (key !== undefined && INTERESTING_NAMES.has(key)) this.refs.push(e);
          break;
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(root);
  }

  private addDecl(name: string, d: Decl): void {
    // A local `eval` (`var eval;` in a sloppy script still names the global one) is not trusted to
    // shadow the global: every eval read as a value is reported.
    if (name === 'eval') return;
    // Module wrappers take require as a parameter (`function (module, exports, require)`); it is
    // still require, and treating it as unknown would let a wrapper hide require('child_process').
    if (name === 'require' && d.kind === 'opaque') return;
    const list = this.decls.get(name);
    if (list) list.push(d);
    else this.decls.set(name, [d]);
  }

  private bindName(name: TS.BindingName, d: Decl): void {
    const ts = this.ts;
    if (ts.isIdentifier(name)) {
      this.addDecl(name.text, d);
      return;
    }
    if (ts.isObjectBindingPattern(name)) {
      for (const el of name.elements) {
        if (el.dotDotDotToken) {
          this.bindName(el.name, { kind: 'member', base: d, path: [] });
          continue;
        }
        let prop: string | undefined;
        if (el.propertyName) {
          if (ts.isIdentifier(el.propertyName) || ts.isStringLiteral(el.propertyName)) prop = el.propertyName.text;
          else if (ts.isComputedPropertyName(el.propertyName)) prop = this.fold(el.propertyName.expression);
        } else if (ts.isIdentifier(el.name)) prop = el.name.text;
        this.bindName(el.name, prop === undefined ? { kind: 'opaque' } : { kind: 'member', base: d, path: [prop] });
      }
      return;
    }
    for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.bindName(el.name, { kind: 'opaque' });
  }

  private recordImport(d: TS.ImportDeclaration): void {
    const clause = d.importClause;
    const m = this.fold(d.moduleSpecifier);
    const module = m === undefined ? undefined : normaliseModule(m);
    // A type-only import does not load the module at run time.
    let runtime = !clause || !clause.isTypeOnly;
    if (clause && runtime && !clause.name && clause.namedBindings && this.ts.isNamedImports(clause.namedBindings)) {
      const els = clause.namedBindings.elements;
      if (els.length > 0 && els.every((e) => e.isTypeOnly)) runtime = false;
    }
    if (runtime) this.moduleDecls.push({ spec: d.moduleSpecifier, at: d.moduleSpecifier });
    if (!clause || module === undefined) return;
    if (clause.name) this.addDecl(clause.name.text, { kind: 'module', module, path: [] });
    const nb = clause.namedBindings;
    if (!nb) return;
    if (this.ts.isNamespaceImport(nb)) this.addDecl(nb.name.text, { kind: 'module', module, path: [] });
    else for (const s of nb.elements) this.addDecl(s.name.text, { kind: 'module', module, path: [(s.propertyName ?? s.name).text] });
  }

  /** True where an identifier is read as a value (not a property name, declaration name, label or type). */
  private isValuePosition(id: TS.Identifier): boolean {
    const ts = this.ts;
    const p = id.parent;
    if (!p) return false;
    if (ts.isPropertyAccessExpression(p)) return p.expression === id;
    if (ts.isQualifiedName(p)) return false;
    if (ts.isTypeReferenceNode(p) || ts.isTypeQueryNode(p) || ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
    if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportEqualsDeclaration(p)) return false;
    if (ts.isBindingElement(p)) return p.initializer === id;
    if (ts.isShorthandPropertyAssignment(p)) return true;
    if ('name' in p && (p as { name?: TS.Node }).name === id) return false;
    if (ts.isJsxAttribute(p) || ts.isMetaProperty(p)) return false;
    return true;
  }

  // ── resolution ──────────────────────────────────────────────────────────────────────────────

  private unwrap(e: TS.Expression): TS.Expression {
    const ts = this.ts;
    for (;;) {
      if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
      else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.CommaToken) e = e.right; // (0, eval)
      else return e;
    }
  }

  /** Where an expression comes from: a module member, a global, or unknown. */
  private resolve(expr: TS.Expression): Ref | undefined {
    if (this.resolving > 24) return undefined;
    this.resolving++;
    try {
      return this.resolveInner(this.unwrap(expr));
    } finally {
      this.resolving--;
    }
  }

  private resolveInner(e: TS.Expression): Ref | undefined {
    const ts = this.ts;
    if (ts.isIdentifier(e)) {
      const ds = this.decls.get(e.text);
      if (ds) {
        // Names are file-global in this model, so a name resolves the same everywhere: cache it.
        // Without the cache, names assigned many times (`x = x.next`) make resolution exponential.
        const cached = this.nameCache.get(e.text);
        if (cached !== undefined) return cached === 'pending' || cached === null ? undefined : cached;
        this.nameCache.set(e.text, 'pending');
        let found: Ref | null = null;
        for (const d of ds) {
          const r = this.resolveDecl(d);
          if (r) {
            found = r;
            break;
          }
        }
        this.nameCache.set(e.text, found);
        return found ?? undefined;
      }
      if (e.text === '__non_webpack_require__') return normaliseRef({ module: '@global', path: ['require'] });
      return normaliseRef({ module: '@global', path: GLOBAL_OBJECTS.has(e.text) ? [] : [e.text] });
    }
    if (ts.isPropertyAccessExpression(e)) {
      const base = this.resolve(e.expression);
      return base && normaliseRef({ module: base.module, path: [...base.path, e.name.text] });
    }
    if (ts.isElementAccessExpression(e)) {
      const key = this.fold(e.argumentExpression);
      if (key === undefined) return undefined;
      const base = this.resolve(e.expression);
      return base && normaliseRef({ module: base.module, path: [...base.path, key] });
    }
    if (ts.isCallExpression(e)) {
      const spec = this.loadedModule(e);
      if (spec !== undefined) return { module: normaliseModule(spec), path: [] };
      const callee = this.resolve(e.expression);
      // createRequire(import.meta.url) returns a require function.
      if (callee && callee.module === 'module' && callee.path.length === 1 && callee.path[0] === 'createRequire') return { module: '@global', path: ['require'] };
      return undefined;
    }
    if (ts.isAwaitExpression(e)) return this.resolve(e.expression);
    return undefined;
  }

  private resolveDecl(d: Decl): Ref | undefined {
    switch (d.kind) {
      case 'module':
        return normaliseRef({ module: d.module, path: d.path });
      case 'expr':
        return this.resolve(d.expr);
      case 'member': {
        const base = this.resolveDecl(d.base);
        return base && normaliseRef({ module: base.module, path: [...base.path, ...d.path] });
      }
      case 'opaque':
        return undefined;
    }
  }

  private isRequireFn(r: Ref | undefined): boolean {
    if (!r) return false;
    const last = r.path[r.path.length - 1];
    // process.getBuiltinModule (Node 22.3+) is require for built-in modules, reachable where require
    // is not (ES modules): without it here, getBuiltinModule('child_process') is not a finding.
    if (isBuiltinLoader(r)) return true;
    // require, module.require, process.mainModule.require, and Module._load (what require calls).
    return (last === 'require' || last === '_load') && (r.module === '@global' || r.module === 'process' || r.module === 'module');
  }

  /** The literal module name a `require('m')` / `import('m')` call loads, if it is one. */
  private loadedModule(call: TS.CallExpression): string | undefined {
    const arg = call.arguments[0];
    if (!arg) return undefined;
    if (call.expression.kind === this.ts.SyntaxKind.ImportKeyword || this.isRequireFn(this.resolve(call.expression))) return this.fold(arg);
    return undefined;
  }

  /** Constant-folds string expressions: literals, templates, `+`, and const names bound to those. */
  private fold(e: TS.Expression, depth = 0): string | undefined {
    const ts = this.ts;
    if (depth > 8) return undefined;
    e = this.unwrap(e);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isTemplateExpression(e)) {
      let s = e.head.text;
      for (const span of e.templateSpans) {
        const v = this.fold(span.expression, depth + 1);
        if (v === undefined) return undefined;
        s += v + span.literal.text;
      }
      return s;
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const l = this.fold(e.left, depth + 1);
      if (l === undefined) return undefined;
      const r = this.fold(e.right, depth + 1);
      return r === undefined ? undefined : l + r;
    }
    if (ts.isIdentifier(e)) {
      const ds = this.decls.get(e.text);
      if (ds && ds.length === 1 && ds[0]?.kind === 'expr') return this.fold(ds[0].expr, depth + 1);
    }
    return undefined;
  }

  // ── rules ───────────────────────────────────────────────────────────────────────────────────

  private report(rule: RuleId, node: TS.Node, message: string | (() => string)): void {
    if (this.c.full(rule)) return;
    this.c.at(rule, node.getStart(this.sf), typeof message === 'string' ? message : message());
  }

  private snippet(node: TS.Node, max = 60): string {
    const t = node.getText(this.sf).replace(/\s+/g, ' ');
    return t.length > max ? `${t.slice(0, max - 1)}…` : t;
  }

  private checkSpecifier(spec: string | undefined, at: TS.Node, how: string): void {
    if (spec === undefined) return;
    const bare = normaliseModule(spec);
    if (bare === 'child_process') {
      this.report('js.child-process', at, `${capitalise(how)} the child_process module, which runs other programs with the plugin's rights, outside anything this scan can see.`);
    } else if (bare === 'vm') {
      this.report('js.vm', at, `${capitalise(how)} the vm module, which compiles and runs strings as code (and is not a security boundary).`);
    } else if (URL_SPECIFIER.test(spec) && !spec.startsWith('node:')) {
      this.report('js.import-url', at, `${capitalise(how)} code from "${truncate(spec, 60)}": code fetched or decoded at run time is not what was reviewed, pinned or scanned.`);
    } else if (spec.startsWith('/') || (spec.startsWith('.') && posix.normalize(posix.join(posix.dirname(this.c.file.replace(/\\/g, '/')), spec)).startsWith('..'))) {
      // A file outside the folder is neither pinned nor scanned with the plugin, and can change under it.
      this.report('js.import-outside', at, `${capitalise(how)} "${truncate(spec, 60)}", a file outside the plugin folder: it is not pinned or scanned with the plugin.`);
    }
  }

  private checkCall(call: TS.CallExpression | TS.NewExpression): void {
    const ts = this.ts;
    const isNew = ts.isNewExpression(call);
    const args: readonly TS.Expression[] = call.arguments ?? [];

    if (!isNew && call.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = args[0];
      if (!arg) return;
      const spec = this.fold(arg);
      if (spec === undefined) this.report('js.dynamic-import', call, `import(${this.snippet(arg, 40)}) loads a module whose name is computed at run time, so the code it runs cannot be known from the plugin's files.`);
      else this.checkSpecifier(spec, call, 'dynamically imports');
      return;
    }

    // base64 manipulation (Triggerfish's "obfuscation" row): Buffer.from(x, 'base64'), buf.toString('base64').
    const method = ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : '';
    if ((method === 'from' || method === 'toString') && args.some((a) => /^base64(?:url)?$/.test(this.fold(a) ?? ''))) {
      this.report('js.obfuscation', call, `${this.snippet(call, 50)} converts base64, a way to hide code or data from review; check what is decoded and what is done with it.`);
    }

    const callee = this.resolve(call.expression);
    if (!isNew && this.isRequireFn(callee)) {
      const arg = args[0];
      if (!arg) return;
      // AMD: require(['a', 'b'], callback) loads each listed module.
      const list = this.unwrap(arg);
      if (ts.isArrayLiteralExpression(list) && list.elements.every((el) => this.fold(el) !== undefined)) {
        for (const el of list.elements) this.checkSpecifier(this.fold(el), call, 'requires');
        return;
      }
      const spec = this.fold(arg);
      const loader = isBuiltinLoader(callee) ? 'process.getBuiltinModule' : 'require';
      if (spec === undefined) this.report('js.dynamic-import', call, `${loader}(${this.snippet(arg, 40)}) loads a module whose name is computed at run time, which hides which module (for example child_process) it really loads.`);
      else this.checkSpecifier(spec, call, loader === 'require' ? 'requires' : 'loads, through process.getBuiltinModule,');
      return;
    }

    // (function(){}).constructor('code'), Object.getPrototypeOf(async function(){}).constructor(...)
    if (this.isFunctionConstructor(call.expression, 0)) {
      this.report('js.function-constructor', call, `${this.snippet(call.expression, 50)} is the Function constructor reached through a function's prototype; it compiles a string into code, like eval.`);
      return;
    }

    if (!callee) return;
    if (callee.module === '@global' && callee.path[0] === 'Function' && /^(?:constructor|prototype\.constructor|call|apply|bind)$/.test(callee.path.slice(1).join('.'))) {
      this.report('js.function-constructor', call, `${this.snippet(call.expression, 50)} reaches the Function constructor, which compiles a string into code like eval.`);
      return;
    }
    const [m, ...path] = [callee.module, ...callee.path];
    const name = path[path.length - 1] ?? '';

    if (m && NETWORK_SERVER_MODULES.has(m) && path.length === 1 && (name === 'createServer' || name === 'createSecureServer' || (isNew && name === 'Server'))) {
      this.report('js.network-listener', call, `${this.snippet(call.expression, 40)} opens a ${m} server that accepts connections from other processes or machines; a tool plugin should not listen on the network.`);
      return;
    }
    if (m === 'dgram' && path.length === 1 && name === 'createSocket') {
      this.report('js.network-listener', call, `dgram.createSocket opens a UDP socket that can receive datagrams from the network; a tool plugin should not listen on the network.`);
      return;
    }
    if (m === '@global' && path.length === 2 && path[0] === 'Bun' && name === 'serve') {
      this.report('js.network-listener', call, `${path.join('.')} opens a network server; a tool plugin should not listen on the network.`);
      return;
    }
    if (isNew && (m === 'worker_threads' || m === '@global') && path.length === 1 && name === 'Worker' && this.hasEvalOption(args[1])) {
      this.report('js.eval', call, `new Worker(…, { eval: true }) runs a string as JavaScript in a worker thread, which is eval by another name.`);
      return;
    }
    if (m && FS_MODULES.has(m) && path.length === 1) {
      const base = name.endsWith('Sync') ? name.slice(0, -4) : name;
      const idx = FS_WRITES[base] ?? (m === 'fs-extra' ? FS_EXTRA_WRITES[base] : undefined);
      if (idx) for (const i of idx) {
        const arg = args[i];
        if (arg) this.checkWritePath(`${m === 'fs/promises' ? 'fs.promises' : 'fs'}.${name}`, arg);
      }
    }
  }

  private isFunctionConstructor(e: TS.Expression, depth: number): boolean {
    const ts = this.ts;
    const u = this.unwrap(e);
    if (ts.isPropertyAccessExpression(u)) return u.name.text === 'constructor' && this.isFunctionValue(u.expression);
    if (ts.isIdentifier(u) && depth < 4) {
      const ds = this.decls.get(u.text);
      return !!ds && ds.length === 1 && ds[0]?.kind === 'expr' && this.isFunctionConstructor(ds[0].expr, depth + 1);
    }
    return false;
  }

  private isFunctionValue(e: TS.Expression): boolean {
    const ts = this.ts;
    const u = this.unwrap(e);
    if (ts.isFunctionExpression(u) || ts.isArrowFunction(u)) return true;
    if (ts.isCallExpression(u)) {
      const r = this.resolve(u.expression);
      return !!r && r.path.length === 2 && (r.path[0] === 'Object' || r.path[0] === 'Reflect') && r.path[1] === 'getPrototypeOf';
    }
    if (ts.isIdentifier(u)) {
      const ds = this.decls.get(u.text);
      return !!ds && ds.length === 1 && ds[0]?.kind === 'expr' && this.resolving < 8 && this.isFunctionValue(ds[0].expr);
    }
    return false;
  }

  private hasEvalOption(arg: TS.Expression | undefined): boolean {
    const ts = this.ts;
    if (!arg) return false;
    const u = this.unwrap(arg);
    if (!ts.isObjectLiteralExpression(u)) return false;
    return u.properties.some((p) => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'eval' && p.initializer.kind !== ts.SyntaxKind.FalseKeyword);
  }

  private checkRef(node: TS.Identifier | TS.PropertyAccessExpression | TS.ElementAccessExpression): void {
    const ts = this.ts;
    const r = this.resolve(node);
    if (!r) return;
    const { module: m, path } = r;
    const p = node.parent;

    if (m === '@global' && path.length === 1 && path[0] === 'Deno') return this.checkDeno(node);
    if (m === '@global' && path.length === 1 && path[0] === 'atob') {
      this.report('js.atob', node, 'atob decodes base64 text at run time; code or commands hidden that way are not what a reviewer reads (Triggerfish fails a plugin for it).');
      return;
    }
    if (m === '@global' && path.length === 1 && path[0] === 'btoa') {
      this.report('js.obfuscation', node, 'btoa base64-encodes data, a way to hide what a plugin sends; check what is encoded and where it goes.');
      return;
    }
    if (m === '@global' && path.length === 1 && path[0] === 'eval') {
      const called = p && (ts.isCallExpression(p) || ts.isNewExpression(p)) && this.unwrap(p.expression) === node;
      this.report('js.eval', node, () => (called
        ? `${this.snippet(node, 30)}(…) runs a string as JavaScript with the plugin's full rights; whatever reaches it (input, network, decoded data) executes.`
        : `${this.snippet(node, 30)} is referenced as a value, an indirect way to call eval, which runs strings as JavaScript.`));
      return;
    }
    if (m === '@global' && path.length === 1 && path[0] === 'Function') {
      if (!p) return;
      const asCallee = (ts.isCallExpression(p) || ts.isNewExpression(p)) && this.unwrap(p.expression) === node;
      const aliased = (ts.isVariableDeclaration(p) && p.initializer === node) || (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && p.right === node);
      const reflected = ts.isCallExpression(p) && p.arguments.includes(node as TS.Expression) && /^Reflect\.(apply|construct)$/.test(this.snippet(p.expression));
      if (asCallee || aliased || reflected) {
        this.report('js.function-constructor', node, `The Function constructor (${this.snippet(p, 40)}) compiles a string into a function, which is eval by another name.`);
      }
      return;
    }
    if (m === '@global' && path.length === 1 && path[0] === 'require') {
      // require passed around as a value (`const r = require; r(name)`, `[require][0](…)`) hides what it loads.
      if (!p || !ts.isIdentifier(node)) return;
      const asCallee = ts.isCallExpression(p) && this.unwrap(p.expression) === node;
      const harmless = ts.isTypeOfExpression(p) || (ts.isPropertyAccessExpression(p) && p.expression === node) || ts.isBinaryExpression(p) && p.operatorToken.kind !== ts.SyntaxKind.EqualsToken;
      if (!asCallee && !harmless && !(ts.isVariableDeclaration(p) && ts.isIdentifier(p.name))) {
        this.report('js.dynamic-import', node, `require is passed around as a value here, which hides which modules the code loads.`);
      }
      return;
    }
    if (isBuiltinLoader(r)) {
      // Called directly, it is checked as a call; held in a const, where that const is called. Any
      // other use (`.call(…)`, `?? require`, an argument) loads modules this scan cannot name.
      if (!p || this.isCheckOnly(node) || (ts.isVariableDeclaration(p) && p.initializer === node && ts.isIdentifier(p.name))) return;
      if (ts.isCallExpression(p) && this.unwrap(p.expression) === node) return;
      this.report('js.dynamic-import', node, `process.getBuiltinModule is passed around as a value here (${this.snippet(p, 40)}), which hides which modules the code loads.`);
      return;
    }
    if (m === 'process' && path.length === 1 && (path[0] === 'binding' || path[0] === '_linkedBinding' || path[0] === 'dlopen')) {
      this.report('js.process-binding', node, `process.${path[0]} reaches Node's internal native bindings or loads a native library, bypassing every JavaScript-level check (it can spawn processes and open files directly).`);
      return;
    }
    if (m === 'process' && path.length === 1 && path[0] === 'env') this.checkEnvUse(node);
  }

  /** A use of Deno's global: what it reaches decides the rule, with Triggerfish's weights. */
  private checkDeno(node: TS.Node): void {
    const ts = this.ts;
    // `typeof Deno !== 'undefined'`: code that runs on both checks for Deno without using it.
    if (this.isCheckOnly(node)) return;
    const p = node.parent;
    const members: (string | null)[] = [];
    if (p && ts.isPropertyAccessExpression(p) && p.expression === node) members.push(p.name.text);
    else if (p && ts.isElementAccessExpression(p) && p.expression === node) members.push(this.fold(p.argumentExpression) ?? null);
    else if (p && ts.isVariableDeclaration(p) && p.initializer === node && ts.isObjectBindingPattern(p.name)) {
      for (const el of p.name.elements) {
        const key = el.propertyName ?? el.name;
        members.push(ts.isIdentifier(key) || ts.isStringLiteral(key) ? key.text : null);
      }
    } else members.push(null);
    for (const member of members) {
      this.denoUses.push({ offset: node.getStart(this.sf), member });
      const what = member === null ? 'Deno' : `Deno.${member}`;
      if (member !== null && DENO_SUBPROCESS.has(member)) this.report('js.deno-subprocess', node, `${what} runs another program with the plugin's rights, outside anything this scan can see.`);
      else if (member !== null && DENO_LISTEN.has(member)) this.report('js.deno-listen', node, `${what} opens a network listener; a plugin must not accept connections.`);
      else if (member === 'env') this.report('js.deno-env', node, `${what} reads the environment, which holds tokens and secrets.`);
      else if (member !== null && DENO_FS.test(member)) this.report('js.deno-fs', node, `${what} reaches the file system; a sandboxed module plugin has no file system of its own.`);
    }
  }

  /** Whether `node` is only tested (typeof, !, a condition, a comparison), never used as a value. */
  private isCheckOnly(node: TS.Node): boolean {
    const ts = this.ts;
    const p = node.parent;
    const SK = ts.SyntaxKind;
    if (ts.isTypeOfExpression(p) || (ts.isPrefixUnaryExpression(p) && p.operator === SK.ExclamationToken)) return true;
    if ((ts.isIfStatement(p) || ts.isWhileStatement(p)) && p.expression === node) return true;
    if (ts.isConditionalExpression(p) && p.condition === node) return true;
    if (ts.isBinaryExpression(p)) {
      const op = p.operatorToken.kind;
      return (op === SK.AmpersandAmpersandToken && p.left === node) || op === SK.EqualsEqualsEqualsToken || op === SK.ExclamationEqualsEqualsToken || op === SK.EqualsEqualsToken || op === SK.ExclamationEqualsToken;
    }
    return false;
  }

  /** `node` is an expression whose value is process.env; what the code does with it decides the rule. */
  private checkEnvUse(node: TS.Node): void {
    const ts = this.ts;
    if (this.envReported.has(node)) return;
    this.envReported.add(node);
    const p = node.parent;
    const note = (name?: string): void => {
      if (name !== undefined) this.envNames.push(name);
      this.envUses.push(node);
    };
    if (!p) return;
    if (ts.isPropertyAccessExpression(p) && p.expression === node) return note(p.name.text);
    if (ts.isElementAccessExpression(p) && p.expression === node) return note(this.fold(p.argumentExpression));
    if (ts.isBinaryExpression(p) && p.right === node && p.operatorToken.kind === ts.SyntaxKind.InKeyword) return note(this.fold(p.left));
    if (ts.isVariableDeclaration(p) && p.initializer === node) {
      if (ts.isIdentifier(p.name)) return; // an alias; its uses are checked where they happen
      if (ts.isObjectBindingPattern(p.name) && !p.name.elements.some((e) => e.dotDotDotToken)) {
        for (const e of p.name.elements) note(e.propertyName && ts.isIdentifier(e.propertyName) ? e.propertyName.text : ts.isIdentifier(e.name) ? e.name.text : undefined);
        return;
      }
    }
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      if (p.left === node) return; // `env = …` writes the name, it does not read the environment
      if (ts.isIdentifier(p.left)) return; // `env = process.env`: an alias, checked where it is used
    }
    if (ts.isTypeOfExpression(p)) return;
    this.report('js.env-dump', node, () => `The whole environment is used here (${this.snippet(p, 50)}), not one named variable: every token and secret in it can be copied or sent elsewhere.`);
  }

  // ── writes outside the plugin folder ────────────────────────────────────────────────────────

  private checkWritePath(fn: string, arg: TS.Expression): void {
    const parts = this.evalPath(arg, 0);
    const flat = flatten(parts);
    const shown = this.snippet(arg, 50);
    const first = flat[0];
    const lits = flat.filter((p): p is { k: 'lit'; s: string } => p.k === 'lit');
    const hasDotDot = lits.some((p) => DOTDOT_SEGMENT.test(p.s));
    if (first?.k === 'home' || (first?.k === 'lit' && first.s.startsWith('~'))) {
      this.report('js.fs-write-outside', arg, `${fn} writes to ${shown}, in the user's home folder outside the plugin folder; that is how plugins plant start-up scripts, SSH keys or credentials.`);
      return;
    }
    if (first?.k === 'lit') {
      const s = first.s.startsWith('file://') ? first.s.slice(7) : first.s;
      if (ABSOLUTE.test(s)) {
        if (flat.length === 1 && HARMLESS_DEVICE.test(s)) return;
        if (TEMP_PREFIX.test(s) && !hasDotDot) {
          this.report('js.fs-write-temp', arg, `${fn} writes to ${shown} in the system temp folder, outside the plugin folder; files there are shared with other programs.`);
          return;
        }
        this.report('js.fs-write-outside', arg, `${fn} writes to the absolute path ${shown}, outside the plugin folder; a plugin should only change files inside its own folder.`);
        return;
      }
    }
    if (hasDotDot) {
      this.report('js.fs-write-parent', arg, `${fn} writes to ${shown}, which climbs out with "..", so it changes files outside the plugin folder.`);
      return;
    }
    if (first?.k === 'tmp') {
      this.report('js.fs-write-temp', arg, `${fn} writes to ${shown} in the system temp folder, outside the plugin folder; files there are shared with other programs.`);
      return;
    }
    if (flat.some((p) => p.k === 'unknown')) {
      this.report('js.fs-write-computed', arg, `${fn} writes to a computed path (${shown}); if any part of it comes from input it can point outside the plugin folder.`);
    }
  }

  /** An abstract value of a path expression: literal text, home, temp, the plugin folder, unknown. */
  private evalPath(expr: TS.Expression, depth: number): PathPart[] {
    const ts = this.ts;
    if (depth > 8) return [{ k: 'unknown' }];
    const e = this.unwrap(expr);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [{ k: 'lit', s: e.text }];
    if (ts.isTemplateExpression(e)) {
      const out: PathPart[] = [{ k: 'lit', s: e.head.text }];
      for (const span of e.templateSpans) out.push(...this.evalPath(span.expression, depth + 1), { k: 'lit', s: span.literal.text });
      return out;
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return [...this.evalPath(e.left, depth + 1), ...this.evalPath(e.right, depth + 1)];
    if (ts.isIdentifier(e)) {
      const ds = this.decls.get(e.text);
      if (!ds) return e.text === '__dirname' ? [{ k: 'here' }] : e.text === '__filename' ? [{ k: 'hereFile' }] : [{ k: 'unknown' }];
      if (ds.length === 1 && ds[0]?.kind === 'expr') return this.evalPath(ds[0].expr, depth + 1);
      return [{ k: 'unknown' }];
    }
    if (ts.isPropertyAccessExpression(e) && ts.isMetaProperty(e.expression)) {
      return e.name.text === 'dirname' ? [{ k: 'here' }] : e.name.text === 'filename' || e.name.text === 'url' ? [{ k: 'hereFile' }] : [{ k: 'unknown' }];
    }
    if (ts.isNewExpression(e)) {
      const r = this.resolve(e.expression);
      const [a0, a1] = e.arguments ?? [];
      if (r?.module === '@global' && r.path.length === 1 && r.path[0] === 'URL' && a0) {
        const baseKind = a1 ? this.evalPath(a1, depth + 1)[0]?.k : undefined;
        if (baseKind === 'here' || baseKind === 'hereFile') {
          const rel = this.evalPath(a0, depth + 1);
          return rel[0]?.k === 'lit' && ABSOLUTE.test(rel[0].s) ? rel : [{ k: 'here' }, { k: 'lit', s: '/' }, ...rel];
        }
        return this.evalPath(a0, depth + 1);
      }
      return [{ k: 'unknown' }];
    }
    const r = ts.isCallExpression(e) ? this.resolve(e.expression) : this.resolve(e);
    if (!r) return [{ k: 'unknown' }];
    const key = `${r.module}:${r.path.join('.')}`;
    if (!ts.isCallExpression(e)) {
      if (r.module === 'process' && r.path.length === 2 && r.path[0] === 'env') {
        const v = r.path[1] as string;
        return ENV_HOME.has(v) ? [{ k: 'home' }] : ENV_TMP.has(v) ? [{ k: 'tmp' }] : [{ k: 'unknown' }];
      }
      return [{ k: 'unknown' }];
    }
    const args = e.arguments;
    switch (key) {
      case 'os:homedir':
        return [{ k: 'home' }];
      case 'os:tmpdir':
        return [{ k: 'tmp' }];
      case 'process:cwd':
        return [{ k: 'here' }];
      case 'path:join':
        return joinParts(args.map((a) => this.evalPath(a, depth + 1)));
      case 'path:resolve': {
        const each = args.map((a) => this.evalPath(a, depth + 1));
        let from = -1;
        each.forEach((p, i) => {
          const f = p[0];
          if (f && (f.k === 'home' || f.k === 'tmp' || f.k === 'here' || f.k === 'hereFile' || (f.k === 'lit' && (ABSOLUTE.test(f.s) || f.s.startsWith('~'))))) from = i;
        });
        return from < 0 ? joinParts([[{ k: 'here' }], ...each]) : joinParts(each.slice(from));
      }
      case 'path:normalize':
      case 'url:fileURLToPath':
        return args[0] ? this.evalPath(args[0], depth + 1) : [{ k: 'unknown' }];
      case 'path:dirname': {
        // dirname of a file in the plugin folder is the folder; of the folder, its parent.
        const inner = args[0] ? this.evalPath(args[0], depth + 1) : [{ k: 'unknown' } as PathPart];
        const last = inner[inner.length - 1];
        if (last?.k === 'hereFile') return [...inner.slice(0, -1), { k: 'here' }];
        if (last?.k === 'lit' || last?.k === 'here') return [...inner, { k: 'lit', s: '/..' }];
        return inner;
      }
      default:
        return [{ k: 'unknown' }];
    }
  }
}

function joinParts(list: PathPart[][]): PathPart[] {
  const out: PathPart[] = [];
  list.forEach((p, i) => {
    if (i > 0) out.push({ k: 'lit', s: '/' });
    out.push(...p);
  });
  return out;
}

/** Joins adjacent literal text and folds `name/..` inside it, so `join(here, 'a', '..')` is still inside. */
function flatten(parts: PathPart[]): PathPart[] {
  const out: PathPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.k === 'lit' && last?.k === 'lit') out[out.length - 1] = { k: 'lit', s: last.s + p.s };
    else if (p.k === 'lit' && p.s === '') continue;
    else out.push(p.k === 'hereFile' ? { k: 'here' } : p);
  }
  return out.map((p) => (p.k === 'lit' ? { k: 'lit', s: foldDotDot(p.s) } : p));
}

function foldDotDot(s: string): string {
  if (!s.includes('..')) return s;
  const lead = /^[\\/]+/.exec(s)?.[0] ?? '';
  const trail = s.length > lead.length && /[\\/]$/.test(s) ? '/' : '';
  const out: string[] = [];
  for (const seg of s.slice(lead.length).split(/[\\/]+/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(seg);
  }
  return lead + out.join('/') + trail;
}

function normaliseModule(spec: string): string {
  return spec.startsWith('node:') ? spec.slice(5) : spec;
}

/** process.getBuiltinModule, however it was reached (process, globalThis.process, node:process). */
function isBuiltinLoader(r: Ref | undefined): boolean {
  return !!r && r.module === 'process' && r.path.length === 1 && r.path[0] === 'getBuiltinModule';
}

function normaliseRef(r: Ref): Ref {
  const { module } = r;
  let { path } = r;
  if (module === '@global') {
    while (path.length > 0 && GLOBAL_OBJECTS.has(path[0] as string)) path = path.slice(1);
    if (path[0] === 'process') return normaliseRef({ module: 'process', path: path.slice(1) });
    return { module, path };
  }
  if (path[0] === 'default') path = path.slice(1);
  if (module === 'fs' && path[0] === 'promises') return { module: 'fs/promises', path: path.slice(1) };
  if (module === 'path' && (path[0] === 'posix' || path[0] === 'win32')) return { module, path: path.slice(1) };
  return { module, path };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
