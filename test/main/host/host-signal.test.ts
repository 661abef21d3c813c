// The two ways main/host/ lets a part built early reach parts built after it (create-host.ts):
// a Signal (subscriptions, nobody told before the first) and the one LateBinding (bound once).
import { describe, expect, it } from 'vitest';
import { LateBinding } from '../../../main/host/late-binding.js';
import { Signal } from '../../../main/host/signal.js';

describe('Signal', () => {
  it('reaches nobody before a subscription, then each listener in order, until it unsubscribes', () => {
    const s = new Signal<[name: string]>();
    const seen: string[] = [];
    s.emit('early');
    const offA = s.subscribe((n) => seen.push(`a:${n}`));
    s.subscribe((n) => seen.push(`b:${n}`));
    s.emit('one');
    offA();
    s.emit('two');
    expect(seen).toEqual(['a:one', 'b:one', 'b:two']);
  });
});

describe('LateBinding', () => {
  it('is undefined until bound, and refuses a second binding naming what it binds', () => {
    const b = new LateBinding<{ n: number }>('the audit store observer');
    expect(b.current).toBeUndefined();
    b.bind({ n: 1 });
    expect(b.current).toEqual({ n: 1 });
    expect(() => b.bind({ n: 2 })).toThrow(/the audit store observer is already bound/);
    expect(b.current).toEqual({ n: 1 });
  });
});
