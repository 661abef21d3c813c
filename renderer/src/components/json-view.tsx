// JSON the way an operator must read it (a call's arguments before deciding, an audit event's
// payload during an incident): every key and value visible, long strings folded behind an
// expand so one huge value cannot hide the rest, nested objects and arrays collapsible, and the
// whole value one click from the clipboard. JSON escapes control characters but not bidi controls
// or zero-width ones: keys and strings go through SafeText, which draws those as ⟨U+…⟩ tokens.
import { useState, type ReactNode } from 'react';
import { SafeText } from './safe-text.tsx';

/** Strings longer than this are folded. */
export const FOLD_AT = 160;

export function JsonView({ value, testId, className, label }: { value: unknown; testId?: string; className?: string; label?: string }) {
  return (
    <div className={`json-view-frame ${className ?? ''}`}>
      <CopyJson value={value} />
      <pre className="code-block json-view selectable" data-testid={testId} tabIndex={0} aria-label={label}>
        <JsonNode value={value} indent="" depth={0} />
      </pre>
    </div>
  );
}

function JsonNode({ value, indent, depth }: { value: unknown; indent: string; depth: number }): ReactNode {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return <span className="json-lit">{String(value)}</span>;
  if (typeof value === 'string') return value.length > FOLD_AT ? <FoldedString text={value} /> : <span className="json-str"><SafeText text={JSON.stringify(value)} /></span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return <Collapsible open="[" close="]" size={`${value.length} ${value.length === 1 ? 'item' : 'items'}`} indent={indent} depth={depth} entries={value.map((v, i) => [String(i), null, v])} />;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return <Collapsible open="{" close="}" size={`${entries.length} ${entries.length === 1 ? 'key' : 'keys'}`} indent={indent} depth={depth} entries={entries.map(([k, v]) => [k, k, v])} />;
  }
  return <span className="json-lit">{String(value)}</span>;
}

/** An object or array; nested ones can be collapsed to one line (the top level always shows). */
function Collapsible({ open, close, size, indent, depth, entries }: { open: string; close: string; size: string; indent: string; depth: number; entries: [key: string, label: string | null, value: unknown][] }) {
  const [collapsed, setCollapsed] = useState(false);
  const inner = `${indent}  `;
  const toggle =
    depth > 0 ? (
      <button type="button" className="json-toggle" data-testid="json-toggle" aria-expanded={!collapsed} aria-label={collapsed ? `expand (${size})` : `collapse (${size})`} onClick={() => setCollapsed((c) => !c)}>
        {collapsed ? '▸' : '▾'}
      </button>
    ) : null;
  if (collapsed) {
    return (
      <>
        {toggle}
        {open}
        <span className="json-collapsed">… {size}</span>
        {close}
      </>
    );
  }
  return (
    <>
      {toggle}
      {`${open}\n`}
      {entries.map(([key, label, v], i) => (
        <span key={key}>
          {inner}
          {label !== null ? (
            <>
              <span className="json-key">
                <SafeText text={JSON.stringify(label)} />
              </span>
              {': '}
            </>
          ) : null}
          <JsonNode value={v} indent={inner} depth={depth + 1} />
          {i < entries.length - 1 ? ',\n' : '\n'}
        </span>
      ))}
      {`${indent}${close}`}
    </>
  );
}

function FoldedString({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const quoted = JSON.stringify(text);
  return (
    <span className="json-str json-folded" data-testid="json-folded" data-open={open}>
      <SafeText text={open ? quoted : `${quoted.slice(0, FOLD_AT)}…`} />{' '}
      <button type="button" className="json-expand" data-testid="json-expand" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? 'fold' : `expand (${text.length} chars)`}
      </button>
    </span>
  );
}

function CopyJson({ value }: { value: unknown }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(JSON.stringify(value, null, 2));
      setState('copied');
    } catch {
      // No clipboard permission (an insecure origin, a denied prompt): the text stays selectable.
      setState('failed');
    }
  };
  return (
    <button type="button" className="json-copy" data-testid="json-copy" onClick={() => void copy()} title="Copy the whole value as JSON">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy' : 'Copy'}
    </button>
  );
}
