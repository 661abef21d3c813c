/** A mistake in how a command was called: printed as one line plus usage, exit code 2. */
export class UsageError extends Error {}

export function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new UsageError(`--port must be a number from 0 to 65535 (0 picks a free port), not "${v}".`);
  return n;
}
