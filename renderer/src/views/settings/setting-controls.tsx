// The controls of the Settings view. Each sends one change through settings.update; the host
// validates it, and a refusal shows as the field's error (the control then shows what the host has).
import { useEffect, useState, type KeyboardEvent, type ReactNode } from 'react';
import { CONTAIN_WHEN, DEFAULT_CONTAINMENT, type ContainWhen, type Settings } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { useClient } from '../../sync/client-context.ts';
import { useSettingsStore } from '../../stores/settings-store.ts';
import { saveSetting, useSettingEdits, useShownSetting, type SettingKey } from './setting-edits.ts';
import { SettingField } from './setting-field.tsx';

type KeysOf<V> = { [K in SettingKey]: Settings[K] extends V ? K : never }[SettingKey];

export interface Choice<T extends string> {
  value: T;
  label: string;
  help: string;
}

/**
 * Radio choices saved on change. `confirmFor` names the choices that ask first (full autonomy
 * while live): it answers the question for a value, or null to save at once.
 */
export function RadioChoices<K extends KeysOf<string>>({
  name,
  choices,
  disabled,
  confirmFor,
}: {
  name: K;
  choices: readonly Choice<Settings[K] & string>[];
  disabled: boolean;
  confirmFor?: (value: Settings[K] & string) => ToggleConfirm | null;
}) {
  const client = useClient();
  const value = useShownSetting(name);
  const [asking, setAsking] = useState<{ value: string; confirm: ToggleConfirm } | null>(null);
  const choose = (v: Settings[K] & string) => {
    const confirm = confirmFor?.(v) ?? null;
    if (confirm) return setAsking({ value: v, confirm });
    void saveSetting(client, { [name]: v } as Partial<Settings>);
  };
  return (
    <div className="choices" role="presentation">
      {asking ? (
        // Cancel has the keyboard: the risky choice is made with a deliberate click or Tab.
        <SettingConfirmDialog
          confirm={asking.confirm}
          focus="cancel"
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setAsking(null);
            void saveSetting(client, { [name]: asking.value } as Partial<Settings>);
          }}
        />
      ) : null}
      {choices.map((c) => (
        <label key={c.value} className="choice" data-checked={value === c.value ? 'true' : 'false'}>
          <input
            type="radio"
            name={`setting-${name}`}
            value={c.value}
            checked={value === c.value}
            disabled={disabled}
            onChange={() => choose(c.value)}
          />
          <span className="choice-text">
            <span className="choice-label">{c.label}</span>
            <span className="choice-help">{c.help}</span>
          </span>
        </label>
      ))}
    </div>
  );
}

/**
 * A setting chosen among radios: the field (legend, save state, the host's refusal) around the
 * choices, named once so the two can never save and report under different keys.
 */
export function RadioSetting<K extends KeysOf<string>>({ label, ...choices }: { label: string } & Parameters<typeof RadioChoices<K>>[0]) {
  return (
    <SettingField name={choices.name} label={label} group>
      <RadioChoices<K> {...choices} />
    </SettingField>
  );
}

/** What a toggle asks before it is turned on (turning it off again never asks). */
export interface ToggleConfirm {
  title: string;
  body: ReactNode;
  /** The confirm button's label, e.g. "Show raw values". */
  action: string;
}

export function Toggle({ name, label, disabled, confirmOn }: { name: KeysOf<boolean>; label: string; disabled: boolean; confirmOn?: ToggleConfirm }) {
  const client = useClient();
  const value = useShownSetting(name) ?? false;
  const [asking, setAsking] = useState(false);
  const change = (on: boolean) => {
    if (on && confirmOn) return setAsking(true);
    void saveSetting(client, { [name]: on });
  };
  return (
    <>
      <label className="toggle">
        <input type="checkbox" data-testid="setting-toggle" checked={value} disabled={disabled} onChange={(e) => change(e.target.checked)} />
        <span>{label}</span>
      </label>
      {asking && confirmOn ? (
        <SettingConfirmDialog
          confirm={confirmOn}
          focus="confirm"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            // The field shows the save in flight, and the host's sentence if it refuses.
            setAsking(false);
            void saveSetting(client, { [name]: true });
          }}
        />
      ) : null}
    </>
  );
}

/** The question a risky setting asks before it is saved; confirming closes it and saves. */
function SettingConfirmDialog({ confirm, focus, onCancel, onConfirm }: { confirm: ToggleConfirm; focus: 'cancel' | 'confirm'; onCancel(): void; onConfirm(): void }) {
  return (
    <ModalDialog
      title={confirm.title}
      onCancel={onCancel}
      testId="setting-confirm-dialog"
      footer={
        <>
          <button type="button" className="button" data-testid="setting-confirm-cancel" autoFocus={focus === 'cancel'} onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button button-danger" data-testid="setting-confirm" autoFocus={focus === 'confirm'} onClick={onConfirm}>
            {confirm.action}
          </button>
        </>
      }
    >
      {confirm.body}
    </ModalDialog>
  );
}

