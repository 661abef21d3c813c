// The store the host closes its services through: reverse order, async awaited, and a disposer
// that throws never stops the others.
import { describe, expect, it } from 'vitest';
import { DisposeError, Disposables } from '../../../main/core/disposables.js';

describe('Disposables', () => {
  it('runs disposers in reverse order of adding, awaiting each async one before the next', async () => {
    const d = new Disposables();
    const order: string[] = [];
    d.add(() => order.push('lock'));
    d.add({ dispose: () => order.push('audit') });
    d.add(async () => {
      await new Promise<void>((r) => setImmediate(r));
      order.push('gateway (async)');
    });
    d.add(() => order.push('timer'));
    await d.disposeAll();
    expect(order).toEqual(['timer', 'gateway (async)', 'audit', 'lock']);
    expect(d.size).toBe(0);
  });

  it('keeps going past a disposer that throws or rejects, then reports every failure', async () => {
    const d = new Disposables();
    const order: string[] = [];
    d.add(() => order.push('first added'));
    d.add(() => {
      throw new Error('sync failure');
    });
    d.add(() => order.push('middle'));
    d.add(() => Promise.reject(new Error('async failure')));
    d.add(() => order.push('last added'));
    const err = await d.disposeAll().then(
      () => null,
      (e: unknown) => e,
    );
    expect(order).toEqual(['last added', 'middle', 'first added']);
    expect(err).toBeInstanceOf(DisposeError);
    expect((err as DisposeError).errors.map((e) => (e as Error).message)).toEqual(['async failure', 'sync failure']);
    expect((err as DisposeError).message).toMatch(/2 of the host's services failed to close: async failure; sync failure/);
  });

  it('disposes once: a second disposeAll returns the same promise and add() after it is refused', async () => {
    const d = new Disposables();
    let runs = 0;
    d.add(() => runs++);
    const a = d.disposeAll();
    const b = d.disposeAll();
    expect(b).toBe(a);
    await a;
    expect(runs).toBe(1);
    expect(() => d.add(() => {})).toThrow(/after disposeAll/);
  });
});
