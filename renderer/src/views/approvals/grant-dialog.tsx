// "Don't ask again for …": approves the call and keeps a grant for a command prefix (`npm test:*`),
// a folder, or a host, for this session, this agent or every agent, until it expires. Before it is
// saved, the host runs the candidate over the last hour of recorded calls and the dialog shows how
// many it would have let through, with a few examples, and whether it covers this call at all.
// Saved, it also releases the waiting calls it covers (the host judges each again); the preview
// says how many are waiting.
import { useEffect, useMemo, useState } from 'react';
import type { ApprovalItemView, ResponseOf } from '../../../../shared/contract.ts';
import { ModalDialog } from '../../components/modal-dialog.tsx';
import { DialogActions, InlineError } from '../../components/dialog-actions.tsx';
import { SafeText, safeTitle } from '../../components/safe-text.tsx';
import { errorMessage } from '../../lib/error-message.ts';
import { formatDateTime } from '../../lib/format.ts';

export type GrantKind = 'command' | 'path' | 'host';
export type GrantScope = 'session' | 'agent' | 'everyone';
type Preview = ResponseOf<'grants.preview'>;

export interface GrantChoice {
  kind: GrantKind;
  value: string;
  scope: GrantScope;
  minutes: number;
  /** Its Bash commands run outside the box (containment); sent only when true. */
  uncontained?: boolean;
}

export interface GrantDialogProps {
  item: ApprovalItemView;
  busy: boolean;
  error: string | null;
  clockOffset: number;
  preview(choice: Omit<GrantChoice, 'minutes'>): Promise<Preview>;
  onConfirm(choice: GrantChoice): void;
  onCancel(): void;
}

const EXPIRIES: { minutes: number; label: string }[] = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 8 * 60, label: '8 hours' },
  { minutes: 24 * 60, label: '1 day' },
  { minutes: 7 * 24 * 60, label: '7 days' },
];

const KIND_LABEL: Record<GrantKind, string> = { command: 'Command prefix', path: 'Folder', host: 'Host' };

/** The first word, and the second when it reads as a subcommand (`npm test`, `git status`, not `ls -la`). */
export function proposedPrefix(command: string): string {
  const words = command.trim().split(/\s+/);
  const plain = (w: string | undefined) => w !== undefined && /^[A-Za-z0-9][A-Za-z0-9._:@/+-]*$/.test(w);
  if (!plain(words[0])) return '';
  return plain(words[1]) && !words[1]!.includes('/') && !words[1]!.includes('.') ? `${words[0]} ${words[1]}` : (words[0] ?? '');
}

