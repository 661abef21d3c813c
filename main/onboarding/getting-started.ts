// The Getting Started panel's host side: each step's state read from what the host really holds
// (the registry, the audit log, the settings), never from the console's clicks, and the test
// call a console sends through the real gateway as the agent "console-test".
import { randomBytes, randomUUID } from 'node:crypto';
import type { ResponseOf } from '../../shared/contract.js';
import { describeDecider } from '../../shared/decider.js';
import type { DeciderView } from '../../shared/contract.js';
import type { IncomingCall, GatewayCallOptions } from '../gateway/gateway.js';
import type { PluginEntry } from '../registry/plugin-registry.js';
import type { FirstRunFile } from './first-run-state.js';

/** The example tool the first step enables and the test call calls. */
export const EXAMPLE_TOOL = 'hello';
/** The agent name of calls sent from a console (their source is "console"; agents cannot send that). */
export const TEST_AGENT = 'console-test';

export type GettingStartedView = ResponseOf<'gettingStarted.get'>;
export type TestCallView = ResponseOf<'gateway.testCall'>;

interface AuditEventLike {
  type: string;
  actor: string;
  payload: unknown;
}

export interface GettingStartedDeps {
  file: FirstRunFile;
  plugin: (name: string) => PluginEntry | undefined;
  mode: () => 'dry-run' | 'live';
  gateway: { call(input: IncomingCall, opts?: GatewayCallOptions): Promise<unknown> };
  /** The plugin that provides an agent tool (null: a built-in, or no such tool). */
  pluginOfTool: (tool: string) => string | null;
  /** Every audit event of a session, in order (redacted as the console sees them). */
  sessionEvents: (session: string) => AuditEventLike[];
  /** The newest call an agent sent (MCP, hook or API), from the audit log. */
  lastAgentCall: () => { agent: string; source: string; at: number } | null;
  record: (type: string, actor: string, payload: Record<string, unknown>) => void;
  clock: { now(): number };
  log: (msg: string, err?: unknown) => void;
}

export class GettingStarted {
  constructor(private readonly deps: GettingStartedDeps) {}

  view(): GettingStartedView {
    const d = this.deps;
    let s = d.file.get();
    if (!s.agentSeen) {
      const seen = d.lastAgentCall();
      if (seen) s = d.file.update({ agentSeen: seen });
    }
    const entry = d.plugin(EXAMPLE_TOOL);
    const plugin = {
      name: EXAMPLE_TOOL,
      found: !!entry,
      status: entry?.status ?? null,
      dir: entry?.dir ?? null,
      scanPassed: entry?.scan ? entry.scan.passed : null,
      findingCount: entry?.scan?.findings.length ?? 0,
      done: entry?.status === 'enabled',
    };
    const agent = { done: !!s.agentSeen || s.agentSkippedAt !== null, skipped: s.agentSkippedAt !== null, seen: s.agentSeen };
    const testCall = s.testCall ? this.testCallView(s.testCall) : null;
    const testDone = testCall !== null && (testCall.stage === 'decided' || testCall.stage === 'finished');
    if (s.completedAt === null && plugin.done && agent.done && testDone) s = d.file.update({ completedAt: d.clock.now() });
    return {
      dismissed: s.dismissedAt !== null,
      completed: s.completedAt !== null,
      examples: s.examples ? { from: s.examples.from, copied: [...s.examples.copied] } : null,
      plugin,
      agent,
      testCall,
      testCallDone: testDone,
      mode: d.mode(),
    };
  }

  update(patch: { dismissed?: boolean; agentSkipped?: boolean }): GettingStartedView {
    const now = this.deps.clock.now();
    const next: Parameters<FirstRunFile['update']>[0] = {};
    if (patch.dismissed !== undefined) next.dismissedAt = patch.dismissed ? now : null;
    if (patch.agentSkipped !== undefined) next.agentSkippedAt = patch.agentSkipped ? now : null;
    this.deps.file.update(next);
    return this.view();
  }

