// `gatehouse approvals list|approve|deny --team`: the team inbox from any machine that can reach the
// team database, without a running host. A decision is signed here with this home's operator key
// (operator-keys.ts) and stored only if nobody decided first; the member that asked applies it once
// it has checked the signature, and answers its agent.
import { setTimeout as delay } from 'node:timers/promises';
import { requireTeamUrl, memberName } from '../team/team-url.js';
import { loadOperatorKey } from '../team/operator-keys.js';
import { ASKS_CHANNEL, pendingAsks, type TeamAsk } from '../team/team-decisions.js';
import { decideAsk, findAsk, notStored } from '../team/team-decide.js';
import type { Pool } from '../team/team-db.js';
import { briefArguments, displayText, jsonText } from '../../shared/display-text.js';
import { onTeam } from './team-commands.js';

/** How long `approve --team` waits to see the member apply the decision before saying it has not yet. */
const APPLIED_WAIT_MS = 10_000;

const d = (v: string) => displayText(v);

export interface TeamCliOptions {
  teamUrl?: string;
  home: string;
  operator?: string;
  member?: string;
  json?: boolean;
}

/** The ask's arguments (JSON as the member shipped it) with every key shown, as in the local listing. */
function teamArguments(json: string): string {
  try {
    return briefArguments(JSON.parse(json));
  } catch {
    return d(json);
  }
}

function formatAsk(a: TeamAsk, now: number): string {
  return [
    `${d(a.approvalId)}  pending (${Math.max(0, Math.round((a.deadline - now) / 1000))} s left)  on ${d(a.member)}  ${d(a.agent)} / ${d(a.session)}  ${d(a.tool)}`,
    `  arguments: ${teamArguments(a.arguments)}`,
    `  runs in: ${a.cwd !== null ? d(a.cwd) : 'not published (the ask predates team migration 7): decide it on its own machine'}`,
    `  asked because: ${d(a.reason)}`,
  ].join('\n');
}

export async function listTeamAsks(o: TeamCliOptions): Promise<void> {
  const url = requireTeamUrl(o.teamUrl);
  const asks = await onTeam(url, (pool) => pendingAsks(pool));
  if (o.json) console.log(jsonText(asks, 2));
  else if (asks.length === 0) console.log('No pending approvals in the team inbox.');
  else console.log(asks.map((a) => formatAsk(a, Date.now())).join('\n\n'));
}

/** Waits (LISTEN, no polling) until the member has closed the ask, i.e. applied the decision; false after the wait. */
async function applied(pool: Pool, a: TeamAsk): Promise<string | null> {
  const c = await pool.connect();
  try {
    let wake: () => void = () => {};
    c.on('notification', (n) => {
      if (n.channel === ASKS_CHANNEL) wake();
    });
    await c.query(`LISTEN ${ASKS_CHANNEL}`);
    const until = Date.now() + APPLIED_WAIT_MS;
    for (;;) {
      const changed = new Promise<void>((resolve) => (wake = resolve));
      const state = (await c.query<{ state: string }>('SELECT state FROM team_asks WHERE member = $1 AND approval_id = $2', [a.member, a.approvalId])).rows[0]?.state;
      if (state !== undefined && state !== 'pending') return state;
      const left = until - Date.now();
      if (left <= 0) return null;
      // The timer is cancelled once the member answered: a pending one kept the command alive for
      // the rest of the wait after it had printed its answer.
      const timeout = new AbortController();
      await Promise.race([changed, delay(left, undefined, { signal: timeout.signal }).catch(() => {})]);
      timeout.abort();
    }
  } finally {
    await c.query(`UNLISTEN ${ASKS_CHANNEL}`).catch(() => {});
    c.release();
  }
}

/** Signs and stores a decision on a team ask (team-decide.ts); exit 1 when another decision came first or the ask closed. */
export async function decideOnTeam(id: string, decision: 'approved' | 'denied', o: TeamCliOptions & { reason?: string; hash?: string }): Promise<void> {
  const url = requireTeamUrl(o.teamUrl);
  const key = loadOperatorKey(o.home, o.operator);
  const consoleName = memberName(undefined);
  await onTeam(url, async (pool) => {
    const a = await findAsk(pool, id, o.member);
    const r = await decideAsk(pool, { ask: a, decision, ...(o.reason !== undefined ? { reason: o.reason } : {}), ...(o.hash !== undefined ? { hash: o.hash } : {}), key, console: consoleName, now: Date.now() });
    const refused = notStored(a, r);
    if (refused !== null) {
      console.error(refused);
      process.exitCode = 1;
      return;
    }
    const verb = decision === 'approved' ? 'Approved' : 'Denied';
    const state = await applied(pool, a);
    if (state === decision) console.log(`${verb} ${d(id)} on ${d(a.member)} as ${d(key.name)}: ${d(a.tool)}; ${d(a.member)} checked the signature and answered its agent.`);
    else if (state === null) console.log(`${verb} ${d(id)} on ${d(a.member)} as ${d(key.name)}: ${d(a.tool)}; stored and signed, but ${d(a.member)} has not applied it yet (its link may be down: it reads it when it reconnects).`);
    else {
      console.error(`Your decision on ${d(id)} was stored, but ${d(a.member)} closed the ask as ${d(state)} instead (it expired, its agent left, it was decided there first, or your decision was signed for an ask that was not its call: its log says why, as team.decision-refused).`);
      process.exitCode = 1;
    }
  });
}
