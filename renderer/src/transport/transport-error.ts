// Errors that reach the operator: one readable sentence, plus the wire code for code paths.
import type { WireError } from '../../../shared/contract.ts';

export type TransportErrorCode = WireError['code'] | 'disconnected' | 'timeout';

export class HostCallError extends Error {
  override readonly name = 'HostCallError';
  constructor(
    readonly method: string,
    readonly code: TransportErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}
