// `gatehouse team init|status` and `gatehouse audit verify --team`: the team database read and set
// up from any machine that can reach it, with or without a running host. The URL comes from the
// command line without a password, or from GATEHOUSE_TEAM_URL (team-url.ts).
import type { Command } from 'commander';
import { examplesHelp } from './gatehouse-command.js';
import { UsageError } from '../core/usage-error.js';
import { TEAM_URL_ENV, requireTeamUrl, shownUrl } from '../team/team-url.js';
import type { Pool } from '../team/team-db.js';
import { addTeamPolicyCommands } from './team-policy-commands.js';
import { addTeamGrantCommands } from './team-grant-commands.js';
import { displayText, jsonText } from '../../shared/display-text.js';
import { formatAgo } from '../../shared/format.js';

const AGE = /^(\d+)\s*([smhd])$/;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--stale 10m`: how long a member may go unseen before it counts as having stopped shipping. */
export function parseStale(v: string): number {
  const m = AGE.exec(v.trim());
  if (!m) throw new UsageError(`--stale must be an age like 90s, 10m, 2h or 1d, not "${v}".`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Runs `fn` on the team database; a connection or SQL failure becomes one sentence naming the URL. */
export async function onTeam<T>(url: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
  const { describePgError, withTeamPool } = await import('../team/team-db.js');
  try {
    return await withTeamPool(url, fn);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new Error(`team database ${shownUrl(url)}: ${describePgError(err)}`, { cause: err });
  }
}

export function addTeamCommands(cli: Command): void {
  const team = cli
    .command('team')
    .description('Team mode on PostgreSQL: set up the team database, see its members.')
    .addHelpText('after', examplesHelp([
      ['create or migrate the schema', 'gatehouse team init postgres://gatehouse@db.internal/gatehouse?sslmode=verify-full'],
      ['members, how far each has shipped, and their lag', `${TEAM_URL_ENV}=postgres://… gatehouse team status`],
    ], 'A URL on the command line must not carry a password: put it in GATEHOUSE_TEAM_URL, PGPASSFILE or ~/.pgpass.'));

  team
    .command('init')
    .description('Create the team schema in a PostgreSQL database, or migrate it to this version (safe to run again).')
    .argument('[url]', `postgres://USER@HOST:PORT/DATABASE (no password); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse team init postgres://gatehouse@127.0.0.1:5432/gatehouse']))
    .action(async (given: string | undefined) => {
      const url = requireTeamUrl(given);
      const { migrateTeam } = await import('../team/migrations/migrate.js');
      const r = await onTeam(url, async (pool) => {
        const client = await pool.connect();
        try {
          return await migrateTeam(client);
        } finally {
          client.release();
        }
      });
      console.log(r.from === r.to ? `Team database ${shownUrl(url)} is at schema version ${r.to}; nothing to do.` : `Team database ${shownUrl(url)} migrated from schema version ${r.from} to ${r.to}.`);
    });

  team
    .command('add-role <role>')
    .description("Create a login role for one member machine (row-level security holds it to that member's rows) or for operators' consoles; run as the team database's owner.")
    .option('--member <name>', 'the member this role ships as (its --team-member name)')
    .option('--console', "a role for operators' consoles: reads every member's rows, may store decisions (members still honour only signed ones)")
    .option('--team-url <url>', `the team database, as its owner (no password in it); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse team add-role laptop_ana --member laptop-ana', 'gatehouse team add-role consoles --console'], "Give the role a password (psql: \\password laptop_ana) or a certificate; the member's URL then names it: postgres://laptop_ana@db.internal/gatehouse."))
    .action(async (role: string, o: { member?: string; console?: boolean; teamUrl?: string }) => {
      if ((o.member === undefined) === (o.console !== true)) throw new UsageError('Say what the role is for: --member NAME (one member machine) or --console (operators\' consoles).');
      const url = requireTeamUrl(o.teamUrl);
      const { addTeamRole } = await import('../team/team-roles.js');
      const r = await onTeam(url, (pool) => addTeamRole(pool, role, o.member !== undefined ? { member: o.member } : { console: true }));
      console.log(`${r.created ? 'Created' : 'Updated'} role ${role}: ${o.member !== undefined ? `member ${displayText(o.member)}'s machine; it may write only that member's events and asks, and no decision or operator key` : "operators' consoles; they read the whole team and may store decisions"}. Give it a password or certificate, and put it in the URL that machine uses.`);
    });

  team
    .command('status')
    .description('The members of the team: how far each has shipped, its lag at its last contact, and when that was.')
    .argument('[url]', `postgres://USER@HOST:PORT/DATABASE (no password); default: $${TEAM_URL_ENV}`)
    .option('--stale <age>', 'a member not seen for this long has stopped shipping', '10m')
    .option('--json', 'one JSON object: members')
    .addHelpText('after', examplesHelp(['gatehouse team status --json']))
    .action(async (given: string | undefined, o: { stale: string; json?: boolean }) => {
      const staleMs = parseStale(o.stale);
      const url = requireTeamUrl(given);
      const [{ listMembers }, { policyVersion }] = await Promise.all([import('../team/team-members.js'), import('../team/team-policy.js')]);
      const { members, newest } = await onTeam(url, async (pool) => ({ members: await listMembers(pool), newest: (await policyVersion(pool))?.version ?? null }));
      if (o.json) {
        console.log(jsonText({ members: members.map((m) => ({ ...m, stopped: m.seenAgoMs > staleMs })), policyVersion: newest }));
        return;
      }
      if (newest !== null) console.log(`Team policy: version ${newest} is the newest published.`);
      if (members.length === 0) {
        console.log(`No member has shipped to ${shownUrl(url)} yet: start a host with gatehouse serve --team URL.`);
        return;
      }
      const now = Date.now();
      const rows = members.map((m) => [displayText(m.name), String(m.shippedSeq), String(m.localHeadSeq), String(m.lag), m.policyVersion === null ? '-' : String(m.policyVersion), formatAgo(now - m.seenAgoMs, now), m.seenAgoMs > staleMs ? 'stopped shipping' : m.lag > 0 ? 'behind' : 'up to date']);
      const head = ['MEMBER', 'SHIPPED', 'LOCAL HEAD', 'LAG', 'POLICY', 'LAST SEEN', 'STATE'];
      const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      for (const r of [head, ...rows]) console.log(r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(width[i]!))).join('  '));
    });

  addTeamPolicyCommands(team);
  addTeamGrantCommands(team);
}

