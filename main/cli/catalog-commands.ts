// `gatehouse catalog …`: the publisher's commands (init, add, sign, revoke) over a catalog folder
// with its keys, and the operator's (add-source, refresh, search, install, list) over the sources
// kept in GATEHOUSE_HOME/catalogs/. Every text that came from a catalog is printed through
// displayText, since a catalog is not trusted to be free of terminal escapes.
import type { Command } from 'commander';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultHome } from '../home.js';
import { UsageError } from '../core/usage-error.js';
import { displayText } from '../../shared/display-text.js';
import type { CatalogClient, Consent } from '../catalog/catalog-client.js';
import { examplesHelp } from './gatehouse-command.js';
import { connectHost } from './host-client.js';

const SOURCE_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const t = (s: unknown): string => displayText(String(s));

// TUF, the signer and the manifest schema are loaded by the command that uses them, not by `gatehouse --help`.
const publisher = () => import('../catalog/publisher.js');
const client = () => import('../catalog/catalog-client.js');

async function sourceClient(home: string, name: string): Promise<CatalogClient> {
  const stateDir = join(home, 'catalogs', name);
  if (!existsSync(join(stateDir, 'source.json'))) throw new UsageError(`no catalog source named ${JSON.stringify(name)}; add it with \`gatehouse catalog add-source LOCATION --root FILE --name ${name}\``);
  const { CatalogClient } = await client();
  return new CatalogClient({ name, stateDir, pluginsDir: join(home, 'plugins') });
}

function sourceNames(home: string): string[] {
  const dir = join(home, 'catalogs');
  return existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'source.json'))).sort() : [];
}

export function consentText(c: Consent): string {
  const list = (xs: string[]): string => (xs.length ? xs.map(t).join(', ') : 'nothing');
  return [
    `${t(c.name)} ${t(c.version)} from publisher ${t(c.publisher)}`,
    `  signed by key(s): ${c.signerKeyIds.map(t).join(', ')}`,
    `  may read:  ${list(c.reads)}`,
    `  may write: ${list(c.writes)}`,
    `  may reach: ${list(c.reaches)}`,
    `  env:       ${list(c.env)}`,
    `  limits:    timeout ${c.limits.timeoutSecs} s${c.limits.fuel ? `, fuel ${c.limits.fuel}` : ''}${c.limits.memoryMb ? `, memory ${c.limits.memoryMb} MB` : ''}`,
    `  scan:      publisher's ${c.scan.signed.passed ? 'passed' : 'FAILED'} (weight ${c.scan.signed.totalWeight}), local ${c.scan.local.passed ? 'passed' : 'FAILED'} (weight ${c.scan.local.totalWeight})`,
    `  source:    ${c.source ? `${t(c.source.repository)} @ ${t(c.source.commit)}` : 'not given'}`,
    ...(c.update ? [`  update from ${t(c.update.from)}: ${c.update.widened.length ? `WIDENS ${c.update.widened.map(t).join(', ')}` : 'no wider permissions'}${c.update.narrowed.length ? `; drops ${c.update.narrowed.map(t).join(', ')}` : ''}`] : []),
  ].join('\n');
}

