// The flow of one tool call (docs/architecture.md): extract → rules (built-in + user) → checkers → autonomy
// and grants → approval → runner → result. Every step records who decided it; every call's
// decider reaches the result (for the agent's answer and the inbox) and the audit log.
//
// Fail closed: an exception in any step ends the call in `deny`, with a reason naming the step
// ("policy error: …") and an `error` decider. Nothing runs unless the decision is `allow` and the
// mode is `live`; in dry-run the call is evaluated (approval included) and never executed.
import type { ApprovalItem, ApprovalOutcome, ApprovalRequest, Grant, RecordFn } from '../approvals/types.js';
import type { CheckerVerdict } from '../checkers/checker-pool.js';
import { checkerContent, type EvaluateParams, type RuleSnapshot } from '../core/checker-protocol.js';
import { decideCall, type Autonomy, type Classification, type FinalDecision, type SessionTaint } from '../policy/autonomy.js';
import type { PolicyResult } from '../policy/rules/engine.js';
import type { PolicyTag } from '../policy/rules/store.js';
import type { Decider, Extraction, Operation, ToolCall } from '../policy/types.js';
import type { ToolCallResult } from '../runner/tool-runner.js';
import type { ContainVerdict } from '../runner/containment.js';
import { describeDecider } from '../../shared/decider.js';
import type { Clock } from '../core/clock.js';

export type ToolResult = ToolCallResult;
export type PipelineMode = 'dry-run' | 'live';
export type PipelineStepName = 'extract' | 'rules' | 'checkers' | 'autonomy' | 'approval' | 'runner';

export interface PipelineStep {
  step: PipelineStepName;
  decision?: string;
  decider?: Decider;
  ms: number;
}

export interface PipelineResult {
  decision: 'allow' | 'deny' | 'ask' | 'expired';
  decider: Decider;
  reason: string;
  steps: PipelineStep[];
  result?: ToolResult;
  executed: boolean;
  extraction?: Extraction;
  /** The inbox item, when the call was asked. */
  approval?: string;
  /** The mode the call was handled in (dry-run: evaluated, never executed). */
  mode?: PipelineMode;
  /** A call the agent runs itself, let through without an operator reading it: the box it runs in, or why it runs uncontained. */
  contained?: ContainVerdict;
}

export interface WaitingInfo {
  approval: string;
  call: string;
  askedBy: Decider;
  reason: string;
}

export interface HandleOptions {
  /** Called once, when the call starts waiting for an operator. */
  onWaiting?: (info: WaitingInfo) => void;
  /** 'return': an asked call ends in `ask` at once, without an inbox item (a Claude Code hook then asks its user). */
  ask?: 'queue' | 'return';
  /** false: decide only, never run (a hook's agent runs the tool itself). Default true. */
  execute?: boolean;
  /**
   * This caller gives up after this long (an MCP client's own timeout, less a margin): the
   * approval expires no later, so the inbox never offers a call nobody is waiting for.
   */
  approvalExpiresInMs?: number;
  /** Whose deadline `approvalExpiresInMs` is, shown in the inbox (default: by the call's source). */
  deadlineReason?: string;
  /** Aborted when the caller stops waiting (MCP cancel, session end): a waiting approval is withdrawn. */
  signal?: AbortSignal;
  /**
   * The agent runs the tool itself with an input Gatehouse may replace (Claude Code's hook,
   * updatedInput): an allowed call may be boxed (deps.contain). Not for a terminal adapter's
   * question, whose answer is a key typed into a program that runs on its own.
   */
  containable?: boolean;
  /**
   * The caller answers a program that runs the command itself and cannot be given another one (a
   * terminal adapter's question): an allowed call that containment applies to runs uncontained,
   * and this is the reason put on record (call.contained) with the answer, as when no box exists.
   */
  uncontainable?: string;
}

// ---- dependencies: narrow, so the real classes fit ------------------------------------------------

/** The policy's rules step; PolicyStore fits. */
export interface PolicyEvaluator {
  evaluateAsync(x: Extraction, call: ToolCall | null): Promise<PolicyResult>;
  /** Rules for the checkers' `rules` field. */
  snapshots(): readonly RuleSnapshot[];
  /** Which policy is in force (PolicyStore's): call.decided records the one that judged the call. */
  readonly tag?: PolicyTag;
}

