// The call pipeline end to end on the host side: the real extractor, the real built-in and user
// rules, the real autonomy and the real approval queue (with a fake clock and timers: nothing
// here sleeps). Two stand-ins: the runner is a function that records its calls, and the checker
// step gets a small object implementing `evaluate` — a real CheckerHost needs plugin processes,
// and the checker pool has its own tests (checker-pool.test.ts, checker-hostile.test.ts); this
// file only checks how the pipeline uses a verdict.
import { beforeAll, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../../main/approvals/index.js';
import { FakeTime } from '../../support/fake-time.js';
import type { CheckerVerdict } from '../../../main/checkers/checker-pool.js';
import type { EvaluateParams } from '../../../main/core/checker-protocol.js';
import { CallPipeline, type PipelineDeps, type PipelineMode, type ToolResult, type WaitingInfo } from '../../../main/pipeline/call-pipeline.js';
import { Autonomy } from '../../../main/policy/autonomy.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { buildRuleSet, evaluatePolicyAsync } from '../../../main/policy/rules/engine.js';
import { parsePolicyText } from '../../../main/policy/rules/load.js';
import { toSnapshots } from '../../../main/policy/rules/snapshot.js';
import type { ToolCall } from '../../../main/policy/types.js';

const HOME = '/home/alice';
const CTX = { home: HOME, gatehouseHome: `${HOME}/.config/gatehouse`, caseInsensitive: false };
const MIN = 60_000;


const builtin = compileBuiltinRules(CTX);
const user = parsePolicyText(
  `
rules:
  - { name: deny-prod, actions: [write], block_paths: ["~/prod/**"], decision: deny, message: "Production files are off limits." }
`,
  'policy.yaml',
  { ...CTX, reservedNames: new Set(builtin.map((r) => r.rule.name)) },
);
const rules = buildRuleSet(builtin, user.compiled);

const ok = (output: Record<string, unknown>): ToolResult => ({ ok: true, output, error: null, failure: null, stdout: '', stderr: '', exitCode: 0, durationMs: 1, sandboxed: true });

let n = 0;
function call(tool: string, args: Record<string, unknown>, more: Partial<ToolCall> = {}): ToolCall {
  return { id: `c${++n}`, agent: 'agent-1', session: 's1', tool, arguments: args, cwd: HOME, source: 'mcp', receivedAt: 0, ...more };
}

function setup(opts: { level?: string; mode?: PipelineMode; verdict?: CheckerVerdict; policy?: PipelineDeps['policy']; checkersActive?: boolean; askRefusal?: PipelineDeps['askRefusal']; run?: PipelineDeps['run'] } = {}) {
  const time = new FakeTime();
  const events: Array<{ type: string; actor: string; payload: Record<string, unknown> }> = [];
  const record = (type: string, actor: string, payload: Record<string, unknown>) => void events.push({ type, actor, payload });
  const queue = new ApprovalQueue({ clock: time, timers: time, record });
  const ran: ToolCall[] = [];
  const checked: EvaluateParams[] = [];
  const pipeline = new CallPipeline({
    extract: (c) => extract(c, { home: HOME, resolveSymlinks: false }),
    policy: opts.policy ?? { evaluateAsync: (x, c) => evaluatePolicyAsync(x, c, { rules }), snapshots: () => toSnapshots(rules.rules.map((r) => r.rule), new Map()) },
    checkers: {
      evaluate: async (p) => {
        checked.push(p);
        return opts.verdict ?? { decision: 'allow', failures: [] };
      },
      ...(opts.checkersActive !== undefined ? { active: () => opts.checkersActive! } : {}),
    },
    autonomy: new Autonomy({ level: opts.level ?? 'supervised' }),
    approvals: queue,
    grants: queue.grants,
    run: async (c, x) => {
      ran.push(c);
      return opts.run ? opts.run(c, x) : ok({ done: c.tool });
    },
    record,
    mode: () => opts.mode ?? 'live',
    clock: time,
    ...(opts.askRefusal ? { askRefusal: opts.askRefusal } : {}),
  });
  /** Starts a call and resolves with the approval id once it waits for an operator. */
  const asked = (c: ToolCall) => {
    let waited!: (info: WaitingInfo) => void;
    const waiting = new Promise<WaitingInfo>((r) => (waited = r));
    let calls = 0;
    const result = pipeline.handle(c, {
      onWaiting: (info) => {
        calls++;
        waited(info);
      },
    });
    return { result, waiting, onWaitingCalls: () => calls };
  };
  const types = () => events.map((e) => e.type);
  return { time, events, types, queue, ran, checked, pipeline, asked };
}

beforeAll(async () => {
  await initExtractor();
});

describe('CallPipeline', () => {
  it('a read in supervised mode runs without asking', async () => {
    const s = setup();
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'allow', executed: true, decider: { kind: 'autonomy', level: 'supervised' }, result: { ok: true, output: { done: 'Read' } } });
    expect(r.extraction?.paths).toEqual([`${HOME}/notes.txt`]);
    expect(s.ran).toHaveLength(1);
    expect(s.queue.list()).toHaveLength(0);
    expect(r.steps.map((x) => x.step)).toEqual(['extract', 'rules', 'checkers', 'autonomy', 'runner']);
    expect(s.types()).toEqual(['call.received', 'call.extracted', 'checker.verdict', 'call.decided', 'call.result']);
    expect(s.events.find((e) => e.type === 'call.decided')).toMatchObject({ actor: 'autonomy:supervised', payload: { decider: { kind: 'autonomy' } } });
    // Checkers got every field, with the rules.
    expect(s.checked[0]).toMatchObject({ tool_name: 'Read', operation: 'read', operations: ['read'], paths: [`${HOME}/notes.txt`], evasive: false });
    expect(s.checked[0]!.rules.length).toBe(rules.rules.length);
  });

  it('with no checker enabled the checkers step is skipped: nothing asked, no verdict recorded', async () => {
    const s = setup({ checkersActive: false, verdict: { decision: 'block', checker: 'never-asked', result: { blocked: true, rule_name: 'x', message: 'x', severity: 'critical', action: 'block' }, failures: [] } as CheckerVerdict });
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'allow', executed: true });
    expect(r.steps.map((x) => x.step)).toEqual(['extract', 'rules', 'autonomy', 'runner']);
    expect(s.types()).toEqual(['call.received', 'call.extracted', 'call.decided', 'call.result']);
    expect(s.checked).toHaveLength(0);
    // Once one is enabled, every call asks it again.
    const on = setup({ checkersActive: true });
    await on.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(on.checked).toHaveLength(1);
    expect(on.types()).toContain('checker.verdict');
  });

  it('a write asks; the operator approves; it runs and the operator is the decider', async () => {
    const s = setup();
    const a = s.asked(call('Write', { file_path: '~/notes.txt', content: 'hi' }));
    const info = await a.waiting;
    expect(s.ran).toHaveLength(0);
    const item = s.queue.get(info.approval)!;
    expect(item).toMatchObject({ state: 'pending', askedBy: { kind: 'autonomy', level: 'supervised' } });
    s.queue.approve(info.approval, { operator: 'alice', argsHash: item.argsHash, scope: 'once' });
    const r = await a.result;
    expect(a.onWaitingCalls()).toBe(1);
    expect(r).toMatchObject({ decision: 'allow', executed: true, decider: { kind: 'operator', operator: 'alice' }, approval: info.approval, result: { ok: true } });
    expect(s.ran).toHaveLength(1);
    expect(r.steps.find((x) => x.step === 'approval')).toMatchObject({ decision: 'allow', decider: { kind: 'operator', operator: 'alice' } });
    expect(s.types()).toEqual(['call.received', 'call.extracted', 'checker.verdict', 'approval.requested', 'approval.decided', 'call.decided', 'call.result']);
    expect(s.events.find((e) => e.type === 'call.decided')!.actor).toBe('operator:alice');
  });

  it('an ask the outage setting refuses is denied at once with its reason, and a refusal check that throws denies too', async () => {
    let down = true;
    const s = setup({ askRefusal: () => (down ? 'The team database is unreachable.' : null) });
    const r = await s.pipeline.handle(call('Write', { file_path: '~/notes.txt', content: 'hi' }));
    expect(r).toMatchObject({ decision: 'deny', executed: false, reason: 'The team database is unreachable.', decider: { kind: 'error', message: 'The team database is unreachable.' } });
    expect(s.queue.list()).toHaveLength(0);
    expect(s.types()).not.toContain('approval.requested');
    // Reads that need no operator are untouched; once the link is back, asks wait again.
    expect((await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }))).decision).toBe('allow');
    down = false;
    const a = s.asked(call('Write', { file_path: '~/notes.txt', content: 'hi' }));
    await a.waiting;
    expect(s.queue.list({ state: 'pending' })).toHaveLength(1);
    const broken = setup({
      askRefusal: () => {
        throw new Error('no link state');
      },
    });
    const b = await broken.pipeline.handle(call('Write', { file_path: '~/notes.txt', content: 'hi' }));
    expect(b).toMatchObject({ decision: 'deny', executed: false });
    expect(b.reason).toMatch(/could not tell whether this call may wait for an operator \(no link state\).*fail closed/);
  });

  it('an operator denial: the reason reaches the result and the runner never runs', async () => {
    const s = setup();
    const a = s.asked(call('Bash', { command: 'rm ~/notes.txt' }));
    const info = await a.waiting;
    s.queue.deny(info.approval, { operator: 'alice', reason: 'Not today.' });
    const r = await a.result;
    expect(r).toMatchObject({ decision: 'deny', executed: false, reason: 'Not today.', decider: { kind: 'operator', operator: 'alice' } });
    expect(r.result).toBeUndefined();
    expect(s.ran).toHaveLength(0);
    expect(s.events.at(-1)).toMatchObject({ type: 'call.result', payload: { executed: false, decision: 'deny' } });
  });

  it('a user rule denies, with the rule and its file as the decider', async () => {
    const s = setup({ level: 'full' });
    const r = await s.pipeline.handle(call('Write', { file_path: '~/prod/app.env2', content: 'x' }));
    expect(r).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'rule', rule: 'deny-prod' } });
    expect(r.reason).toContain('Production files are off limits.');
    expect((r.decider as { origin: string }).origin).toMatch(/^policy\.yaml/);
    expect(s.checked).toHaveLength(0);
    expect(s.ran).toHaveLength(0);
  });

  it('expiry ends in `expired` and the call never runs', async () => {
    const s = setup();
    const a = s.asked(call('Write', { file_path: '~/notes.txt', content: 'hi' }));
    await a.waiting;
    s.time.advance(10 * MIN);
    const r = await a.result;
    expect(r).toMatchObject({ decision: 'expired', executed: false, decider: { kind: 'autonomy', level: 'supervised' } });
    expect(r.reason).toMatch(/expired and did not run/);
    expect(s.ran).toHaveLength(0);
  });

  it('a locked built-in deny never reaches checkers or approval', async () => {
    const s = setup({ level: 'full' });
    let waited = false;
    const r = await s.pipeline.handle(call('Bash', { command: 'cat ~/.ssh/id_rsa' }), { onWaiting: () => (waited = true) });
    expect(r).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'rule', rule: 'builtin.credentials.ssh', origin: 'builtin' } });
    expect(r.steps.map((x) => x.step)).toEqual(['extract', 'rules']);
    expect(s.checked).toHaveLength(0);
    expect(s.queue.list()).toHaveLength(0);
    expect(waited).toBe(false);
    expect(s.ran).toHaveLength(0);
    expect(s.events.filter((e) => e.type === 'rule.matched').map((e) => e.payload.rule)).toContain('builtin.credentials.ssh');
    expect(s.events.find((e) => e.type === 'call.decided')!.actor).toBe('rule:builtin.credentials.ssh');
  });

  it('a checker block denies with the checker as the decider', async () => {
    const s = setup({ verdict: { decision: 'block', checker: 'secrets-scan', result: { rule_name: 'aws-key', severity: 'critical', action: 'block', message: 'An AWS key is in the content.' }, failures: [] } });
    const r = await s.pipeline.handle(call('Write', { file_path: '~/notes.txt', content: 'AKIA…' }));
    expect(r).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'checker', checker: 'secrets-scan', rule: 'aws-key' } });
    expect(r.reason).toContain('An AWS key is in the content.');
    expect(s.queue.list()).toHaveLength(0);
    expect(s.ran).toHaveLength(0);
    expect(s.events.find((e) => e.type === 'checker.verdict')).toMatchObject({ actor: 'checker:secrets-scan', payload: { decision: 'block' } });
  });

  it('a checker failure verdict from the pool denies (fail closed)', async () => {
    const s = setup({ verdict: { decision: 'block', checker: 'slow', failure: { checker: 'slow', kind: 'timeout', message: 'no answer in 2000 ms', optional: false }, failures: [] } });
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'checker', checker: 'slow', rule: 'checker.timeout' } });
    expect(s.ran).toHaveLength(0);
  });

  it('an exception in the policy step denies with "policy error"', async () => {
    const s = setup({
      policy: {
        evaluateAsync: async () => {
          throw new Error('boom');
        },
        snapshots: () => [],
      },
    });
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'deny', executed: false, reason: 'policy error: boom', decider: { kind: 'error', message: 'policy error: boom' } });
    expect(r.steps.at(-1)).toMatchObject({ step: 'rules', decision: 'deny' });
    expect(s.ran).toHaveLength(0);
    expect(s.events.find((e) => e.type === 'call.decided')!.payload).toMatchObject({ decision: 'deny' });
  });

  it('a run refused after its allow is recorded (the log failed meanwhile) keeps one decision: call.result says deny, not run, and why', async () => {
    const s = setup({
      run: async () => {
        throw new Error('it was not run: the audit log cannot take events');
      },
    });
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'deny', executed: false, decider: { kind: 'error', message: 'runner error: it was not run: the audit log cannot take events' } });
    const decided = s.events.filter((e) => e.type === 'call.decided');
    expect(decided.map((e) => e.payload.decision)).toEqual(['allow']);
    expect(s.events.at(-1)).toMatchObject({ type: 'call.result', payload: { decision: 'deny', executed: false, error: 'runner error: it was not run: the audit log cannot take events' } });
  });

  it('dry-run: evaluated, not executed, saying what would have happened', async () => {
    const s = setup({ mode: 'dry-run' });
    const r = await s.pipeline.handle(call('Read', { file_path: '~/notes.txt' }));
    expect(r).toMatchObject({ decision: 'allow', executed: false, mode: 'dry-run', decider: { kind: 'autonomy', level: 'supervised' } });
    expect(r.reason).toMatch(/^Dry run: .*would have allowed it.*did not execute it\.$/);
    expect(r.result).toBeUndefined();
    expect(s.ran).toHaveLength(0);
    expect(s.events.at(-1)).toMatchObject({ type: 'call.result', payload: { executed: false, mode: 'dry-run' } });
  });

  it('a session grant allows a second identical call without asking', async () => {
    const s = setup();
    const args = { file_path: '~/notes.txt', content: 'hi' };
    const a = s.asked(call('Write', args));
    const info = await a.waiting;
    s.queue.approve(info.approval, { operator: 'alice', argsHash: s.queue.get(info.approval)!.argsHash, scope: 'session' });
    expect((await a.result).decision).toBe('allow');

    let waited = false;
    const r = await s.pipeline.handle(call('Write', args), { onWaiting: () => (waited = true) });
    const grant = s.queue.grants.list()[0]!;
    expect(r).toMatchObject({ decision: 'allow', executed: true, decider: { kind: 'grant', grant: grant.id } });
    expect(waited).toBe(false);
    expect(s.queue.list()).toHaveLength(1);
    expect(s.ran).toHaveLength(2);
    // A different session is not covered.
    const other = s.asked(call('Write', args, { session: 's2' }));
    await other.waiting;
    expect(s.queue.pendingSize()).toBe(1);
  });
});
