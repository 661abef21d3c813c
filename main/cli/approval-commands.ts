// `gatehouse approvals list|approve|deny`: the inbox for headless operators. Pending calls live
// in the running host, so these commands need one (they never start their own).
import type { Command } from 'commander';
import type { ApprovalItemView } from '../../shared/contract.js';
import { defaultHome } from '../home.js';
import { describeDecider } from '../../shared/decider.js';
import { connectHost, type HostCaller } from './host-client.js';
import { runningHost } from './running-host.js';
import { UsageError } from '../core/usage-error.js';
import { examplesHelp } from './gatehouse-command.js';
import { briefArguments, displayText, jsonText } from '../../shared/display-text.js';
import { TEAM_URL_ENV } from '../team/team-url.js';

/** The options that take a command to the team inbox (docs/team.md) instead of this machine's host. */
function teamOptions(c: Command, decides: boolean): Command {
  c.option('--team', `the team inbox in the team database (URL: --team-url or $${TEAM_URL_ENV}) instead of the running host's`).option('--team-url <url>', 'the team database (no password in it; see gatehouse team --help)');
  if (decides) c.option('--operator <name>', 'with --team: sign as this operator (default: the one key in this home, from gatehouse operator create)').option('--member <name>', 'with --team: the member that asked, if two hold this id');
  return c;
}

interface TeamFlags {
  team?: boolean;
  teamUrl?: string;
  operator?: string;
  member?: string;
}

/** The team inbox's client (signing, PostgreSQL) is loaded by a --team command only. */
const teamApprovals = () => import('./team-approvals.js');

const onTeam = (o: TeamFlags) => o.team === true || o.teamUrl !== undefined;

async function running(home: string): Promise<HostCaller> {
  const h = await runningHost(home);
  if (!h.ok) throw new UsageError(`No Gatehouse is running for ${home} (${h.why}). Pending approvals live in the running host; start it with \`gatehouse serve\`.`);
  return connectHost(home);
}

/** Cut to `max` characters, then made safe to print: escapes are added after the cut, so none is cut in half. */
function fold(v: string, max = 120): string {
  return displayText(v.length > max ? `${v.slice(0, max - 1)}…` : v);
}

// Everything in an approval except its id and state came from the agent (tool, arguments, agent and
// session names) or quotes it (paths, reasons): each is escaped, so escape codes, newlines and bidi
// controls in it cannot erase, forge or reorder lines of the operator's terminal.
const d = (v: string) => displayText(v);

export function formatItem(i: ApprovalItemView, now: number): string {
  // The nearest deadline, and whose it is when the agent's own timeout comes first.
  const left = Math.max(0, Math.round((i.deadline - now) / 1000));
  const whose = i.deadlineReason !== 'approval expiry' ? `, ${d(i.deadlineReason)}` : '';
  const x = i.extraction;
  const lines = [
    `${d(i.id)}  ${i.state === 'gone' ? 'agent gone' : i.state}${i.state === 'pending' ? ` (${left} s left${whose})` : ''}  ${d(i.call.agent)}${i.call.client !== undefined && i.call.client !== i.call.agent ? ` (${d(i.call.client)})` : ''} / ${d(i.call.session)}  ${d(i.call.tool)}`,
    // What runs is shown whole: the command, every path and every argument (long strings cut one
    // by one). A listing cut at a length let a long start push the part that matters out of view.
    ...(x.command ? [`  command: ${d(x.command)}`] : []),
    `  arguments: ${briefArguments(i.call.arguments)}`,
    `  operations: ${x.operations.join(', ') || '-'}${x.paths.length ? `  paths: ${d(x.paths.join(', '))}` : ''}${x.hosts.length ? `  hosts: ${d(x.hosts.join(', '))}` : ''}${x.evasive ? '  EVASIVE' : ''}`,
    `  asked by ${d(describeDecider(i.askedBy))}: ${d(i.reason)}`,
  ];
  if (i.outcome) lines.push(`  ${i.outcome.state} by ${d(describeDecider(i.outcome.decider))}: ${d(i.outcome.reason)}`);
  return lines.join('\n');
}

