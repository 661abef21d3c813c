// Terminal adapters in the host: which adapters are known (discovered in the plugin folders, or
// loaded at run time when the host allows it), and the live adapter sessions, each a PTY session
// (the Terminals view's), a screen model fed the same output, and a Lua sandbox of its own.
//
// Every method goes through `gate`, which looks the method up in METHOD_PERMISSIONS and refuses
// (-32004, audited) what the adapter's manifest did not declare; the actions an adapter returns
// are checked again against ACTION_PERMISSIONS before a byte is typed. A limit reached in the Lua
// ends the adapter session only: the terminal keeps running and the operator can take it over.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { systemClock, type Clock } from '../core/clock.js';
import type { Finding, Problem } from '../registry/types.js';
import type { PtyManager } from '../pty/pty-manager.js';
import { ADAPTER_MANIFEST_FILES, checkAdapterManifestText, findAdapterManifest, LIMIT_BOUNDS, validateAdapterManifest, type LoadedAdapter } from './adapter-manifest.js';
import { AdapterLuaError, LuaSandbox } from './lua-sandbox.js';
import { scanLua } from '../registry/scan/lua-scan.js';
import { readAdapter } from './adapter-folder.js';
import { ACTION_PERMISSIONS, ADAPTER_KINDS, ADAPTER_PERMISSIONS, grantedHostFunctions, HOST_FUNCTIONS, METHOD_PERMISSIONS, PERMISSION_DENIED, type AdapterMethod } from './permissions.js';
import { Screen, type ScreenSnapshot } from './screen.js';

/** A refusal with ptywright's JSON-RPC code and data; the console sees the same code in its details. */
export class AdapterError extends Error {
  constructor(
    readonly code: number,
    /** A short stable word for the console's OperationError ("permission_denied", "not_found"). */
    readonly reason: string,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const INVALID_PARAMS = -32602;
/** Application errors: not found, quarantined, a limit reached, the program gone. */
export const ADAPTER_FAILED = -32000;

export type ClassifyState = 'ready' | 'busy' | 'waiting_for_permission' | 'done' | 'unknown';
export interface Classification {
  state: ClassifyState;
  confidence: number;
  evidence: string;
  /** Present when the adapter saw a permission question: its text and the options it offers. */
  question?: string;
  options?: { key: string; label: string }[];
}

export interface AdapterPluginInfo {
  name: string;
  kind: string;
  version: string;
  permissions: string[];
  defaultTarget: { program: string; args: string[] } | null;
  limits: { ops: number; memoryMb: number; timeoutMs: number };
  dir: string;
  origin: 'folder' | 'loaded';
  quarantined: string | null;
  findings: Finding[];
}

export interface AdapterSessionInfo {
  session: string;
  plugin: string;
  terminal: string;
  state: 'running' | 'ended';
  /** Why the adapter session ended (a limit, closed, the program exited). */
  ended: { code: string; message: string; ops: number } | null;
  lastIntent: string | null;
  classification: Classification | null;
  startedAt: number;
  /** The adapter watches the screen and sends permission questions to the inbox. */
  supervised: boolean;
  /** The question waiting for a decision now, if any. */
  asking: { question: string; approval: string | null } | null;
}

/** A permission question an adapter saw on a supervised terminal, for the inbox. */
export interface PermissionQuestion {
  session: string;
  plugin: string;
  terminal: string;
  /** The terminal's working folder: the question's relative paths are relative to it. */
  cwd: string;
  question: string;
  options: { key: string; label: string }[];
  /** What the adapter extracted the agent wants to do, as a tool call policy can judge (e.g. Bash with a command). */
  request: { tool: string; arguments: Record<string, unknown> } | null;
}

/**
 * How a question was decided: by policy on its own or by an operator in the inbox. `dry-run`:
 * Gatehouse is in dry-run, so nothing is typed whatever was decided (`would` says what): the
 * question stays for the person at the terminal.
 */
export interface PermissionAnswer {
  decision: 'allow' | 'deny' | 'ask' | 'expired' | 'dry-run';
  would?: 'allow' | 'deny' | 'ask' | 'expired';
  reason: string;
  decider: unknown;
  approval?: string;
}

export interface AdapterServiceDeps {
  ptys: PtyManager;
  /** The host's audit store. */
  record: (e: { type: string; actor: string; payload: Record<string, unknown> }) => void;
  /** Folders holding plugin folders (the registry's sources). */
  folders: () => string[];
  /** `--allow-plugin-load`: whether plugin.load / plugin.unload are served. */
  allowPluginLoad: boolean;
  clock?: Clock;
  /** An adapter session was started, changed state or ended (the console's list). */
  changed?: (info: AdapterSessionInfo) => void;
  /**
   * Decides a supervised terminal's permission question the way a hook call is decided (policy,
   * autonomy, then the inbox). Without it, supervised sessions only classify. `gone` is aborted
   * when the question is no longer there to answer (the session ended, the screen moved on): a
   * waiting item is then withdrawn ("agent gone"), as for an agent whose connection closed.
   */
  ask?: (q: PermissionQuestion, waiting: (approval: string) => void, gone: AbortSignal) => Promise<PermissionAnswer>;
  /** How long a supervised screen must be quiet before the adapter's classify runs (default 250 ms). */
  superviseQuietMs?: number;
}

interface Plugin {
  adapter: LoadedAdapter;
  source: string;
  hash: string;
  origin: 'folder' | 'loaded';
  quarantined: string | null;
  /** Quarantined because its files changed since the pin (not only because the scan failed). */
  changed: boolean;
  /** What the last read of its folder found: the files on disk now, which may differ from the pinned ones. */
  findings: Finding[];
  problems: Problem[];
  pin: AdapterPin;
}

/** What an adapter was pinned to: its manifest and entry point as read, and who accepted them. */
export interface AdapterPin {
  /** Relative path → text, for the manifest and the entry point: the approve-change flow diffs against these. */
  files: Record<string, string>;
  at: number;
  /** "host" for the first read of a folder, else the operator who approved a change (or loaded it). */
  by: string;
  scanOverride: { reason: string; by: string; at: number } | null;
}

/** An adapter folder as the Plugins view shows it: a loaded adapter, or one whose manifest does not load. */
export interface AdapterFolderView {
  name: string;
  dir: string;
  origin: 'folder' | 'loaded';
  manifestFile: string | null;
  /** The pinned entry point, as the manifest names it. */
  entrypoint: string | null;
  /** The pinned manifest (what runs); null when the folder never loaded. */
  manifest: AdapterPluginInfo | null;
  problems: Problem[];
  findings: Finding[];
  status: 'enabled' | 'quarantined' | 'scan_failed' | 'invalid';
  quarantined: string | null;
  hash: string | null;
  pin: AdapterPin | null;
}

interface Session {
  id: string;
  plugin: Plugin;
  terminal: string;
  screen: Screen;
  sandbox: LuaSandbox | null;
  transcript: string[];
  transcriptChars: number;
  transcriptDropped: boolean;
  lastIntent: string | null;
  classification: Classification | null;
  ended: AdapterSessionInfo['ended'];
  startedAt: number;
  untap: () => void;
  listeners: Set<() => void>;
  supervised: boolean;
  asking: AdapterSessionInfo['asking'];
  /** Withdraws the question being asked (see AdapterServiceDeps.ask). */
  askGone: AbortController | null;
  /** What the screen asked when the question was sent (askedKey): it must still ask exactly that. */
  askedKey: string;
  /** Output batches seen, and the count when the last question was answered (a question is asked once per screen). */
  batches: number;
  answeredAt: number;
  quietTimer: NodeJS.Timeout | null;
}

/** What an adapter session keeps of the raw output for adapter.transcript. */
const MAX_TRANSCRIPT_CHARS = 256 * 1024;
const DEFAULT_WAIT_MS = 10_000;
const MAX_WAIT_MS = 120_000;

/** Key names an action may use, and the bytes a terminal sends for them. */
const KEYS: Record<string, string> = {
  enter: '\r', return: '\r', tab: '\t', escape: '\x1b', esc: '\x1b', backspace: '\x7f', space: ' ', delete: '\x1b[3~',
  up: '\x1b[A', down: '\x1b[B', right: '\x1b[C', left: '\x1b[D', home: '\x1b[H', end: '\x1b[F',
  'ctrl-c': '\x03', 'ctrl-d': '\x04', 'ctrl-z': '\x1a', 'ctrl-l': '\x0c',
};

export function keyBytes(key: string): string | null {
  const k = key.toLowerCase();
  if (Object.hasOwn(KEYS, k)) return KEYS[k]!;
  // A single printable character is itself (an option's digit, y, n).
  return [...key].length === 1 && key >= ' ' && key !== '\x7f' ? key : null;
}

/**
 * A manifest's errors in one line, each with its file, place and field:
 * `manifest.toml:3:1 (entrypoint): …`. Without errors: that the manifest is missing.
 */
export function describeProblems(problems: readonly Problem[], manifestFile: string | null = 'manifest'): string {
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length === 0) return manifestFile === null ? 'it has no adapter manifest' : 'its manifest does not load';
  return errors.map((p) => `${p.file}${p.line ? `:${p.line}${p.column ? `:${p.column}` : ''}` : ''}${p.path ? ` (${p.path})` : ''}: ${p.message.replace(/\.$/, '')}`).join('; ');
}

export class AdapterService {
  private readonly plugins = new Map<string, Plugin>();
  /** Adapter folders whose manifest does not load (and that hold no pinned adapter), by folder. */
  private readonly broken = new Map<string, { name: string; dir: string; manifestFile: string | null; problems: Problem[] }>();
  private readonly sessions = new Map<string, Session>();
  private readonly clock: Clock;
  private readonly untapAll: () => void;

