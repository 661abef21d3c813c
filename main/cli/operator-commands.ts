// `gatehouse operator create NAME`: a person's own credential for the team inbox. The key pair is
// made in this home (the private key owner-only, never sent anywhere), the public key registered
// in the team database, so members honour decisions this operator signs (docs/team.md).
import type { Command } from 'commander';
import { examplesHelp } from './gatehouse-command.js';
import { defaultHome } from '../home.js';
import { TEAM_URL_ENV, memberName, requireTeamUrl } from '../team/team-url.js';
import { createOperator } from '../team/operator-keys.js';
import { displayText } from '../../shared/display-text.js';
import { onTeam } from './team-commands.js';

export function addOperatorCommands(cli: Command): void {
  const operator = cli
    .command('operator')
    .description('Operators by name for the team inbox: each person signs their decisions with their own key.')
    .addHelpText('after', examplesHelp([['a key for ana in this home, registered in the team database', `${TEAM_URL_ENV}=postgres://… gatehouse operator create ana`]]));

  operator
    .command('create <name>')
    .description("Make an operator's key pair in this home (private key 0600, never leaves it) and register the public key in the team database.")
    .option('--team-url <url>', `the team database (no password in it); default: $${TEAM_URL_ENV}`)
    .option('--home <dir>', 'the Gatehouse home that keeps the private key (your console machine)')
    .addHelpText('after', examplesHelp(['gatehouse operator create ana --team-url postgres://gatehouse@db.internal/gatehouse']))
    .action(async (name: string, o: { teamUrl?: string; home?: string }) => {
      const url = requireTeamUrl(o.teamUrl);
      const home = o.home ?? defaultHome();
      const r = await onTeam(url, (pool) => createOperator(pool, home, name, memberName(undefined)));
      const n = displayText(name);
      if (!r.registered) console.log(`Operator ${n} is already registered with the key in ${displayText(r.file)}; nothing to do.`);
      else console.log(`Operator ${n} registered in the team database; ${r.created ? 'the private key was made' : 'its private key is'} in ${displayText(r.file)} (keep it on this machine only).`);
    });
}