/** The checker pool; CheckerHost fits. A failure verdict already encodes fail-closed. */
export interface CheckerEvaluator {
  evaluate(params: EvaluateParams): Promise<CheckerVerdict>;
  /**
   * False when no checker is enabled: the step is skipped as when none is registered, so a
   * call does not pay for an empty round (building the request, a verdict event) on its way.
   */
  active?(): boolean;
}

/** ApprovalQueue fits. */
export interface ApprovalRequester {
  request(req: ApprovalRequest): { id: string; decision: Promise<ApprovalOutcome> };
  /** The agent is gone: close a pending item without running the call (ApprovalQueue.withdraw). */
  withdraw?(id: string, reason: string): boolean;
  /** The waiting calls, for releaseWaiting. */
  list?(filter: { state: 'pending' }): ApprovalItem[];
  /** Approve a waiting call by a live grant (ApprovalQueue.releaseByGrant). */
  releaseByGrant?(id: string, grantId: string): boolean;
}

/** Grants (ApprovalQueue.grants) fits. */
export interface GrantLookup {
  /** With the judge's extraction: command-prefix, folder and host grants judge what the call touches. */
  findGrant(call: ToolCall, x?: Extraction): Grant | null;
}

export interface PipelineDeps {
  /** extract(call, {home}) bound to its options (initExtractor must have run). */
  extract: (call: ToolCall) => Extraction | Promise<Extraction>;
  policy: PolicyEvaluator;
  /** Null or absent: no checkers registered. */
  checkers?: CheckerEvaluator | null;
  /** The current autonomy settings (they can change between calls). */
  autonomy: Autonomy | (() => Autonomy);
  approvals: ApprovalRequester;
  grants: GrantLookup;
  /** Executes an allowed call (the gateway maps the tool to its plugin and calls ToolRunner); the extraction is what policy judged. */
  run: (call: ToolCall, extraction: Extraction) => Promise<ToolResult>;
  record: RecordFn;
  mode: () => PipelineMode;
  /** Milliseconds for step timings (default performance.now). */
  clock?: Clock;
  /** Session taint, for write-down checks (TaintRegistry.get fits). */
  taint?: (session: string) => SessionTaint;
  /** Classification of the plugin that runs the tool (a sink for the arguments). */
  toolClassification?: (call: ToolCall) => Classification | undefined;
  /** The tool can only read: a plugin the sandbox holds with no write paths and no hosts (Gateway.confinedReader). Asked only for calls Gatehouse runs itself. */
  toolReadsOnly?: (call: ToolCall) => boolean;
  /** Approval expiry for asked calls (default: the queue's). */
  approvalExpiresInMs?: number | (() => number);
  /**
   * Why a call that would wait for an operator is denied instead, or null to let it wait (team
   * mode's teamOutageAsks setting while the team database is unreachable). Every ask that would
   * wait passes here, whatever its ingress; a failure of it denies the call.
   */
  askRefusal?: () => string | null;
  /** Where audit failures after the decision go (they never change the outcome). */
  log?: (msg: string, err?: unknown) => void;
  /**
   * For an allowed call the agent runs itself (a hook), live: the box it must run in (Containment.decide
   * fits), or null when none applies. A failure to build the box denies the call.
   */
  contain?: (call: ToolCall, decider: Decider, grant: Grant | null, cannotBox?: string) => Promise<ContainVerdict | null> | ContainVerdict | null;
}

/**
 * Whether a decision may cause execution: allowed, in live mode. The one rule every ingress asks
 * before anything runs or is let through — the runner step below, a hook's answer (claude-hook.ts),
 * an adapter typing its answer into a terminal (create-host.ts): in dry-run nothing executes on
 * Gatehouse's say, whoever would run it.
 */
export function mayRun(r: Pick<PipelineResult, 'decision' | 'mode'>): boolean {
  return r.decision === 'allow' && r.mode === 'live';
}

/** The main operation for checkers' `operation`: the most consequential one. */
const OP_WEIGHT: readonly Operation[] = ['execute', 'delete', 'write', 'move', 'copy', 'network', 'read'];

export function mainOperation(ops: readonly Operation[]): string {
  for (const op of OP_WEIGHT) if (ops.includes(op)) return op;
  return '';
}