  constructor(private readonly deps: AdapterServiceDeps) {
    this.clock = deps.clock ?? systemClock;
    const byTerminal = new Map<string, Session>();
    this.untapAll = deps.ptys.tapOutput((e) => {
      let s = byTerminal.get(e.id);
      if (!s) {
        s = [...this.sessions.values()].find((x) => x.terminal === e.id);
        if (!s) return;
        byTerminal.set(e.id, s);
      }
      s.screen.write(e.data);
      s.batches++;
      this.keepTranscript(s, e.data);
      for (const l of s.listeners) l();
      if (s.supervised) this.scheduleSupervision(s);
    });
  }

  // ---- plugins ---------------------------------------------------------------------------------

  /** Reads every adapter folder in the plugin folders; a changed adapter is quarantined. */
  discover(): { name: string; problems: Problem[] }[] {
    const report: { name: string; problems: Problem[] }[] = [];
    const seen = new Set<string>();
    for (const root of this.deps.folders()) {
      let entries: string[];
      try {
        entries = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
      } catch {
        continue;
      }
      for (const name of entries) {
        const dir = join(root, name);
        if (!findAdapterManifest(dir)) continue;
        seen.add(dir);
        const r = this.read(dir, 'folder');
        if (r.plugin) this.broken.delete(dir);
        else this.noteBroken(dir, r.problems);
        report.push({ name, problems: r.problems });
      }
    }
    for (const dir of this.broken.keys()) if (!seen.has(dir)) this.broken.delete(dir);
    return report;
  }

  /**
   * A folder with an adapter manifest that does not load: a pinned adapter in it is quarantined
   * (its files are no longer what was read), else it is listed as invalid with its problems.
   */
  private noteBroken(dir: string, problems: Problem[]): void {
    let real = dir;
    try {
      real = realpathSync(dir);
    } catch {
      // Gone meanwhile: listed by its path.
    }
    const known = [...this.plugins.values()].find((p) => p.origin === 'folder' && p.adapter.dir === real);
    if (!known) {
      this.broken.set(dir, { name: basename(dir), dir: real, manifestFile: findAdapterManifest(dir), problems });
      return;
    }
    this.broken.delete(dir);
    known.problems = problems;
    if (!known.changed) {
      known.changed = true;
      known.quarantined = `${known.adapter.manifest.name} changed on disk since it was read and no longer loads; fix it, then review and approve the change.`;
      this.deps.record({ type: 'adapter.quarantined', actor: 'host', payload: { plugin: known.adapter.manifest.name, reason: known.quarantined } });
    }
  }

