// Live session grants (an operator's "approve for this session"): refetched on `grants.changed`.
import { create } from 'zustand';
import type { GrantView } from '../../../shared/contract.ts';

export interface GrantsStore {
  grants: GrantView[];
  loaded: boolean;
  listError: string | null;
  /** Local clock minus host clock at the last list: expiry countdowns use host time. */
  clockOffset: number;
  /** A revoke in flight, by grant id. */
  busy: string | null;
  actionError: { id: string; message: string } | null;
}

export const initialGrantsState: GrantsStore = {
  grants: [],
  loaded: false,
  listError: null,
  clockOffset: 0,
  busy: null,
  actionError: null,
};

export const useGrantsStore = create<GrantsStore>()(() => ({ ...initialGrantsState }));
