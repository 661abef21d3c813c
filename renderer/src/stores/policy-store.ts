// The policy file (GATEHOUSE_HOME/policy.yaml) as the Rules view edits it: what the host has
// (rules, hit counts, the broken-file error), the editor buffer, and the host's check of the
// buffer. The buffer lives here, not in the component, so switching views keeps unsaved text.
import { create } from 'zustand';
import type { PolicyView, ResponseOf } from '../../../shared/contract.ts';

export type PolicyCheck = ResponseOf<'policy.check'>;
export type PolicyProblemView = PolicyView['problems'][number];
export type ExampleResultView = PolicyView['examples'][number];
export type RuleView = PolicyView['rules'][number];

export interface PolicyStore {
  policy: PolicyView | null;
  loadError: string | null;
  /** The text as last read from or written to the file. */
  saved: string;
  /** What the editor holds; dirty when it differs from `saved`. */
  buffer: string;
  /** Bumped when `saved` is replaced from the host, so the editor takes the new text. */
  rev: number;
  /** The host's check of `checkedText` (the buffer as it was when checked). */
  check: PolicyCheck | null;
  checkedText: string | null;
  checkError: string | null;
  checking: boolean;
  saving: boolean;
  /** The outcome of the last save, as a sentence. */
  saveMessage: { ok: boolean; text: string } | null;
  /** The file changed on disk while the editor had unsaved edits: it was not reloaded. */
  diskChanged: boolean;
  /** A place the examples or problems list asked the editor to show. */
  reveal: { line: number; column: number; seq: number } | null;
}

export const initialPolicyState: PolicyStore = {
  policy: null,
  loadError: null,
  saved: '',
  buffer: '',
  rev: 0,
  check: null,
  checkedText: null,
  checkError: null,
  checking: false,
  saving: false,
  saveMessage: null,
  diskChanged: false,
  reveal: null,
};

export const usePolicyStore = create<PolicyStore>()(() => ({ ...initialPolicyState }));

export function policyDirty(s: Pick<PolicyStore, 'policy' | 'buffer' | 'saved'>): boolean {
  return s.policy !== null && s.buffer !== s.saved;
}

export const decisionLabel: Record<string, string> = { deny: 'Deny', ask: 'Ask', allow: 'Allow', log: 'Log' };