/** The audit actor for a decider: "rule:…", "checker:…", "operator:…". */
export function deciderActor(d: Decider): string {
  switch (d.kind) {
    case 'rule':
      return `rule:${d.rule}`;
    case 'checker':
      return `checker:${d.checker}`;
    case 'autonomy':
      return `autonomy:${d.level}`;
    case 'grant':
      return `grant:${d.grant}`;
    case 'operator':
      return d.operator.startsWith('operator:') ? d.operator : `operator:${d.operator}`;
    case 'error':
      return 'host';
  }
}

/** Describes a decider in a few words (the same words in agents' answers, the CLI and the console). */
export { describeDecider };

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Whose deadline a caller's wait is, by transport: what the inbox shows beside the countdown. */
const CALLER_DEADLINE: Partial<Record<ToolCall['source'], string>> = {
  hook: "the hook's own timeout",
  mcp: "the MCP client's own timeout",
  api: "the API caller's own timeout",
};

const STEP_LABEL: Record<PipelineStepName, string> = {
  extract: 'extraction error',
  rules: 'policy error',
  checkers: 'checker error',
  autonomy: 'autonomy error',
  approval: 'approval error',
  runner: 'runner error',
};

export class CallPipeline {
  private readonly now: () => number;
  /** Calls decided for an agent that runs the tool itself (a hook): their result says so. */
  private readonly agentRuns = new WeakSet<ToolCall>();
  /** Calls whose call.decided is written: a call has one decision on record, whatever fails after it. */
  private readonly decided = new WeakSet<ToolCall>();
  /** The policy each call was judged by, taken as its rules step reads the rule set. */
  private readonly judgedBy = new WeakMap<ToolCall, PolicyTag>();

  constructor(private readonly deps: PipelineDeps) {
    const clock = deps.clock ?? performance;
    this.now = () => clock.now();
  }

