// A Write, Edit or MultiEdit call as the change it makes to the file on disk, the way a code
// review shows it. The host reads the current file (approvals.fileBefore: the call's own
// file_path, bounded, while it waits); the new text is computed here from the arguments the
// operator is approving. Every line is agent-supplied or agent-chosen text: drawn through SafeText.
import { useEffect, useMemo, useState } from 'react';
import { structuredPatch } from 'diff';
import type { ApprovalItemView, ResponseOf } from '../../../../shared/contract.ts';
import { useClient } from '../../sync/client-context.ts';
import { fileBefore } from '../../sync/approvals-actions.ts';
import { SafeText } from '../../components/safe-text.tsx';
import { errorMessage } from '../../lib/error-message.ts';

type Before = ResponseOf<'approvals.fileBefore'>;

/** Lines past this are cut, with a count: a pane is for reading, not for a 30,000-line file. */
const MAX_LINES = 1500;

interface Edit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

function asEdit(v: unknown): Edit | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o['old_string'] !== 'string' || typeof o['new_string'] !== 'string') return null;
  return { old_string: o['old_string'], new_string: o['new_string'], replace_all: o['replace_all'] === true };
}

/** The file after the call, or a sentence saying why it cannot be computed. */
export function afterText(item: ApprovalItemView, before: string): { text: string } | { problem: string } {
  const a = item.call.arguments ?? {};
  if (item.call.tool === 'Write') {
    return typeof a['content'] === 'string' ? { text: a['content'] } : { problem: 'The call has no string arguments.content.' };
  }
  const edits = item.call.tool === 'MultiEdit' ? (Array.isArray(a['edits']) ? a['edits'].map(asEdit) : []) : [asEdit(a)];
  let text = before;
  for (const [i, e] of edits.entries()) {
    if (!e) return { problem: `Edit ${i + 1} has no old_string/new_string strings.` };
    if (!text.includes(e.old_string)) return { problem: `Edit ${i + 1}: old_string is not in the file; the tool will refuse this call.` };
    text = e.replace_all ? text.split(e.old_string).join(e.new_string) : text.replace(e.old_string, () => e.new_string);
  }
  return { text };
}

export function FileDiff({ item }: { item: ApprovalItemView }) {
  const client = useClient();
  const [before, setBefore] = useState<Before | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setBefore(null);
    setError(null);
    fileBefore(client, { id: item.id }).then(
      (b) => live && setBefore(b),
      (err: unknown) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [client, item.id]);

  const lines = useMemo(() => {
    if (!before) return null;
    const old = before.content ?? '';
    if (before.exists && before.content === null) return null;
    const after = afterText(item, old);
    if ('problem' in after) return after;
    const patch = structuredPatch(before.path, before.path, old, after.text, '', '', { context: 3 });
    const out: { kind: 'add' | 'del' | 'ctx' | 'hunk'; text: string }[] = [];
    for (const h of patch.hunks) {
      out.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` });
      for (const l of h.lines) out.push({ kind: l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx', text: l });
    }
    return { lines: out };
  }, [before, item]);

  if (error) return <p className="inline-error" data-testid="approval-diff-error">Could not read the file to compare: {error}</p>;
  if (!before) return <p className="muted">Reading the file on disk…</p>;
  return (
    <div className="approval-diff" data-testid="approval-diff" data-exists={before.exists}>
      <p className="muted approval-diff-head">
        <span className="mono">
          <SafeText text={before.path} />
        </span>{' '}
        {before.exists ? (before.note ? `· ${before.note}` : `· ${before.size} bytes on disk`) : '· a new file'}
      </p>
      {lines && 'problem' in lines ? <p className="danger-text">{lines.problem}</p> : null}
      {lines && 'lines' in lines ? (
        lines.lines.length === 0 ? (
          <p className="muted">No change: the file already holds this text.</p>
        ) : (
          <pre className="approval-diff-body mono">
            {lines.lines.slice(0, MAX_LINES).map((l, i) => (
              <div key={i} className={`diff-line diff-${l.kind}`} data-testid={`diff-${l.kind}`}>
                <SafeText text={l.text} />
              </div>
            ))}
            {lines.lines.length > MAX_LINES ? <div className="muted">… {lines.lines.length - MAX_LINES} more lines</div> : null}
          </pre>
        )
      ) : null}
    </div>
  );
}
