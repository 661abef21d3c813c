// Validation problems and scan findings as one list: what the problems list shows and what
// becomes a Monaco marker. Pure (no Monaco import), so the mapping is the same everywhere.
import type { FindingView, ProblemView } from '../../../shared/contract.ts';

export type DiagnosticSeverity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  file: string;
  /** 1-based. A problem without a place goes on line 1, column 1. */
  line: number;
  column: number;
  /** False when the host gave no line (shown as just the file name). */
  placed: boolean;
  severity: DiagnosticSeverity;
  /** The scan rule id (e.g. "js.eval") or the validation problem code (e.g. "manifest.syntax"). */
  id: string;
  source: 'validation' | 'scan';
  message: string;
  /** Scan findings only. */
  weight?: 1 | 2 | 3;
  /** Manifest field path, when the problem has one. */
  path?: string;
}

/** Monaco's MarkerSeverity values (monaco.MarkerSeverity), without importing Monaco. */
export const markerSeverity = { info: 2, warning: 4, error: 8 } as const satisfies Record<DiagnosticSeverity, number>;

export function problemDiagnostic(p: ProblemView): Diagnostic {
  const placed = typeof p.line === 'number' && p.line > 0;
  return {
    file: p.file,
    line: placed ? p.line! : 1,
    column: placed && typeof p.column === 'number' && p.column > 0 ? p.column : 1,
    placed,
    severity: p.severity,
    id: p.code,
    source: 'validation',
    message: p.message,
    ...(p.path ? { path: p.path } : {}),
  };
}

/** Weight 3 is an error, 2 a warning, 1 information. */
export function findingDiagnostic(f: FindingView): Diagnostic {
  return {
    file: f.file,
    line: Math.max(1, f.line),
    column: Math.max(1, f.column),
    placed: true,
    severity: f.weight === 3 ? 'error' : f.weight === 2 ? 'warning' : 'info',
    id: f.rule,
    source: 'scan',
    message: f.message,
    weight: f.weight,
  };
}

const severityRank: Record<DiagnosticSeverity, number> = { error: 0, warning: 1, info: 2 };

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || severityRank[a.severity] - severityRank[b.severity] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function toDiagnostics(problems: readonly ProblemView[], findings: readonly FindingView[]): Diagnostic[] {
  return [...problems.map(problemDiagnostic), ...findings.map(findingDiagnostic)].sort(compareDiagnostics);
}

/** The marker text: the sentence, then the id an author can look up. */
export function markerMessage(d: Diagnostic): string {
  const where = d.path ? ` (${d.path})` : '';
  const weight = d.weight ? `, weight ${d.weight}` : '';
  return `${d.message}${where} [${d.id}${weight}]`;
}

/** "run.mjs:12:5", or just the file for a problem without a place. */
export function diagnosticLocation(d: Diagnostic): string {
  return d.placed ? `${d.file}:${d.line}:${d.column}` : d.file;
}

/** How many of the diagnostics are errors, warnings and info: one count for every place that shows it. */
export function severityCounts(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number; infos: number } {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  return { errors, warnings, infos: diagnostics.length - errors - warnings };
}
