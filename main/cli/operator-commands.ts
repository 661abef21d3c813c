// `gatehouse operator create NAME`: a person's own credential for the team inbox. The key pair is
// made in this home (the private key owner-only, never sent anywhere), the public key registered
// in the team database, so members honour decisions this operator signs (docs/team.md).
import type { Command } from 'commander';
import { examplesHelp } from './gatehouse-command.js';
import { defaultHome } from '../home.js';
import { TEAM_URL_ENV, memberName, requireTeamUrl } from '../team/team-url.js';
import { displayText, jsonText } from '../../shared/display-text.js';
import { UsageError } from '../core/usage-error.js';
import { onTeam } from './team-commands.js';

/** Keys and signatures are loaded by the command that runs. */
const operatorKeys = () => import('../team/operator-keys.js');

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
      const { createOperator } = await operatorKeys();
      const r = await onTeam(url, (pool) => createOperator(pool, home, name, memberName(undefined)));
      const n = displayText(name);
      if (!r.registered) console.log(`Operator ${n} is already registered with the key in ${displayText(r.file)}; nothing to do.`);
      else console.log(`Operator ${n} registered in the team database; ${r.created ? 'the private key was made' : 'its private key is'} in ${displayText(r.file)} (keep it on this machine only).`);
    });

  operator
    .command('list')
    .description('The operators registered in the team database, and whether their keys were revoked.')
    .option('--json', 'one JSON array')
    .option('--team-url <url>', `the team database (no password in it); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse operator list --json']))
    .action(async (o: { json?: boolean; teamUrl?: string }) => {
      const { listOperators } = await operatorKeys();
      const rows = await onTeam(requireTeamUrl(o.teamUrl), (pool) => listOperators(pool));
      if (o.json) console.log(jsonText(rows, 2));
      else if (rows.length === 0) console.log('No operator is registered yet: gatehouse operator create NAME registers one.');
      else for (const r of rows) console.log(`${displayText(r.name)}  registered from ${displayText(r.console)} at ${new Date(r.createdAt).toISOString()}${r.revokedAt === null ? '' : `  REVOKED at ${new Date(r.revokedAt).toISOString()}`}`);
    });

  operator
    .command('revoke <name>')
    .description("Revoke an operator's key (a lost laptop, someone who left): members refuse everything it signs from now on and drop the team grants it made. Run as the team database's owner.")
    .option('--team-url <url>', `the team database, as its owner (no password in it); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse operator revoke ana'], 'What the key signed before stays valid in gatehouse audit verify --team. To give the person a new key, register them under a new name.'))
    .action(async (name: string, o: { teamUrl?: string }) => {
      const { revokeOperator } = await operatorKeys();
      const r = await onTeam(requireTeamUrl(o.teamUrl), (pool) => revokeOperator(pool, name));
      const n = displayText(name);
      if (r === null) throw new UsageError(`No operator ${n} is registered in the team database: gatehouse operator list shows them.`);
      if (r.already) console.log(`Operator ${n}'s key was already revoked at ${new Date(r.revokedAt).toISOString()}; nothing to do.`);
      else console.log(`Operator ${n}'s key is revoked (${new Date(r.revokedAt).toISOString()}): members refuse what it signs from now on, and drop the team grants it made.`);
    });
}
