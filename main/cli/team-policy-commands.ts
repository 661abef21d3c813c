// `gatehouse team policy publish|show`: one policy for the team. A version is checked here as a
// member would load it, signed with this home's operator key and stored as the next version; each
// member applies it only once the signature verifies (team-policy.ts).
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { examplesHelp } from './gatehouse-command.js';
import { defaultHome, homePaths } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import { TEAM_URL_ENV, memberName, requireTeamUrl } from '../team/team-url.js';
import { displayText, jsonText } from '../../shared/display-text.js';
import { onTeam } from './team-commands.js';

/** Loaded by the command that runs (with its schema, zod). */
const teamPolicy = () => import('../team/team-policy.js');

interface PublishOptions {
  operator?: string;
  home?: string;
  teamUrl?: string;
}

export function addTeamPolicyCommands(team: Command): void {
  const policy = team
    .command('policy')
    .description("One policy for the team: versions signed by an operator, applied by every member on top of its own policy.yaml.")
    .addHelpText('after', examplesHelp([
      ['check, sign and publish a policy file as the next version', `${TEAM_URL_ENV}=postgres://… gatehouse team policy publish team-policy.yaml`],
      ['the newest version, as members receive it', `${TEAM_URL_ENV}=postgres://… gatehouse team policy show`],
    ]));

  policy
    .command('publish <file>')
    .description('Check a policy file as members load it, sign it with your operator key and store it as the next team policy version.')
    .option('--operator <name>', 'the operator to sign as (default: the one key in this home)')
    .option('--home <dir>', 'the Gatehouse home that keeps your operator key')
    .option('--team-url <url>', `the team database, with a console role (no password in it); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse team policy publish ./team-policy.yaml --operator ana']))
    .action(async (file: string, o: PublishOptions) => {
      const path = resolve(file);
      if (!existsSync(path)) throw new UsageError(`No policy file at ${path}.`);
      const text = readFileSync(path, 'utf8');
      const home = o.home ?? defaultHome();
      const url = requireTeamUrl(o.teamUrl);
      const [{ loadOperatorKey }, { publishPolicy }] = await Promise.all([import('../team/operator-keys.js'), teamPolicy()]);
      const key = loadOperatorKey(home, o.operator);
      // Checked with the loader members use: a version that does not load would be refused by every
      // member, so it is never published.
      const [{ PolicyStore }, { extract, initExtractor }] = await Promise.all([import('../policy/rules/store.js'), import('../policy/extract/index.js')]);
      await initExtractor();
      const store = new PolicyStore({ file: homePaths(home).policy, home: homedir(), gatehouseHome: home, extract: (call) => extract(call, { home: homedir() }), watch: false });
      const check = store.checkTeamPolicy(text, 0);
      if (check.broken || check.problems.length > 0) {
        for (const p of check.problems) console.error(`${displayText(file)}:${p.line}:${p.column}: ${displayText(p.message)}`);
        throw new UsageError(`${file} was not published: members would refuse a policy with problems. Fix them (gatehouse policy check ${file} shows the same) and publish again.`);
      }
      const p = await onTeam(url, (pool) => publishPolicy(pool, { text, operator: key.name, privatePem: key.privatePem, console: memberName(undefined) }));
      console.log(`Published team policy version ${p.version} (${check.rules.length} ${check.rules.length === 1 ? 'rule' : 'rules'}, sha256 ${p.sha256.slice(0, 16)}…), signed by ${displayText(key.name)}. Members apply it as soon as they hear of it; gatehouse team status shows the version each applies.`);
    });

  policy
    .command('show [version]')
    .description('A team policy version (default: the newest): who signed it, when, and its text.')
    .option('--json', 'one JSON object: version, sha256, operator, console, publishedAt, text')
    .option('--team-url <url>', `the team database (no password in it); default: $${TEAM_URL_ENV}`)
    .addHelpText('after', examplesHelp(['gatehouse team policy show 3']))
    .action(async (given: string | undefined, o: { json?: boolean; teamUrl?: string }) => {
      const version = given === undefined ? undefined : Number(given);
      if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw new UsageError(`A team policy version is a whole number from 1, not "${given}".`);
      const url = requireTeamUrl(o.teamUrl);
      const { policyVersion } = await teamPolicy();
      const p = await onTeam(url, (pool) => policyVersion(pool, version));
      if (!p) throw new UsageError(version === undefined ? 'No team policy has been published yet: gatehouse team policy publish FILE publishes one.' : `There is no team policy version ${version}.`);
      const { signature: _signature, ...shown } = p;
      if (o.json) {
        console.log(jsonText(shown, 2));
        return;
      }
      console.log(`Team policy version ${p.version}, signed by ${displayText(p.operator)} from ${displayText(p.console)} at ${new Date(p.publishedAt).toISOString()} (sha256 ${p.sha256.slice(0, 16)}…):\n`);
      console.log(displayText(p.text, { multiline: true }));
    });
}
