// `gatehouse policy check [file]`: a policy file checked exactly as the host would load it — YAML,
// every rule's fields, and each rule's examples run — before it is deployed (CI, a pre-commit
// hook) or while it is written outside the console. Changes nothing; exit 1 on any problem.
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { relative, resolve } from 'node:path';
import { defaultHome, homePaths } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import { examplesHelp } from './gatehouse-command.js';
import { displayText, jsonText } from '../../shared/display-text.js';

export function addPolicyCommands(cli: Command): void {
  const policy = cli
    .command('policy')
    .description('Policy file commands: check.')
    .addHelpText('after', examplesHelp([
      ['check the policy the running Gatehouse uses', 'gatehouse policy check'],
      ['check a draft before putting it in place', 'gatehouse policy check ./policy.draft.yaml'],
    ]));

  policy
    .command('check')
    .description("Check a policy file as Gatehouse loads it: YAML, every rule's fields, and each rule's examples; exit 1 on any problem.")
    .argument('[file]', 'the policy file (default: GATEHOUSE_HOME/policy.yaml)')
    .option('--json', 'one JSON object: problems, examples, rules, broken')
    .option('--home <dir>', 'data folder (for the default file and the built-in rules that protect it)')
    .addHelpText('after', examplesHelp(['gatehouse policy check ./policy.draft.yaml --json']))
    .action(async (file: string | undefined, o: { json?: boolean; home?: string }) => {
      const paths = homePaths(o.home ?? defaultHome());
      const path = resolve(file ?? paths.policy);
      if (!existsSync(path)) throw new UsageError(`No policy file at ${path}.${file ? '' : ' Pass the file to check, or the data folder with --home DIR.'}`);
      const text = readFileSync(path, 'utf8');
      // The judge is loaded by this command, not by `gatehouse --help`.
      const [{ PolicyStore }, { extract, initExtractor }] = await Promise.all([import('../policy/rules/store.js'), import('../policy/extract/index.js')]);
      await initExtractor();
      // The same loader, built-in rules and examples runner the host uses; nothing is watched or written.
      const store = new PolicyStore({ file: path, home: homedir(), gatehouseHome: paths.root, extract: (call) => extract(call, { home: homedir() }), watch: false });
      const r = store.check(text);
      const shown = relative(process.cwd(), path) || path;
      if (o.json) {
        console.log(jsonText({ file: path, broken: r.broken, rules: r.rules.map((x) => x.name), problems: r.problems, examples: r.examples }, 2));
      } else {
        // A failed example is a problem of its rule: the problems list names it, with its line.
        // Messages quote the file (rule names, example commands): escaped so the file cannot drive the terminal.
        for (const p of r.problems) console.log(`${displayText(shown)}:${p.line}:${p.column}: ${displayText(p.message)}`);
        const failed = r.examples.filter((x) => !x.ok).length;
        const verdict = r.broken ? 'it cannot be loaded (Gatehouse keeps the policy in force, also across a restart; with none ever loaded, it denies every call)' : r.problems.length > 0 ? 'rules with problems would be left out' : 'it loads as written';
        console.log(`${shown}: ${r.rules.length} ${r.rules.length === 1 ? 'rule' : 'rules'}, ${r.examples.length} ${r.examples.length === 1 ? 'example' : 'examples'} (${failed} failed), ${r.problems.length} ${r.problems.length === 1 ? 'problem' : 'problems'}: ${verdict}.`);
      }
      if (r.broken || r.problems.length > 0) process.exitCode = 1;
    });
}
