// A session's calls as a waterfall: each call a bar from its first event to its last, the steps
// the host recorded (extraction, policy, approval wait, run) as segments inside, and the call's
// outcome in one word. Built only from the audit events (docs/audit-events.md): every step of a
// call carries `call`, so the events group themselves; events of no call stay beside the bars.
import type { AuditEventView } from '../../../shared/contract.ts';

export type WaterfallStep = 'extraction' | 'policy' | 'approval' | 'run';

export const stepLabel: Record<WaterfallStep, string> = {
  extraction: 'extraction',
  policy: 'policy',
  approval: 'approval wait',
  run: 'run',
};

export interface WaterfallSegment {
  step: WaterfallStep;
  /** Epoch ms. */
  start: number;
  end: number;
}

export type OutcomeTone = 'ok' | 'danger' | 'warn' | 'neutral';

export interface CallOutcome {
  /** A few words: "ran", "denied", "failed", "expired", "agent gone"… */
  label: string;
  tone: OutcomeTone;
}

export interface CallBar {
  call: string;
  tool: string | null;
  agent: string | null;
  /** What the call does in a few words: its command, file, URL or first argument; null when it has none. */
  subject: string | null;
  /** Still waiting for an operator: its bar ends at its last event, its wait does not. */
  waiting: boolean;
  /** Oldest first, as the log holds them. */
  events: AuditEventView[];
  /** Epoch ms: the call's first and last event. */
  start: number;
  end: number;
  /** The milestones, epoch ms, null when the log has no such step. */
  decidedAt: number | null;
  ranAt: number | null;
  finishedAt: number | null;
  segments: WaterfallSegment[];
  outcome: CallOutcome;
}

export interface Waterfall {
  /** The axis: the session's first and last event, epoch ms. */
  t0: number;
  t1: number;
  calls: CallBar[];
  /** Events that belong to no call (terminal output, session-wide events), oldest first. */
  others: AuditEventView[];
}

