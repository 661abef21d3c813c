// "Approve for this session": approves the call and grants the agent's session the same call
// again until the grant expires — the exact arguments, or (when the operator writes one) any
// arguments matching a pattern over their canonical JSON.
import { useState } from 'react';
import type { ApprovalItemView } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';

export interface SessionDialogProps {
  item: ApprovalItemView;
  defaultMinutes: number;
  busy: boolean;
  error: string | null;
  onConfirm(opts: { sessionMinutes: number; argumentPattern?: string }): void;
  onCancel(): void;
}

/** The canonical form the host matches patterns against: keys sorted, no spaces. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

export function SessionDialog({ item, defaultMinutes, busy, error, onConfirm, onCancel }: SessionDialogProps) {
  const [minutes, setMinutes] = useState(String(defaultMinutes));
  const [pattern, setPattern] = useState('');
  const m = Number(minutes);
  const minutesOk = Number.isFinite(m) && m >= 1 && m <= 7 * 24 * 60;
  const submit = () => {
    if (!minutesOk || busy) return;
    onConfirm({ sessionMinutes: m, ...(pattern.trim() ? { argumentPattern: pattern.trim() } : {}) });
  };
  return (
    <ModalDialog
      title={`Approve ${safeTitle(item.call.tool)} for this session`}
      onCancel={onCancel}
      testId="session-dialog"
      footer={
        <DialogActions onCancel={onCancel} tone="primary" confirmTestId="session-confirm" form="session-form" busy={busy} blocked={!minutesOk} label="Approve and grant" busyLabel="Approving…" />
      }
    >
      <p>
        Runs this call now, and lets <strong><SafeText text={item.call.agent} /></strong> (session <span className="mono"><SafeText text={item.call.session} /></span>) call <span className="mono"><SafeText text={item.call.tool} /></span> again without asking until the grant
        expires. Grants are listed in the Grants view, where you can revoke them.
      </p>
      <form
        id="session-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="field">
          <span className="field-label">Expires after (minutes)</span>
          <input className="input" type="number" min={1} max={7 * 24 * 60} data-testid="session-minutes" value={minutes} aria-invalid={!minutesOk} onChange={(e) => setMinutes(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Argument pattern (optional)</span>
          <input className="input mono" data-testid="session-pattern" value={pattern} autoFocus maxLength={4096} onChange={(e) => setPattern(e.target.value)} placeholder={canonicalJson(item.call.arguments)} />
          <span className="field-hint">
            Empty: only these exact arguments. A pattern is matched against the arguments' canonical JSON; <code>*</code> matches within one value, <code>?</code> one character.
          </span>
        </label>
      </form>
      <InlineError error={error} />
    </ModalDialog>
  );
}
