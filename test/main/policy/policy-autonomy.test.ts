// Autonomy levels (judged by extracted operations, never tool names), per-tool lists, the order
// in which rules, lists, grants and levels combine, and session taint (no write-down).
import { describe, expect, it } from 'vitest';
import { Autonomy, CLASSIFICATIONS, decideCall, isPureRead, parseClassification, SessionTaint, TaintRegistry, TAINT_RULE, type DecideInput } from '../../../main/policy/autonomy.js';
import { evaluatePolicy } from '../../../main/policy/rules/engine.js';
import type { Extraction } from '../../../main/policy/types.js';
import { call, HOME, ruleSet, x } from '../../fixtures/policy/helpers.js';

const rules = ruleSet(`
rules:
  - { name: allow-work-writes, actions: [write], block_paths: ["~/work/**"], decision: allow }
  - { name: ask-deploy, actions: [execute], block_paths: ["~/deploy/**"], decision: ask }
  - { name: deny-prod, actions: [write], block_paths: ["~/prod/**"], decision: deny }
`);

function decide(ex: Extraction, level: string, more: Partial<DecideInput> & { tool?: string; autoApprove?: string[]; alwaysAsk?: string[] } = {}) {
  const c = call(more.tool ?? 'some_tool');
  const policy = evaluatePolicy(ex, c, { rules });
  const autonomy = new Autonomy({ level, autoApprove: more.autoApprove ?? [], alwaysAsk: more.alwaysAsk ?? [] });
  return decideCall({ call: c, extraction: ex, policy, autonomy, ...more });
}

const read = x('read', [`${HOME}/notes.txt`]);
const write = x('write', [`${HOME}/notes.txt`]);
const workWrite = x('write', [`${HOME}/work/a.ts`]);

describe('levels', () => {
  it('read-only: reads run, anything else is denied — judged by operations, not the tool name', () => {
    expect(decide(read, 'read-only')).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy', level: 'read-only' } });
    // A tool called read_file whose extraction says write is not a read.
    const r = decide(write, 'read-only', { tool: 'read_file' });
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'autonomy', level: 'read-only' } });
    expect(r.reason).toContain('not a read (write)');
    // Not even when a rule allows it, nor when the tool is auto-approved.
    expect(decide(workWrite, 'read-only', { autoApprove: ['*'] }).decision).toBe('deny');
    // A tool named write_file that only reads is a read.
    expect(decide(read, 'read-only', { tool: 'write_file' }).decision).toBe('allow');
    // Unknown operations and evasive commands cannot be shown to be reads.
    expect(decide(x([], []), 'read-only').decision).toBe('deny');
    expect(decide(x('read', [], [], { evasive: true, evasiveReasons: ['eval'] }), 'read-only').decision).toBe('deny');
  });

  it('supervised: reads run, the rest asks unless a rule or grant allows', () => {
    expect(decide(read, 'supervised')).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy', level: 'supervised' } });
    expect(decide(write, 'supervised')).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'supervised' } });
    expect(decide(write, 'supervised', { tool: 'read_file' }).decision).toBe('ask');
    expect(decide(workWrite, 'supervised')).toMatchObject({ decision: 'allow', decider: { kind: 'rule', rule: 'allow-work-writes' } });
    expect(decide(write, 'supervised', { grant: 'g-42' })).toMatchObject({ decision: 'allow', decider: { kind: 'grant', grant: 'g-42' } });
  });

  it('full: runs unless a rule denies (or asks)', () => {
    expect(decide(write, 'full')).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy', level: 'full' } });
    expect(decide(x('write', [`${HOME}/prod/x`]), 'full')).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'deny-prod' } });
    expect(decide(x('read', [`${HOME}/.ssh/id_rsa`]), 'full')).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'builtin.credentials.ssh' } });
    expect(decide(x('execute', [`${HOME}/deploy/go.sh`]), 'full')).toMatchObject({ decision: 'ask', decider: { kind: 'rule', rule: 'ask-deploy' } });
    // Evasive commands ask even at full autonomy.
    expect(decide(x('execute', [], [], { evasive: true, evasiveReasons: ['eval'] }), 'full').decision).toBe('ask');
  });

  it('an unknown level falls back to supervised and says so', () => {
    const a = new Autonomy({ level: 'yolo' });
    expect(a.level).toBe('supervised');
    expect(a.notice).toMatch(/unknown autonomy level "yolo"; using supervised/);
    expect(new Autonomy({ level: 'full' }).notice).toBeNull();
    expect(decide(write, 'yolo')).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'supervised' } });
  });

  it('isPureRead needs at least one operation, all reads, nothing evasive', () => {
    expect(isPureRead(read)).toBe(true);
    expect(isPureRead(x(['read', 'network']))).toBe(false);
    expect(isPureRead(x([]))).toBe(false);
  });
});