export function addApprovalCommands(cli: Command): void {
  const approvals = cli
    .command('approvals')
    .description('The approval inbox of the running Gatehouse: list, approve, deny.')
    .addHelpText('after', examplesHelp([
      ['what is waiting', 'gatehouse approvals list'],
      ['let it run, and let this session make the same call again', 'gatehouse approvals approve appr-1234 --session'],
      ['refuse, with the reason the agent is shown', 'gatehouse approvals deny appr-1234 --reason "not during the release freeze"'],
      ['the team inbox: every member\'s asks, decided with your signed operator key', 'gatehouse approvals list --team && gatehouse approvals approve appr-1234 --team'],
    ]));

  const list = approvals
    .command('list')
    .description('List approvals (pending by default).')
    .option('--json', 'print JSON')
    .option('--all', 'include decided and expired items')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .addHelpText('after', examplesHelp(['gatehouse approvals list --json', `${TEAM_URL_ENV}=postgres://… gatehouse approvals list --team`]))
    .action(async (o: { json?: boolean; all?: boolean; home?: string } & TeamFlags) => {
      if (onTeam(o)) return (await teamApprovals()).listTeamAsks({ ...o, home: o.home ?? defaultHome() });
      const host = await running(o.home ?? defaultHome());
      try {
        const { items, now } = await host.call('approvals.list', o.all ? {} : { state: 'pending' });
        if (o.json) console.log(jsonText(items, 2));
        else if (items.length === 0) console.log(o.all ? 'The inbox is empty.' : 'No pending approvals.');
        else console.log(items.map((i) => formatItem(i, now)).join('\n\n'));
      } finally {
        await host.close();
      }
    });

  teamOptions(list, false);

  const approve = approvals
    .command('approve <id>')
    .description('Approve a pending call (bound to the arguments it was asked with).')
    .option('--session', 'also let this agent session make the same call again (a grant, with the configured expiry)')
    .option('--hash <sha256>', 'the argsHash you reviewed (from list --json); refused if the call carries other arguments')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .addHelpText('after', examplesHelp(['gatehouse approvals approve appr-1234 --session', `${TEAM_URL_ENV}=postgres://… gatehouse approvals approve appr-1234 --team --operator ana`]))
    .action(async (id: string, o: { session?: boolean; hash?: string; home?: string } & TeamFlags) => {
      if (onTeam(o)) {
        if (o.session) throw new UsageError('--session is not available with --team yet: a team approval lets the call run once.');
        return (await teamApprovals()).decideOnTeam(id, 'approved', { ...o, home: o.home ?? defaultHome() });
      }
      const host = await running(o.home ?? defaultHome());
      try {
        const item = await host.call('approvals.get', { id });
        const r = await host.call('approvals.approve', { id, argsHash: o.hash ?? item.argsHash, scope: o.session ? 'session' : 'once' });
        console.log(`Approved ${d(id)}: ${d(r.item.call.tool)} ${fold(JSON.stringify(r.item.call.arguments), 80)}${r.grant ? ` (grant ${d(r.grant.id)} until ${new Date(r.grant.expiresAt).toISOString()})` : ''}.`);
      } finally {
        await host.close();
      }
    });

  teamOptions(approve, true);

  const deny = approvals
    .command('deny <id>')
    .description('Deny a pending call; the agent is shown the reason.')
    .requiredOption('--reason <text>', 'why (shown to the agent)')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .addHelpText('after', examplesHelp(['gatehouse approvals deny appr-1234 --reason "not during the release freeze"']))
    .action(async (id: string, o: { reason: string; home?: string } & TeamFlags) => {
      if (o.reason.trim() === '') throw new UsageError('--reason must not be empty: the agent is shown it.');
      if (onTeam(o)) return (await teamApprovals()).decideOnTeam(id, 'denied', { ...o, home: o.home ?? defaultHome() });
      const host = await running(o.home ?? defaultHome());
      try {
        const item = await host.call('approvals.deny', { id, reason: o.reason });
        console.log(`Denied ${d(id)}: ${d(item.call.tool)}.`);
      } finally {
        await host.close();
      }
    });
  teamOptions(deny, true);
}