/** The project folder when every path is in it, else the deepest folder holding them all. */
export function proposedFolder(paths: readonly string[], cwd: string): string {
  const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
  if (cwd && cwd !== '/' && paths.every((p) => inside(p, cwd))) return cwd;
  const dirs = paths.map((p) => p.split('/').slice(0, -1));
  const first = dirs[0] ?? [];
  let n = first.length;
  for (const d of dirs) {
    let i = 0;
    while (i < n && d[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join('/') || '/';
}

/** The kinds this call can be granted by, each with its proposed value. */
export function proposals(item: ApprovalItemView): { kind: GrantKind; value: string }[] {
  const x = item.extraction;
  const out: { kind: GrantKind; value: string }[] = [];
  if (x.command) out.push({ kind: 'command', value: proposedPrefix(x.command) });
  if (!x.command && x.paths.length > 0) out.push({ kind: 'path', value: proposedFolder(x.paths, item.call.cwd) });
  if (x.hosts.length > 0) out.push({ kind: 'host', value: x.hosts[0] ?? '' });
  return out;
}

export function GrantDialog({ item, busy, error, clockOffset, preview, onConfirm, onCancel }: GrantDialogProps) {
  const offered = useMemo(() => proposals(item), [item]);
  const [kind, setKind] = useState<GrantKind>(offered[0]?.kind ?? 'command');
  const [values, setValues] = useState<Record<GrantKind, string>>(() => ({ command: '', path: '', host: '', ...Object.fromEntries(offered.map((o) => [o.kind, o.value])) }));
  const [scope, setScope] = useState<GrantScope>('session');
  const [minutes, setMinutes] = useState(60);
  const [contained, setContained] = useState(true);
  const [result, setResult] = useState<{ key: string; preview: Preview | null; error: string | null } | null>(null);
  const value = values[kind].trim();
  const key = JSON.stringify([kind, value, scope]);

  // Asked again as the operator edits, after a short pause; an answer for an older value is dropped.
  useEffect(() => {
    if (!value) return;
    let live = true;
    const t = setTimeout(() => {
      preview({ kind, value, scope }).then(
        (p) => live && setResult({ key, preview: p, error: null }),
        (err: unknown) => live && setResult({ key, preview: null, error: errorMessage(err) }),
      );
    }, 200);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [key, kind, value, scope, preview]);

  const current = result?.key === key ? result : null;
  const p = current?.preview ?? null;
  const canSave = !busy && p !== null && p.coversCall;
  const submit = () => {
    if (canSave) onConfirm({ kind, value, scope, minutes, ...(contained ? {} : { uncontained: true }) });
  };
  const who = scope === 'session' ? `this session of ${item.call.agent}` : scope === 'agent' ? `every session of ${item.call.agent}` : 'every agent';

  return (
    <ModalDialog
      title={`Don't ask again for… (${safeTitle(item.call.tool)})`}
      onCancel={onCancel}
      testId="grant-dialog"
      footer={
        <DialogActions onCancel={onCancel} tone="primary" confirmTestId="grant-confirm" form="grant-form" busy={busy} blocked={!canSave} label="Approve and grant" busyLabel="Approving…" />
      }
    >
      <p>
        Runs this call now, and lets {who} run calls like it without asking until the grant expires; the waiting calls it covers are released at once. Rules that deny or ask still come first. Grants are listed in the Grants view, where you can revoke them.
      </p>
      {offered.length === 0 ? <p className="inline-error">This call runs no command and touches no path or host, so no grant of these kinds can cover it.</p> : null}
      <form
        id="grant-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <fieldset className="field grant-kinds">
          <legend className="field-label">Grant</legend>
          {offered.map((o) => (
            <div key={o.kind} className="grant-kind">
              <label className="field-inline">
                <input type="radio" name="grant-kind" value={o.kind} data-testid={`grant-kind-${o.kind}`} checked={kind === o.kind} onChange={() => setKind(o.kind)} />
                {KIND_LABEL[o.kind]}
              </label>
              <input
                className="input mono"
                aria-label={`${KIND_LABEL[o.kind]} to grant`}
                data-testid={`grant-value-${o.kind}`}
                value={values[o.kind]}
                maxLength={1024}
                disabled={kind !== o.kind}
                autoFocus={o.kind === offered[0]?.kind}
                onChange={(e) => setValues((v) => ({ ...v, [o.kind]: e.target.value }))}
              />
              {o.kind === 'command' ? (
                <span className="field-hint">
                  Matches one plain command starting with these words (<code>{values.command.trim() || '…'}:*</code>): never one joined with <code>;</code>, <code>&amp;&amp;</code>, <code>|</code>, <code>&amp;</code>, or with substitutions, variables or redirections.
                </span>
              ) : o.kind === 'path' ? (
                <span className="field-hint">File tools whose every path is inside this folder (links resolved); never a shell command or a call that also reaches the network.</span>
              ) : (
                <span className="field-hint">Fetches whose every destination is this host, that write or delete nothing local.</span>
              )}
            </div>
          ))}
        </fieldset>
        <div className="grant-pickers">
          <label className="field">
            <span className="field-label">For</span>
            <select className="input" data-testid="grant-scope" value={scope} onChange={(e) => setScope(e.target.value as GrantScope)}>
              <option value="session">This session</option>
              <option value="agent">This agent ({item.call.agent})</option>
              <option value="everyone">Every agent</option>
            </select>
          </label>
          <label className="field">
            <span className="field-label">Expires after</span>
            <select className="input" data-testid="grant-expiry" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
              {EXPIRIES.map((x) => (
                <option key={x.minutes} value={x.minutes}>
                  {x.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        {kind === 'command' && item.call.source === 'hook' ? (
          <label className="toggle" title="A Claude Code Bash command this grant lets through runs with credentials and Gatehouse's data folder hidden and only the project and temp folders writable (when Settings → Contain Bash commands names grants).">
            <input type="checkbox" data-testid="grant-contained" checked={contained} onChange={(e) => setContained(e.target.checked)} />
            <span>Run the commands it allows in the box (credentials hidden, only the project writable)</span>
          </label>
        ) : null}
      </form>

      <section className="grant-preview" data-testid="grant-preview" aria-live="polite" aria-label="What this grant would have matched">
        {!value ? (
          <p className="muted">Enter what to grant.</p>
        ) : current === null ? (
          <p className="muted">Checking the last hour of calls…</p>
        ) : current.error !== null ? (
          <p className="inline-error" role="alert" data-testid="grant-preview-error">
            {current.error}
          </p>
        ) : p ? (
          <>
            {p.coversCall ? null : (
              <p className="inline-error" data-testid="grant-not-covering">
                This grant would not cover this call: <SafeText text={p.reason ?? ''} />.
              </p>
            )}
            <p data-testid="grant-preview-count" data-count={p.count}>
              In the last hour it would have let through <strong>{p.count}</strong> other call{p.count === 1 ? '' : 's'}
              <span className="muted"> (of {p.examined} recorded {scope === 'everyone' ? 'from every agent' : scope === 'agent' ? `from ${item.call.agent}` : 'in this session'}).</span>
            </p>
            {p.waiting > 0 ? (
              <p data-testid="grant-preview-waiting" data-count={p.waiting}>
                <strong>{p.waiting}</strong> of them {p.waiting === 1 ? 'is' : 'are'} waiting in the inbox now: saving the grant releases {p.waiting === 1 ? 'it' : 'them'}, except any a rule still asks about.
              </p>
            ) : null}
            {p.examples.length > 0 ? (
              <ul className="grant-examples" data-testid="grant-preview-examples">
                {p.examples.map((e) => (
                  <li key={e.call} className="mono">
                    {/* The tool name is the agent's (a hook's tool_name): raw, a bidi control in it reorders the rest of the line. */}
                    <span className="muted">
                      {formatDateTime(e.ts + clockOffset)} · <SafeText text={e.tool} /> · {e.decision} ·{' '}
                    </span>
                    <SafeText text={e.summary} />
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        ) : null}
      </section>
      <InlineError error={error} />
    </ModalDialog>
  );
}