export function addCatalogCommands(cli: Command): void {
  const cat = cli
    .command('catalog')
    .description('Signed plugin catalogs (The Update Framework): publish plugins with offline keys, add sources, search and install verified plugins. See docs/catalog.md.')
    .addHelpText('after', examplesHelp([
      ['publisher: create a catalog and sign a plugin', 'gatehouse catalog init ./my-catalog\n  gatehouse catalog add ./my-catalog ./plugins/weather --publisher acme'],
      ['operator: add it, search, install', 'gatehouse catalog add-source /mnt/mirror/repository --root 1.root.json --name acme\n  gatehouse catalog search weather\n  gatehouse catalog install weather --yes'],
    ]));

  cat
    .command('init <dir>')
    .description('create a catalog folder: keys (root 2 of 3, targets, snapshot, timestamp) and version 1 of the metadata')
    .addHelpText('after', examplesHelp(['gatehouse catalog init ./my-catalog']))
    .action(async (dir: string) => {
      const r = (await publisher()).initCatalog(resolve(dir));
      process.stdout.write(`Catalog created in ${t(resolve(dir))}. Serve or copy ${t(join(resolve(dir), 'repository'))} to mirrors.\nRoot key ids (operators confirm these when adding the catalog):\n${r.rootKeyIds.map((k) => `  ${k}`).join('\n')}\nKeys and where each must be kept:\n${r.keys.map((k) => `  ${k.role}: ${t(k.path)}\n    keep ${k.keep}`).join('\n')}\n`);
    });

  cat
    .command('add <dir> <pluginDir>')
    .description('pack, scan and sign a plugin folder as a new version under plugins/<publisher>/')
    .addHelpText('after', examplesHelp(['gatehouse catalog add ./my-catalog ./plugins/weather --publisher acme --source-repo https://example.org/acme/weather --source-commit 3f2a9c1']))
    .requiredOption('--publisher <name>', 'publisher name (its key is created on first use)')
    .option('--source-repo <url>', 'source repository recorded in the signed metadata')
    .option('--source-commit <sha>', 'source commit recorded in the signed metadata')
    .option('--min-gatehouse <version>', 'minimum Gatehouse version', '0.1.0')
    .action(async (dir: string, pluginDir: string, o: { publisher: string; sourceRepo?: string; sourceCommit?: string; minGatehouse: string }) => {
      if (Boolean(o.sourceRepo) !== Boolean(o.sourceCommit)) throw new UsageError('--source-repo and --source-commit go together; give both or neither');
      const r = await (await publisher()).addPlugin(resolve(dir), resolve(pluginDir), { publisher: o.publisher, minGatehouse: o.minGatehouse, ...(o.sourceRepo && o.sourceCommit ? { source: { repository: o.sourceRepo, commit: o.sourceCommit } } : {}) });
      process.stdout.write(`Signed ${t(r.target)} (scan ${r.custom.scan.passed ? 'passed' : 'FAILED'}, bundle sha256 ${r.custom.scan.bundleSha256}).\n`);
    });

  cat
    .command('sign <dir>')
    .description('re-sign snapshot and timestamp (run at least daily: clients refuse an expired timestamp)')
    .addHelpText('after', examplesHelp(['gatehouse catalog sign ./my-catalog']))
    .action(async (dir: string) => {
      (await publisher()).signSnapshotAndTimestamp(resolve(dir));
      process.stdout.write('Snapshot and timestamp re-signed.\n');
    });

  cat
    .command('revoke <dir> <name>')
    .description('revoke a plugin version (or every version with --version "*"); installed copies are quarantined on their next refresh')
    .addHelpText('after', examplesHelp(['gatehouse catalog revoke ./my-catalog weather --version 1.0.0 --reason "sends the API key to its log"']))
    .requiredOption('--version <version>', 'the version to revoke, or "*"')
    .requiredOption('--reason <text>', 'shown to operators beside the quarantined plugin')
    .action(async (dir: string, name: string, o: { version: string; reason: string }) => {
      (await publisher()).revokePlugin(resolve(dir), name, o.version, o.reason);
      process.stdout.write(`Revoked ${t(name)}@${t(o.version)}.\n`);
    });

  cat
    .command('add-source <location>')
    .description('add a catalog (an absolute folder or an https URL) trusting the given root file; prints the root key ids to compare with the publisher\'s')
    .addHelpText('after', examplesHelp(['gatehouse catalog add-source /mnt/mirror/repository --root ./1.root.json --name acme', 'gatehouse catalog add-source https://plugins.example.org/ --root ./1.root.json --name example']))
    .requiredOption('--root <file>', "the catalog's 1.root.json, obtained from the publisher out of band")
    .requiredOption('--name <name>', 'a short name for this source')
    .option('--home <dir>', 'data folder')
    .action(async (location: string, o: { root: string; name: string; home?: string }) => {
      if (!SOURCE_NAME.test(o.name)) throw new UsageError(`--name ${JSON.stringify(o.name)}: use 1-40 lowercase letters, digits and dashes`);
      if (!/^https?:\/\//.test(location)) location = resolve(location);
      const home = o.home ?? defaultHome();
      const { rootKeyIds } = (await client()).addCatalogSource(join(home, 'catalogs', o.name), location, readFileSync(o.root));
      const r = await (await sourceClient(home, o.name)).refresh();
      process.stdout.write(`Added ${t(o.name)}. Root key ids:\n${rootKeyIds.map((k) => `  ${t(k)}`).join('\n')}\n${r.index.plugins.length} plugin(s); metadata valid until ${t(r.expires)}.\n`);
    });

  cat
    .command('search [query]')
    .description('search the signed index of every source (refreshes first)')
    .addHelpText('after', examplesHelp(['gatehouse catalog search weather', 'gatehouse catalog search']))
    .option('--home <dir>', 'data folder')
    .action(async (query: string | undefined, o: { home?: string }) => {
      // Through the host (running, or started here): a refresh may quarantine, which is audited.
      const host = await connectHost(o.home ?? defaultHome());
      try {
        const r = await host.call('catalog.search', { query: query ?? '' });
        for (const p of r.results) process.stdout.write(`${t(p.name)}\t${t(p.latest)}\t${t(p.publisher)}\t${t(p.source)}\t${t(p.description)}\n`);
        for (const e of r.errors) process.stderr.write(`${t(e.source)}: ${t(e.message)}\n`);
        if (r.errors.length) process.exitCode = 1;
      } finally {
        await host.close();
      }
    });

  cat
    .command('install <spec>')
    .description('verify and install NAME[@VERSION]; shows what it may read, write and reach, and installs only with --yes. The plugin stays disabled until enabled.')
    .option('--source <name>', 'the catalog source (default: the only one)')
    .option('--yes', 'consent to what was shown')
    .option('--allow-wider', 'also approve an update that widens permissions (shown as WIDENS)')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp([['review what it may do', 'gatehouse catalog install weather'], ['consent and install a given version', 'gatehouse catalog install weather@1.1.0 --yes']]))
    .action(async (spec: string, o: { source?: string; yes?: boolean; allowWider?: boolean; home?: string }) => {
      const home = o.home ?? defaultHome();
      const names = sourceNames(home);
      const source = o.source ?? (names.length === 1 ? names[0] : undefined);
      if (!source) throw new UsageError(names.length ? `more than one source (${names.join(', ')}); pick one with --source` : 'no catalog source; add one with `gatehouse catalog add-source`');
      // Through the host (running, or started here), so the install is audited and the registry sees it.
      const host = await connectHost(home);
      try {
        const r = await host.call('catalog.install', { source, spec, consent: o.yes === true, allowWider: o.allowWider === true });
        const c = r.consent as Consent;
        let shown = consentText(c);
        if (!r.installed) {
          // A wider update is never approved by the same --yes as a narrower one: the operator names it.
          if (c.update?.widened.length && !o.allowWider) shown += '\nThis update widens permissions: rerun with --yes --allow-wider to approve exactly the above.';
          // Showing what it may do is this command's first step, not a usage mistake: no usage
          // line, exit 1 (nothing was installed), the consent on stdout where it can be read or piped.
          process.stdout.write(`${shown}\n`);
          process.stderr.write('Nothing installed: rerun with --yes to consent to the above.\n');
          process.exitCode = 1;
          return;
        }
        const rec = r.installed as { name: string; version: string; dir: string };
        process.stdout.write(`${shown}\nInstalled ${t(rec.name)} ${t(rec.version)} into ${t(rec.dir)} (disabled until you enable it: gatehouse plugin enable ${t(rec.name)}).\n`);
      } finally {
        await host.close();
      }
    });

  cat
    .command('list')
    .description('sources and the plugins installed from them, with quarantines')
    .addHelpText('after', examplesHelp(['gatehouse catalog list']))
    .option('--home <dir>', 'data folder')
    .action(async (o: { home?: string }) => {
      const home = o.home ?? defaultHome();
      // Enabled means pinned in trust.json (what `plugin enable` writes); installed.json only says how it was installed.
      const [{ TrustStore }, { validUntil }] = await Promise.all([import('../registry/trust-store.js'), client()]);
      const trust = new TrustStore(home);
      for (const name of sourceNames(home)) {
        // The date after which the source refuses to install anything until it is refreshed (TUF expiry).
        const until = validUntil(join(home, 'catalogs', name));
        process.stdout.write(`${t(name)}${until ? `  (metadata valid until ${t(until)})` : ''}\n`);
        for (const r of (await sourceClient(home, name)).installed()) process.stdout.write(`  ${t(r.name)} ${t(r.version)} ${r.quarantined ? `QUARANTINED: ${t(r.quarantined.reason)}` : trust.get(r.name) ? 'enabled' : 'disabled'}\n`);
      }
    });

  cat
    .command('updates')
    .description('newer versions of installed plugins, as of the last refresh (search or the scheduled refresh), and what each would widen')
    .addHelpText('after', examplesHelp(['gatehouse catalog updates']))
    .option('--home <dir>', 'data folder')
    .action(async (o: { home?: string }) => {
      const home = o.home ?? defaultHome();
      let any = false;
      for (const name of sourceNames(home)) {
        for (const u of (await sourceClient(home, name)).updates()) {
          any = true;
          const widens = u.widened.length ? `  WIDENS: ${u.widened.map(t).join(', ')}` : '';
          process.stdout.write(`${t(name)}  ${t(u.name)} ${t(u.from)} -> ${t(u.to)}${widens}\n`);
        }
      }
      if (!any) process.stdout.write('No updates waiting (as of the last refresh; `gatehouse catalog search` refreshes).\n');
    });
}
