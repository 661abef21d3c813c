// `gatehouse plugin …`: list, rescan, validate, scan, new, enable, disable, trust, untrust.
// Exit codes: 0 clean, 1 findings or errors, 2 usage.
import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { defaultHome, homePaths } from '../home.js';
import { scaffoldPlugin, SCAFFOLD_LANGS, type ScaffoldLang } from '../registry/scaffold.js';
import { shellQuote } from '../../shared/claude-config.js';
import type { Finding, Problem } from '../registry/types.js';
import { connectHost } from './host-client.js';
import { UsageError } from '../core/usage-error.js';
import { examplesHelp } from './gatehouse-command.js';
import { followHostJob, progressPrinter } from './progress.js';
import { displayText as d, jsonText } from '../../shared/display-text.js';

interface HomeOpts {
  home?: string;
  pluginsDir?: string[];
}

const collect = (v: string, prev: string[] = []) => [...prev, v];
/** The plugin scanner (the TypeScript compiler among it), loaded by the commands that check a folder, not by `gatehouse --help`. */
const folderCheck = () => import('../host/plugin-folder-check.js');

export function formatProblem(p: Problem): string {
  const where = [p.file, p.line, p.column].filter((x) => x !== undefined).join(':');
  // A plugin's files, names and manifest values are its author's words: escaped like an agent's.
  return `${d(where)}: ${p.severity} ${p.code}${p.path ? ` (${d(p.path)})` : ''}: ${d(p.message)}`;
}

export function formatFinding(f: Finding): string {
  return `${d(f.file)}:${f.line}:${f.column}: weight ${f.weight} ${f.rule}: ${d(f.message)}`;
}

function pluginDir(dir: string): string {
  const full = resolve(dir);
  if (!existsSync(full) || !statSync(full).isDirectory()) throw new UsageError(`${dir} is not a folder. Pass the plugin's folder (the one holding tool.toml, gatehouse.toml, mod.ts or an adapter's manifest.toml).`);
  return full;
}

