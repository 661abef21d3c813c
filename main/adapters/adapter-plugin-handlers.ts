// Terminal adapters in the Plugins view. Adapters are read by main/adapters/, not the plugin
// registry, but the console lists, opens, edits, checks and approves them through the same
// plugins.* methods as every other plugin: these handlers wrap the registry's and answer for a
// name that is an adapter folder (and only when no registry plugin has that name). So the view,
// its editor with live markers and its approve-change flow (diff, approve, scan override) need
// no second set of methods.
import { lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { ResponseOf } from '../../shared/contract.js';
import type { KindInfo } from '../../shared/plugin-kind.js';
import type { CallContext } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import { digestFolder } from '../registry/integrity.js';
import type { PluginSource } from '../registry/plugin-registry.js';
import { MAX_EDIT_FILE, pathInFolder } from '../registry/plugin-service.js';
import type { RegistryHandlers } from '../registry/registry-handlers.js';
import { AdapterError, type AdapterFolderView, type AdapterService } from './adapter-service.js';

type Summary = ResponseOf<'plugins.list'>['plugins'][number];
type Detail = ResponseOf<'plugins.get'>;

export interface AdapterPluginDeps {
  adapters: AdapterService;
  sources: readonly PluginSource[];
  /** Whether the registry has a plugin of this name (it wins: an adapter of the same name is only noted). */
  registryHas: (name: string) => boolean;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  /** plugins.changed for the consoles. */
  changed: (names: string[]) => void;
}

/** The registry's plugins.* handlers, answering for terminal adapter folders too. */
export function adapterPluginHandlers(base: RegistryHandlers, d: AdapterPluginDeps): RegistryHandlers {
  const { adapters } = d;
  const adapterNamed = (name: string, reread = true): AdapterFolderView | null => (d.registryHas(name) ? null : (adapters.folderViews(reread).find((v) => v.name === name) ?? null));
  const sourceDirs = () => d.sources.map((s) => ({ origin: s.origin, dir: realOr(s.dir) }));
  const originOf = (v: AdapterFolderView): Summary['origin'] => (v.origin === 'loaded' ? 'cli' : (sourceDirs().find((s) => v.dir === s.dir || v.dir.startsWith(s.dir + sep))?.origin ?? 'home'));
  const summaryOf = (v: AdapterFolderView): Summary => summarize(v, originOf(v));
  const refusals = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AdapterError) throw new OperationError(err.reason, err.message, { code: err.code, ...err.data });
      throw err;
    }
  };
  const release = (name: string, ctx: CallContext, overrideReason: string | undefined) =>
    refusals(() => {
      const info = adapters.approve(name, ctx.operator, overrideReason);
      d.changed([name, info.name]);
      return summaryOf(adapters.folderViews().find((v) => v.name === info.name)!);
    });
  const notForAdapters = (name: string, what: string) =>
    new OperationError('state', `${name} is a terminal adapter: adapters are not ${what}. It can run as soon as it is not quarantined; a changed one is released with Approve change (or by restoring its files).`);

  return {
    ...base,
    'plugins.list': async (p, ctx) => {
      const r = await base['plugins.list'](p, ctx);
      const taken = new Set(r.plugins.map((x) => x.name));
      const plugins = [...r.plugins];
      for (const v of adapters.folderViews()) {
        if (!taken.has(v.name)) {
          plugins.push(summaryOf(v));
          continue;
        }
        const i = plugins.findIndex((x) => x.name === v.name);
        plugins[i] = { ...plugins[i]!, notes: [...plugins[i]!.notes, `The terminal adapter in ${v.dir} has the same name and is not shown; rename one of them.`] };
      }
      return { ...r, plugins: plugins.sort((a, b) => a.name.localeCompare(b.name)) };
    },
    'plugins.get': (p, ctx) => {
      const v = adapterNamed(p.name);
      return v ? detailOf(v, originOf(v)) : base['plugins.get'](p, ctx);
    },
    'plugins.readFile': (p, ctx) => {
      const v = adapterNamed(p.name, false);
      if (!v) return base['plugins.readFile'](p, ctx);
      const full = pathInFolder(v.dir, p.path);
      const st = lstatSync(full);
      if (!st.isFile()) throw new OperationError('state', `${p.path} is not a regular file.`);
      if (st.size > MAX_EDIT_FILE) throw new OperationError('state', `${p.path} is ${st.size} bytes; the editor opens files up to ${MAX_EDIT_FILE} bytes.`);
      return { path: p.path, content: readFileSync(full, 'utf8') };
    },
    'plugins.writeFile': (p, ctx) => {
      const v = adapterNamed(p.name);
      if (!v) return base['plugins.writeFile'](p, ctx);
      if (Buffer.byteLength(p.content) > MAX_EDIT_FILE) throw new OperationError('state', `The file is over ${MAX_EDIT_FILE} bytes.`);
      writeFileSync(pathInFolder(v.dir, p.path, true), p.content);
      const bytes = Buffer.byteLength(p.content);
      d.record('plugin.file-saved', `operator:${ctx.operator}`, { name: p.name, path: p.path, bytes, console: ctx.console });
      // Read again now (the watcher would too): a pinned adapter whose files changed is quarantined at once.
      adapters.discover();
      d.changed([p.name]);
      return { path: p.path, bytes };
    },
    'plugins.check': (p, ctx) => {
      const v = adapterNamed(p.name, false);
      return v ? adapters.checkText(v.dir, p.path, p.content) : base['plugins.check'](p, ctx);
    },
    'plugins.approveChange': (p, ctx) => (adapterNamed(p.name) ? release(p.name, ctx, p.overrideReason) : base['plugins.approveChange'](p, ctx)),
    // An adapter held back only by its scan is accepted with the operator's reason, as Enable does for a plugin.
    'plugins.enable': (p, ctx) => {
      const v = adapterNamed(p.name);
      if (!v) return base['plugins.enable'](p, ctx);
      if (v.status === 'scan_failed') return release(p.name, ctx, p.overrideReason);
      throw notForAdapters(p.name, 'enabled or disabled');
    },
    'plugins.disable': (p, ctx) => {
      if (adapterNamed(p.name)) throw notForAdapters(p.name, 'enabled or disabled');
      return base['plugins.disable'](p, ctx);
    },
    'plugins.rollBack': (p, ctx) => {
      if (adapterNamed(p.name)) throw notForAdapters(p.name, 'rolled back from the console');
      return base['plugins.rollBack'](p, ctx);
    },
    'plugins.setTrusted': (p, ctx) => {
      if (adapterNamed(p.name)) throw notForAdapters(p.name, 'run outside a sandbox (their Lua always runs in its own)');
      return base['plugins.setTrusted'](p, ctx);
    },
  };
}

