// The Plugins domain: the list and the plugin open in the pane, loaded on connect and refreshed
// on plugins.changed (bindPlugins), and what the Plugins view does with them: open and save
// files, enable / disable / approve, scaffold. Every failure lands in the store as a sentence.
import type { PluginDetailView, PluginSummaryView } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { initialPluginsState, isDirty, usePluginsStore, type OpenFile, type PendingNavigation } from '../stores/plugins-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { HostCallError } from '../transport/transport-error.ts';
import { bindDomain, latest } from './bind-domain.ts';
import { hostAction } from './host-action.ts';
import { callAsJob, isCancelled, newJobId } from './jobs-actions.ts';

const get = usePluginsStore.getState;
const set = usePluginsStore.setState;

/** A hot reload or an enable may name several plugins in quick succession: refetch once. */
export const PLUGINS_REFRESH_MS = 50;

/** The list answer to keep: an older list never overwrites a newer one or an action's summary. */
const list = latest();

export function bindPlugins(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const listRefresh = d.refresher(() => loadPluginList(client), PLUGINS_REFRESH_MS);
    const openRefresh = d.refresher(() => refreshOpenPlugin(client), PLUGINS_REFRESH_MS);
    d.on('plugins.changed', ({ names }) => {
      listRefresh.request();
      const open = get().selected;
      // An empty list means "anything may have changed".
      if (open && (names.length === 0 || names.includes(open))) openRefresh.request();
    });
    return {
      load: () => Promise.all([loadPluginList(client), refreshOpenPlugin(client)]),
      reset: () => {
        list.supersede();
        set({ ...initialPluginsState });
      },
    };
  });
}

export async function loadPluginList(client: GatehouseClient): Promise<void> {
  const req = list.begin();
  try {
    const { plugins, sources } = await client.call('plugins.list', {});
    if (!req.current()) return;
    set({ plugins, sources, listLoaded: true, listError: null });
  } catch (err) {
    if (req.current()) set({ listError: errorMessage(err) });
  }
}

/** Discovers, validates and scans every plugin folder again, as a job (progress, Cancel); the list follows plugins.changed. */
export async function rescanPlugins(client: GatehouseClient): Promise<void> {
  if (get().rescanJob) return;
  const job = newJobId('rescan');
  set({ rescanJob: job, rescanNote: null, rescanError: null });
  try {
    const r = await callAsJob(client, 'plugins.rescan', {}, job);
    set({ rescanJob: null, rescanNote: `Scanned ${r.plugins} ${r.plugins === 1 ? 'plugin' : 'plugins'} in ${r.tookMs} ms.` });
  } catch (err) {
    if (isCancelled(err)) set({ rescanJob: null, rescanNote: errorMessage(err) });
    else set({ rescanJob: null, rescanError: errorMessage(err) });
  }
}

async function loadDetail(client: GatehouseClient, name: string): Promise<PluginDetailView | null> {
  try {
    const detail = await client.call('plugins.get', { name });
    if (get().selected !== name) return null;
    set({ detail, detailError: null });
    return detail;
  } catch (err) {
    if (get().selected === name) set({ detailError: errorMessage(err) });
    return null;
  }
}

