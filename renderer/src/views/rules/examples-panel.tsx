// Every example of every rule with its result: a failing one names its rule and says why.
// A click shows the example's line in the editor.
import type { ExampleResultView } from '../../stores/policy-store.ts';

export function ExamplesPanel({ examples, onSelect }: { examples: readonly ExampleResultView[]; onSelect(line: number, column: number): void }) {
  const failed = examples.filter((e) => !e.ok).length;
  return (
    <section className="panel rules-side-panel" data-testid="policy-examples" aria-labelledby="policy-examples-heading">
      <h2 id="policy-examples-heading" className="panel-title">
        Examples
        <span className="panel-note" data-testid="policy-examples-summary">
          {examples.length === 0 ? 'none in this text' : failed === 0 ? `all ${examples.length} pass` : `${failed} of ${examples.length} fail`}
        </span>
      </h2>
      {examples.length === 0 ? (
        <p className="muted">Add <code>examples: {'{ match: [...], not_match: [...] }'}</code> to a rule and they are checked as you type.</p>
      ) : (
        <ul className="example-rows">
          {examples.map((e, i) => (
            <li key={`${e.rule}:${e.line}:${e.column}:${i}`}>
              <button
                type="button"
                className="example-row"
                data-testid="policy-example"
                data-rule={e.rule}
                data-ok={e.ok ? 'true' : 'false'}
                data-expected={e.expected}
                data-line={e.line}
                title="Show in the editor"
                onClick={() => onSelect(e.line, e.column)}
              >
                <span className={e.ok ? 'example-result ok-text' : 'example-result danger-text'}>{e.ok ? 'pass' : 'fail'}</span>
                <span className="example-main">
                  <span className="example-head">
                    <span className="mono example-rule">{e.rule}</span>
                    <span className="muted">{e.expected === 'match' ? 'should match' : 'should not match'}</span>
                    <span className="mono muted example-line">line {e.line}</span>
                  </span>
                  <span className="mono example-text">{e.example}</span>
                  <span className="example-detail">{e.detail}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
