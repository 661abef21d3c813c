// A change announced to whoever subscribed. It lets a part of the host built early tell parts
// built after it (create-host.ts builds in dependency order), without holding a reference to
// something that does not exist yet: before anyone subscribes, an announcement reaches nobody.
export class Signal<A extends unknown[] = []> {
  private readonly listeners = new Set<(...args: A) => void>();

  /** Returns the unsubscribe, ready for `services.add(...)`. */
  subscribe(listener: (...args: A) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Listeners run in the order they subscribed; one that throws stops the rest, as a direct call would. */
  emit(...args: A): void {
    for (const l of [...this.listeners]) l(...args);
  }
}
