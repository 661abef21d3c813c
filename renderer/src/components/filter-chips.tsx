// The filters in force, as chips: each says what it keeps and removes itself on click, and
// "Clear all" removes every one in one step (filters carried over from a link included). A filter
// is never in force without its chip, so "1 waiting · 0 shown" always has a visible reason.
import { SafeText } from './safe-text.tsx';

export interface FilterChip {
  key: string;
  label: string;
  /** The value, possibly agent-supplied: drawn through SafeText. */
  value: string;
  onRemove(): void;
}

export function FilterChips({ chips, onClearAll, testId = 'filter-chips' }: { chips: FilterChip[]; onClearAll(): void; testId?: string }) {
  if (chips.length === 0) return null;
  return (
    <div className="filter-chips" role="group" aria-label="Filters in force" data-testid={testId}>
      {chips.map((c) => (
        <span key={c.key} className="filter-chip" data-testid="filter-chip" data-key={c.key}>
          <span className="muted">{c.label}:</span>{' '}
          <span className="mono">
            <SafeText text={c.value} />
          </span>
          <button type="button" className="filter-chip-remove" data-testid="filter-chip-remove" aria-label={`Remove the ${c.label} filter`} onClick={c.onRemove}>
            ×
          </button>
        </span>
      ))}
      <button type="button" className="link-button" data-testid="filters-clear-all" onClick={onClearAll}>
        Clear all
      </button>
    </div>
  );
}
