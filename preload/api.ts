// The whole API the page gets: call a contract method, listen to host events, list methods.
// Generated from the contract's method names, so it never needs editing for a new method.
// SECURITY: ipcRenderer itself never crosses the bridge, and listeners receive only
// (name, payload), never Electron's event object (which exposes `sender`).
import { ipcChannels } from '../shared/contract.js';
import type { GatehouseBridge } from '../shared/bridge.js';

export interface IpcLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export type { GatehouseBridge };

export function createBridge(methodNames: readonly string[], ipc: IpcLike): GatehouseBridge {
  const known = new Set(methodNames);
  const methods = Object.freeze([...methodNames]);
  return {
    methods,
    invoke(method, params) {
      if (typeof method !== 'string' || !known.has(method)) {
        return Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `Unknown method ${JSON.stringify(method)}.` } });
      }
      return ipc.invoke(ipcChannels.invoke, method, params ?? {});
    },
    onEvent(listener) {
      const wrapped = (_event: unknown, name: unknown, payload: unknown) => {
        if (typeof name === 'string') listener(name, payload);
      };
      ipc.on(ipcChannels.event, wrapped as (event: unknown, ...args: unknown[]) => void);
      return () => void ipc.removeListener(ipcChannels.event, wrapped as (event: unknown, ...args: unknown[]) => void);
    },
  };
}
