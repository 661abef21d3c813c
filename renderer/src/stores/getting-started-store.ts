// The Getting Started panel: each step's state as the host reported it (gettingStarted.get), and
// what the console is doing about it (sending the test call, a refused action). Refetched on the
// host events that can change a step; nothing polls.
import { create } from 'zustand';
import type { GettingStartedView, PluginDetailView } from '../../../shared/contract.ts';

export interface GettingStartedStore {
  guide: GettingStartedView | null;
  loadError: string | null;
  /** The example plugin's detail (scan findings), shown before the operator enables it. */
  scan: PluginDetailView | null;
  scanError: string | null;
  /** An action in flight: 'enable', 'send', 'dismiss', 'skip'. */
  busy: string | null;
  actionError: string | null;
}

export const initialGettingStartedState: GettingStartedStore = {
  guide: null,
  loadError: null,
  scan: null,
  scanError: null,
  busy: null,
  actionError: null,
};

export const useGettingStartedStore = create<GettingStartedStore>()(() => ({ ...initialGettingStartedState }));

export type StepId = 'plugin' | 'agent' | 'test' | 'live';

/** Which steps are done, in the panel's order; "live" is optional and never counted. */
export function stepsDone(g: GettingStartedView): Record<StepId, boolean> {
  return { plugin: g.plugin.done, agent: g.agent.done, test: g.testCallDone, live: g.mode === 'live' };
}

export function doneCount(g: GettingStartedView): number {
  const s = stepsDone(g);
  return [s.plugin, s.agent, s.test].filter(Boolean).length;
}
