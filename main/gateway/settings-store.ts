// GATEHOUSE_HOME/settings.json: the gateway's mode, autonomy and approval settings.
//
// Safe by default: a new install (no file) starts in dry-run and supervised. A file that cannot be
// read or parsed is not "no settings": the safe defaults are used, the error is shown, and the
// file is left alone (saving from the console replaces it). Changes are audited; a mode switch
// is its own event. `overrides` (gatehouse serve --live --autonomy …) apply to this run only.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DEFAULT_CONTAINMENT, settingsSchema, type Settings, type SettingsView } from '../../shared/contract.js';
import { describeIssues } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';

export const DEFAULT_SETTINGS: Settings = {
  mode: 'dry-run',
  autonomy: 'supervised',
  autoApprove: [],
  alwaysAsk: [],
  approvalExpiryMinutes: 10,
  sessionGrantMinutes: 60,
  requireSandbox: false,
  hookAsk: 'agent',
  hookAutonomyAllow: 'defer',
  hookUnreachable: 'deny',
  teamOutageAsks: 'local',
  containment: [...DEFAULT_CONTAINMENT],
  desktopNotifications: true,
  auditRaw: false,
  auditRetentionDays: 0,
  auditMaxEvents: 0,
};

export interface SettingsStoreDeps {
  file: string;
  /** For this run only; never written to the file. */
  overrides?: Partial<Settings>;
  record?: (type: string, actor: string, payload: Record<string, unknown>) => void;
  changed?: (view: SettingsView) => void;
}

/** Reads a settings file the way the host does (for `gatehouse hook`, which runs without a host). */
export function readSettingsFile(file: string): { settings: Settings; error: string | null } {
  if (!existsSync(file)) return { settings: { ...DEFAULT_SETTINGS }, error: null };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { settings: { ...DEFAULT_SETTINGS }, error: `${file} is not valid JSON (${(err as Error).message}); the safe defaults (dry-run, supervised) are in use until it is fixed or saved again from Settings.` };
  }
  // Unknown fields from a newer version are ignored; known fields must be valid.
  const parsed = settingsSchema.partial().safeParse(raw);
  if (!parsed.success) {
    return { settings: { ...DEFAULT_SETTINGS }, error: `${file}: ${describeIssues(parsed.error).message}; the safe defaults (dry-run, supervised) are in use until it is fixed or saved again from Settings.` };
  }
  return { settings: { ...DEFAULT_SETTINGS, ...stripUndefined(parsed.data) }, error: null };
}

export class SettingsStore {
  private saved: Settings;
  private errorValue: string | null;
  private readonly overrides: Partial<Settings>;

  constructor(private readonly deps: SettingsStoreDeps) {
    const r = readSettingsFile(deps.file);
    this.saved = r.settings;
    this.errorValue = r.error;
    this.overrides = stripUndefined(deps.overrides ?? {});
  }

  /** The settings in force (the file plus this run's overrides). */
  get current(): Settings {
    return { ...this.saved, ...this.overrides };
  }

  view(): SettingsView {
    return { ...this.current, overridden: Object.keys(this.overrides), file: this.deps.file, error: this.errorValue };
  }

  update(patch: Partial<Settings>, actor: string): SettingsView {
    const parsed = settingsSchema.partial().strict().safeParse(patch);
    if (!parsed.success) throw new OperationError('invalid', `Settings were not changed: ${describeIssues(parsed.error).message}.`);
    const before = this.current;
    const next: Settings = { ...this.saved, ...stripUndefined(parsed.data) };
    // Written before it takes effect: a setting that cannot be kept is not applied either.
    const tmp = `${this.deps.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.deps.file);
    this.saved = next;
    this.errorValue = null;
    // An overridden field changes the file but not this run; the console shows it as overridden.
    for (const key of Object.keys(parsed.data) as (keyof Settings)[]) delete this.overrides[key];
    const after = this.current;
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const key of Object.keys(after) as (keyof Settings)[]) {
      if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = { from: before[key], to: after[key] };
    }
    if (changes.mode) this.deps.record?.('gateway.mode-changed', actor, { from: before.mode, to: after.mode });
    if (Object.keys(changes).length > 0) this.deps.record?.('settings.changed', actor, { changes });
    const view = this.view();
    this.deps.changed?.(view);
    return view;
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
