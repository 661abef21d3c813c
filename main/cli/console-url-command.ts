// `gatehouse url`: a fresh one-time console URL from the running host. Console URLs work once
// and for two minutes (main/shells/serve/console-session.ts), so an operator who lost the tab,
// or opened the printed link too late, asks for another here instead of restarting the host.
import type { Command } from 'commander';
import { defaultHome } from '../home.js';
import { runningHost } from './running-host.js';
import { examplesHelp } from './gatehouse-command.js';
import { HostCallFailed } from './host-client.js';
import { UsageError } from '../core/usage-error.js';

/** The path of the serve shell's link route (main/shells/serve/serve-shell.ts LINK_PATH). */
const LINK_PATH = '/api/console-link';

export function addConsoleUrlCommand(cli: Command): void {
  cli
    .command('url')
    .description('Print a new one-time URL for the console of the running Gatehouse (it works once, within 2 minutes).')
    .option('--home <dir>', 'data folder of the running Gatehouse')
    .addHelpText('after', examplesHelp([
      ['a link for the browser console', 'gatehouse url'],
      ['the host serving another data folder', 'gatehouse url --home /srv/gatehouse'],
    ]))
    .action(async (o: { home?: string }) => {
      const home = o.home ?? defaultHome();
      const running = await runningHost(home);
      if (!running.ok) throw new UsageError(`No Gatehouse is running for ${home} (${running.why}). Start one with \`gatehouse serve\`; it prints a console URL.`);
      const { info } = running;
      // The operator token comes from the home folder (serve.json), never from a URL.
      let res: Response;
      try {
        res = await fetch(new URL(LINK_PATH, info.url), { method: 'POST', headers: { authorization: `Bearer ${info.token}` } });
      } catch (err) {
        throw new HostCallFailed(`The running host (pid ${info.pid}) at ${info.url} did not answer: ${(err as Error).message}.`);
      }
      const body = (await res.json().catch(() => null)) as { ok?: boolean; result?: { url?: unknown }; error?: { message?: unknown } } | null;
      if (res.status === 401) throw new HostCallFailed(`The running host (pid ${info.pid}) refused the token in serve.json; restart it.`);
      if (!body?.ok || typeof body.result?.url !== 'string') {
        const why = typeof body?.error?.message === 'string' ? body.error.message : `HTTP ${res.status}`;
        throw new HostCallFailed(`The running host (pid ${info.pid}) made no console link: ${why}`);
      }
      console.log(`Gatehouse console: ${body.result.url}`);
    });
}
