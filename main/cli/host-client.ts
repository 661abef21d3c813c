// CLI commands that change state go through the host that owns the data folder: the running
// one (over its loopback API, found through serve.json) or, when none runs, one started in
// this process for the length of the command. Two hosts never write one folder at once.
import type { MethodName, RequestOf, ResponseOf, Envelope } from '../../shared/contract.js';
import { createHost, operatorName, type HostOptions } from '../host/create-host.js';
import { homePaths } from '../home.js';
import { readServeFile } from '../shells/serve/serve-file.js';
import { processAlive } from '../host/host-lock.js';

export interface HostCaller {
  readonly mode: 'remote' | 'local';
  call<M extends MethodName>(method: M, params: RequestOf<M>): Promise<ResponseOf<M>>;
  close(): Promise<void>;
}

/** The host refused or failed: its sentence is what the operator sees. */
export class HostCallFailed extends Error {}

function unwrap<T>(env: Envelope<T>): T {
  if (!env.ok) throw new HostCallFailed(env.error.message);
  return env.result;
}

export async function connectHost(home: string, local: Omit<HostOptions, 'home' | 'shell'> = {}): Promise<HostCaller> {
  const info = readServeFile(homePaths(home).serveJson);
  if (info && processAlive(info.pid)) {
    return {
      mode: 'remote',
      async call(method, params) {
        const res = await fetch(new URL('/api/call', info.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${info.token}` },
          body: JSON.stringify({ method, params }),
        });
        if (res.status === 401) throw new HostCallFailed(`The running host (pid ${info.pid}) refused the token in serve.json; restart it.`);
        return unwrap((await res.json()) as Envelope<ResponseOf<typeof method>>);
      },
      async close() {},
    };
  }
  const host = createHost({ ...local, home, shell: 'cli', watch: false, log: () => {} });
  await host.ready;
  const ctx = { console: 'cli' as const, operator: operatorName() };
  return {
    mode: 'local',
    async call(method, params) {
      return unwrap((await host.dispatcher.dispatch(method, params, ctx)) as Envelope<ResponseOf<typeof method>>);
    },
    close: () => host.close('cli command finished'),
  };
}
