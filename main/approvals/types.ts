// The vocabulary of the approvals inbox: asked calls waiting for an operator, their outcomes, and
// the scoped grants an approval can leave behind.
import type { Decider, Extraction, Operation, Rule, ToolCall } from '../policy/types.js';
import type { GrantKind, GrantScope } from './grant-match.js';

// `gone`: the agent stopped waiting (cancelled, disconnected, its own timeout) before anyone
// decided. Its own state, like `expired`: nobody can approve it and the call never runs.
export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'gone'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];
export type ApprovalScope = 'once' | 'session' | 'always';

/** Audit sink: `record('approval.decided', 'operator:alice', {...})`. */
export type RecordFn = (type: string, actor: string, payload: Record<string, unknown>) => void;

/** A permission an operator granted from the inbox: this agent's session may call this tool again. */
export interface Grant {
  id: string;
  agent: string;
  session: string;
  tool: string;
  /** Glob over the canonical JSON of the arguments; null when the grant covers only `argsHash`. */
  argumentPattern: string | null;
  /** SHA-256 of the exact arguments when there is no pattern; null otherwise. */
  argsHash: string | null;
  operator: string;
  /** The approval it was granted from, when there was one. */
  approval: string | null;
  /** The transport of the approved call (a hook session's grant does not cover API calls). */
  source?: ToolCall['source'];
  /**
   * What it matches: `call` (absent in grants kept by earlier versions) the exact arguments or
   * pattern above; `command`, `path`, `host` the judge's extraction against `value` (grant-match.ts).
   */
  kind?: GrantKind;
  /** Whom it covers: this session (absent: session), this agent, or every agent. */
  scope?: GrantScope;
  /** The command prefix, folder or host of a `command`, `path` or `host` grant. */
  value?: string;
  /**
   * The operator chose to let the Bash commands this grant allows run outside the box
   * (containment): absent, they run contained whenever the `containment` setting names grants.
   */
  uncontained?: true;
  /** A command grant: the operations of the call it was made from; it covers no call that does others. */
  operations?: Operation[];
  createdAt: number;
  expiresAt: number;
}

export interface ApprovalOutcome {
  /** `expired` is not `denied`: nobody decided, and the call did not run; `gone`: nor did its agent wait. */
  state: 'approved' | 'denied' | 'expired' | 'gone';
  decider: Decider;
  reason: string;
  /** A session-scoped approval's grant. */
  grant?: Grant;
  /** An `always` approval's proposed user rule, for the UI to show before it writes it. */
  rule?: Rule;
}

export interface ApprovalRequest {
  call: ToolCall;
  extraction: Extraction;
  /** The rule, checker or autonomy setting that asked. */
  askedBy: Decider;
  reason: string;
  /** Default: the queue's `defaultExpiresInMs` (10 minutes). */
  expiresInMs?: number;
  /**
   * How long the caller itself waits (an MCP client's or a hook's own timeout, less a margin).
   * When it is nearer than the expiry, the item closes then as `gone`, with `deadlineReason`,
   * before the caller gives up, so Gatehouse answers first and nobody approves a call nobody awaits.
   */
  callerWaitsMs?: number;
  /** Why the caller's deadline is what it is ("the hook's own timeout"), shown in the inbox. */
  deadlineReason?: string;
}

/** One inbox item, as a snapshot (changing it changes nothing in the queue). */
export interface ApprovalItem {
  id: string;
  state: ApprovalState;
  call: ToolCall;
  extraction: Extraction;
  askedBy: Decider;
  reason: string;
  /** SHA-256 of the canonical JSON of the arguments; an approval must quote it. */
  argsHash: string;
  requestedAt: number;
  /** When the item closes unless decided: the nearer of the approval expiry and the caller's own deadline. */
  expiresAt: number;
  /** The nearest deadline (epoch ms, the host's clock): what the inbox counts down to. Equals `expiresAt`. */
  deadline: number;
  /** Whose deadline `deadline` is: "approval expiry", or the caller's ("the hook's own timeout"). */
  deadlineReason: string;
  decidedAt: number | null;
  /** Who approved or denied (null while pending and when it expired). */
  operator: string | null;
  scope: ApprovalScope | null;
  outcome: ApprovalOutcome | null;
}

/** A decision made at another machine's console and signed there (team mode, main/team/team-inbox.ts). */
export interface TeamOrigin {
  /** The console (machine) it was made at. */
  console: string;
  /** The operator's ed25519 signature, verified before the decision was applied. */
  signature: string;
}

export interface ApproveOptions {
  operator: string;
  /** Set only by the team inbox: recorded with the decision, so the log says from which console. */
  team?: TeamOrigin;
  /** The hash of the arguments the operator was shown (ApprovalItem.argsHash). */
  argsHash: string;
  scope: ApprovalScope;
  /** `session` only: how long the grant lives (default: the queue's `defaultGrantMs`). */
  sessionExpiresInMs?: number;
  /** `session` only: glob over the canonical JSON of the arguments; default the exact arguments. */
  argumentPattern?: string;
}

export interface DenyOptions {
  operator: string;
  team?: TeamOrigin;
  reason: string;
}

export interface ApprovalFilter {
  state?: ApprovalState;
  agent?: string;
  session?: string;
  tool?: string;
}

export interface ApproveResult {
  item: ApprovalItem;
  grant?: Grant;
  rule?: Rule;
}

/** One item of a batch decision: each is checked on its own, and one failure stops no other. */
export type BatchResult =
  | { id: string; ok: true; item: ApprovalItem }
  | { id: string; ok: false; error: { reason: string; message: string } };

/**
 * Where inbox items and grants are kept across restarts (ApprovalStore, in the audit database).
 * Each write is the whole current state of one item or grant; a failure to write is reported by
 * throwing, and the queue decides what that means (a new request fails closed; a later write is logged).
 */
export interface ApprovalPersistence {
  saveApproval(item: ApprovalItem): void;
  forgetApproval(id: string): void;
  saveGrant(grant: Grant): void;
  forgetGrant(id: string): void;
}

/** Why a call waiting for an operator was closed without a decision because the host stopped. */
export type AbandonReason = 'host shut down' | 'host stopped unexpectedly';
