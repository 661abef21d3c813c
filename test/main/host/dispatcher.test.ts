// The host boundary: whatever arrives as (method, params), the answer is an envelope.
// Malformed input gets a structured error, never a throw or a hang; a handler that throws or
// breaks the contract gets `internal`.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { methods as contractMethods } from '../../../shared/contract.js';
import { createDispatcher, type CallContext, type Dispatcher } from '../../../main/host/dispatcher.js';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { sharedTempDir } from '../../support/temp.js';

const ctx: CallContext = { console: 'cli', operator: 'tester' };

const table = {
  'test.echo': {
    request: z.object({ text: z.string(), times: z.number().int().min(1).max(3).default(1) }).strict(),
    response: z.object({ text: z.string() }),
  },
  'test.throws': { request: z.object({}).strict(), response: z.object({}) },
  'test.rejects': { request: z.object({}).strict(), response: z.object({}) },
  'test.throwsString': { request: z.object({}).strict(), response: z.object({}) },
  'test.breaksContract': { request: z.object({}).strict(), response: z.object({ count: z.number().int() }) },
} as const;

/** Structured envelope: what every dispatch must resolve to. */
const envelope = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }).strict(),
  z
    .object({
      ok: z.literal(false),
      error: z.object({ code: z.enum(['bad_request', 'unknown_method', 'unauthorized', 'forbidden', 'rejected', 'internal', 'unavailable']), message: z.string().min(1), details: z.unknown().optional() }).strict(),
    })
    .strict(),
]);

