// One place that closes what a composition root started, in the reverse order it was started:
// a service is stopped before the services it depends on (the gateway before the audit log it
// writes to, the audit log before the lock on its folder). A disposer that throws must not leave
// the ones after it running (a held host lock, an open database), so every one runs and the
// errors are reported together at the end.

export type Disposer = (() => unknown) | { dispose(): unknown };

export class DisposeError extends AggregateError {
  constructor(errors: unknown[]) {
    super(errors, `${errors.length} of the host's services failed to close: ${errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ')}`);
    this.name = 'DisposeError';
  }
}

export class Disposables {
  private readonly stack: Disposer[] = [];
  private disposing: Promise<void> | null = null;

  /** Registers something to close; returns it, so a construction reads `const x = d.add(new X())`. */
  add<T extends Disposer>(d: T): T {
    // Added after disposal started, it would never run: close it at once rather than leak it.
    if (this.disposing) throw new Error('Disposables: add() after disposeAll(); close this resource yourself.');
    this.stack.push(d);
    return d;
  }

  get size(): number {
    return this.stack.length;
  }

  /**
   * Runs every disposer, last added first, one at a time (an async one is awaited before the
   * next starts). Throws a DisposeError listing every failure once all have run. Calling it again
   * returns the same promise: nothing is closed twice.
   */
  disposeAll(): Promise<void> {
    return (this.disposing ??= this.run());
  }

  private async run(): Promise<void> {
    const errors: unknown[] = [];
    while (this.stack.length > 0) {
      const d = this.stack.pop()!;
      try {
        await (typeof d === 'function' ? d() : d.dispose());
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new DisposeError(errors);
  }
}