  async handle(call: ToolCall, opts: HandleOptions = {}): Promise<PipelineResult> {
    const steps: PipelineStep[] = [];
    const d = this.deps;
    const agentActor = `agent:${call.agent}`;
    if (opts.execute === false) this.agentRuns.add(call);
    let extraction: Extraction | undefined;
    let current: PipelineStepName = 'extract';
    let t0 = this.now();
    const begin = (s: PipelineStepName) => {
      current = s;
      t0 = this.now();
    };
    const done = (decision?: string, decider?: Decider) => {
      const s: PipelineStep = { step: current, ms: this.now() - t0 };
      if (decision !== undefined) s.decision = decision;
      if (decider !== undefined) s.decider = decider;
      steps.push(s);
    };

    try {
      // ---- extract ------------------------------------------------------------------------------
      begin('extract');
      // The arguments are on record (redacted when shown): incident review searches them.
      d.record('call.received', agentActor, { call: call.id, agent: call.agent, session: call.session, tool: call.tool, arguments: call.arguments ?? null, source: call.source, cwd: call.cwd, ...(call.client !== undefined ? { client: call.client } : {}) });
      const x = await d.extract(call);
      extraction = x;
      // Replay judges drafts on this record (audit/replay.ts): what rules read of an extraction is here.
      d.record('call.extracted', 'host', { call: call.id, operations: x.operations, paths: x.paths, hosts: x.hosts, command: x.command, evasive: x.evasive, evasiveReasons: x.evasiveReasons, ...(x.programs ? { programs: x.programs } : {}), ...(x.recursive?.length ? { recursive: x.recursive } : {}) });
      done();

      // ---- rules --------------------------------------------------------------------------------
      begin('rules');
      // Read with the rule set, synchronously before evaluateAsync takes it: a policy applied while
      // a name resolves must not be recorded as the one that judged this call.
      const tag = d.policy.tag;
      if (tag) this.judgedBy.set(call, tag);
      const policy = await d.policy.evaluateAsync(x, call);
      for (const m of [...policy.matched, ...policy.logs]) {
        d.record('rule.matched', `rule:${m.rule}`, { call: call.id, rule: m.rule, origin: m.origin, source: m.source, decision: m.decision, severity: m.severity, priority: m.priority, locked: m.locked, detail: m.detail });
      }
      done(policy.decisive ? policy.decision : 'undecided', policy.decider);
      if (policy.decision === 'deny') return this.finish(call, { decision: 'deny', decider: policy.decider, reason: policy.reason }, steps, x);

      // ---- checkers (only block; never allow what policy blocked) ---------------------------------
      if (d.checkers && d.checkers.active?.() !== false) {
        begin('checkers');
        const verdict = await d.checkers.evaluate({
          tool_name: call.tool,
          arguments: call.arguments,
          operation: mainOperation(x.operations),
          operations: [...x.operations],
          command: x.command,
          paths: [...x.paths],
          hosts: [...x.hosts],
          content: checkerContent(x.content, call.arguments),
          evasive: x.evasive,
          rules: d.policy.snapshots(),
        });
        const blocked = checkerDecision(verdict);
        d.record('checker.verdict', blocked ? `checker:${verdict.decision === 'block' ? verdict.checker : ''}` : 'host', {
          call: call.id,
          decision: verdict.decision,
          ...(verdict.decision === 'block' ? { checker: verdict.checker } : {}),
          ...(verdict.decision === 'block' && 'result' in verdict ? { result: verdict.result } : {}),
          ...(verdict.decision === 'block' && 'failure' in verdict ? { failure: verdict.failure } : {}),
          failures: verdict.failures,
        });
        if (blocked) {
          done('deny', blocked.decider);
          return this.finish(call, blocked, steps, x);
        }
        done('pass');
      }

      // ---- autonomy and grants --------------------------------------------------------------------
      begin('autonomy');
      const { decided, grant } = this.decideAfterRules(call, x, policy, opts.execute !== false);
      done(decided.decision, decided.decider);
      if (decided.decision === 'deny') return this.finish(call, decided, steps, x);

      // ---- approval -------------------------------------------------------------------------------
      let final: { decision: 'allow'; decider: Decider; reason: string } = decided as FinalDecision & { decision: 'allow' };
      let grantUsed = decided.decider.kind === 'grant' ? grant : null;
      let approvalId: string | undefined;
      if (decided.decision === 'ask' && opts.ask === 'return') {
        return this.finish(call, { decision: 'ask', decider: decided.decider, reason: decided.reason }, steps, x);
      }
      if (decided.decision === 'ask') {
        begin('approval');
        let refusal: string | null;
        try {
          refusal = d.askRefusal?.() ?? null;
        } catch (err) {
          refusal = `Gatehouse could not tell whether this call may wait for an operator (${(err as Error).message ?? String(err)}); it is denied (fail closed).`;
        }
        if (refusal !== null) {
          const decider: Decider = { kind: 'error', message: refusal };
          done('deny', decider);
          return this.finish(call, { decision: 'deny', decider, reason: refusal }, steps, x);
        }
        const req: ApprovalRequest = { call, extraction: x, askedBy: decided.decider, reason: decided.reason };
        if (d.approvalExpiresInMs !== undefined) req.expiresInMs = typeof d.approvalExpiresInMs === 'function' ? d.approvalExpiresInMs() : d.approvalExpiresInMs;
        // Never longer than the caller waits: when its own deadline is nearer, the item closes
        // then as "agent gone" (the queue says whose deadline it is in the inbox).
        if (opts.approvalExpiresInMs !== undefined && opts.approvalExpiresInMs > 0) {
          req.callerWaitsMs = opts.approvalExpiresInMs;
          req.deadlineReason = opts.deadlineReason ?? CALLER_DEADLINE[call.source] ?? "the caller's own timeout";
        }
        const pending = d.approvals.request(req);
        approvalId = pending.id;
        const signal = opts.signal;
        const withdraw = () => {
          const why = typeof signal?.reason === 'string' ? signal.reason : 'the agent cancelled the call or its connection ended';
          d.approvals.withdraw?.(pending.id, why);
        };
        if (signal?.aborted) withdraw();
        else signal?.addEventListener('abort', withdraw, { once: true });
        void pending.decision.finally(() => signal?.removeEventListener('abort', withdraw));
        try {
          opts.onWaiting?.({ approval: pending.id, call: call.id, askedBy: decided.decider, reason: decided.reason });
        } catch (err) {
          d.log?.('onWaiting failed', err);
        }
        const outcome = await pending.decision;
        if (outcome.state !== 'approved') {
          // Gone is answered as expired: nobody decided; a caller still connected reads a denial.
          const decision = outcome.state === 'expired' || outcome.state === 'gone' ? 'expired' : 'deny';
          done(decision, outcome.decider);
          return this.finish(call, { decision, decider: outcome.decider, reason: outcome.reason }, steps, x, approvalId);
        }
        done('allow', outcome.decider);
        final = { decision: 'allow', decider: outcome.decider, reason: outcome.reason };
        // Released by a grant made while it waited: boxed (or not) as that grant says, like a call it lets through at once.
        if (outcome.decider.kind === 'grant') grantUsed = outcome.grant ?? null;
      }

      // ---- runner ---------------------------------------------------------------------------------
      const mode: PipelineMode = d.mode() === 'live' ? 'live' : 'dry-run';
      if (opts.execute === false) {
        // The agent runs it: what Gatehouse can still decide is where (the box), in live mode.
        begin('runner');
        const boxable = opts.containable === true || opts.uncontainable !== undefined;
        const contained = mode === 'live' && boxable ? ((await d.contain?.(call, final.decider, grantUsed, opts.uncontainable)) ?? undefined) : undefined;
        return this.finish(call, final, steps, x, approvalId, undefined, mode, false, contained);
      }
      if (!mayRun({ decision: final.decision, mode })) {
        const reason = `Dry run: Gatehouse evaluated this call and would have allowed it (${describeDecider(final.decider)}: ${final.reason}), but did not execute it.`;
        return this.finish(call, { decision: 'allow', decider: final.decider, reason }, steps, x, approvalId, undefined, 'dry-run');
      }
      this.recordDecided(call, final);
      begin('runner');
      const result = await d.run(call, x);
      done(result.ok ? 'ok' : 'failed');
      return this.finish(call, final, steps, x, approvalId, result, 'live', true);
    } catch (err) {
      const step = current;
      const message = `${STEP_LABEL[step]}: ${errorText(err)}`;
      const decider: Decider = { kind: 'error', message };
      steps.push({ step, decision: 'deny', decider, ms: this.now() - t0 });
      return this.finish(call, { decision: 'deny', decider, reason: message }, steps, extraction);
    }
  }

