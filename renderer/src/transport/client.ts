// The one typed client the renderer uses, whichever shell it runs in.
// Types come from the contract (type-only imports keep zod out of the bundle); the host has
// already validated every response and event payload against the same schemas.
import type { EventName, EventPayload, MethodName, RequestOf, ResponseOf } from '../../../shared/contract.ts';
import { createElectronTransport, electronBridge } from './electron-transport.ts';
import { createServeTransport } from './serve-transport.ts';
import { takeCredential } from './token.ts';
import { HostCallError } from './transport-error.ts';
import type { ConnectionState, ShellKind, StateListener, Transport } from './types.ts';

export interface GatehouseClient {
  readonly shell: ShellKind;
  /** Calls a host method. Throws a HostCallError with the host's readable message on failure. */
  call<M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>>;
  /** Listens to one host event; returns the unsubscribe function. */
  onEvent<E extends EventName>(name: E, cb: (payload: EventPayload<E>) => void): () => void;
  getState(): ConnectionState;
  getDetail(): string | null;
  /** Listens to connection state (and state detail) changes; returns the unsubscribe function. */
  onStateChange(cb: StateListener): () => void;
  start(): void;
  close(): void;
}

export function createClient(transport: Transport): GatehouseClient {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  transport.onEvent((name, payload) => {
    const set = listeners.get(name);
    if (!set) return;
    for (const cb of set) {
      try {
        cb(payload);
      } catch (err) {
        console.error(`gatehouse: handler for event ${name} failed`, err);
      }
    }
  });

  return {
    shell: transport.shell,
    async call(method, params) {
      const envelope = await transport.invoke(method, params);
      if (envelope.ok) return envelope.result as ResponseOf<typeof method>;
      const { code, message, details } = envelope.error;
      throw new HostCallError(method, code, message, details);
    },
    onEvent(name, cb) {
      let set = listeners.get(name);
      if (!set) listeners.set(name, (set = new Set()));
      const wrapped = cb as (payload: unknown) => void;
      set.add(wrapped);
      return () => {
        set.delete(wrapped);
      };
    },
    getState: () => transport.getState(),
    getDetail: () => transport.getDetail(),
    onStateChange: (cb) => transport.onState(cb),
    start: () => transport.start(),
    close: () => transport.close(),
  };
}

/** The Electron bridge when the preload provided one, else the serve shell of this page's origin. */
export function createDefaultTransport(): Transport {
  const bridge = electronBridge();
  if (bridge) return createElectronTransport(bridge);
  return createServeTransport({ credential: takeCredential() });
}
