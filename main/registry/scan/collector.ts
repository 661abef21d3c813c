// Gathers the findings of one file: turns offsets into line/column, reports "once per file" rules
// once (listing the other lines), and caps how many times one rule is listed per file so that a
// file full of one character does not produce a list nobody can read.

import type { Finding } from '../types.js';
import { LineIndex } from '../../core/line-index.js';
import { RULES, type RuleId } from './rules.js';

const MAX_PER_RULE = 50;

interface Pending {
  finding: Finding;
  moreLines: Set<number>;
}

export class Collector {
  readonly lines: LineIndex;
  private readonly perFile = new Map<RuleId, Pending>();
  private readonly counts = new Map<RuleId, number>();
  private readonly seen = new Set<string>();
  private readonly out: Finding[] = [];

  constructor(readonly file: string, readonly text: string, lines?: LineIndex) {
    this.lines = lines ?? new LineIndex(text);
  }

  /** True once `rule` has been listed as often as it will be in this file (callers skip the work). */
  full(rule: RuleId): boolean {
    return (this.counts.get(rule) ?? 0) >= MAX_PER_RULE;
  }

  /** Adds a finding at a string offset of the file's text. */
  at(rule: RuleId, offset: number, message: string): void {
    if (this.full(rule)) return;
    const { line, column } = this.lines.position(offset);
    this.atLine(rule, line, column, message);
  }

  atLine(rule: RuleId, line: number, column: number, message: string): void {
    // The same rule at the same place twice (two patterns that both match) is one finding.
    const key = `${rule}:${line}:${column}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const info = RULES[rule];
    if ('perFile' in info && info.perFile) {
      const pending = this.perFile.get(rule);
      if (pending) {
        if (pending.finding.line !== line) pending.moreLines.add(line);
        return;
      }
      this.perFile.set(rule, { finding: { file: this.file, line, column, rule, weight: info.weight, message }, moreLines: new Set() });
      return;
    }
    const n = (this.counts.get(rule) ?? 0) + 1;
    this.counts.set(rule, n);
    if (n > MAX_PER_RULE) return;
    this.out.push({
      file: this.file,
      line,
      column,
      rule,
      weight: info.weight,
      message: n === MAX_PER_RULE ? `${message} (further occurrences of this rule in this file are not listed)` : message,
    });
  }

  findings(): Finding[] {
    const all = [...this.out];
    for (const { finding, moreLines: more } of this.perFile.values()) {
      const moreLines = [...more];
      if (moreLines.length === 0) all.push(finding);
      else {
        const shown = moreLines.slice(0, 10).join(', ');
        const suffix = moreLines.length > 10 ? ` and ${moreLines.length - 10} more` : '';
        all.push({ ...finding, message: `${finding.message} Also on line${moreLines.length > 1 ? 's' : ''} ${shown}${suffix}.` });
      }
    }
    return all.sort(compareFindings);
  }
}

export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}
