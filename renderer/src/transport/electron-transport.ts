// The Electron shell: the preload's bridge is already a connected, authenticated channel,
// so this transport is connected from the start and never reconnects.
import type { GatehouseBridge } from '../../../shared/bridge.ts';
import type { Envelope } from '../../../shared/contract.ts';
import type { ConnectionState, RawEventListener, StateListener, Transport } from './types.ts';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in a browser. */
    gatehouse?: GatehouseBridge;
  }
}

export function electronBridge(): GatehouseBridge | null {
  return typeof window !== 'undefined' && window.gatehouse ? window.gatehouse : null;
}

export function createElectronTransport(bridge: GatehouseBridge): Transport {
  const stateListeners = new Set<StateListener>();
  let state: ConnectionState = 'connecting';

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    const previous = state;
    state = next;
    for (const l of stateListeners) l(next, previous);
  };

  return {
    shell: 'electron',
    async invoke(method, params) {
      try {
        return (await bridge.invoke(method, params)) as Envelope<unknown>;
      } catch (err) {
        // An IPC failure (no handler, window closing) still reaches the caller as data.
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, error: { code: 'unavailable', message: `The host did not answer ${method}: ${message}` } };
      }
    },
    onEvent(listener: RawEventListener) {
      return bridge.onEvent(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    getState: () => state,
    getDetail: () => null,
    start() {
      setState('connected');
    },
    close() {
      // The bridge lives as long as the window; there is nothing to tear down.
    },
  };
}