export function addPluginCommands(cli: Command): void {
  const plugin = cli
    .command('plugin')
    .description('Plugin commands: list, rescan, validate, scan, new, enable, disable, trust, untrust.')
    .addHelpText('after', examplesHelp([
      ['every plugin found and its state', 'gatehouse plugin list'],
      ['start a tool plugin in Python', 'gatehouse plugin new word-count --lang py'],
      ['turn it on (pins a hash of its files)', 'gatehouse plugin enable word-count'],
    ]));

  plugin
    .command('list')
    .description('List every plugin found and its state.')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(['gatehouse plugin list --json']))
    .action(async (o: HomeOpts & { json?: boolean }) => {
      // Without a running host the plugins are discovered and scanned here: stderr shows how far.
      const host = await connectHost(o.home ?? defaultHome(), { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)), onJob: progressPrinter() });
      try {
        const { plugins } = await host.call('plugins.list', {});
        if (o.json) console.log(jsonText(plugins, 2));
        else if (plugins.length === 0) console.log(`No plugins found. Put plugin folders in ${homePaths(o.home ?? defaultHome()).plugins}, or create one: gatehouse plugin new NAME --lang sh`);
        else {
          const rows = plugins.map((p) => [p.name, p.status, p.kind ?? '-', p.toolNames.join(',') || '-', `${p.errors} errors, ${p.findingCount} findings`, p.dir]);
          printTable(['NAME', 'STATUS', 'KIND', 'TOOLS', 'CHECKS', 'FOLDER'], rows);
        }
        if (plugins.some((p) => p.status === 'invalid' || p.status === 'scan_failed' || p.status === 'quarantined')) process.exitCode = 1;
      } finally {
        await host.close();
      }
    });

  plugin
    .command('rescan')
    .description('Discover, validate and security-scan every plugin folder again (in the running Gatehouse, or here); exit 1 when a plugin needs attention.')
    .option('--json', 'print the plugins found as JSON')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(['gatehouse plugin rescan'], 'Progress goes to stderr; Ctrl-C stops a rescan of the running Gatehouse, which then keeps what it had (exit 130).'))
    .action(async (o: HomeOpts & { json?: boolean }) => {
      const print = progressPrinter();
      // A host started here scans every folder as it starts: that scan is the rescan.
      const host = await connectHost(o.home ?? defaultHome(), { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)), onJob: print });
      try {
        const t0 = performance.now();
        if (host.mode === 'remote') await followHostJob(host, 'plugins.rescan', {});
        const { plugins } = await host.call('plugins.list', {});
        if (o.json) console.log(jsonText(plugins, 2));
        else {
          const by = (s: string) => plugins.filter((p) => p.status === s).length;
          const attention = plugins.filter((p) => p.status === 'invalid' || p.status === 'scan_failed' || p.status === 'quarantined');
          for (const p of attention) console.log(`${d(p.name)}: ${p.status.replace('_', ' ')} (${p.errors} errors, ${p.findingCount} findings) in ${d(p.dir)}`);
          const took = host.mode === 'remote' ? ` in ${Math.round(performance.now() - t0)} ms` : '';
          console.log(`Scanned ${plugins.length} ${plugins.length === 1 ? 'plugin' : 'plugins'}${took}: ${by('enabled')} enabled, ${by('disabled')} disabled, ${by('quarantined')} quarantined, ${by('scan_failed')} scan failed, ${by('invalid')} invalid.`);
        }
        if (plugins.some((p) => p.status === 'invalid' || p.status === 'scan_failed' || p.status === 'quarantined')) process.exitCode = 1;
      } finally {
        await host.close();
      }
    });

  plugin
    .command('validate <dir>')
    .description("Validate a plugin folder of any kind (tool.toml, gatehouse.toml, a mod.ts module, a terminal adapter's manifest.toml) as Gatehouse loads it; exit 1 on any error.")
    .option('--json', 'print JSON')
    .option('--home <dir>', 'data folder (where a module is compiled to be read)')
    .addHelpText('after', examplesHelp(['gatehouse plugin validate ./my-tool', 'gatehouse plugin validate ./my-adapter']))
    .action(async (dir: string, o: { json?: boolean; home?: string }) => {
      const r = await (await folderCheck()).checkPluginFolder(pluginDir(dir), o.home ?? defaultHome());
      if (o.json) console.log(jsonText({ manifestFile: r.manifestFile, kind: r.kind, valid: r.valid, problems: r.problems, manifest: r.valid ? r.manifest : null }, 2));
      else {
        for (const p of r.problems) console.log(formatProblem(p));
        const warnings = r.problems.filter((p) => p.severity !== 'error').length;
        console.log(r.valid ? `${d(r.name ?? dir)}: valid${warnings ? ` (${warnings} warnings)` : ''}.` : `${dir}: invalid (${r.problems.filter((p) => p.severity === 'error').length} errors).`);
      }
      if (!r.valid) process.exitCode = 1;
    });

  plugin
    .command('scan <dir>')
    .description('Security-scan a plugin folder of any kind exactly as Gatehouse does before it may run; exit 1 on any finding.')
    .option('--json', 'print JSON')
    .option('--home <dir>', 'data folder (where a module is compiled to be read)')
    .addHelpText('after', examplesHelp(['gatehouse plugin scan ./my-tool --json']))
    .action(async (dir: string, o: { json?: boolean; home?: string }) => {
      const c = await (await folderCheck()).checkPluginFolder(pluginDir(dir), o.home ?? defaultHome());
      // A folder whose manifest or module cannot be read is scanned file by file; say so, as its tool descriptions were not read.
      const r = c.scan ?? { findings: [], totalWeight: 0, passed: false, filesScanned: 0 };
      if (o.json) console.log(jsonText({ ...r, valid: c.valid }, 2));
      else {
        for (const f of r.findings) console.log(formatFinding(f));
        if (!c.valid) console.log(`${dir} does not load (run gatehouse plugin validate ${dir}): only its files were scanned, not the descriptions the model would read.`);
        console.log(`${r.filesScanned} files scanned: ${r.findings.length} findings, total weight ${r.totalWeight}; scan ${r.passed ? 'passed' : 'FAILED'}.`);
      }
      if (r.findings.length > 0 || !r.passed) process.exitCode = 1;
    });

  plugin
    .command('new <name>')
    .description('Create a working tool plugin to start from.')
    .requiredOption('--lang <lang>', `language: ${SCAFFOLD_LANGS.join(', ')}`)
    .option('--dir <dir>', 'where to create it (default: the plugins folder of the data folder)')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp(['gatehouse plugin new word-count --lang py', 'gatehouse plugin new word-count --lang wasm-as', 'gatehouse plugin new word-count --lang ts-module']))
    .action((name: string, o: { lang: string; dir?: string; home?: string }) => {
      if (!(SCAFFOLD_LANGS as readonly string[]).includes(o.lang)) throw new UsageError(`--lang must be one of ${SCAFFOLD_LANGS.join(', ')}, not "${o.lang}".`);
      const parent = o.dir ? resolve(o.dir) : homePaths(o.home ?? defaultHome()).plugins;
      let r;
      try {
        r = scaffoldPlugin(parent, name, o.lang as ScaffoldLang);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      // The commands exactly as they work from any folder: the plugin's full path, and the options
      // that lead `plugin enable` to this data folder and plugin folder (a test runs them as printed).
      const enable = ['gatehouse', 'plugin', 'enable', name, ...(o.home ? ['--home', resolve(o.home)] : []), ...(o.dir ? ['--plugins-dir', parent] : [])];
      const steps = [...(o.lang === 'wasm-as' ? [['gatehouse', 'plugin', 'build', r.dir]] : []), enable].map((c) => `  ${c.map(shellQuote).join(' ')}`);
      console.log(`Created ${r.dir} (${r.files.join(', ')}). ${o.lang === 'wasm-as' ? 'Build plugin.wasm, then enable it' : 'Edit it, then enable it'}:\n${steps.join('\n')}`);
    });

  plugin
    .command('build <dir>')
    .description("Build a WebAssembly plugin's module from its AssemblyScript source (assembly/index.ts), offline, with the compiler that ships with Gatehouse.")
    .addHelpText('after', examplesHelp(['gatehouse plugin build ./word-count']))
    .action(async (dir: string) => {
      const full = pluginDir(dir);
      const { buildPlugin, PluginBuildError } = await import('../registry/kinds/wasm/plugin-build.js');
      try {
        const r = buildPlugin(full);
        console.log(`Built ${join(full, r.module)}.`);
      } catch (err) {
        if (err instanceof PluginBuildError) {
          console.error(`gatehouse plugin build: ${err.message}`);
          process.exitCode = 1;
          return;
        }
        throw err;
      }
    });

  plugin
    .command('enable <name>')
    .description('Enable a plugin: pins a hash of its files; any later change quarantines it.')
    .option('--override-reason <text>', 'enable despite a failed security scan (audited)')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(['gatehouse plugin enable hello']))
    .action(async (name: string, o: HomeOpts & { overrideReason?: string }) => {
      const host = await connectHost(o.home ?? defaultHome(), { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)) });
      try {
        const s = await host.call('plugins.enable', { name, ...(o.overrideReason ? { overrideReason: o.overrideReason } : {}) });
        console.log(`${d(s.name)} enabled (${d(s.toolNames.join(', ')) || 'no tools'}).`);
      } finally {
        await host.close();
      }
    });

  plugin
    .command('disable <name>')
    .description('Disable a plugin and forget its pinned hash.')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(['gatehouse plugin disable hello']))
    .action(async (name: string, o: HomeOpts) => {
      const host = await connectHost(o.home ?? defaultHome(), { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)) });
      try {
        const s = await host.call('plugins.disable', { name });
        console.log(`${d(s.name)} disabled.`);
      } finally {
        await host.close();
      }
    });

  plugin
    .command('trust <name>')
    .description('Let a plugin whose manifest says sandbox = "none" run without the OS sandbox (audited with the reason).')
    .requiredOption('--reason <text>', 'why it must run unsandboxed (recorded in the audit log)')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(
      ['gatehouse plugin trust docker-tool --reason "needs the Docker socket; code reviewed"'],
      'The trust holds for the files pinned when it was enabled: a changed plugin is quarantined,\nand approving the change drops the trust.',
    ))
    .action(async (name: string, o: HomeOpts & { reason: string }) => {
      if (o.reason.trim() === '') throw new UsageError('--reason must say why the plugin may run without the sandbox; it is recorded in the audit log.');
      await setTrusted(o, name, true, o.reason.trim());
    });

  plugin
    .command('untrust <name>')
    .description('Take back the trust: the plugin runs sandboxed again (audited).')
    .option('--reason <text>', 'why (recorded in the audit log)')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', collect)
    .addHelpText('after', examplesHelp(['gatehouse plugin untrust docker-tool']))
    .action(async (name: string, o: HomeOpts & { reason?: string }) => {
      await setTrusted(o, name, false, o.reason?.trim() || undefined);
    });
}

async function setTrusted(o: HomeOpts, name: string, trusted: boolean, reason: string | undefined): Promise<void> {
  const host = await connectHost(o.home ?? defaultHome(), { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)) });
  try {
    const s = await host.call('plugins.setTrusted', { name, trusted, ...(reason ? { reason } : {}) });
    console.log(trusted ? `${d(s.name)} is trusted: it runs without the OS sandbox until its files change or you run gatehouse plugin untrust ${d(s.name)}.` : `${d(s.name)} is no longer trusted: it runs sandboxed.`);
  } finally {
    await host.close();
  }
}

function printTable(head: string[], cells: string[][]): void {
  // Escaped before the widths are measured, so the columns line up with what is printed.
  const rows = cells.map((r) => r.map((c) => d(c)));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}