  /** The autonomy step: what the rules' answer, the level, taint and the live grants make of the call. */
  /**
   * `gatehouseRuns`: Gatehouse itself runs the call's tool (not an agent answered by a hook). Only
   * then can the tool count as a confined reader: a hook call naming a tool of the same name runs
   * the agent's own tool, which no sandbox of Gatehouse's holds.
   */
  private decideAfterRules(call: ToolCall, x: Extraction, policy: PolicyResult, gatehouseRuns: boolean): { decided: FinalDecision; grant: Grant | null } {
    const d = this.deps;
    const autonomy = typeof d.autonomy === 'function' ? d.autonomy() : d.autonomy;
    const grant = d.grants.findGrant(call, x);
    const decided = decideCall({
      call,
      extraction: x,
      policy,
      autonomy,
      taint: d.taint?.(call.session),
      toolClassification: d.toolClassification?.(call),
      toolReadsOnly: gatehouseRuns && (d.toolReadsOnly?.(call) ?? false),
      grant: grant?.id,
    });
    return { decided, grant };
  }

  private sweeping: Promise<unknown> = Promise.resolve();

  /**
   * After a grant is made: every call waiting in the inbox is judged again as a new call would be
   * now (the rules on its recorded extraction, taint, the level, then the live grants), and those
   * a grant now allows are released by that grant (ApprovalQueue.releaseByGrant, recorded as
   * decided by it). A call the rules still ask or deny about, or an evasive one, keeps waiting:
   * a grant never outranks them here either. Checkers are not asked again: they passed this very
   * call already, and asking again would count it twice (a rate limit). Sweeps run one after the
   * other; each answers how many calls it released.
   */
  releaseWaiting(): Promise<number> {
    const run = this.sweeping.then(() => this.sweepOnce());
    this.sweeping = run.catch(() => undefined);
    return run;
  }

  private async sweepOnce(): Promise<number> {
    const d = this.deps;
    const q = d.approvals;
    if (!q.list || !q.releaseByGrant) return 0;
    let released = 0;
    for (const item of q.list({ state: 'pending' })) {
      // Cheap first: only a call some live grant covers can be released by one.
      if (!d.grants.findGrant(item.call, item.extraction)) continue;
      let decided: FinalDecision;
      try {
        const policy = await d.policy.evaluateAsync(item.extraction, item.call);
        // Who runs a waiting call is not kept with it: judged as the agent's own (no confined reader);
        // only a grant releases a call here, and a grant decides before the level does.
        decided = this.decideAfterRules(item.call, item.extraction, policy, false).decided;
      } catch (err) {
        // Fail closed: a call that cannot be judged again keeps waiting for its operator.
        d.log?.(`approval ${item.id} could not be judged again after a grant; it keeps waiting`, err);
        continue;
      }
      if (decided.decision !== 'allow' || decided.decider.kind !== 'grant') continue;
      try {
        if (q.releaseByGrant(item.id, decided.decider.grant)) released++;
      } catch (err) {
        d.log?.(`approval ${item.id} was not released by grant ${decided.decider.grant}`, err);
      }
    }
    return released;
  }

