// How this console is connected to its host, and what the host told us about itself.
import { create } from 'zustand';
import type { ResponseOf } from '../../../shared/contract.ts';
import type { ConnectionState, ShellKind } from '../transport/types.ts';

export type HostInfo = ResponseOf<'host.info'>;

export interface ConnectionStore {
  state: ConnectionState;
  /** Why the state is what it is, for a tooltip ("The host is not reachable. Retrying in 1 s."). */
  detail: string | null;
  shell: ShellKind | null;
  hostInfo: HostInfo | null;
  hostInfoError: string | null;
  /** The reason the host gave when it announced it was stopping; cleared on reconnect. */
  stopping: string | null;
}

export const useConnectionStore = create<ConnectionStore>()(() => ({
  state: 'connecting',
  detail: null,
  shell: null,
  hostInfo: null,
  hostInfoError: null,
  stopping: null,
}));
