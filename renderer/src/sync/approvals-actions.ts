// The Approvals and Grants domains: the inbox and the live grants, loaded on connect and
// refreshed on the host's events (bindApprovals, bindGrants), and what the views do with them:
// decide items (always with the argsHash of the item the operator was shown), revoke grants.
// Every failure lands in a store as a sentence.
import type { ApprovalItemView, ProposedRuleView, RequestOf, ResponseOf } from '../../../shared/contract.ts';
import { errorMessage } from '../lib/error-message.ts';
import { initialApprovalsState, useApprovalsStore, type BatchOutcome } from '../stores/approvals-store.ts';
import { initialGrantsState, useGrantsStore } from '../stores/grants-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import { notifyNewApprovals } from './approval-notifications.ts';
import { bindDomain, latest, type Sent } from './bind-domain.ts';
import { hostAction } from './host-action.ts';

const set = useApprovalsStore.setState;
const get = useApprovalsStore.getState;

/** A batch decision changes many items at once: refetch the inbox (and grants) once. */
export const APPROVALS_REFRESH_MS = 50;

/** The inbox answer to keep: an older list never overwrites a newer list or a decision's answer. */
const inbox = latest();

export function bindApprovals(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.refresher(() => loadApprovals(client), APPROVALS_REFRESH_MS);
    d.on('approvals.changed', ({ pending, added }) => {
      // The badge and the title follow the push at once; the list follows the refetch.
      set({ pendingCount: pending });
      refresh.request();
      notifyNewApprovals(client.shell, added);
    });
    return {
      load: () => loadApprovals(client),
      reset: () => {
        inbox.supersede();
        set({ ...initialApprovalsState });
      },
    };
  });
}

/** The host read its clock between sending and receiving: the midpoint bounds the error by half a round trip. */
function offsetFrom(sent: number, received: number, hostNow: number): number {
  return Math.round((sent + received) / 2 - hostNow);
}

export async function loadApprovals(client: GatehouseClient): Promise<void> {
  const req = inbox.begin();
  try {
    const sent = Date.now();
    const { items, now } = await client.call('approvals.list', {});
    const received = Date.now();
    if (!req.current()) return;
    const pending = new Set(items.filter((i) => i.state === 'pending').map((i) => i.id));
    set((s) => ({
      items,
      pendingCount: pending.size,
      clockOffset: offsetFrom(sent, received, now),
      loaded: true,
      listError: null,
      // Details stay open only for items still waiting.
      expanded: s.expanded.filter((id) => pending.has(id)),
    }));
  } catch (err) {
    if (req.current()) set({ listError: errorMessage(err) });
  }
}

/**
 * Puts a decided item in place at once; the approvals.changed refetch follows. A list asked for
 * before the decision was sent is dropped; one asked for since (on the push for this decision,
 * or for the calls a new grant released meanwhile) still lands: it knows more than this answer.
 */
function replaceItem(item: ApprovalItemView, sent: Sent): void {
  sent.answered();
  set((s) => {
    const items = s.items.map((i) => (i.id === item.id ? item : i));
    return { items, pendingCount: items.filter((i) => i.state === 'pending').length };
  });
}

async function decide(id: string, work: () => Promise<ApprovalItemView>): Promise<boolean> {
  if (get().busy) return false;
  set({ busy: id, actionError: null });
  const sent = inbox.sent();
  try {
    const item = await work();
    replaceItem(item, sent);
    set({ busy: null });
    return true;
  } catch (err) {
    set({ busy: null, actionError: errorMessage(err) });
    return false;
  }
}