describe('dispatcher', () => {
  const logged: string[] = [];
  const seen: unknown[] = [];
  const d = createDispatcher(
    table,
    {
      'test.echo': (req) => {
        seen.push(req);
        return { text: req.text.repeat(req.times) };
      },
      'test.throws': () => {
        throw new Error('handler exploded');
      },
      'test.rejects': async () => {
        await Promise.resolve();
        throw new Error('async handler exploded');
      },
      'test.throwsString': () => {
        throw 'a bare string';
      },
      // The type system would stop this; a handler built from untyped data would not.
      'test.breaksContract': () => ({ count: 'many' }) as unknown as { count: number },
    },
    (msg) => logged.push(msg),
  );

  it('answers a valid call with the validated result, defaults filled in', async () => {
    await expect(d.dispatch('test.echo', { text: 'ab' }, ctx)).resolves.toEqual({ ok: true, result: { text: 'ab' } });
    expect(seen.at(-1)).toEqual({ text: 'ab', times: 1 });
    await expect(d.dispatch('test.echo', { text: 'ab', times: 2 }, ctx)).resolves.toEqual({ ok: true, result: { text: 'abab' } });
  });

  it('lists exactly the methods of its table', () => {
    expect([...d.methodNames]).toEqual(Object.keys(table));
  });

  it.each([
    ['an unknown name', 'test.nope'],
    ['a prototype name', 'toString'],
    ['a prototype name', '__proto__'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['an object', { method: 'test.echo' }],
    ['an array', ['test.echo']],
  ])('answers unknown_method for %s as the method', async (_what, method) => {
    const r = await d.dispatch(method, { text: 'x' }, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    expect(envelope.parse(r)).toBeTruthy();
    if (!r.ok) expect(r.error.message).toContain('test.echo');
  });

  it.each([
    ['a wrong field type', { text: 42 }, 'text'],
    ['a missing field', {}, 'text'],
    ['an out-of-range field', { text: 'x', times: 9 }, 'times'],
    ['an extra field', { text: 'x', extra: true }, 'extra'],
  ])('answers bad_request for %s, naming the field', async (_what, params, field) => {
    const r = await d.dispatch('test.echo', params, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    if (!r.ok) {
      expect(r.error.message).toContain('test.echo');
      expect(JSON.stringify(r.error)).toContain(field);
      expect(r.error.details).toMatchObject({ issues: expect.any(Array) });
    }
  });

  it.each([
    ['a string', 'text'],
    ['a number', 7],
    ['an array', [{ text: 'x' }]],
    ['a boolean', true],
  ])('answers bad_request when params is %s, not an object', async (_what, params) => {
    const r = await d.dispatch('test.echo', params, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });

  it('treats absent params as an empty object', async () => {
    const r = await d.dispatch('test.echo', undefined, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    if (!r.ok) expect(r.error.message).toContain('text');
  });

  it.each(['test.throws', 'test.rejects', 'test.throwsString'])('answers internal when %s, and logs it', async (method) => {
    const before = logged.length;
    const r = await d.dispatch(method, {}, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    if (!r.ok) {
      expect(r.error.message).toContain(method);
      expect(r.error.message).toMatch(/exploded|a bare string/);
    }
    expect(logged.length).toBe(before + 1);
  });

  it('answers internal when a handler returns data outside the contract, and never passes it on', async () => {
    const r = await d.dispatch('test.breaksContract', {}, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(JSON.stringify(r)).not.toContain('many');
    if (!r.ok) expect(r.error.message).toMatch(/malformed response/);
  });

  it('always resolves to an envelope, whatever it is sent (property)', async () => {
    const method = fc.oneof(fc.constantFrom(...Object.keys(table)), fc.string(), fc.anything());
    await fc.assert(
      fc.asyncProperty(method, fc.anything(), async (m, params) => {
        const r = await d.dispatch(m, params, ctx);
        expect(envelope.safeParse(r).success).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the host dispatcher, on the real contract', () => {
  let host: Host;
  let dir: { dir: string; remove: () => void };
  let dispatcher: Dispatcher;
  beforeAll(() => {
    dir = sharedTempDir();
    host = createHost({ home: dir.dir, shell: 'serve', log: () => {} });
    dispatcher = host.dispatcher;
  });
  afterAll(async () => {
    await host.close('test done');
    dir.remove();
  });

  it('knows every method of the contract', () => {
    expect([...dispatcher.methodNames]).toEqual(Object.keys(contractMethods));
  });

  it('answers malformed calls to real methods with structured errors', async () => {
    await expect(dispatcher.dispatch('audit.tail', { limit: 'ten' }, ctx)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(dispatcher.dispatch('audit.tail', { limit: 0 }, ctx)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(dispatcher.dispatch('audit.tail', { limit: 5, since: 1 }, ctx)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(dispatcher.dispatch('host.info', { verbose: true }, ctx)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(dispatcher.dispatch('host.info', 'please', ctx)).resolves.toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await expect(dispatcher.dispatch('host.shutdown', {}, ctx)).resolves.toMatchObject({ ok: false, error: { code: 'unknown_method' } });
  });

  it('answers valid calls with contract-shaped results', async () => {
    const info = await dispatcher.dispatch('host.info', {}, ctx);
    expect(info).toMatchObject({ ok: true, result: { shell: 'serve', pid: process.pid, home: dir.dir } });
    const tail = await dispatcher.dispatch('audit.tail', { limit: 1 }, ctx);
    expect(tail).toMatchObject({ ok: true, result: { events: [{ type: 'host.started' }] } });
    const verify = await dispatcher.dispatch('audit.verify', {}, ctx);
    expect(verify).toMatchObject({ ok: true, result: { state: 'verified', firstBad: null } });
  });

  it('always resolves to an envelope, whatever it is sent (property)', async () => {
    // The foundation's methods: safe to call with anything (later methods write files).
    const names = ['host.info', 'audit.verify', 'audit.chainState', 'audit.tail'];
    const params = fc.oneof(fc.anything(), fc.record({ limit: fc.anything() }, { requiredKeys: [] }), fc.dictionary(fc.string(), fc.jsonValue()));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...names), fc.anything()), params, async (m, p) => {
        const r = await dispatcher.dispatch(m, p, ctx);
        expect(envelope.safeParse(r).success).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
