// One setting as the Settings view shows it: label, control, what it does, whether this run
// overrides it, whether its last change is saving, saved or failed, and the host's sentence when
// it refused the last change.
import { useEffect, useState, type ReactNode } from 'react';
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

/** How long "Saved" stays beside a field: long enough to read, short enough not to go stale. */
export const SAVED_SHOWN_MS = 4000;

export type SaveStateValue = 'idle' | 'saving' | 'saved' | 'failed';

const saveStateText: Record<SaveStateValue, string> = { idle: '', saving: 'Saving…', saved: 'Saved', failed: 'Not saved' };

/**
 * Where a change stands, beside what was changed. The live region is always in the DOM (empty
 * while idle) so a screen reader announces each new state; why a change failed is the field's
 * own alert.
 */
export function SaveState({ state, testId = 'setting-state' }: { state: SaveStateValue; testId?: string }) {
  return (
    <span className="setting-state" role="status" aria-live="polite" data-testid={testId} data-state={state}>
      {state === 'saved' ? <span aria-hidden="true">✓ </span> : null}
      {saveStateText[state]}
    </span>
  );
}

/**
 * True for a moment after the host accepted a change of this field. Read from the edits store's
 * transitions as they happen (a subscription, not a render): a fast save can start and finish
 * between two renders, and would otherwise never read as saved.
 */
function useJustSaved(name: SettingKey): boolean {
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = useSettingEdits.subscribe((s, prev) => {
      const was = prev.pending.includes(name);
      const is = s.pending.includes(name);
      if (!was && is) setSaved(false);
      if (was && !is && s.fieldErrors[name] === undefined) {
        setSaved(true);
        if (timer !== null) clearTimeout(timer);
        timer = setTimeout(() => setSaved(false), SAVED_SHOWN_MS);
      }
    });
    return () => {
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
    };
  }, [name]);
  return saved;
}

export function SettingField({ name, label, hint, group, children }: SettingFieldProps) {
  const overridden = useSettingsStore((s) => s.settings?.overridden.includes(name) ?? false);
  const { pending, error } = useSettingEdits(useShallow((s) => ({ pending: s.pending.includes(name), error: s.fieldErrors[name] ?? null })));
  const saved = useJustSaved(name);
  const errorId = `setting-${name}-error`;
  const head = (
    <>
      <span className="field-label">{label}</span>
      {overridden ? (
        <span className="badge badge-checking" data-testid="setting-overridden" title="Set for this run only (a command-line option). Changing it here writes the settings file and takes effect now.">
          overridden for this run
        </span>
      ) : null}
      <SaveState state={pending ? 'saving' : error ? 'failed' : saved ? 'saved' : 'idle'} />
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
