// Plugins: the list the host found (with validation and scan results), the one open in the
// detail pane, and the file open in its editor. The editor buffer lives here, not in the
// component, so switching views does not lose unsaved text.
import { create } from 'zustand';
import type { FindingView, PluginDetailView, PluginSummaryView, ProblemView, ResponseOf } from '../../../shared/contract.ts';

export type PluginStatus = PluginSummaryView['status'];
export const pluginStatuses: readonly PluginStatus[] = ['enabled', 'disabled', 'quarantined', 'scan_failed', 'invalid'];
export const statusLabel: Record<PluginStatus, string> = {
  enabled: 'Enabled',
  disabled: 'Disabled',
  invalid: 'Invalid',
  quarantined: 'Quarantined',
  scan_failed: 'Scan failed',
};

export interface OpenFile {
  plugin: string;
  path: string;
  /** The text as last read from or written to disk. */
  saved: string;
  /** What the editor holds. Dirty when it differs from `saved`. */
  buffer: string;
  /** Bumped when `saved` is replaced from disk, so the editor takes the new text. */
  rev: number;
}

/** The host's `plugins.check` answer for one buffer. */
export interface LiveCheck {
  plugin: string;
  path: string;
  problems: ProblemView[];
  findings: FindingView[];
  error: string | null;
}

/** Where the operator asked to go while the buffer had unsaved changes. */
export type PendingNavigation = { kind: 'plugin'; name: string } | { kind: 'file'; path: string; reveal?: { line: number; column: number } };

export interface PluginsStore {
  plugins: PluginSummaryView[];
  sources: ResponseOf<'plugins.list'>['sources'];
  listLoaded: boolean;
  listError: string | null;
  /** A rescan this console asked for: its job, and how the last one ended when it did not simply finish. */
  rescanJob: string | null;
  rescanNote: string | null;
  rescanError: string | null;

  /** Status chips that are on; none on means every status. */
  statusFilter: PluginStatus[];
  textFilter: string;

  /** The plugin open in the detail pane. */
  selected: string | null;
  detail: PluginDetailView | null;
  detailError: string | null;
  /** An enable / disable / approve call in flight, by plugin name. */
  busy: string | null;
  /** The last enable / disable / approve failure, shown in the detail pane. */
  actionError: { plugin: string; message: string } | null;

  file: OpenFile | null;
  fileError: string | null;
  fileLoading: boolean;
  saving: boolean;
  saveError: string | null;
  live: LiveCheck | null;
  /** A position the problems list asked the editor to show once the file is open. */
  reveal: { path: string; line: number; column: number; seq: number } | null;
  pending: PendingNavigation | null;
}

export const initialPluginsState: PluginsStore = {
  plugins: [],
  sources: [],
  listLoaded: false,
  listError: null,
  rescanJob: null,
  rescanNote: null,
  rescanError: null,
  statusFilter: [],
  textFilter: '',
  selected: null,
  detail: null,
  detailError: null,
  busy: null,
  actionError: null,
  file: null,
  fileError: null,
  fileLoading: false,
  saving: false,
  saveError: null,
  live: null,
  reveal: null,
  pending: null,
};

export const usePluginsStore = create<PluginsStore>()(() => ({ ...initialPluginsState }));

export function isDirty(file: OpenFile | null): boolean {
  return file !== null && file.buffer !== file.saved;
}

/** The list as the filters leave it, in the host's order. */
export function filterPlugins(plugins: readonly PluginSummaryView[], statusFilter: readonly PluginStatus[], text: string): PluginSummaryView[] {
  const q = text.trim().toLowerCase();
  return plugins.filter((p) => {
    if (statusFilter.length > 0 && !statusFilter.includes(p.status)) return false;
    if (!q) return true;
    return p.name.toLowerCase().includes(q) || p.description.toLowerCase().includes(q) || p.toolNames.some((t) => t.toLowerCase().includes(q));
  });
}

/** Problems plus findings, the number a list row shows. */
export function issueCount(p: PluginSummaryView): number {
  return p.errors + p.warnings + p.findingCount + p.reloadErrors;
}