  /**
   * Sends one call through the real gateway (policy, checkers, approval, runner, audit) as the
   * agent "console-test" in a fresh session, and answers once it waits in the inbox or is done,
   * so the console never blocks on the operator it is about to ask.
   */
  async testCall(req: { tool: string; arguments: Record<string, unknown> }, ctx: { operator: string; console: string }): Promise<TestCallView> {
    const d = this.deps;
    const tc = {
      call: `call-${randomUUID()}`,
      session: `${TEST_AGENT}-${randomBytes(4).toString('hex')}`,
      tool: req.tool,
      agent: TEST_AGENT,
      operator: ctx.operator,
      sentAt: d.clock.now(),
    };
    // Who sent it: the call itself is attributed to the agent name, like any agent's.
    d.record('gateway.test-call', `operator:${ctx.operator}`, { call: tc.call, session: tc.session, tool: tc.tool, agent: TEST_AGENT, console: ctx.console });
    d.file.update({ testCall: tc });
    await new Promise<void>((resolve) => {
      d.gateway
        .call({ id: tc.call, agent: TEST_AGENT, session: tc.session, tool: req.tool, arguments: req.arguments, source: 'console' }, { onWaiting: () => resolve() })
        .then(
          () => resolve(),
          (err: unknown) => {
            d.log('the test call failed', err);
            resolve();
          },
        );
    });
    return this.testCallView(tc);
  }

  /** The test call's progress, read back from the audit log. */
  private testCallView(tc: NonNullable<ReturnType<FirstRunFile['get']>['testCall']>): TestCallView {
    const out: TestCallView = {
      ...tc,
      plugin: this.deps.pluginOfTool(tc.tool),
      stage: 'sent',
      recorded: 0,
      approval: null,
      approvalState: null,
      approvedBy: null,
      decision: null,
      decidedBy: null,
      reason: null,
      executed: null,
      mode: null,
      ok: null,
      output: null,
    };
    let events: AuditEventLike[];
    try {
      events = this.deps.sessionEvents(tc.session);
    } catch (err) {
      this.deps.log('could not read the test call from the audit log', err);
      return out;
    }
    for (const e of events) {
      const p = (e.payload ?? {}) as Record<string, unknown>;
      const call = typeof p.call === 'string' ? p.call : typeof p.callId === 'string' ? p.callId : null;
      if (call !== tc.call) continue;
      out.recorded += 1;
      switch (e.type) {
        case 'approval.requested':
          out.approval = typeof p.id === 'string' ? p.id : null;
          out.approvalState = 'pending';
          out.stage = 'waiting';
          break;
        case 'approval.decided':
          out.approvalState = p.state === 'approved' ? 'approved' : 'denied';
          out.approvedBy = typeof p.operator === 'string' ? p.operator : e.actor;
          out.stage = 'decided';
          break;
        case 'approval.expired':
          out.approvalState = 'expired';
          out.stage = 'decided';
          break;
        case 'call.decided':
          out.decision = isDecision(p.decision) ? p.decision : null;
          out.decidedBy = isDecider(p.decider) ? describeDecider(p.decider) : null;
          out.reason = typeof p.reason === 'string' ? p.reason : null;
          if (out.decision === 'deny' || out.decision === 'expired') {
            // Nothing runs after a denial (a call for a tool that is not enabled has no call.result).
            out.executed = false;
            out.stage = 'finished';
          } else if (out.stage !== 'finished') out.stage = 'decided';
          break;
        case 'execution.ended':
          out.ok = p.ok === true;
          out.output = typeof p.output === 'string' ? p.output : null;
          break;
        case 'call.result':
          out.executed = p.executed === true;
          out.mode = p.mode === 'live' ? 'live' : 'dry-run';
          if (typeof p.ok === 'boolean') out.ok = p.ok;
          out.stage = 'finished';
          break;
      }
    }
    return out;
  }
}

const isDecision = (v: unknown): v is 'allow' | 'deny' | 'ask' | 'expired' => v === 'allow' || v === 'deny' || v === 'ask' || v === 'expired';

function isDecider(v: unknown): v is DeciderView {
  if (!v || typeof v !== 'object') return false;
  const k = (v as { kind?: unknown }).kind;
  return k === 'rule' || k === 'checker' || k === 'autonomy' || k === 'grant' || k === 'operator' || k === 'error';
}