/** The file an author most likely wants: the tool's code (an adapter's entry point), else the manifest, else the first file. */
export function defaultFile(detail: PluginDetailView): string | null {
  const paths = new Set(detail.files.filter((f) => f.kind !== 'l').map((f) => f.path));
  const manifest = detail.manifest as { command?: unknown; entrypoint?: unknown; tools?: { command?: unknown }[] } | null;
  const commands = [manifest?.command, detail.adapter ? manifest?.entrypoint : undefined, ...(Array.isArray(manifest?.tools) ? manifest.tools.map((t) => t?.command) : [])];
  for (const c of commands) {
    if (typeof c !== 'string') continue;
    const rel = c.replace(/^\.\//, '');
    if (paths.has(rel)) return rel;
  }
  if (detail.manifestFile && paths.has(detail.manifestFile)) return detail.manifestFile;
  return detail.files.find((f) => f.kind !== 'l')?.path ?? null;
}

/** Opens a plugin in the detail pane, asking first when the open file has unsaved changes. */
export function requestPlugin(client: GatehouseClient, name: string, opts: { file?: string } = {}): void {
  const s = get();
  if (s.selected === name && s.detail && !opts.file) return;
  if (isDirty(s.file) && s.file!.plugin !== name) {
    set({ pending: { kind: 'plugin', name } });
    return;
  }
  void openPlugin(client, name, opts.file);
}

async function openPlugin(client: GatehouseClient, name: string, file?: string): Promise<void> {
  const same = get().selected === name;
  set({
    selected: name,
    ...(same ? {} : { detail: null, detailError: null, actionError: null, file: null, fileError: null, live: null, saveError: null, reveal: null }),
  });
  const detail = await loadDetail(client, name);
  if (!detail) return;
  const current = get().file;
  if (current?.plugin === name && !file) return;
  const path = file ?? defaultFile(detail);
  if (path) await openFile(client, name, path);
}

/** Opens one of the open plugin's files, asking first when the open file has unsaved changes. */
export function requestFile(client: GatehouseClient, path: string, reveal?: { line: number; column: number }): void {
  const s = get();
  if (!s.selected) return;
  if (s.file?.plugin === s.selected && s.file.path === path) {
    if (reveal) set({ reveal: { path, ...reveal, seq: (s.reveal?.seq ?? 0) + 1 } });
    return;
  }
  if (isDirty(s.file)) {
    set({ pending: { kind: 'file', path, ...(reveal ? { reveal } : {}) } });
    return;
  }
  void openFile(client, s.selected, path, reveal);
}

async function openFile(client: GatehouseClient, plugin: string, path: string, reveal?: { line: number; column: number }): Promise<void> {
  set({ fileLoading: true, fileError: null, saveError: null });
  try {
    const { content } = await client.call('plugins.readFile', { name: plugin, path });
    if (get().selected !== plugin) return;
    const rev = (get().file?.rev ?? 0) + 1;
    set({
      file: { plugin, path, saved: content, buffer: content, rev },
      fileLoading: false,
      live: null,
      reveal: reveal ? { path, ...reveal, seq: (get().reveal?.seq ?? 0) + 1 } : null,
    });
  } catch (err) {
    if (get().selected === plugin) set({ fileLoading: false, fileError: `Could not open ${path}: ${errorMessage(err)}` });
  }
}

/** The operator chose to discard unsaved changes and go where they asked. */
export function discardAndContinue(client: GatehouseClient): void {
  const pending: PendingNavigation | null = get().pending;
  const file = get().file;
  set({ pending: null, ...(file ? { file: { ...file, buffer: file.saved } } : {}) });
  if (!pending) return;
  if (pending.kind === 'plugin') void openPlugin(client, pending.name);
  else if (get().selected) void openFile(client, get().selected!, pending.path, pending.reveal);
}

export function cancelPending(): void {
  set({ pending: null });
}

export function updateBuffer(text: string): void {
  const file = get().file;
  if (!file || file.buffer === text) return;
  set({ file: { ...file, buffer: text } });
}

/** Writes the buffer. Saving an enabled plugin makes the host quarantine it until re-approved. */
export async function saveFile(client: GatehouseClient): Promise<void> {
  const file = get().file;
  if (!file || get().saving) return;
  const content = file.buffer;
  set({ saving: true, saveError: null });
  try {
    await client.call('plugins.writeFile', { name: file.plugin, path: file.path, content });
    const now = get().file;
    if (now && now.plugin === file.plugin && now.path === file.path) set({ file: { ...now, saved: content } });
    set({ saving: false });
  } catch (err) {
    set({ saving: false, saveError: `Could not save ${file.path}: ${errorMessage(err)}` });
  }
}

/**
 * After `plugins.changed` named the open plugin: reload its detail and, when the buffer has no
 * unsaved changes, the open file (it may have been edited on disk).
 */
export async function refreshOpenPlugin(client: GatehouseClient): Promise<void> {
  const name = get().selected;
  if (!name) return;
  const detail = await loadDetail(client, name);
  const file = get().file;
  if (!detail || !file || file.plugin !== name || isDirty(file)) return;
  if (!detail.files.some((f) => f.path === file.path)) {
    set({ fileError: `${file.path} is no longer in the plugin folder.` });
    return;
  }
  try {
    const { content } = await client.call('plugins.readFile', { name, path: file.path });
    const now = get().file;
    if (!now || now.plugin !== name || now.path !== file.path || isDirty(now) || now.saved === content) return;
    set({ file: { ...now, saved: content, buffer: content, rev: now.rev + 1 }, fileError: null });
  } catch (err) {
    set({ fileError: `Could not reload ${file.path}: ${errorMessage(err)}` });
  }
}

export type PluginAction = 'enable' | 'disable' | 'approve' | 'rollback';

/** What an action came to: done, failed (message shown in the pane), or the host wants an override reason. */
export type ActionOutcome = { kind: 'done' } | { kind: 'failed'; message: string } | { kind: 'needs-override'; message: string };

export async function runPluginAction(client: GatehouseClient, action: PluginAction, name: string, overrideReason?: string): Promise<ActionOutcome> {
  const reason = overrideReason?.trim() ? { overrideReason: overrideReason.trim() } : {};
  const r = await busyCall(client, name, () =>
    action === 'enable'
      ? client.call('plugins.enable', { name, ...reason })
      : action === 'approve'
        ? client.call('plugins.approveChange', { name, ...reason })
        : action === 'rollback'
          ? client.call('plugins.rollBack', { name })
          : client.call('plugins.disable', { name }),
  );
  if (r.kind !== 'error') return r;
  const scanFailed = r.err instanceof HostCallError && r.err.code === 'rejected' && (r.err.details as { reason?: unknown } | undefined)?.reason === 'scan_failed';
  if (scanFailed && !overrideReason && (action === 'enable' || action === 'approve')) return { kind: 'needs-override', message: r.message };
  set({ actionError: { plugin: name, message: r.message } });
  return { kind: 'failed', message: r.message };
}

/**
 * Trusts a plugin (its sandbox = "none" then takes effect) with the operator's reason, or takes
 * the trust back. Trusting goes through a confirm dialog, which shows a failure itself; a failed
 * untrust is shown in the pane.
 */
export async function setPluginTrust(client: GatehouseClient, name: string, trusted: boolean, reason?: string): Promise<ActionOutcome> {
  const why = reason?.trim() ? { reason: reason.trim() } : {};
  const r = await busyCall(client, name, () => client.call('plugins.setTrusted', { name, trusted, ...why }));
  if (r.kind !== 'error') return r;
  if (!trusted) set({ actionError: { plugin: name, message: r.message } });
  return { kind: 'failed', message: r.message };
}

/** One plugin action at a time: marks the plugin busy, stores the new summary, reloads the pane. */
async function busyCall(client: GatehouseClient, name: string, call: () => Promise<PluginSummaryView>): Promise<{ kind: 'done' } | { kind: 'failed'; message: string } | { kind: 'error'; err: unknown; message: string }> {
  if (get().busy) return { kind: 'failed', message: 'Another plugin action is still running.' };
  set({ busy: name, actionError: null });
  const sent = list.sent();
  try {
    const summary = await call();
    sent.answered();
    set((s) => ({ busy: null, plugins: s.plugins.map((p) => (p.name === summary.name ? summary : p)) }));
    // The host also pushes plugins.changed; reload now so the pane never shows the old state.
    void refreshOpenPlugin(client);
    return { kind: 'done' };
  } catch (err) {
    set({ busy: null });
    return { kind: 'error', err, message: errorMessage(err) };
  }
}

export async function createPlugin(client: GatehouseClient, name: string, lang: 'sh' | 'py' | 'node' | 'ts-module'): Promise<void> {
  const created = await client.call('plugins.create', { name, lang });
  await loadPluginList(client);
  const code = created.files.find((f) => !/\.(toml|ya?ml|json)$/.test(f)) ?? created.files[0];
  // Unsaved text elsewhere is never dropped silently: ask first, as a click in the list would.
  if (isDirty(get().file)) {
    set({ pending: { kind: 'plugin', name: created.name } });
    return;
  }
  await openPlugin(client, created.name, code);
}

export type { OpenFile };

// Calls whose answer stays with the panel that asked (a consent dialog's enable, the editor's
// live check, the test-run panel); plugins.changed brings the lists up to date.
export const enablePlugin = hostAction('plugins.enable');
export const checkPluginFile = hostAction('plugins.check');
export const testRunPlugin = hostAction('plugins.testRun');
