// The rules in force: the locked built-ins and the user rules, with where each came from, what it
// decides, its priority and how often it matched; each name opens the rule in full, read-only
// (the only place a locked built-in can be read). A rule edited into a problem keeps its last
// good version here until the file is fixed.
import { useState } from 'react';
import { decisionLabel, type ExampleResultView, type RuleView } from '../../stores/policy-store.ts';
import { RuleDetail } from './rule-detail.tsx';

export function RulesList({ rules, examples, onReveal }: { rules: readonly RuleView[]; examples: readonly ExampleResultView[]; onReveal?(line: number): void }) {
  // By name, so a policy reload while the rule is open shows its new version (or closes it).
  const [open, setOpen] = useState<string | null>(null);
  const opened = open === null ? undefined : rules.find((r) => r.name === open);
  const byRule = new Map<string, { ok: number; total: number }>();
  for (const e of examples) {
    const c = byRule.get(e.rule) ?? { ok: 0, total: 0 };
    c.total++;
    if (e.ok) c.ok++;
    byRule.set(e.rule, c);
  }
  const user = rules.filter((r) => !r.locked).length;
  return (
    <section className="panel panel-table rules-side-panel" data-testid="policy-rules" aria-labelledby="policy-rules-heading">
      <h2 id="policy-rules-heading" className="panel-title">
        Active rules
        <span className="panel-note">
          {rules.length - user} locked · {user} yours
        </span>
      </h2>
      <div className="table-scroll">
        <table className="data-table rules-table">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col" className="col-decision">
                Decision
              </th>
              <th scope="col" className="col-num">
                Priority
              </th>
              <th scope="col" className="col-num">
                Hits
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => {
              const ex = byRule.get(r.name);
              return (
                <tr
                  key={r.name}
                  data-testid="policy-rule"
                  data-name={r.name}
                  data-source={r.source}
                  data-locked={r.locked ? 'true' : 'false'}
                  data-decision={r.decision}
                  data-enabled={r.enabled ? 'true' : 'false'}
                  data-hits={r.hits}
                  title={r.description || undefined}
                >
                  <td>
                    <span className="rule-name-cell">
                      {r.locked ? (
                        <span className="badge badge-unknown rule-locked" data-testid="rule-locked" title="Built in and locked: no user rule can soften or replace it">
                          locked
                        </span>
                      ) : null}
                      {/* The whole name, wrapped rather than cut; it opens the rule in full (read-only). */}
                      <button
                        type="button"
                        className="link-button mono rule-name"
                        data-testid="rule-open"
                        aria-haspopup="dialog"
                        title={`Read ${r.locked ? 'this locked built-in rule' : 'this rule'} in full`}
                        onClick={() => setOpen(r.name)}
                      >
                        {r.name}
                      </button>
                      {!r.enabled ? <span className="muted">(disabled)</span> : null}
                    </span>
                    <span className="rule-origin muted" data-testid="rule-origin">
                      {r.source === 'builtin' ? 'built in' : r.origin}
                      {ex ? (
                        <span className={ex.ok === ex.total ? 'ok-text' : 'danger-text'}>
                          {' '}
                          · examples {ex.ok}/{ex.total}
                        </span>
                      ) : null}
                    </span>
                  </td>
                  <td>
                    <span className={`rule-decision rule-decision-${r.decision}`}>{decisionLabel[r.decision] ?? r.decision}</span>
                  </td>
                  <td className="col-num mono">{r.priority}</td>
                  <td className="col-num mono" data-testid="rule-hits">
                    {r.hits}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {opened ? <RuleDetail rule={opened} onClose={() => setOpen(null)} onReveal={onReveal} /> : null}
    </section>
  );
}
