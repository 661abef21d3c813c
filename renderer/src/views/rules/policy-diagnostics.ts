// Policy problems as editor diagnostics (Monaco markers and problem rows).
import type { Diagnostic } from '../../editor/diagnostics.ts';
import type { PolicyProblemView } from '../../stores/policy-store.ts';

export const POLICY_PATH = 'policy.yaml';

export function policyDiagnostic(p: PolicyProblemView): Diagnostic {
  const placed = p.line > 0;
  return {
    file: POLICY_PATH,
    line: placed ? p.line : 1,
    column: placed && p.column > 0 ? p.column : 1,
    placed,
    severity: 'error',
    // The rule the problem is about, so a problem row names it; file-level problems say "policy".
    id: p.rule ?? 'policy',
    source: 'validation',
    message: p.message,
  };
}