describe('a confined reader (a plugin the sandbox holds with no write paths and no hosts)', () => {
  // An unknown plugin tool extracts as `execute`: alone it asks at supervised and is denied at read-only.
  const run = x('execute');
  it('counts as a read at supervised and read-only; the reason says why', () => {
    const r = decide(run, 'supervised', { tool: 'hello', toolReadsOnly: true });
    expect(r).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy', level: 'supervised' } });
    expect(r.reason).toContain('hello runs in the sandbox with no write paths and no hosts');
    expect(decide(run, 'read-only', { tool: 'hello', toolReadsOnly: true }).decision).toBe('allow');
  });

  it('fails closed: not confined, or naming a write, a network host or an evasive command, keeps its judgement', () => {
    expect(decide(run, 'supervised', { tool: 'hello' }).decision).toBe('ask');
    expect(decide(run, 'supervised', { tool: 'hello', toolReadsOnly: false }).decision).toBe('ask');
    expect(decide(run, 'read-only', { tool: 'hello' }).decision).toBe('deny');
    for (const other of [x(['execute', 'write'], [`${HOME}/notes.txt`]), x(['execute', 'network'], [], ['example.com']), x('execute', [], [], { evasive: true, evasiveReasons: ['eval'] })]) {
      const claimed = decide(other, 'supervised', { toolReadsOnly: true });
      expect(claimed.decision).not.toBe('allow');
      expect(claimed).toEqual(decide(other, 'supervised'));
    }
    // A rule still decides first: the deploy folder asks whatever the tool is.
    expect(decide(x('execute', [`${HOME}/deploy/x`]), 'supervised', { toolReadsOnly: true })).toMatchObject({ decision: 'ask', decider: { kind: 'rule' } });
  });
});

describe('per-tool lists and the order of combination', () => {
  it('autoApprove (globs) allows what would ask at supervised, but not past a rule ask or deny', () => {
    expect(decide(write, 'supervised', { tool: 'mcp__fs__write', autoApprove: ['mcp__fs__*'] })).toMatchObject({ decision: 'allow', decider: { kind: 'autonomy' } });
    expect(decide(x('execute', [`${HOME}/deploy/go.sh`]), 'supervised', { autoApprove: ['*'] }).decision).toBe('ask');
    expect(decide(x('write', [`${HOME}/prod/a`]), 'supervised', { autoApprove: ['*'] }).decision).toBe('deny');
  });

  it('alwaysAsk beats rule allows, grants, autoApprove and full autonomy — but not a deny', () => {
    const opts = { tool: 'Bash', alwaysAsk: ['Bash'], autoApprove: ['Bash'], grant: 'g-1' };
    const r = decide(workWrite, 'full', opts);
    expect(r).toMatchObject({ decision: 'ask', decider: { kind: 'autonomy', level: 'full' } });
    expect(r.reason).toContain('always-ask');
    expect(decide(read, 'full', opts).decision).toBe('ask');
    expect(decide(x('write', [`${HOME}/prod/a`]), 'full', opts).decision).toBe('deny');
  });

  it('a rule ask beats a grant; a grant beats the level', () => {
    expect(decide(x('execute', [`${HOME}/deploy/go.sh`]), 'supervised', { grant: 'g-1' }).decider).toMatchObject({ kind: 'rule', rule: 'ask-deploy' });
    expect(decide(x('execute', ['/usr/bin/make']), 'supervised', { grant: 'g-1' }).decider).toEqual({ kind: 'grant', grant: 'g-1' });
  });
});

describe('session taint', () => {
  it('raises to the highest classification seen and never lowers', () => {
    const t = new SessionTaint();
    expect(t.level).toBe('PUBLIC');
    t.raise('CONFIDENTIAL', 'plugin hr-db');
    t.raise('INTERNAL');
    expect(t.level).toBe('CONFIDENTIAL');
    expect(t.check('CONFIDENTIAL')).toEqual({ ok: true });
    expect(t.check('RESTRICTED')).toEqual({ ok: true });
    const c = t.check('INTERNAL');
    expect(c.ok).toBe(false);
    expect(!c.ok && c.reason).toBe('write-down: this session holds CONFIDENTIAL data (from plugin hr-db) and the call would send it to an INTERNAL destination');
  });

  it('a network call from a tainted session is denied with a write-down reason, at any autonomy', () => {
    const taint = new SessionTaint();
    const fetch = x('network', [], ['93.184.216.34']);
    expect(decide(fetch, 'full', { taint }).decision).toBe('allow');
    taint.raise('INTERNAL', 'plugin wiki');
    const r = decide(fetch, 'full', { taint, autoApprove: ['*'], grant: 'g-1' });
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: TAINT_RULE, origin: 'session taint' } });
    expect(r.reason).toMatch(/^write-down: this session holds INTERNAL data \(from plugin wiki\).*PUBLIC destination \(the network\)\.$/);
    // An internal network (configured) may receive INTERNAL data.
    expect(decide(fetch, 'full', { taint, networkClassification: 'INTERNAL' }).decision).toBe('allow');
  });

  it('a plugin of lower classification is a sink; equal or higher is fine; local calls are not sinks', () => {
    const taint = new SessionTaint();
    taint.raise('CONFIDENTIAL');
    expect(decide(workWrite, 'full', { taint, toolClassification: 'PUBLIC', tool: 'slack_post' })).toMatchObject({ decision: 'deny', reason: expect.stringContaining('(tool slack_post)') });
    expect(decide(workWrite, 'full', { taint, toolClassification: 'RESTRICTED' }).decision).toBe('allow');
    expect(decide(workWrite, 'full', { taint }).decision).toBe('allow');
  });

  it('unknown classifications fail closed; sessions are tracked separately', () => {
    expect(parseClassification('secret', 'source')).toBe('RESTRICTED');
    expect(parseClassification('secret', 'sink')).toBe('PUBLIC');
    expect(parseClassification('internal', 'sink')).toBe('INTERNAL');
    expect(CLASSIFICATIONS).toEqual(['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'RESTRICTED']);
    const reg = new TaintRegistry();
    reg.get('a').raise('RESTRICTED');
    expect(reg.get('a').level).toBe('RESTRICTED');
    expect(reg.get('b').level).toBe('PUBLIC');
    reg.forget('a');
    expect(reg.get('a').level).toBe('PUBLIC');
  });
});