  private recordDecided(call: ToolCall, f: { decision: string; decider: Decider; reason: string }): void {
    // A live run records its allow before running; when the run then cannot start (the decision
    // did not reach the disk, the log failed, dry-run was switched on meanwhile), a second,
    // deny decision contradicted the first in the trail. The refusal is call.result's (with its
    // error) instead: the allow was the decision, the result says it was not carried out.
    if (this.decided.has(call)) return;
    this.decided.add(call);
    const policy = this.judgedBy.get(call);
    this.safeRecord('call.decided', deciderActor(f.decider), { call: call.id, decision: f.decision, decider: f.decider, reason: f.reason, ...(policy ? { policy } : {}) });
  }

  private finish(
    call: ToolCall,
    f: { decision: PipelineResult['decision']; decider: Decider; reason: string },
    steps: PipelineStep[],
    extraction: Extraction | undefined,
    approval?: string,
    result?: ToolResult,
    mode: PipelineMode = this.safeMode(),
    executed = false,
    contained?: ContainVerdict,
  ): PipelineResult {
    // A live run recorded its decision before running; everything else records it here.
    const refusedAfterAllow = !executed && this.decided.has(call);
    if (!executed) this.recordDecided(call, f);
    if (contained) {
      // Before the answer leaves (the gateway waits for these events to be durable): the log
      // says whether the command the agent was told to run is boxed, and the exact command line.
      this.safeRecord(
        'call.contained',
        'host',
        contained.contained
          ? { call: call.id, contained: true, box: contained.box, command: contained.command, writable: contained.plan.writable, readOnly: contained.plan.readOnly.length, masked: contained.plan.maskedDirs.length + contained.plan.maskedFiles.length, notes: contained.plan.notes }
          : { call: call.id, contained: false, box: null, reason: contained.reason },
      );
    }
    // The runner refused before starting anything (an open breaker, a full queue): nothing ran,
    // and the agent, the inbox and call.result say so.
    if (executed && result && (result.failure === 'breaker_open' || result.failure === 'queue_full')) executed = false;
    const out: PipelineResult = { decision: f.decision, decider: f.decider, reason: f.reason, steps, executed, mode };
    if (extraction) out.extraction = extraction;
    if (approval) out.approval = approval;
    if (result) out.result = result;
    if (contained) out.contained = contained;
    this.safeRecord('call.result', 'host', {
      call: call.id,
      decision: f.decision,
      executed,
      mode,
      // Not "did not run": the agent runs it itself, and its report (call.outcome) says whether it did.
      ...(this.agentRuns.has(call) ? { ranBy: 'agent' } : {}),
      ...(result ? { ok: result.ok, error: result.error, failure: result.failure, exitCode: result.exitCode, durationMs: result.durationMs } : {}),
      // Refused after its allow was recorded: why it did not run.
      ...(!result && refusedAfterAllow ? { error: f.reason } : {}),
    });
    return out;
  }

  private safeMode(): PipelineMode {
    try {
      return this.deps.mode() === 'live' ? 'live' : 'dry-run';
    } catch {
      return 'dry-run';
    }
  }

  private safeRecord(type: string, actor: string, payload: Record<string, unknown>): void {
    try {
      this.deps.record(type, actor, payload);
    } catch (err) {
      this.deps.log?.(`audit record ${type} failed`, err);
    }
  }
}

/** A checker block (or a required checker's failure, which the pool turns into a block). */
function checkerDecision(v: CheckerVerdict): { decision: 'deny'; decider: Decider; reason: string } | null {
  if (v.decision !== 'block') return null;
  if ('result' in v) {
    return { decision: 'deny', decider: { kind: 'checker', checker: v.checker, rule: v.result.rule_name }, reason: `${v.result.message} (checker ${v.checker}, rule ${v.result.rule_name})` };
  }
  return {
    decision: 'deny',
    decider: { kind: 'checker', checker: v.checker, rule: `checker.${v.failure.kind}` },
    reason: `Checker ${v.checker} could not judge this call (${v.failure.kind}: ${v.failure.message}); Gatehouse fails closed.`,
  };
}