  /**
   * Every adapter folder for the Plugins view, the folders read again first unless `reread` is
   * false (the editor's live check asks on every pause in typing; listing and the watcher reread).
   */
  folderViews(reread = true): AdapterFolderView[] {
    const loaded = reread ? this.list() : [...this.plugins.values()].map((p) => this.pluginInfo(p));
    const views: AdapterFolderView[] = loaded.map((info) => {
      const p = this.plugins.get(info.name)!;
      const status = p.quarantined ? (p.changed ? 'quarantined' : 'scan_failed') : 'enabled';
      return { name: info.name, dir: p.adapter.dir, origin: p.origin, manifestFile: p.adapter.manifestFile, entrypoint: p.adapter.manifest.entrypoint, manifest: info, problems: p.problems, findings: p.findings, status, quarantined: p.quarantined, hash: p.hash, pin: p.pin };
    });
    for (const b of this.broken.values()) {
      if (this.plugins.has(b.name)) continue;
      views.push({ name: b.name, dir: b.dir, origin: 'folder', manifestFile: b.manifestFile, entrypoint: null, manifest: null, problems: b.problems, findings: [], status: 'invalid', quarantined: null, hash: null, pin: null });
    }
    return views.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Problems and findings for unsaved editor text of an adapter's file: its manifest validated
   * (with the folder, so the entry point is checked too), its Lua scanned.
   */
  checkText(dir: string, path: string, content: string): { problems: Problem[]; findings: Finding[] } {
    const findings = /\.lua$/i.test(path) ? scanLua(path, content) : [];
    if (!(ADAPTER_MANIFEST_FILES as readonly string[]).includes(path)) return { problems: [], findings };
    return { problems: checkAdapterManifestText(path, content, dir), findings };
  }

  /**
   * Releases an adapter held back: one whose files changed since its pin (pinned anew to what is
   * on disk now, after it validates), or one whose scan failed (which needs the operator's reason).
   */
  approve(name: string, operator: string, overrideReason?: string): AdapterPluginInfo {
    const p = this.plugin(name);
    if (!p.quarantined) throw new AdapterError(INVALID_PARAMS, 'state', `${name} is not quarantined; nothing to approve.`);
    const r = readAdapter(p.origin === 'folder' ? p.adapter.dir : join(p.adapter.dir, p.adapter.manifestFile));
    if (!r.adapter) {
      throw new AdapterError(INVALID_PARAMS, 'invalid', `${name} is invalid and cannot be approved: ${describeProblems(r.problems)}.`, { problems: r.problems });
    }
    const { adapter, problems, source, findings, failing } = r;
    if (adapter.manifest.name !== name && this.plugins.has(adapter.manifest.name)) throw new AdapterError(INVALID_PARAMS, 'state', `${name} is now named ${adapter.manifest.name} in its manifest, which another adapter has; rename one of them.`);
    const reason = overrideReason?.trim() ?? '';
    if (failing.length && !reason) {
      throw new AdapterError(ADAPTER_FAILED, 'scan_failed', `${name} failed the adapter scan (${failing.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`).join(', ')}). Fix the findings, or approve it anyway with a reason, which is audited.`);
    }
    const at = this.clock.now();
    const hash = pinOf(adapter, source);
    const next: Plugin = { adapter, source, hash, origin: p.origin, quarantined: null, changed: false, findings, problems, pin: { files: pinnedFiles(adapter, source), at, by: operator, scanOverride: failing.length ? { reason, by: operator, at } : null } };
    this.plugins.delete(name);
    this.plugins.set(adapter.manifest.name, next);
    this.deps.record({ type: 'adapter.change-approved', actor: `operator:${operator}`, payload: { plugin: adapter.manifest.name, hash, scanOverride: next.pin.scanOverride?.reason ?? null } });
    return this.pluginInfo(next);
  }

  /** The known adapters, the plugin folders read again first (a new folder appears, a changed one is quarantined). */
  list(): AdapterPluginInfo[] {
    this.discover();
    return [...this.plugins.values()].map((p) => this.pluginInfo(p)).sort((a, b) => a.name.localeCompare(b.name));
  }

  capabilities(): Record<string, unknown> {
    return {
      runtimes: ['lua'],
      kinds: [...ADAPTER_KINDS],
      permissions: [...ADAPTER_PERMISSIONS],
      method_permissions: METHOD_PERMISSIONS,
      host_functions: HOST_FUNCTIONS,
      plugin_load: this.deps.allowPluginLoad,
      limits: { ops: LIMIT_BOUNDS.ops, memory_mb: LIMIT_BOUNDS.memoryMb, timeout_ms: LIMIT_BOUNDS.timeoutMs },
      builtin_plugins: [],
      plugins: this.list().map((p) => p.name),
    };
  }

  validateManifest(manifest: unknown): { valid: boolean; problems: Problem[] } {
    const r = validateAdapterManifest(manifest, { file: 'manifest' });
    return { valid: r.manifest !== null, problems: r.problems };
  }

  load(manifestPath: string, actor: string): AdapterPluginInfo {
    this.serverGate('plugin.load', actor);
    const r = this.read(manifestPath, 'loaded');
    if (!r.plugin) throw new AdapterError(INVALID_PARAMS, 'invalid_manifest', `The adapter at ${manifestPath} cannot be loaded: ${describeProblems(r.problems)}.`, { problems: r.problems });
    this.deps.record({ type: 'adapter.loaded', actor, payload: { plugin: r.plugin.adapter.manifest.name, dir: r.plugin.adapter.dir, hash: r.plugin.hash, permissions: r.plugin.adapter.manifest.permissions } });
    return this.pluginInfo(r.plugin);
  }

  unload(name: string, actor: string): void {
    this.serverGate('plugin.unload', actor);
    this.plugin(name);
    const live = [...this.sessions.values()].filter((s) => s.plugin.adapter.manifest.name === name && !s.ended);
    if (live.length) throw new AdapterError(ADAPTER_FAILED, 'in_use', `${name} has ${live.length} live adapter session(s); close them (adapter.close) before unloading it.`, { sessions: live.map((s) => s.id) });
    this.plugins.delete(name);
    this.deps.record({ type: 'adapter.unloaded', actor, payload: { plugin: name } });
  }

  // ---- sessions --------------------------------------------------------------------------------

  async start(p: { plugin: string; command?: string; args?: string[]; cwd?: string; cols?: number; rows?: number; supervise?: boolean }, actor: string): Promise<AdapterSessionInfo> {
    const plugin = this.plugin(p.plugin);
    this.gate('adapter.start', plugin, actor, null);
    this.checkPinned(plugin);
    const target = p.command ? { program: p.command, args: p.args ?? [] } : plugin.adapter.manifest.defaultTarget;
    if (!target) throw new AdapterError(INVALID_PARAMS, 'no_target', `${plugin.adapter.manifest.name} has no [default_target]; give a command to run.`, { field: 'command' });
    const m = plugin.adapter.manifest;
    // The Lua first: an adapter that cannot load must not leave a program running.
    let sandbox: LuaSandbox;
    try {
      sandbox = await LuaSandbox.start({ source: plugin.source, chunk: m.entrypoint, functions: grantedHostFunctions(m.permissions), limits: m.limits });
    } catch (err) {
      const e = err as AdapterLuaError;
      this.deps.record({ type: 'adapter.failed', actor, payload: { plugin: m.name, code: e.code, message: e.message, ops: e.ops ?? 0 } });
      throw new AdapterError(ADAPTER_FAILED, e.code ?? 'lua_error', `${m.name} could not load: ${e.message}.`, { code: e.code, ops: e.ops });
    }
    const cols = p.cols ?? 120;
    const rows = p.rows ?? 40;
    const id = `adapter-${randomBytes(5).toString('hex')}`;
    const s: Session = { id, plugin, terminal: '', screen: new Screen(cols, rows, () => this.clock.now()), sandbox, transcript: [], transcriptChars: 0, transcriptDropped: false, lastIntent: null, classification: null, ended: null, startedAt: this.clock.now(), untap: () => {}, listeners: new Set(), supervised: p.supervise === true, asking: null, askGone: null, askedKey: '', batches: 0, answeredAt: -1, quietTimer: null };
    // Registered before the program starts so its first output reaches the screen.
    this.sessions.set(id, s);
    try {
      // A default target runs in the adapter's folder (it may ship the program it drives); a command given here, where the host would start it.
      const cwd = p.cwd ?? (p.command ? undefined : plugin.adapter.dir);
      const info = await this.deps.ptys.start({ command: target.program, args: target.args, cols, rows, ...(cwd ? { cwd } : {}), title: `${[target.program, ...target.args].join(' ')} (adapter ${m.name})`, origin: { actor, tool: `adapter:${m.name}`, plugin: m.name } });
      s.terminal = info.id;
    } catch (err) {
      this.sessions.delete(id);
      await sandbox.close();
      throw new AdapterError(ADAPTER_FAILED, 'spawn_failed', (err as Error).message);
    }
    // A terminal started by the line above may already have written: it is matched by id once known.
    void this.deps.ptys.exited(s.terminal).then(
      async (exit) => {
        for (const l of s.listeners) l();
        // The program is gone: the adapter session ends with it (its screen and transcript stay readable).
        await this.endSession(s, { code: 'exited', message: `the program exited (${exit.signal ?? `exit ${exit.exitCode ?? '?'}`})`, ops: 0 }, 'host');
      },
      () => {},
    );
    this.deps.record({ type: 'adapter.started', actor, payload: { session: id, plugin: m.name, terminal: s.terminal, command: target.program, args: target.args, permissions: m.permissions } });
    this.emit(s);
    return this.info(s);
  }

  async send(id: string, prompt: string, actor: string): Promise<{ actions: { type: string }[]; last_intent: string | null }> {
    const s = this.session(id);
    this.gate('adapter.send', s.plugin, actor, s);
    const { value } = await this.callLua(s, 'send_prompt', { prompt, last_intent: s.lastIntent }, actor);
    const plan = (value ?? {}) as { actions?: unknown; last_intent?: unknown };
    const actions = Array.isArray(plan.actions) ? (plan.actions as { type?: unknown }[]) : [];
    await this.perform(s, actions, 'adapter.send', actor);
    s.lastIntent = typeof plan.last_intent === 'string' ? plan.last_intent : s.lastIntent;
    this.deps.record({ type: 'adapter.sent', actor, payload: { session: id, plugin: s.plugin.adapter.manifest.name, terminal: s.terminal, actions: actions.length, chars: prompt.length, lastIntent: s.lastIntent } });
    return { actions: actions as { type: string }[], last_intent: s.lastIntent };
  }

  /** Types one option's key through the adapter's own actions (the operator's answer to a question). */
  async answer(id: string, key: string, actor: string): Promise<void> {
    const s = this.session(id);
    this.gate('adapter.send', s.plugin, actor, s);
    await this.perform(s, [{ type: 'key', key }], 'adapter.send', actor);
  }

  async wait(id: string, timeoutMs: number | undefined, actor: string): Promise<{ matched: boolean; matcher: unknown; waited_ms: number }> {
    const s = this.session(id);
    this.gate('adapter.wait', s.plugin, actor, s);
    const { value } = await this.callLua(s, 'wait_turn_matcher', { last_intent: s.lastIntent }, actor);
    const matcher = value ?? { type: 'screen_stable', ms: 150 };
    const started = this.clock.now();
    const deadline = Math.min(timeoutMs ?? DEFAULT_WAIT_MS, MAX_WAIT_MS);
    const matched = await this.waitFor(s, matcher, deadline);
    return { matched, matcher, waited_ms: this.clock.now() - started };
  }

  async snapshot(id: string, actor: string): Promise<ScreenSnapshot> {
    const s = this.session(id, true);
    this.gate('adapter.snapshot', s.plugin, actor, s);
    await s.screen.settled();
    return s.screen.snapshot();
  }

  async state(id: string, actor: string): Promise<Classification> {
    const s = this.session(id);
    this.gate('adapter.state', s.plugin, actor, s);
    return this.classify(s, actor);
  }

  async inspect(id: string, actor: string): Promise<Record<string, unknown>> {
    const s = this.session(id, true);
    this.gate('adapter.inspect', s.plugin, actor, s);
    return { ...this.info(s), entry_points: s.sandbox?.entryPoints ?? [], last_ops: s.sandbox?.lastOps ?? 0, limits: s.plugin.adapter.manifest.limits, terminal_info: this.deps.ptys.get(s.terminal) };
  }

  transcript(id: string, actor: string): { text: string; truncated: boolean } {
    const s = this.session(id, true);
    this.gate('adapter.transcript', s.plugin, actor, s);
    return { text: s.transcript.join(''), truncated: s.transcriptDropped };
  }

  async close(id: string, actor: string): Promise<AdapterSessionInfo> {
    const s = this.session(id, true);
    this.gate('adapter.close', s.plugin, actor, s);
    await this.endSession(s, { code: 'closed', message: `closed by ${actor}`, ops: 0 }, actor);
    try {
      if (this.deps.ptys.get(s.terminal).state === 'running') await this.deps.ptys.kill(s.terminal, actor);
    } catch {
      // Already gone and forgotten: nothing left to kill.
    }
    return this.info(s);
  }

  live(): AdapterSessionInfo[] {
    return [...this.sessions.values()].filter((s) => !s.ended).map((s) => this.info(s));
  }

  get(id: string): AdapterSessionInfo {
    return this.info(this.session(id, true));
  }

  /** The host is stopping: every sandbox ends (the PTY manager kills the programs). */
  async dispose(): Promise<void> {
    this.untapAll();
    await Promise.all([...this.sessions.values()].map((s) => s.sandbox?.close()));
  }

  /** Runs the adapter's classify over the current screen; the result is kept for the session's row. */
  async classify(s: Session, actor: string): Promise<Classification> {
    await s.screen.settled();
    const snap = s.screen.snapshot();
    const { value } = await this.callLua(s, 'classify', { screen: snap, text: s.screen.text(), last_intent: s.lastIntent }, actor);
    const c = normalizeClassification(value);
    const changed = JSON.stringify(c) !== JSON.stringify(s.classification);
    s.classification = c;
    if (changed) this.emit(s);
    return c;
  }

  // ---- supervision -----------------------------------------------------------------------------

  /** Output arrived on a supervised terminal: classify once the screen has been quiet a moment. */
  private scheduleSupervision(s: Session): void {
    if (s.ended) return;
    if (s.quietTimer) clearTimeout(s.quietTimer);
    s.quietTimer = setTimeout(() => {
      s.quietTimer = null;
      void this.supervise(s).catch(() => {
        // A failed classify is on record (a limit ends the session and is audited); the next output tries again.
      });
    }, this.deps.superviseQuietMs ?? 250);
  }

  private async supervise(s: Session): Promise<void> {
    if (s.ended || !s.plugin.adapter.manifest.permissions.includes('screen.read') || !s.sandbox?.has('classify')) return;
    // The host acts here (no operator asked): its answer is typed and recorded as the host's.
    const actor = 'host';
    if (s.asking) {
      // New output while a question waits: if the screen no longer asks it (the person at the
      // terminal answered, the program moved on), the item is withdrawn. SECURITY: approved later,
      // its key was typed into whatever the program asked next (`git push --force`, never approved).
      const asked = s.asking.question;
      const gone = s.askGone;
      if (!(await this.stillAsks(s, s.askedKey))) gone?.abort(`the question is no longer on the terminal's screen (answered there, or the program moved on): ${asked.slice(0, 120)}`);
      return;
    }
    const c = await this.classify(s, 'host');
    // One question per screen: after an answer, the program must print something new first.
    if (c.state !== 'waiting_for_permission' || s.batches <= s.answeredAt || !this.deps.ask || s.asking || s.ended) return;
    const q: PermissionQuestion = { session: s.id, plugin: s.plugin.adapter.manifest.name, terminal: s.terminal, cwd: this.deps.ptys.get(s.terminal).cwd, question: c.question ?? c.evidence, options: c.options ?? [], request: requestOf(c) };
    s.asking = { question: q.question, approval: null };
    s.askedKey = askedKey(c);
    const askedAt = s.batches;
    const gone = (s.askGone = new AbortController());
    this.emit(s);
    let answer: PermissionAnswer;
    try {
      answer = await this.deps.ask(
        q,
        (approval) => {
          s.asking = { question: q.question, approval };
          this.emit(s);
        },
        gone.signal,
      );
    } catch (err) {
      // Fail closed: a question Gatehouse could not decide is answered no.
      answer = { decision: 'deny', reason: `the question could not be decided: ${(err as Error).message}`, decider: { kind: 'error' } };
    }
    s.asking = null;
    s.askGone = null;
    if (s.ended) return;
    // Typed only into the question it answers: withdrawn meanwhile, or no longer on the screen now
    // (output that came after the last check), it is left alone, and the log says so.
    const left = gone.signal.aborted ? String(gone.signal.reason) : (await this.stillAsks(s, askedKey(c))) ? null : `the question is no longer on the terminal's screen: ${q.question.slice(0, 120)}`;
    if (left !== null) {
      this.deps.record({ type: 'adapter.answered', actor: 'host', payload: { session: s.id, plugin: q.plugin, terminal: s.terminal, question: q.question, decision: 'none', outcome: answer.decision, key: null, decider: answer.decider, reason: `Nothing was typed: ${left}.`, ...(answer.approval ? { approval: answer.approval } : {}), typed: false } });
      // What the screen asks now (the program's next question, printed while this one waited) is a question of its own.
      s.answeredAt = askedAt;
      this.emit(s);
      this.scheduleSupervision(s);
      return;
    }
    s.answeredAt = s.batches;
    if (answer.decision === 'dry-run') {
      // Typing either answer would act on the program: in dry-run nothing does.
      this.deps.record({ type: 'adapter.answered', actor: 'host', payload: { session: s.id, plugin: q.plugin, terminal: s.terminal, question: q.question, decision: 'none', outcome: 'dry-run', would: answer.would ?? null, key: null, decider: answer.decider, reason: answer.reason, ...(answer.approval ? { approval: answer.approval } : {}), typed: false } });
      this.emit(s);
      return;
    }
    const allow = answer.decision === 'allow';
    const key = optionFor(q.options, allow);
    const payload = { session: s.id, plugin: q.plugin, terminal: s.terminal, question: q.question, decision: allow ? 'allow' : 'deny', outcome: answer.decision, key, decider: answer.decider, reason: answer.reason, ...(answer.approval ? { approval: answer.approval } : {}) };
    if (key === null) {
      this.deps.record({ type: 'adapter.answered', actor: 'host', payload: { ...payload, typed: false } });
      this.emit(s);
      return;
    }
    try {
      await this.perform(s, [{ type: 'key', key }], 'adapter.answer', actor);
      this.deps.record({ type: 'adapter.answered', actor: 'host', payload: { ...payload, typed: true } });
    } catch (err) {
      this.deps.record({ type: 'adapter.answered', actor: 'host', payload: { ...payload, typed: false, error: (err as Error).message } });
    }
    this.emit(s);
  }

