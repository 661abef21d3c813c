// One setting as the Settings view shows it: label, control, what it does, whether this run
// overrides it, and the host's sentence when it refused the last change.
import type { ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { useSettingEdits, type SettingKey } from './setting-edits.ts';

export interface SettingFieldProps {
  name: SettingKey;
  label: string;
  hint?: ReactNode;
  /** Radio groups render as a fieldset with the label as legend. */
  group?: boolean;
  children: ReactNode;
}

export function SettingField({ name, label, hint, group, children }: SettingFieldProps) {
  const overridden = useSettingsStore((s) => s.settings?.overridden.includes(name) ?? false);
  const { pending, error } = useSettingEdits(useShallow((s) => ({ pending: s.pending.includes(name), error: s.fieldErrors[name] ?? null })));
  const errorId = `setting-${name}-error`;
  const head = (
    <>
      <span className="field-label">{label}</span>
      {overridden ? (
        <span className="badge badge-checking" data-testid="setting-overridden" title="Set for this run only (a command-line option). Changing it here writes the settings file and takes effect now.">
          overridden for this run
        </span>
      ) : null}
      {pending ? <span className="muted setting-pending">saving…</span> : null}
    </>
  );
  const body = (
    <>
      {children}
      {hint ? <span className="field-hint">{hint}</span> : null}
      {error ? (
        <p className="field-error" role="alert" id={errorId} data-testid="setting-error">
          {error}
        </p>
      ) : null}
    </>
  );
  const attrs = { 'data-testid': `setting-${name}`, 'data-overridden': overridden ? 'true' : 'false', 'data-pending': pending ? 'true' : 'false', 'aria-busy': pending } as const;
  if (group) {
    return (
      <fieldset className="setting setting-group" {...attrs} aria-describedby={error ? errorId : undefined}>
        <legend className="setting-legend">{head}</legend>
        {body}
      </fieldset>
    );
  }
  return (
    <div className="setting" {...attrs}>
      <div className="setting-head">{head}</div>
      {body}
    </div>
  );
}