/** `gatehouse audit verify --team`: prints one verdict per member; exit 1 when any is not intact. */
export async function verifyTeamCommand(o: { teamUrl?: string; stale: string; member?: string }): Promise<void> {
  const staleMs = parseStale(o.stale);
  const url = requireTeamUrl(o.teamUrl);
  const [{ requireTeamSchema }, { verifyTeam }, { unsignedDecisions }, { unsignedPolicies }] = await Promise.all([import('../team/migrations/migrate.js'), import('../team/team-verify.js'), import('../team/team-decisions.js'), import('../team/team-policy.js')]);
  const { verdicts, decisions, policies } = await onTeam(url, async (pool) => ({ schema: await requireTeamSchema(pool), verdicts: await verifyTeam(pool, { staleMs, ...(o.member ? { member: o.member } : {}) }), decisions: await unsignedDecisions(pool, o.member), policies: await unsignedPolicies(pool) }));
  // A policy version nobody signed was written with a console role's or the owner's credentials:
  // members refuse it, and the trail says it is there.
  for (const { policy: p, problem } of policies.bad) console.log(`team policy version ${p.version} NOT signed by an operator: ${displayText(problem)} (it claims ${displayText(p.operator)} from ${displayText(p.console)}).`);
  if (policies.checked > 0) console.log(policies.bad.length === 0 ? `Team policy: ${policies.checked} ${policies.checked === 1 ? 'version' : 'versions'} signed by registered operators.` : `Team policy: ${policies.bad.length} of ${policies.checked} versions NOT signed by a registered operator.`);
  if (policies.bad.length > 0) process.exitCode = 1;
  // A decision without a valid operator signature was written with someone's database credentials, not
  // decided by an operator: members refuse it, and the trail says it is there.
  for (const { decision: x, problem } of decisions.bad) console.log(`${displayText(x.member)}: decision on ${displayText(x.approvalId)} NOT signed by an operator: ${displayText(problem)} (it claims ${displayText(x.decision)} by ${displayText(x.operator)} from ${displayText(x.console)}).`);
  if (decisions.checked > 0) console.log(decisions.bad.length === 0 ? `Team decisions: ${decisions.checked} signed by registered operators.` : `Team decisions: ${decisions.bad.length} of ${decisions.checked} NOT signed by a registered operator.`);
  if (decisions.bad.length > 0) process.exitCode = 1;
  if (verdicts.length === 0) {
    console.log(`No member has shipped to ${shownUrl(url)} yet: nothing to verify.`);
    return;
  }
  const now = Date.now();
  for (const v of verdicts) {
    const name = displayText(v.member);
    if (v.failure) console.log(`${name}: chain broken: ${displayText(v.failure)}. ${v.checked} rows before it verified.`);
    else console.log(`${name}: chain intact: ${v.checked} events, head row ${v.head.seq} (${v.head.hash.slice(0, 16)}…).`);
    // The hashes are as a member wrote them to the team database: escaped like the rest.
    for (const f of v.forks) console.log(`${name}: fork at row ${f.seq}: the team database holds ${displayText(f.storedHash.slice(0, 12))}…, ${f.offeredHash === '' ? "the member's log ends before it" : `the member later offered ${displayText(f.offeredHash.slice(0, 12))}…`} (two hosts under one name, or a replaced log).`);
    if (v.stopped) console.log(`${name}: stopped shipping: last seen ${formatAgo(now - v.stopped.seenAgoMs, now)}, ${v.stopped.lag} events not shipped then.`);
  }
  const bad = [...new Set([...verdicts.filter((v) => !v.ok).map((v) => v.member), ...decisions.bad.map((b) => b.decision.member)])].map((m) => displayText(m));
  if (policies.bad.length > 0) bad.push('the team policy');
  console.log(bad.length === 0 ? `Team trail intact: ${verdicts.length} ${verdicts.length === 1 ? 'member' : 'members'}.` : `Team trail NOT intact: ${bad.join(', ')}.`);
  if (bad.length > 0) process.exitCode = 1;
}