  /**
   * Whether the screen still asks what was asked (classified again; a failed classify counts as
   * no): the same question, options and request. The question alone is not enough: a program that
   * asks "Do you want to proceed?" before every command asks it again for the next one.
   */
  private async stillAsks(s: Session, key: string): Promise<boolean> {
    if (s.ended) return false;
    try {
      const c = await this.classify(s, 'host');
      return c.state === 'waiting_for_permission' && askedKey(c) === key;
    } catch {
      return false;
    }
  }

  // ---- inside ----------------------------------------------------------------------------------

  private read(path: string, origin: 'folder' | 'loaded'): { plugin: Plugin | null; problems: Problem[] } {
    const r = readAdapter(path);
    if (!r.adapter) return { plugin: null, problems: r.problems };
    const { adapter, problems, source, findings, failing } = r;
    const hash = pinOf(adapter, source);
    const known = this.plugins.get(adapter.manifest.name);
    // Read again unchanged: it keeps its pin (and an operator's approval of a failed scan).
    if (known && known.origin === origin && known.hash === hash && !known.changed) {
      known.findings = findings;
      known.problems = problems;
      return { plugin: known, problems };
    }
    // A folder adapter read again with other bytes is quarantined until an operator approves the change.
    const quarantined = known && known.origin === 'folder' && origin === 'folder' && known.hash !== hash ? `${adapter.manifest.name} changed on disk since it was read (pinned ${known.hash.slice(0, 12)}, now ${hash.slice(0, 12)}); review the change and approve it.` : null;
    if (quarantined && known) {
      if (!known.changed) this.deps.record({ type: 'adapter.quarantined', actor: 'host', payload: { plugin: adapter.manifest.name, reason: quarantined } });
      known.quarantined = quarantined;
      known.changed = true;
      known.findings = findings;
      known.problems = problems;
      return { plugin: known, problems };
    }
    const plugin: Plugin = { adapter, source, hash, origin, quarantined: failing.length ? `the scan failed: ${failing.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`).join(', ')}` : null, changed: false, findings, problems, pin: { files: pinnedFiles(adapter, source), at: this.clock.now(), by: origin === 'folder' ? 'host' : 'operator', scanOverride: null } };
    this.plugins.set(adapter.manifest.name, plugin);
    return { plugin, problems };
  }

  private checkPinned(p: Plugin): void {
    if (!p.quarantined) {
      let now: string | null;
      try {
        const manifest = readFileSync(join(p.adapter.dir, p.adapter.manifestFile), 'utf8');
        now = createHash('sha256').update(manifest).update('\0').update(readFileSync(p.adapter.entrypointPath)).digest('hex');
      } catch {
        now = null;
      }
      if (now !== p.hash) {
        p.changed = true;
        p.quarantined = `${p.adapter.manifest.name} changed on disk since it was read (pinned ${p.hash.slice(0, 12)}); review it and load it again.`;
        this.deps.record({ type: 'adapter.quarantined', actor: 'host', payload: { plugin: p.adapter.manifest.name, reason: p.quarantined } });
      }
    }
    if (p.quarantined) throw new AdapterError(ADAPTER_FAILED, 'quarantined', `${p.adapter.manifest.name} is quarantined: ${p.quarantined}`);
  }

  /** ptywright's per-method gate: the method's permission must be in the adapter's manifest. */
  private gate(method: AdapterMethod, p: Plugin, actor: string, s: Session | null): void {
    const required = METHOD_PERMISSIONS[method];
    if (required === null || p.adapter.manifest.permissions.includes(required)) return;
    this.deny(method, required, p.adapter.manifest.name, actor, s?.id ?? null);
  }

  private deny(method: string, required: string, plugin: string, actor: string, session: string | null): never {
    this.deps.record({ type: 'adapter.denied', actor, payload: { method, required_permission: required, plugin, session } });
    throw new AdapterError(PERMISSION_DENIED, 'permission_denied', `PermissionDenied: ${method} needs the permission ${required}, which the adapter ${plugin} does not declare; add it to its manifest's permissions if it needs it.`, { method, required_permission: required });
  }

  private serverGate(method: 'plugin.load' | 'plugin.unload', actor: string): void {
    if (this.deps.allowPluginLoad) return;
    this.deps.record({ type: 'adapter.denied', actor, payload: { method, reason: 'server_did_not_grant_plugin_load' } });
    throw new AdapterError(PERMISSION_DENIED, 'permission_denied', `PermissionDenied: ${method} is off; start the host with --allow-plugin-load to load adapters at run time, or put the adapter in a plugins folder.`, { method, reason: 'server_did_not_grant_plugin_load' });
  }

  private async callLua(s: Session, fn: string, input: unknown, actor: string): Promise<{ value: unknown; ops: number }> {
    if (s.ended || !s.sandbox) throw this.endedError(s);
    try {
      return await s.sandbox.call(fn, input);
    } catch (err) {
      const e = err as AdapterLuaError;
      if (e instanceof AdapterLuaError && e.fatal) {
        await this.endSession(s, { code: e.code, message: e.message, ops: e.ops }, actor);
        throw this.endedError(s);
      }
      if (e instanceof AdapterLuaError && e.code === 'no_entry_point') throw new AdapterError(ADAPTER_FAILED, 'no_entry_point', e.message);
      throw new AdapterError(ADAPTER_FAILED, 'lua_error', `${s.plugin.adapter.manifest.name}.${fn} failed: ${(err as Error).message}`);
    }
  }

  private endedError(s: Session): AdapterError {
    const e = s.ended ?? { code: 'ended', message: 'the adapter session ended', ops: 0 };
    return new AdapterError(ADAPTER_FAILED, e.code, `The adapter session ${s.id} ended (${e.code}: ${e.message}); its terminal ${s.terminal} is still yours in the Terminals view.`, { code: e.code, ops: e.ops, terminal: s.terminal });
  }

  private async endSession(s: Session, why: NonNullable<AdapterSessionInfo['ended']>, actor: string): Promise<void> {
    if (s.ended) return;
    s.ended = why;
    if (s.quietTimer) clearTimeout(s.quietTimer);
    // A question waiting in the inbox has no program left to answer it: withdrawn ("agent gone").
    s.askGone?.abort(`the terminal's adapter session ended (${why.message})`);
    await s.sandbox?.close();
    s.sandbox = null;
    const limit = why.code === 'ops_exceeded' || why.code === 'memory_exceeded' || why.code === 'timeout';
    this.deps.record({ type: limit ? 'adapter.limit-exceeded' : 'adapter.closed', actor: limit ? 'host' : actor, payload: { session: s.id, plugin: s.plugin.adapter.manifest.name, terminal: s.terminal, code: why.code, message: why.message, ops: why.ops } });
    this.emit(s);
  }

  /** Carries out an adapter's plan, each action checked again against its permission. */
  private async perform(s: Session, actions: { type?: unknown; [k: string]: unknown }[], method: string, actor: string): Promise<void> {
    const name = s.plugin.adapter.manifest.name;
    let bytes = '';
    for (const a of actions) {
      const type = typeof a?.type === 'string' ? a.type : '';
      const needs = ACTION_PERMISSIONS[type];
      if (!needs) throw new AdapterError(ADAPTER_FAILED, 'bad_action', `${name} returned an action of type ${JSON.stringify(type)}; use ptywright.action.text, .key or .resize.`);
      if (!s.plugin.adapter.manifest.permissions.includes(needs)) this.deny(`${method} (action ${type})`, needs, name, actor, s.id);
      if (type === 'text') bytes += String(a['text'] ?? '');
      else if (type === 'key') {
        const k = keyBytes(String(a['key'] ?? ''));
        if (k === null) throw new AdapterError(ADAPTER_FAILED, 'bad_action', `${name} returned the key ${JSON.stringify(a['key'])}, which Gatehouse does not know; use enter, tab, escape, backspace, up, down, left, right, ctrl-c or one character.`);
        bytes += k;
      }
    }
    if (bytes) {
      try {
        this.deps.ptys.feed(s.terminal, bytes);
        // Typing counts as a change: "stable" then means quiet since the program saw the input.
        s.screen.lastChange = this.clock.now();
      } catch (err) {
        throw new AdapterError(ADAPTER_FAILED, 'terminal_gone', `The terminal ${s.terminal} cannot take input: ${(err as Error).message}`);
      }
    }
    for (const a of actions) if (a.type === 'resize') s.screen.resize(Number(a['cols']) || 80, Number(a['rows']) || 24);
  }

  /** Resolves true when the matcher holds, false at the deadline or when the program has exited without it holding. */
  private waitFor(s: Session, matcher: unknown, deadlineMs: number): Promise<boolean> {
    const m = matcher as { type?: string; ms?: number; text?: string; matchers?: unknown[] };
    const check = (): { ok: boolean; retryIn: number | null } => {
      const quiet = this.clock.now() - s.screen.lastChange;
      const one = (x: typeof m): { ok: boolean; retryIn: number | null } => {
        if (x.type === 'screen_stable') {
          const ms = Math.max(0, Math.min(Number(x.ms) || 150, 60_000));
          return quiet >= ms ? { ok: true, retryIn: null } : { ok: false, retryIn: ms - quiet };
        }
        if (x.type === 'text') return { ok: s.screen.text().includes(String(x.text ?? '')), retryIn: null };
        if (x.type === 'any' && Array.isArray(x.matchers)) {
          const rs = x.matchers.map((y) => one(y as typeof m));
          if (rs.some((r) => r.ok)) return { ok: true, retryIn: null };
          const times = rs.map((r) => r.retryIn).filter((t): t is number => t !== null);
          return { ok: false, retryIn: times.length ? Math.min(...times) : null };
        }
        throw new AdapterError(ADAPTER_FAILED, 'bad_matcher', `${s.plugin.adapter.manifest.name}.wait_turn_matcher returned ${JSON.stringify(matcher)}; return a ptywright.matcher value.`);
      };
      return one(m);
    };
    return new Promise<boolean>((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      const finish = (v: boolean | Error) => {
        if (timer) clearTimeout(timer);
        clearTimeout(overall);
        s.listeners.delete(poke);
        if (v instanceof Error) reject(v);
        else resolve(v);
      };
      const poke = () => {
        void s.screen.settled().then(() => {
          try {
            const r = check();
            if (r.ok) return finish(true);
            if (timer) clearTimeout(timer);
            timer = r.retryIn !== null ? setTimeout(poke, r.retryIn) : null;
          } catch (err) {
            finish(err as Error);
          }
        });
      };
      const overall = setTimeout(() => finish(false), deadlineMs);
      s.listeners.add(poke);
      poke();
    });
  }

  private keepTranscript(s: Session, data: string): void {
    s.transcript.push(data);
    s.transcriptChars += data.length;
    while (s.transcriptChars > MAX_TRANSCRIPT_CHARS && s.transcript.length > 1) {
      s.transcriptChars -= s.transcript.shift()!.length;
      s.transcriptDropped = true;
    }
  }

  private plugin(name: string): Plugin {
    const p = this.plugins.get(name);
    if (p) return p;
    // A folder of that name whose manifest does not load: say what is wrong with it, not "no adapter".
    const b = [...this.broken.values()].find((x) => x.name === name);
    if (b) throw new AdapterError(INVALID_PARAMS, 'invalid', `The adapter ${name} (${b.dir}) is invalid: ${describeProblems(b.problems, b.manifestFile)}. Fix its manifest; adapter.list shows it again once it loads.`, { plugin: name, problems: b.problems });
    throw new AdapterError(ADAPTER_FAILED, 'not_found', `There is no adapter named ${JSON.stringify(name)}; adapter.list shows the known ones.`, { plugin: name });
  }

  private session(id: string, endedToo = false): Session {
    const s = this.sessions.get(id);
    if (!s) throw new AdapterError(ADAPTER_FAILED, 'not_found', `There is no adapter session ${JSON.stringify(id)}; adapter.live lists the running ones.`, { session: id });
    if (s.ended && !endedToo) throw this.endedError(s);
    return s;
  }

  private info(s: Session): AdapterSessionInfo {
    return { session: s.id, plugin: s.plugin.adapter.manifest.name, terminal: s.terminal, state: s.ended ? 'ended' : 'running', ended: s.ended, lastIntent: s.lastIntent, classification: s.classification, startedAt: s.startedAt, supervised: s.supervised, asking: s.asking };
  }

  private emit(s: Session): void {
    this.deps.changed?.(this.info(s));
  }

  private pluginInfo(p: Plugin): AdapterPluginInfo {
    const m = p.adapter.manifest;
    return { name: m.name, kind: m.kind, version: m.version, permissions: [...m.permissions], defaultTarget: m.defaultTarget, limits: m.limits, dir: p.adapter.dir, origin: p.origin, quarantined: p.quarantined, findings: p.findings };
  }
}