/** After the watcher saw an adapter folder change: read the folders again and tell the consoles. */
export function adapterFolderChanged(adapters: AdapterService, changed: (names: string[]) => void): () => void {
  return () => {
    adapters.discover();
    // An empty list means "anything may have changed": the adapter's name may be new or gone.
    changed([]);
  };
}

/** What the console shows for a terminal adapter folder: the adapter service runs it, agents call no tool of it. */
const ADAPTER_KIND_INFO: KindInfo = { label: 'terminal adapter', callable: false, judgesCalls: false, longLived: true, noTools: 'no tools (it drives a terminal)' };

function summarize(v: AdapterFolderView, origin: Summary['origin']): Summary {
  const errors = v.problems.filter((p) => p.severity === 'error').length;
  return {
    name: v.name,
    kind: v.manifest?.kind === 'macro' || v.manifest?.kind === 'matcher' ? v.manifest.kind : 'adapter',
    kindInfo: ADAPTER_KIND_INFO,
    description: v.manifest ? `Terminal adapter: ${v.manifest.permissions.length ? v.manifest.permissions.join(', ') : 'no permissions'}` : 'Terminal adapter',
    version: v.manifest?.version ?? null,
    dir: v.dir,
    origin,
    status: v.status,
    format: v.manifestFile === 'manifest.toml' ? 'ptywright' : v.manifestFile ? 'gatehouse' : null,
    toolNames: [],
    errors,
    warnings: v.problems.length - errors,
    findingCount: v.findings.length,
    scanPassed: v.manifest ? !v.findings.some((f) => f.weight >= 3) : null,
    scanWeight: v.findings.reduce((n, f) => n + f.weight, 0),
    notes: v.origin === 'loaded' ? ['Loaded at run time with plugin.load, not found in a plugins folder.'] : [],
    reloadErrors: 0,
    sandbox: null,
    trusted: false,
  };
}

function detailOf(v: AdapterFolderView, origin: Summary['origin']): Detail {
  let files: Detail['files'] = [];
  try {
    files = digestFolder(v.dir).files.map((f) => ({ path: f.path, size: f.size, kind: f.kind }));
  } catch {
    // Unreadable or too large a folder: listed without files, its problems say why it does not load.
  }
  const m = v.manifest;
  return {
    ...summarize(v, origin),
    manifestFile: v.manifestFile,
    manifest: m ? { ...m, entrypoint: v.entrypoint } : null,
    problems: v.problems,
    findings: v.findings,
    files,
    hash: v.hash,
    trust: v.pin && v.hash ? { hash: v.hash, enabledAt: v.pin.at, enabledBy: v.pin.by, scanOverride: v.pin.scanOverride, trusted: null } : null,
    changes: v.status === 'quarantined' && v.pin ? changesOf(v.dir, v.pin.files) : [],
    reloadProblems: [],
    wasmImports: null,
    adapter: m ? { permissions: m.permissions, limits: m.limits, defaultTarget: m.defaultTarget, loaded: v.origin === 'loaded', quarantined: v.quarantined } : null,
  };
}

/** The pinned manifest and entry point against the folder now, as the registry's approve-change flow shows a plugin's changes. */
function changesOf(dir: string, pinned: Record<string, string>): Detail['changes'] {
  const out: Detail['changes'] = [];
  for (const [path, before] of Object.entries(pinned)) {
    let now: string | null;
    try {
      now = readFileSync(pathInFolder(dir, path), 'utf8');
    } catch {
      now = null;
    }
    if (now === before) continue;
    out.push({ path, change: now === null ? 'removed' : 'modified', diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, now ?? '', 'approved', 'now', { context: 3 }) });
  }
  return out;
}

function realOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