/** A number committed on Enter or when the field loses focus. */
export function NumberSetting({ name, unit, disabled, label }: { name: KeysOf<number>; unit: string; disabled: boolean; label: string }) {
  const client = useClient();
  const value = useSettingsStore((s) => s.settings?.[name]);
  const error = useSettingEdits((s) => s.fieldErrors[name]);
  const [text, setText] = useState(value === undefined ? '' : String(value));
  const [local, setLocal] = useState<string | null>(null);
  // The host's value replaces the text whenever it changes (this console's save or another's).
  useEffect(() => setText(value === undefined ? '' : String(value)), [value]);

  const commit = () => {
    const t = text.trim();
    if (value !== undefined && t === String(value)) return setLocal(null);
    const n = Number(t);
    if (t === '' || !Number.isFinite(n)) return setLocal(`Enter a number of ${unit}.`);
    setLocal(null);
    void saveSetting(client, { [name]: n }).then((ok) => {
      // Refused: the host's sentence is shown; the field goes back to what is in force.
      if (!ok) setText(value === undefined ? '' : String(useSettingsStore.getState().settings?.[name] ?? value));
    });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      commit();
    } else if (e.key === 'Escape') {
      setText(value === undefined ? '' : String(value));
      setLocal(null);
    }
  };
  return (
    <span className="number-setting">
      <input
        className="input number-input"
        type="text"
        inputMode="decimal"
        data-testid="setting-input"
        aria-label={label}
        aria-invalid={local || error ? 'true' : undefined}
        value={text}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={onKeyDown}
      />
      <span className="muted">{unit}</span>
      {local ? (
        <span className="field-error" role="alert">
          {local}
        </span>
      ) : null}
    </span>
  );
}

/** An editable list of tool-name globs; every add or remove saves the whole list. */
export function GlobList({ name, disabled, placeholder }: { name: 'autoApprove' | 'alwaysAsk'; disabled: boolean; placeholder: string }) {
  const client = useClient();
  const list = useSettingsStore((s) => s.settings?.[name]) ?? [];
  const [text, setText] = useState('');
  const [local, setLocal] = useState<string | null>(null);

  const add = () => {
    const glob = text.trim();
    if (!glob) return;
    if (list.includes(glob)) return setLocal(`${glob} is already on the list.`);
    setLocal(null);
    void saveSetting(client, { [name]: [...list, glob] }).then((ok) => ok && setText(''));
  };
  return (
    <div className="glob-list">
      {list.length === 0 ? (
        <p className="muted glob-empty">No tools.</p>
      ) : (
        <ul className="glob-items">
          {list.map((g) => (
            <li key={g} className="glob-item" data-testid="glob-item" data-glob={g}>
              <span className="mono">{g}</span>
              <button
                type="button"
                className="glob-remove"
                data-testid="glob-remove"
                aria-label={`Remove ${g}`}
                title={`Remove ${g}`}
                disabled={disabled}
                onClick={() => void saveSetting(client, { [name]: list.filter((x) => x !== g) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="glob-add">
        <input
          aria-label={`Tool-name glob to add to ${name === 'autoApprove' ? 'auto-approve' : 'always ask'}`}
          className="input mono"
          data-testid="glob-input"
          placeholder={placeholder}
          value={text}
          disabled={disabled}
          onChange={(e) => {
            setText(e.target.value);
            setLocal(null);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
        <button type="button" className="button button-small" data-testid="glob-add" disabled={disabled || !text.trim()} onClick={add}>
          Add
        </button>
      </div>
      {local ? (
        <span className="field-error" role="alert">
          {local}
        </span>
      ) : null}
    </div>
  );
}

const CONTAIN_LABEL: Record<ContainWhen, string> = {
  'read-only': 'Read-only autonomy',
  supervised: 'Supervised autonomy',
  full: 'Full autonomy',
  grants: 'Grants and allow rules',
};

/**
 * When a Bash command Gatehouse lets through runs in the box: one box per way a call is allowed
 * without an operator reading it. Saved as the whole list on each change.
 */
export function ContainmentChoices({ disabled }: { disabled: boolean }) {
  const client = useClient();
  const value = useShownSetting('containment') ?? DEFAULT_CONTAINMENT;
  const change = (when: ContainWhen, on: boolean) => {
    const next = CONTAIN_WHEN.filter((w) => (w === when ? on : value.includes(w)));
    void saveSetting(client, { containment: next });
  };
  return (
    <div className="containment-choices" data-testid="containment-choices">
      {CONTAIN_WHEN.map((w) => (
        <label key={w} className="toggle">
          <input type="checkbox" data-testid={`containment-${w}`} checked={value.includes(w)} disabled={disabled} onChange={(e) => change(w, e.target.checked)} />
          <span>{CONTAIN_LABEL[w]}</span>
        </label>
      ))}
    </div>
  );
}
