// How an audit event reads in one line: its agent and tool, its decision, its plugin and a
// summary sentence. Payloads differ per event type (docs/ lists them); unknown ones still get a
// line made of their first fields, so a new event type never shows as an empty row.
import { describeDecider } from '../../../shared/decider.ts';
import type { AuditEventView, DeciderView } from '../../../shared/contract.ts';
import { callSourceLabel } from './call-source.ts';

type Payload = Record<string, unknown>;

const payloadOf = (e: AuditEventView): Payload => (e.payload && typeof e.payload === 'object' && !Array.isArray(e.payload) ? (e.payload as Payload) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function isDecider(v: unknown): v is DeciderView {
  return !!v && typeof v === 'object' && typeof (v as { kind?: unknown }).kind === 'string';
}

/** "agent · tool", or whichever of the two the event names. */
export function agentTool(e: AuditEventView): string {
  const p = payloadOf(e);
  const agent = str(p.agent);
  const tool = str(p.tool);
  return [agent, tool].filter(Boolean).join(' · ');
}

export function decisionOf(e: AuditEventView): string | null {
  const p = payloadOf(e);
  if (e.type === 'approval.decided' || e.type === 'approval.expired' || e.type === 'approval.withdrawn') return str(p.state);
  return str(p.decision);
}

export function pluginOf(e: AuditEventView): string | null {
  const p = payloadOf(e);
  if (str(p.plugin)) return str(p.plugin);
  if (e.type.startsWith('plugin.') && str(p.name)) return str(p.name);
  return null;
}

export function callOf(e: AuditEventView): string | null {
  const p = payloadOf(e);
  return str(p.call) ?? str(p.callId);
}

export function deciderText(v: unknown): string | null {
  return isDecider(v) ? describeDecider(v) : null;
}

const clip = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** One line for the table and the timeline. */
export function summarize(e: AuditEventView): string {
  const p = payloadOf(e);
  switch (e.type) {
    case 'call.received': {
      const args = p.arguments !== undefined ? ` ${JSON.stringify(p.arguments)}` : '';
      // The agent is the token's name; what the client calls itself is a label beside it.
      const client = str(p.client);
      const who = `${str(p.agent) ?? 'an agent'}${client && client !== str(p.agent) ? ` (${client})` : ''}`;
      const agent = str(p.agent);
      const source = str(p.source);
      const via = agent && source ? callSourceLabel({ agent, source, client: client ?? undefined }) : (source ?? '?');
      return clip(`${str(p.tool) ?? 'a tool'} called by ${who} over ${via}${args}`);
    }
    case 'call.extracted': {
      const ops = Array.isArray(p.operations) ? p.operations.join(', ') : '';
      const cmd = str(p.command);
      return clip(`${ops || 'no operations'}${cmd ? ` — ${oneLine(cmd)}` : ''}${p.evasive ? ' (evasive)' : ''}`);
    }
    case 'rule.matched':
      return clip(`rule ${str(p.rule) ?? '?'} → ${str(p.decision) ?? '?'}${str(p.detail) ? `: ${oneLine(str(p.detail)!)}` : ''}`);
    case 'call.decided':
      return clip(`${str(p.decision) ?? '?'} by ${deciderText(p.decider) ?? 'unknown'}${str(p.reason) ? ` — ${oneLine(str(p.reason)!)}` : ''}`);
    case 'call.result':
      // A hook call: the agent runs the tool itself. Until it reports (call.outcome), nobody knows
      // whether it ran, so this never reads "not executed" for a call the agent was let run.
      if (p.ranBy === 'agent') {
        const d = str(p.decision) ?? '?';
        return clip(d === 'deny' || d === 'expired' ? `${d}, the agent was told not to run it (${str(p.mode) ?? '?'})` : `${d}, run by the agent itself: outcome unknown until it reports (${str(p.mode) ?? '?'})`);
      }
      return clip(`${str(p.decision) ?? '?'}, ${p.executed ? 'executed' : 'not executed'} (${str(p.mode) ?? '?'})${typeof p.exitCode === 'number' ? `, exit ${p.exitCode}` : ''}${typeof p.durationMs === 'number' ? ` in ${Math.round(p.durationMs)} ms` : ''}`);
    case 'call.outcome': {
      const ran = p.outcome === 'failed' ? 'failed' : 'executed';
      const against = p.decision === 'deny' || p.decision === 'expired' ? ` although Gatehouse answered ${str(p.decision)}` : '';
      const took = typeof p.durationMs === 'number' ? ` in ${Math.round(p.durationMs)} ms` : '';
      return clip(`${ran} by the agent${against}${took}${p.interrupted ? ' (interrupted)' : ''}: ${oneLine(str(p.summary) ?? '')}`);
    }
    case 'approval.requested':
      return clip(`asked by ${deciderText(p.askedBy) ?? 'policy'}${str(p.reason) ? ` — ${oneLine(str(p.reason)!)}` : ''}`);
    case 'approval.decided':
      return clip(`${str(p.state) ?? 'decided'} by ${str(p.operator) ? `operator ${str(p.operator)}` : e.actor}${str(p.reason) ? ` — ${oneLine(str(p.reason)!)}` : ''}`);
    case 'approval.expired':
      return 'expired without a decision (the call did not run)';
    case 'approval.withdrawn':
      return clip(`agent gone${str(p.reason) ? ` — ${oneLine(str(p.reason)!)}` : ' (the call did not run)'}`);
    case 'call.abandoned':
      return p.answered === true
        ? 'abandoned: Gatehouse shut down while the call waited; the agent was answered with a denial'
        : 'abandoned: Gatehouse stopped unexpectedly while the call waited; closed at the next start (nobody could be answered)';
    case 'execution.started':
      return clip(`${str(p.plugin) ?? '?'}/${str(p.tool) ?? '?'} started${p.sandboxed === false ? ' without sandbox' : ''}`);
    case 'execution.ended':
      return clip(
        `${p.ok ? 'ok' : `failed (${str(p.failure) ?? 'error'})`}, exit ${p.exitCode ?? '—'} in ${typeof p.durationMs === 'number' ? p.durationMs : '?'} ms, ${typeof p.outputBytes === 'number' ? p.outputBytes : 0} bytes out`,
      );
    case 'pty.transcript':
      return clip(oneLine(str(p.data) ?? ''));
    default: {
      const parts = Object.entries(p)
        .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
        .slice(0, 4)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? oneLine(v) : String(v)}`);
      return clip(parts.join(' '));
    }
  }
}

/** The timeline's label for a step: what kind of step of the story it is. */
export function stepKind(type: string): string {
  if (type === 'call.received') return 'received';
  if (type === 'call.decided' || type === 'rule.matched' || type === 'checker.verdict') return 'decision';
  if (type.startsWith('approval.') || type === 'call.abandoned') return 'approval';
  if (type.startsWith('execution.') || type === 'call.result' || type === 'call.outcome') return 'execution';
  if (type.startsWith('pty.')) return 'pty';
  if (type.startsWith('grant.')) return 'grant';
  return 'other';
}
