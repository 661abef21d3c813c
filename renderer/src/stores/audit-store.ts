// The audit chain's state (pushed by the host as `audit.chain`) and the most recent events.
import { create } from 'zustand';
import type { AuditEventView, ChainState } from '../../../shared/contract.ts';

/** How many recent events the Audit view shows. */
export const AUDIT_TAIL_LIMIT = 100;

export interface AuditStore {
  chain: ChainState | null;
  chainError: string | null;
  /** An operator-requested verification is in flight. */
  verifying: boolean;
  verifyError: string | null;
  /** Newest first, as `audit.tail` returns them. */
  events: AuditEventView[];
  eventsLoaded: boolean;
  tailError: string | null;
}

export const initialAuditState: AuditStore = {
  chain: null,
  chainError: null,
  verifying: false,
  verifyError: null,
  events: [],
  eventsLoaded: false,
  tailError: null,
};

export const useAuditStore = create<AuditStore>()(() => ({ ...initialAuditState }));

export type ChainStatus = 'verified' | 'broken' | 'checking' | 'unknown';

/** The status bar's one-word reading of the chain. */
export function chainStatus(s: Pick<AuditStore, 'chain' | 'verifying'>): ChainStatus {
  if (s.verifying) return 'checking';
  return s.chain?.state ?? 'unknown';
}

/** The status bar's sentence for the chain. */
export function chainSentence(s: Pick<AuditStore, 'chain' | 'verifying'>): string {
  const status = chainStatus(s);
  switch (status) {
    case 'checking':
      return 'Checking audit chain…';
    case 'unknown':
      return 'Audit chain not checked yet';
    case 'verified': {
      const n = s.chain?.checked ?? 0;
      return `Audit chain verified (${n} ${n === 1 ? 'event' : 'events'})`;
    }
    case 'broken':
      return s.chain?.firstBad ? `Audit chain broken at row ${s.chain.firstBad.seq}` : 'Audit chain broken';
  }
}
