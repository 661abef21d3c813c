// `gatehouse team grant add|list|revoke`: "don't ask again" for every member (or one), signed with
// this home's operator key; each member holds a grant only while its signature verifies
// (team-grants.ts).
import type { Command } from 'commander';
import { Option } from 'commander';
import { homedir } from 'node:os';
import { examplesHelp } from './gatehouse-command.js';
import { defaultHome } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import { OperationError } from '../core/operation-error.js';
import { TEAM_URL_ENV, memberName, requireTeamUrl } from '../team/team-url.js';
import { displayText, jsonText } from '../../shared/display-text.js';
import { onTeam } from './team-commands.js';

interface AddOptions {
  command?: string;
  path?: string;
  host?: string;
  member?: string;
  minutes: string;
  operator?: string;
  home?: string;
  teamUrl?: string;
}

/** Loaded by the command that runs: it brings the judge's shell grammar (a prefix grant is checked with it). */
const teamGrants = () => import('../team/team-grants.js');

const teamUrlOption = () => new Option('--team-url <url>', `the team database, with a console role (no password in it); default: $${TEAM_URL_ENV}`);

export function addTeamGrantCommands(team: Command): void {
  const grant = team
    .command('grant')
    .description("Grants for the whole team: don't ask again for a command prefix, a folder or a host, on every member (or one), until they expire.")
    .addHelpText('after', examplesHelp([
      ['every member runs `npm test` without asking, for a day', `${TEAM_URL_ENV}=postgres://… gatehouse team grant add --command "npm test" --minutes 1440`],
      ['the live team grants', `${TEAM_URL_ENV}=postgres://… gatehouse team grant list`],
    ]));

  grant
    .command('add')
    .description('Sign a team grant with your operator key and store it; each member it covers holds it while the signature verifies.')
    .option('--command <prefix>', 'commands starting with these words (one plain command, e.g. "npm test")')
    .option('--path <folder>', 'file calls inside this folder (absolute, ~ is each member\'s home)')
    .option('--host <host>', 'calls that only fetch from this host')
    .option('--member <name>', 'only this member (default: every member)')
    .option('--minutes <n>', 'how long it lasts', '60')
    .option('--operator <name>', 'the operator to sign as (default: the one key in this home)')
    .option('--home <dir>', 'the Gatehouse home that keeps your operator key')
    .addOption(teamUrlOption())
    .addHelpText('after', examplesHelp(['gatehouse team grant add --host registry.npmjs.org --member ci-7 --minutes 120']))
    .action(async (o: AddOptions) => {
      const given = (['command', 'path', 'host'] as const).filter((k) => o[k] !== undefined);
      if (given.length !== 1) throw new UsageError('Say what the grant covers with exactly one of --command PREFIX, --path FOLDER or --host HOST.');
      const kind = given[0]!;
      const [{ TEAM_GRANT_MAX_MINUTES, addTeamGrant }, { loadOperatorKey }] = await Promise.all([teamGrants(), import('../team/operator-keys.js')]);
      const minutes = Number(o.minutes);
      if (!Number.isFinite(minutes) || minutes <= 0 || minutes > TEAM_GRANT_MAX_MINUTES) throw new UsageError(`--minutes must be a number of minutes from 1 to ${TEAM_GRANT_MAX_MINUTES} (30 days), not "${o.minutes}".`);
      const home = o.home ?? defaultHome();
      const url = requireTeamUrl(o.teamUrl);
      const key = loadOperatorKey(home, o.operator);
      // A prefix grant's value is checked by the judge's shell grammar.
      const { initExtractor } = await import('../policy/extract/index.js');
      await initExtractor();
      const g = await onTeam(url, async (pool) => {
        try {
          return await addTeamGrant(pool, { kind, value: o[kind]!, member: o.member ?? null, minutes, operator: key.name, privatePem: key.privatePem, console: memberName(undefined), home: homedir() });
        } catch (err) {
          if (err instanceof OperationError) throw new UsageError(`--${kind} ${err.message.replace(/^value: /, '')}`);
          throw err;
        }
      });
      console.log(`Team grant ${g.id} stored, signed by ${displayText(key.name)}: ${kind} ${displayText(g.value)} on ${o.member ? displayText(o.member) : 'every member'} until ${new Date(g.expiresAt).toISOString()}. Revoke it with gatehouse team grant revoke ${g.id.slice(0, 8)}.`);
    });

  grant
    .command('list')
    .description('The team grants that are live: not revoked, not expired.')
    .option('--json', 'one JSON array')
    .addOption(teamUrlOption())
    .addHelpText('after', examplesHelp(['gatehouse team grant list --json']))
    .action(async (o: { json?: boolean; teamUrl?: string }) => {
      const url = requireTeamUrl(o.teamUrl);
      const { liveTeamGrants } = await teamGrants();
      const grants = await onTeam(url, (pool) => liveTeamGrants(pool, Date.now()));
      if (o.json) console.log(jsonText(grants.map(({ signature: _s, ...g }) => g), 2));
      else if (grants.length === 0) console.log('No live team grants.');
      else for (const g of grants) console.log(`${g.id.slice(0, 8)}  ${g.kind} ${displayText(g.value)}  on ${g.member ? displayText(g.member) : 'every member'}  by ${displayText(g.operator)}  until ${new Date(g.expiresAt).toISOString()}`);
    });

  grant
    .command('revoke <id>')
    .description('Revoke a team grant (its id, or the first characters of it); members drop it as soon as they hear of it.')
    .addOption(teamUrlOption())
    .addHelpText('after', examplesHelp(['gatehouse team grant revoke 3f2a9c1e']))
    .action(async (id: string, o: { teamUrl?: string }) => {
      if (!/^[0-9a-f-]{4,36}$/.test(id)) throw new UsageError(`A team grant id is at least 4 of its characters (gatehouse team grant list shows them), not "${id}".`);
      const url = requireTeamUrl(o.teamUrl);
      const { revokeTeamGrant } = await teamGrants();
      const r = await onTeam(url, (pool) => revokeTeamGrant(pool, id, memberName(undefined)));
      if ('matched' in r) throw new UsageError(r.matched.length === 0 ? `No live team grant ${id}: gatehouse team grant list shows them.` : `${id} is the start of ${r.matched.length} live team grants' ids: give more of it.`);
      const g = r.revoked;
      console.log(`Revoked team grant ${g.id}: ${g.kind} ${displayText(g.value)}. Members drop it as soon as they hear of it.`);
    });
}