export function approveOnce(client: GatehouseClient, item: ApprovalItemView): Promise<boolean> {
  return decide(item.id, async () => (await client.call('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'once' })).item);
}

export function approveForSession(client: GatehouseClient, item: ApprovalItemView, opts: { sessionMinutes?: number; argumentPattern?: string }): Promise<boolean> {
  const req: RequestOf<'approvals.approve'> = { id: item.id, argsHash: item.argsHash, scope: 'session' };
  if (opts.sessionMinutes !== undefined) req.sessionMinutes = opts.sessionMinutes;
  if (opts.argumentPattern) req.argumentPattern = opts.argumentPattern;
  return decide(item.id, async () => (await client.call('approvals.approve', req)).item);
}

/** "Don't ask again for …": approve this call once and keep a command-prefix, folder or host grant that covers it. */
export function approveWithGrant(client: GatehouseClient, item: ApprovalItemView, opts: Omit<RequestOf<'approvals.grant'>, 'id' | 'argsHash'>): Promise<boolean> {
  return decide(item.id, async () => (await client.call('approvals.grant', { id: item.id, argsHash: item.argsHash, ...opts })).item);
}

/** What a candidate grant would have matched in the last hour; changes nothing. */
export function previewGrant(client: GatehouseClient, item: ApprovalItemView, opts: Omit<RequestOf<'grants.preview'>, 'id'>): Promise<ResponseOf<'grants.preview'>> {
  return client.call('grants.preview', { id: item.id, ...opts });
}

/** Approve and write the proposed rule to policy.yaml (after the operator read it). */
export function approveAlways(client: GatehouseClient, item: ApprovalItemView): Promise<boolean> {
  return decide(item.id, async () => (await client.call('approvals.approve', { id: item.id, argsHash: item.argsHash, scope: 'always' })).item);
}

export function deny(client: GatehouseClient, item: ApprovalItemView, reason: string): Promise<boolean> {
  return decide(item.id, () => client.call('approvals.deny', { id: item.id, reason }));
}

export function proposeRule(client: GatehouseClient, item: ApprovalItemView): Promise<ProposedRuleView> {
  return client.call('approvals.proposeRule', { id: item.id });
}

/** One decision for a filtered selection; each item is answered on its own. */
export async function decideBatch(client: GatehouseClient, action: 'approve' | 'deny', items: readonly ApprovalItemView[], reason?: string): Promise<boolean> {
  if (get().busy || items.length === 0) return false;
  set({ busy: 'batch', actionError: null, batch: null });
  const byId = new Map(items.map((i) => [i.id, i]));
  const sent = inbox.sent();
  try {
    const { results } = await client.call('approvals.batch', {
      action,
      items: items.map((i) => ({ id: i.id, argsHash: i.argsHash })),
      ...(reason ? { reason } : {}),
    });
    const outcomes: BatchOutcome[] = results.map((r) => {
      const i = byId.get(r.id);
      const base = { id: r.id, tool: i?.call.tool ?? '?', agent: i?.call.agent ?? '?' };
      return r.ok ? { ...base, ok: true, message: r.item.state } : { ...base, ok: false, message: r.error.message };
    });
    for (const r of results) if (r.ok) replaceItem(r.item, sent);
    set({ busy: null, batch: { action, results: outcomes } });
    return true;
  } catch (err) {
    set({ busy: null, actionError: errorMessage(err) });
    return false;
  }
}

// ---- grants ---------------------------------------------------------------------------------

/** The grants answer to keep: an older list never overwrites a newer list or a revoke. */
const grantList = latest();

export function bindGrants(client: GatehouseClient): () => void {
  return bindDomain(client, (d) => {
    const refresh = d.refresher(() => loadGrants(client), APPROVALS_REFRESH_MS);
    d.on('grants.changed', () => refresh.request());
    return {
      load: () => loadGrants(client),
      reset: () => {
        grantList.supersede();
        useGrantsStore.setState({ ...initialGrantsState });
      },
    };
  });
}

export async function loadGrants(client: GatehouseClient): Promise<void> {
  const req = grantList.begin();
  try {
    const sent = Date.now();
    const { grants, now } = await client.call('grants.list', {});
    const received = Date.now();
    if (!req.current()) return;
    useGrantsStore.setState({ grants, clockOffset: offsetFrom(sent, received, now), loaded: true, listError: null });
  } catch (err) {
    if (req.current()) useGrantsStore.setState({ listError: errorMessage(err) });
  }
}

export async function revokeGrant(client: GatehouseClient, id: string): Promise<void> {
  if (useGrantsStore.getState().busy) return;
  useGrantsStore.setState({ busy: id, actionError: null });
  const sent = grantList.sent();
  try {
    await client.call('grants.revoke', { id });
    sent.answered();
    useGrantsStore.setState((s) => ({ busy: null, grants: s.grants.filter((g) => g.id !== id) }));
  } catch (err) {
    useGrantsStore.setState({ busy: null, actionError: { id, message: errorMessage(err) } });
  }
}

/** A pending write's file as it is on disk now, for the diff in the approval's detail. */
export const fileBefore = hostAction('approvals.fileBefore');
