// `gatehouse adapters --stdio`: JSON-RPC 2.0 over stdin/stdout for scripts that drive terminal
// adapters. It goes through the host that owns the data folder (the running one, or one started
// here for as long as stdin stays open), so every start, send and denial is in its audit log.
import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { Envelope } from '../../shared/contract.js';
import type { EnvelopeDispatch } from '../adapters/json-rpc.js';
import { operatorName } from '../core/operator.js';
import { UsageError } from '../core/usage-error.js';
import { defaultHome } from '../home.js';
import { runningHost } from './running-host.js';
import { examplesHelp } from './gatehouse-command.js';

export function addAdapterCommands(cli: Command): void {
  cli
    .command('adapters')
    .description('drive terminal adapters with JSON-RPC 2.0 on stdin/stdout (plugin.* and adapter.* methods), through the host of the data folder')
    .option('--stdio', 'serve JSON-RPC on stdin/stdout, one message per line')
    .option('--home <dir>', 'data folder')
    .option('--plugins-dir <dir>', 'another folder of adapters to search (repeatable; when no host is running)', (v: string, p: string[] = []) => [...p, v])
    .option('--allow-plugin-load', 'allow plugin.load / plugin.unload (when no host is running; a running host decides this itself)')
    .addHelpText('after', examplesHelp([['start the echo adapter from a script', `echo '{"jsonrpc":"2.0","id":1,"method":"adapter.start","params":{"plugin":"echo"}}' | gatehouse adapters --stdio --plugins-dir ./examples/plugins`]]))
    .action(async (o: { stdio?: boolean; home?: string; pluginsDir?: string[]; allowPluginLoad?: boolean }) => {
      if (!o.stdio) throw new UsageError('gatehouse adapters needs --stdio (JSON-RPC 2.0 on stdin/stdout).');
      const home = o.home ?? defaultHome();
      const { handleJsonRpcLine } = await import('../adapters/json-rpc.js');
      const { dispatch, close } = await envelopeDispatch(home, { pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)), allowPluginLoad: o.allowPluginLoad === true });
      try {
        const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
        // One at a time, in order: a script reads answers in the order it sent requests.
        for await (const line of lines) {
          if (!line.trim()) continue;
          const out = await handleJsonRpcLine(line, dispatch);
          if (out !== null) process.stdout.write(`${out}\n`);
        }
      } finally {
        await close();
      }
    });
}

/** The host's raw envelopes (the JSON-RPC error needs the refusal's details, which the CLI's usual client drops). */
async function envelopeDispatch(home: string, local: { pluginDirs: string[]; allowPluginLoad: boolean }): Promise<{ dispatch: EnvelopeDispatch; close: () => Promise<void> }> {
  const running = await runningHost(home);
  if (running.ok) {
    const { info } = running;
    const dispatch: EnvelopeDispatch = async (method, params) => {
      const res = await fetch(new URL('/api/call', info.url), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${info.token}` }, body: JSON.stringify({ method, params }) });
      return (await res.json()) as Envelope<unknown>;
    };
    return { dispatch, close: async () => {} };
  }
  const { createHost } = await import('../host/create-host.js');
  const host = createHost({ home, shell: 'cli', watch: false, log: () => {}, pluginDirs: local.pluginDirs, ...(local.allowPluginLoad ? { allowPluginLoad: true } : {}) });
  await host.ready;
  const ctx = { console: 'cli' as const, operator: operatorName() };
  return { dispatch: (method, params) => host.dispatcher.dispatch(method, params, ctx), close: () => host.close('adapters --stdio finished') };
}
