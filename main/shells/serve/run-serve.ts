// `gatehouse serve`: builds the host, puts the serve shell around it, and owns the process's
// lifetime (serve.json, signals, a clean audit record of the stop).
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createHost, operatorName } from '../../host/create-host.js';
import { startServeShell } from './serve-shell.js';
import { UsageError } from '../../cli/usage-error.js';
import { TOKEN_RULE, operatorToken, validToken } from './tokens.js';
import { removeServeFile, writeServeFile } from './serve-file.js';
import { isLoopback } from './guards.js';

export interface RunServeOptions {
  home: string;
  host: string;
  port: number;
  token?: string;
  newToken?: boolean;
  staticDir?: string;
  /** Why the serve shell runs: printed before the URL (the Electron fallback uses it). */
  banner?: string;
  pluginDirs?: string[];
  allowedPlugins?: string[];
}

export function defaultStaticDir(): string {
  // The CLI bundle lives in out/main/, the renderer build in out/renderer/.
  return join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
}

export async function runServe(opts: RunServeOptions): Promise<{ stop: (reason: string) => Promise<void> }> {
  // A usage mistake, caught before the host starts (and records a start it would never stop).
  if (opts.token !== undefined && !validToken(opts.token)) throw new UsageError(TOKEN_RULE);
  const host = createHost({ home: opts.home, shell: 'serve', pluginDirs: opts.pluginDirs ?? [], allowedPlugins: opts.allowedPlugins ?? [] });
  const token = operatorToken(host.paths.root, { ...(opts.token !== undefined ? { given: opts.token } : {}), rotate: opts.newToken ?? false });
  let shell;
  try {
    shell = await startServeShell({ host, bindHost: opts.host, port: opts.port, token, staticDir: opts.staticDir ?? defaultStaticDir(), operator: operatorName() });
  } catch (err) {
    await host.close('failed to listen');
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new Error(`Port ${opts.port} on ${opts.host} is in use. Pick another with --port N, or --port 0 for any free port.`);
    throw err;
  }
  writeServeFile(host.paths.serveJson, { url: shell.url, host: opts.host, port: shell.port, pid: process.pid, token, startedAt: host.startedAt });
  if (opts.banner) console.log(opts.banner);
  if (!isLoopback(opts.host)) console.log(`Warning: listening on ${opts.host}, reachable from other machines. Anyone with the token can operate this console.`);
  console.log(shell.consoleLine);

  let stopping: Promise<void> | null = null;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      removeServeFile(host.paths.serveJson);
      // Tell the consoles before their sockets close, so they show why.
      host.bus.emit('host.stopping', { reason });
      await shell.close();
      await host.close(reason);
    })());
  const onSignal = (sig: NodeJS.Signals) => {
    stop(`signal ${sig}`).then(
      () => process.exit(0),
      (err) => {
        console.error('gatehouse: clean stop failed:', err);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { stop };
}
