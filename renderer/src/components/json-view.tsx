// Arguments as pretty JSON, the way the operator must read them before deciding: every key and
// value visible, long strings folded behind an expand so one huge value cannot hide the rest.
import { useState, type ReactNode } from 'react';

/** Strings longer than this are folded. */
export const FOLD_AT = 160;

export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <pre className="json-view selectable" data-testid={testId}>
      <JsonNode value={value} indent="" />
    </pre>
  );
}

function JsonNode({ value, indent }: { value: unknown; indent: string }): ReactNode {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return <span className="json-lit">{String(value)}</span>;
  if (typeof value === 'string') return value.length > FOLD_AT ? <FoldedString text={value} /> : <span className="json-str">{JSON.stringify(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return (
      <>
        {'[\n'}
        {value.map((v, i) => (
          <span key={i}>
            {inner}
            <JsonNode value={v} indent={inner} />
            {i < value.length - 1 ? ',\n' : '\n'}
          </span>
        ))}
        {`${indent}]`}
      </>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    return (
      <>
        {'{\n'}
        {entries.map(([k, v], i) => (
          <span key={k}>
            {inner}
            <span className="json-key">{JSON.stringify(k)}</span>
            {': '}
            <JsonNode value={v} indent={inner} />
            {i < entries.length - 1 ? ',\n' : '\n'}
          </span>
        ))}
        {`${indent}}`}
      </>
    );
  }
  return <span className="json-lit">{String(value)}</span>;
}

function FoldedString({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const quoted = JSON.stringify(text);
  return (
    <span className="json-str json-folded" data-testid="json-folded" data-open={open}>
      {open ? quoted : `${quoted.slice(0, FOLD_AT)}…`}{' '}
      <button type="button" className="json-expand" data-testid="json-expand" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {open ? 'fold' : `expand (${text.length} chars)`}
      </button>
    </span>
  );
}