/** The texts an adapter is pinned to, by their path in its folder. */
function pinnedFiles(a: LoadedAdapter, source: string): Record<string, string> {
  return { [a.manifestFile]: readFileSync(join(a.dir, a.manifestFile), 'utf8'), [relative(a.dir, a.entrypointPath)]: source };
}

function pinOf(a: LoadedAdapter, source: string): string {
  const manifest = readFileSync(join(a.dir, a.manifestFile), 'utf8');
  return createHash('sha256').update(manifest).update('\0').update(source).digest('hex');
}

const STATES: ClassifyState[] = ['ready', 'busy', 'waiting_for_permission', 'done', 'unknown'];

/** An adapter's classify result, made safe to show: known state, confidence in [0, 1], bounded text. */
export function normalizeClassification(v: unknown): Classification {
  const o = (v ?? {}) as Record<string, unknown>;
  const raw = typeof o['state'] === 'string' ? o['state'].replace(/[\s-]+/g, '_').toLowerCase() : 'unknown';
  const state = (STATES as string[]).includes(raw) ? (raw as ClassifyState) : raw === 'waiting' || raw === 'permission' ? 'waiting_for_permission' : 'unknown';
  const confidence = typeof o['confidence'] === 'number' && Number.isFinite(o['confidence']) ? Math.max(0, Math.min(1, o['confidence'])) : 0;
  const evidence = typeof o['evidence'] === 'string' ? o['evidence'].slice(0, 500) : '';
  const out: Classification = { state, confidence, evidence };
  if (typeof o['question'] === 'string') out.question = o['question'].slice(0, 2000);
  if (o['request'] !== null && typeof o['request'] === 'object' && !Array.isArray(o['request'])) (out as Classification & { request?: unknown }).request = o['request'];
  if (Array.isArray(o['options'])) {
    out.options = o['options']
      .slice(0, 20)
      .map((x) => (x ?? {}) as Record<string, unknown>)
      .filter((x) => typeof x['key'] === 'string')
      .map((x) => ({ key: String(x['key']).slice(0, 16), label: typeof x['label'] === 'string' ? x['label'].slice(0, 200) : String(x['key']) }));
  }
  return out;
}

/** The option that means yes (or no): by its label, else the first (or last) one. */
export function optionFor(options: { key: string; label: string }[], allow: boolean): string | null {
  if (!options.length) return null;
  const yes = /^\s*(yes|allow|approve|accept|ok|proceed)\b/i;
  const no = /^\s*(no|deny|reject|decline|cancel|abort|skip)\b/i;
  const found = options.find((o) => (allow ? yes : no).test(o.label));
  return (found ?? (allow ? options[0] : options[options.length - 1]))!.key;
}

/** What a permission question asks, whole: its text, its options and the request read from the screen. */
function askedKey(c: Classification): string {
  return JSON.stringify([c.question ?? c.evidence, c.options ?? [], requestOf(c) ?? null]);
}

function requestOf(c: Classification & { request?: unknown }): PermissionQuestion['request'] {
  const r = c.request as { tool?: unknown; arguments?: unknown } | undefined;
  if (!r || typeof r.tool !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(r.tool)) return null;
  const args = r.arguments !== null && typeof r.arguments === 'object' && !Array.isArray(r.arguments) ? (r.arguments as Record<string, unknown>) : {};
  return { tool: r.tool, arguments: args };
}