type Payload = Record<string, unknown>;
const payloadOf = (e: AuditEventView): Payload => (e.payload && typeof e.payload === 'object' && !Array.isArray(e.payload) ? (e.payload as Payload) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The call an event belongs to (`call`; PTY starts name it `callId`). */
export function eventCall(e: AuditEventView): string | null {
  const p = payloadOf(e);
  return str(p.call) ?? str(p.callId);
}

/** Arguments that say what a call does, in the order they are looked for. */
const KEY_ARGUMENTS = ['command', 'cmd', 'file_path', 'path', 'notebook_path', 'url', 'pattern', 'query', 'prompt'];

/** The argument an operator recognises a call by: its command, file or URL, else its first short string. */
export function keyArgument(args: unknown): string | null {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  const a = args as Payload;
  for (const k of KEY_ARGUMENTS) {
    const v = str(a[k]);
    if (v) return v.replace(/\s+/g, ' ').trim();
  }
  for (const [k, v] of Object.entries(a)) if (typeof v === 'string' && v.trim() !== '') return `${k}: ${v.replace(/\s+/g, ' ').trim()}`;
  return null;
}

export const WAITING_LABEL = 'waiting for an operator';

const APPROVAL_END = new Set(['approval.decided', 'approval.expired', 'approval.withdrawn', 'call.abandoned']);

/** What became of a call, from whichever of its events are at hand (all of them, or a search's share). */
export function callOutcome(events: readonly AuditEventView[]): CallOutcome {
  const last = (type: string) => [...events].reverse().find((e) => e.type === type);
  const outcome = last('call.outcome');
  if (outcome) {
    const p = payloadOf(outcome);
    return p.outcome === 'failed' ? { label: 'failed (agent ran it)', tone: 'danger' } : { label: 'ran (agent ran it)', tone: p.decision === 'deny' || p.decision === 'expired' ? 'danger' : 'ok' };
  }
  const result = last('call.result');
  if (result) {
    const p = payloadOf(result);
    const d = str(p.decision);
    if (d === 'deny') return { label: 'denied', tone: 'danger' };
    if (d === 'expired') return { label: 'expired', tone: 'warn' };
    // In dry-run nothing is let through on Gatehouse's say: a hook is answered "ask", an adapter types nothing.
    if (p.ranBy === 'agent') return str(p.mode) === 'dry-run' ? { label: 'would be allowed, not let through (dry-run)', tone: 'neutral' } : { label: 'allowed, agent runs it', tone: 'ok' };
    if (p.executed === true) return p.ok === false ? { label: 'failed', tone: 'danger' } : { label: 'ran', tone: 'ok' };
    return { label: `${d === 'allow' ? 'allowed' : (d ?? 'decided')}, not run${str(p.mode) === 'dry-run' ? ' (dry-run)' : ''}`, tone: 'neutral' };
  }
  if (last('call.abandoned')) return { label: 'abandoned', tone: 'warn' };
  if (last('approval.withdrawn')) return { label: 'agent gone', tone: 'warn' };
  if (last('approval.expired')) return { label: 'expired', tone: 'warn' };
  const decided = last('call.decided');
  if (decided) {
    const d = str(payloadOf(decided).decision);
    if (d === 'deny') return { label: 'denied', tone: 'danger' };
    if (d === 'expired') return { label: 'expired', tone: 'warn' };
    if (d === 'allow') return { label: 'allowed', tone: 'ok' };
    if (d === 'ask') return { label: WAITING_LABEL, tone: 'warn' };
  }
  if (events.some((e) => e.type === 'approval.requested')) return { label: WAITING_LABEL, tone: 'warn' };
  return { label: 'no decision recorded', tone: 'neutral' };
}

function bar(call: string, events: AuditEventView[]): CallBar {
  const first = (type: string) => events.find((e) => e.type === type);
  const received = first('call.received');
  const extracted = first('call.extracted');
  const asked = first('approval.requested');
  const answered = events.find((e) => APPROVAL_END.has(e.type));
  const decided = first('call.decided');
  const started = first('execution.started');
  const ended = events.find((e) => e.type === 'execution.ended' && e.seq > (started?.seq ?? 0));
  const result = first('call.result');
  const reported = first('call.outcome');
  const start = events[0]!.ts;
  const end = events[events.length - 1]!.ts;
  const segments: WaterfallSegment[] = [];
  const push = (step: WaterfallStep, from: number, to: number) => segments.push({ step, start: Math.max(start, from), end: Math.max(Math.max(start, from), Math.min(end, to)) });

  const policyFrom = extracted ?? received;
  if (received && extracted) push('extraction', received.ts, extracted.ts);
  const policyTo = asked ?? decided;
  if (policyFrom && policyTo) push('policy', policyFrom.ts, policyTo.ts);
  if (asked) push('approval', asked.ts, (answered ?? decided ?? events[events.length - 1]!).ts);
  let ranAt: number | null = null;
  if (started) {
    ranAt = started.ts;
    push('run', started.ts, (ended ?? result ?? events[events.length - 1]!).ts);
  } else {
    // No execution events: a hook call run by the agent (its report carries how long it took),
    // or a run the result alone describes.
    const timed = reported ?? (result && payloadOf(result).executed === true ? result : undefined);
    const d = timed ? num(payloadOf(timed).durationMs) : null;
    if (timed && d !== null) {
      ranAt = timed.ts - d;
      push('run', timed.ts - d, timed.ts);
    }
  }
  const p = received ? payloadOf(received) : payloadOf(events[0]!);
  const outcome = callOutcome(events);
  return {
    call,
    tool: str(p.tool),
    agent: str(p.agent),
    subject: keyArgument(p.arguments),
    waiting: outcome.label === WAITING_LABEL,
    events,
    start,
    end,
    decidedAt: decided?.ts ?? null,
    ranAt,
    finishedAt: (reported ?? result)?.ts ?? null,
    segments,
    outcome,
  };
}

/** The waterfall of a session's events (any order in; bars by start, then by first seq). */
export function buildWaterfall(events: readonly AuditEventView[]): Waterfall {
  const sorted = [...events].sort((a, b) => a.seq - b.seq);
  const byCall = new Map<string, AuditEventView[]>();
  const others: AuditEventView[] = [];
  for (const e of sorted) {
    const c = eventCall(e);
    if (c === null) others.push(e);
    else {
      const list = byCall.get(c);
      if (list) list.push(e);
      else byCall.set(c, [e]);
    }
  }
  const calls = [...byCall].map(([call, list]) => bar(call, list)).sort((a, b) => a.start - b.start || a.events[0]!.seq - b.events[0]!.seq);
  const times = sorted.map((e) => e.ts);
  return { t0: times.length ? Math.min(...times) : 0, t1: times.length ? Math.max(...times) : 0, calls, others };
}

/** Round steps for the axis: about `target` ticks over `span` ms. */
export function axisTicks(span: number, target = 6): number[] {
  if (span <= 0) return [0];
  const raw = span / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = 0; t <= span + 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  return ticks;
}

/** An offset from the session's start: "+0 ms", "+250 ms", "+1.25 s", "+2:05". */
export function formatOffset(ms: number): string {
  if (ms < 1000) return `+${Math.round(ms)} ms`;
  if (ms < 60_000) return `+${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.round(ms / 1000);
  return `+${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A duration: "3 ms", "1.20 s", "2:05 min". */
export function formatSpan(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} min`;
}
