// Fan-out of host events to every connected console. Payloads are validated against the
// contract before they leave, so a renderer never sees an event shape it was not told about.
import type { EventTable } from '../../shared/contract.js';
import type { z } from 'zod';

export type EventListener = (name: string, payload: unknown) => void;

/**
 * Whether a listener takes an event now (absent: every event, always). The serve shell with no
 * console connected takes none: an event nobody takes is not validated, which cost tens of µs of
 * the host's loop per commit (audit.appended, audit.chain), on the path of every agent's answer.
 */
export type EventWanted = (name: string) => boolean;

interface Subscriber {
  listener: EventListener;
  wants: EventWanted | undefined;
}

export class EventBus<E extends EventTable> {
  private readonly subscribers = new Set<Subscriber>();
  constructor(private readonly events: E, private readonly log: (msg: string, err?: unknown) => void = console.error) {}

  emit<K extends keyof E & string>(name: K, payload: z.input<E[K]>): void {
    // No array for an event nobody takes (an agent-only host emits most events to nobody).
    let takers: Subscriber[] | null = null;
    for (const s of this.subscribers) if (s.wants?.(name) ?? true) (takers ??= []).push(s);
    if (takers === null) return;
    const parsed = this.events[name]!.safeParse(payload);
    if (!parsed.success) {
      this.log(`event ${name} dropped: payload outside the contract`, parsed.error);
      return;
    }
    for (const s of takers) {
      try {
        s.listener(name, parsed.data);
      } catch (err) {
        this.log(`event listener for ${name} failed`, err);
      }
    }
  }

  subscribe(listener: EventListener, wants?: EventWanted): () => void {
    const s: Subscriber = { listener, wants };
    this.subscribers.add(s);
    return () => this.subscribers.delete(s);
  }
}
