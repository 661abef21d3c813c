// Fan-out of host events to every connected console. Payloads are validated against the
// contract before they leave, so a renderer never sees an event shape it was not told about.
import type { EventTable } from '../../shared/contract.js';
import type { z } from 'zod';

export type EventListener = (name: string, payload: unknown) => void;

export class EventBus<E extends EventTable> {
  private readonly listeners = new Set<EventListener>();
  constructor(private readonly events: E, private readonly log: (msg: string, err?: unknown) => void = console.error) {}

  emit<K extends keyof E & string>(name: K, payload: z.input<E[K]>): void {
    const parsed = this.events[name]!.safeParse(payload);
    if (!parsed.success) {
      this.log(`event ${name} dropped: payload outside the contract`, parsed.error);
      return;
    }
    for (const l of this.listeners) {
      try {
        l(name, parsed.data);
      } catch (err) {
        this.log(`event listener for ${name} failed`, err);
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
