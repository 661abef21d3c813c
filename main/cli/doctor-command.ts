// `gatehouse doctor`: the command, apart from its checks (doctor.ts), which load SQLite, the plugin
// registry and the sandbox probes; those are loaded when the command runs, not by `gatehouse --help`.
import type { Command } from 'commander';
import { defaultHome } from '../home.js';
import { examplesHelp } from './gatehouse-command.js';
import { jsonText } from '../../shared/display-text.js';

export function addDoctorCommand(cli: Command): void {
  cli
    .command('doctor')
    .description('Check sandbox, plugins, checkers, Electron and the audit chain; exit 1 when something needs attention.')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable)', (v: string, p: string[] = []) => [...p, v])
    .option('--json', 'print JSON')
    .addHelpText('after', examplesHelp(['gatehouse doctor --home ~/.config/gatehouse']))
    .action(async (o: { home?: string; pluginsDir?: string[]; json?: boolean }) => {
      const { runDoctor, formatReport } = await import('./doctor.js');
      const report = await runDoctor({ home: o.home ?? defaultHome(), pluginDirs: o.pluginsDir ?? [] });
      console.log(o.json ? jsonText(report, 2) : formatReport(report));
      if (!report.ok) process.exitCode = 1;
    });
}
