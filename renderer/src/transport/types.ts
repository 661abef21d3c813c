// What every transport (Electron IPC, serve-shell WebSocket) gives the typed client.
// Transports speak untyped envelopes; the client adds the contract's types on top.
import type { Envelope } from '../../../shared/contract.ts';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'unauthorized';
export type ShellKind = 'electron' | 'serve';

export type RawEventListener = (name: string, payload: unknown) => void;
export type StateListener = (state: ConnectionState, previous: ConnectionState) => void;

export interface Transport {
  readonly shell: ShellKind;
  /** Sends one call. Resolves with the host's envelope; rejects only when the call never got an answer. */
  invoke(method: string, params: unknown): Promise<Envelope<unknown>>;
  onEvent(listener: RawEventListener): () => void;
  /** Called when the state changes, or its detail does (a new retry delay) with state === previous. */
  onState(listener: StateListener): () => void;
  getState(): ConnectionState;
  /** Why the state is what it is ("The host is not reachable. Retrying in 1 s."), if known. */
  getDetail(): string | null;
  /** Begins connecting. Listeners registered before this see every state change. */
  start(): void;
  /** Stops reconnecting and fails pending calls. */
  close(): void;
}
