// A unified diff with +/- lines coloured. The text comes from plugin files, so it is rendered
// as text nodes only.
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <pre className="diff selectable" aria-label="Unified diff">
      {lines.map((line, i) => (
        <span key={i} className={diffLineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function diffLineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('Index:') || line.startsWith('====')) return 'diff-line diff-file';
  if (line.startsWith('@@')) return 'diff-line diff-hunk';
  if (line.startsWith('+')) return 'diff-line diff-add';
  if (line.startsWith('-')) return 'diff-line diff-del';
  if (line.startsWith('\\')) return 'diff-line diff-meta';
  return 'diff-line';
}
