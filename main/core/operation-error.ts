/**
 * An operation refused for a reason the operator can act on ("not enabled", "quarantined").
 * The dispatcher passes its message through as a `rejected` error instead of an internal one.
 */
export class OperationError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    /** Structured detail beside the reason (a terminal adapter's denial: code, method, required_permission). */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}
