// Wires the client to the stores: the connection itself here, then every domain's own binding
// (sync/bind-domain.ts): the jobs, and the `bind` of each view in views/view-registry.ts (main.tsx
// passes the registry in). Each domain loads on every (re)connect, follows its host events and
// guards against stale answers in its own file; views read stores only, and nothing polls.
import { errorMessage } from '../lib/error-message.ts';
import { useConnectionStore } from '../stores/connection-store.ts';
import type { GatehouseClient } from '../transport/client.ts';
import type { ConnectionState } from '../transport/types.ts';
import { bindDomain, latest, type DomainBinder } from './bind-domain.ts';
import { bindJobs } from './jobs-actions.ts';

/** The host.info answer to keep: an older one never overwrites a newer one. */
const hostInfoAnswers = latest();

/** How this console is connected, what the host says about itself, and when it announces it is stopping. */
export function bindConnection(client: GatehouseClient): () => void {
  const applyState = (state: ConnectionState) => {
    document.documentElement.dataset.connection = state;
    useConnectionStore.setState({ state, detail: client.getDetail() });
  };
  const loadHostInfo = async () => {
    const req = hostInfoAnswers.begin();
    try {
      const hostInfo = await client.call('host.info', {});
      // A console only ever talks to an Electron or a serve host ('cli' is the CLI's own host).
      const shell = hostInfo.shell === 'cli' ? client.shell : hostInfo.shell;
      if (req.current()) useConnectionStore.setState({ hostInfo, hostInfoError: null, shell });
    } catch (err) {
      if (req.current()) useConnectionStore.setState({ hostInfoError: errorMessage(err) });
    }
  };

  useConnectionStore.setState({ shell: client.shell });
  applyState(client.getState());
  // Registered before the domain below, so the connection state is in the store before any load.
  const offState = client.onStateChange((state) => applyState(state));
  const offDomain = bindDomain(client, (d) => {
    d.on('host.stopping', ({ reason }) => useConnectionStore.setState({ stopping: reason }));
    return {
      load: () => {
        useConnectionStore.setState({ stopping: null });
        return loadHostInfo();
      },
      reset: () => {
        hostInfoAnswers.supersede();
        useConnectionStore.setState({ hostInfo: null, hostInfoError: null });
      },
    };
  });
  return () => {
    offDomain();
    offState();
  };
}

/** Everything bound when the console starts: the connection, the jobs, then each view's domain in sidebar order. */
export function consoleDomains(views: readonly { bind?: DomainBinder }[]): DomainBinder[] {
  return [bindConnection, bindJobs, ...views.flatMap((v) => (v.bind ? [v.bind] : []))];
}

/** Binds each domain to the client; the returned function undoes them all, last bound first. */
export function bindStores(client: GatehouseClient, domains: readonly DomainBinder[]): () => void {
  const offs = domains.map((bind) => bind(client));
  return () => {
    for (const off of offs.reverse()) off();
  };
}
