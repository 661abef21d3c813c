// The host's one true construction cycle (the audit store reports to the chain monitor and the call
// trails, which are built on the store) is closed with this, in one named place, instead of a `let`
// that closures read before it is assigned. Until bound, `current` is undefined: the caller decides
// what an early report means (for the audit store: nobody to tell yet).
export class LateBinding<T> {
  private target: T | undefined;

  constructor(private readonly what: string) {}

  /** Once: a second binding would silently cut the first one's owner off. */
  bind(target: T): void {
    if (this.target !== undefined) throw new Error(`${this.what} is already bound; bind it once, where create-host.ts builds it.`);
    this.target = target;
  }

  get current(): T | undefined {
    return this.target;
  }
}
