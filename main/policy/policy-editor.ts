// Editing policy.yaml on the operator's behalf, and keeping every change of it on record: the
// Rules view's saves (policy.saved), "always" rules appended from an approval (policy.rule-added)
// and edits made on disk, picked up by the store's watcher (policy.reloaded), each with its diff
// against the text last recorded. Nothing is written that the loader would refuse, so a save can
// never leave a broken file behind.
import { createTwoFilesPatch } from 'diff';
import type { PolicyView } from '../../shared/contract.js';
import { OperationError } from '../core/operation-error.js';
import { appendRule, policyView, readPolicyText, writePolicyText } from './policy-file.js';
import type { LoadResult } from './rules/load.js';
import type { PolicyState, PolicyStore } from './rules/store.js';
import type { Rule } from './types.js';

export interface PolicyEditorDeps {
  store: PolicyStore;
  /** GATEHOUSE_HOME/policy.yaml */
  file: string;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  /** Every change of the store's state, for the consoles (`policy.changed`). */
  changed: (state: { version: number; error: string | null }) => void;
}

export type PolicySaveResult = { saved: boolean; problems: LoadResult['problems']; examples: LoadResult['examples']; policy: PolicyView };

export class PolicyEditor {
  /** The text the audit log last saw; undefined until the store's first read (nothing to compare with before it). */
  private audited: string | null | undefined;
  private version: number;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: PolicyEditorDeps) {
    this.version = deps.store.state.version;
    this.unsubscribe = deps.store.onChange((state) => this.storeChanged(state));
  }

  /** Starts the store; its first text is the baseline later diffs are taken against. */
  async start(): Promise<void> {
    await this.deps.store.start();
    this.audited = this.deps.store.text;
  }

  view(): PolicyView {
    return policyView(this.deps.store, this.deps.file);
  }

  check(text: string): Pick<LoadResult, 'problems' | 'examples' | 'broken'> {
    const r = this.deps.store.check(text);
    return { problems: r.problems, examples: r.examples, broken: r.broken };
  }

  /** The Rules view's save: written only when the loader finds no problem. */
  save(text: string, operator: string): PolicySaveResult {
    const r = this.deps.store.check(text);
    if (r.broken || r.problems.length > 0) return { saved: false, problems: r.problems, examples: r.examples, policy: this.view() };
    this.write(text, 'policy.saved', operator, { bytes: Buffer.byteLength(text), rules: r.rules.length });
    return { saved: true, problems: r.problems, examples: r.examples, policy: this.view() };
  }

  /**
   * The file's text with `rule` appended, checked but not written: an "always" approval computes
   * it before the call is released, so a file that cannot take the rule changes nothing.
   */
  withRule(rule: Rule): string {
    const next = appendRule(readPolicyText(this.deps.file), rule);
    const check = this.deps.store.check(next);
    if (check.broken || check.problems.length > 0) throw new OperationError('invalid', `The rule could not be added to ${this.deps.file}: ${check.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}`);
    return next;
  }

  /** Writes a text from `withRule` once the approval took effect, and records it. */
  addRule(next: string, operator: string, details: { rule: string; approval: string }): void {
    this.write(next, 'policy.rule-added', operator, details);
  }

  close(): void {
    this.unsubscribe();
  }

  private write(text: string, type: 'policy.saved' | 'policy.rule-added', operator: string, details: Record<string, unknown>): void {
    const diff = this.diff(text);
    // Set before the reload, so the store's change event sees no edit on disk to record.
    this.audited = text;
    writePolicyText(this.deps.file, text);
    this.deps.store.reload();
    this.deps.record(type, `operator:${operator}`, { ...details, file: this.deps.file, diff });
  }

  private storeChanged(state: PolicyState): void {
    const { store, file } = this.deps;
    this.deps.changed({ version: state.version, error: state.error });
    // A broken file leaves the version (and the active rules) as they were.
    const loaded = state.version !== this.version;
    this.version = state.version;
    // Before start-up's first read there is nothing to compare with; a save was recorded by its caller.
    if (this.audited === undefined || store.text === this.audited || store.text === null) return;
    this.deps.record('policy.reloaded', 'host', { file, diff: this.diff(store.text), loaded, error: state.error });
    this.audited = store.text;
  }

  private diff(next: string | null): string {
    return createTwoFilesPatch('policy.yaml', 'policy.yaml', this.audited ?? '', next ?? '', 'before', 'after', { context: 2 });
  }
}
