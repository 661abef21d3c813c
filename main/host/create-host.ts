// The composition root: builds every service of the host from its dependencies. Both shells
// call this and only add a transport around `dispatcher` and `bus`.
import { userInfo } from 'node:os';
import { contract, type GatehouseContract, type ChainState } from '../../shared/contract.js';
import { AuditStore, systemClock, type Clock } from '../audit/audit-store.js';
import { ensureHome, type HomePaths } from '../home.js';
import { createDispatcher, type CallContext, type Dispatcher, type Handlers } from './dispatcher.js';
import { EventBus } from './event-bus.js';
import { version } from '../version.js';

export interface HostOptions {
  home: string;
  shell: 'electron' | 'serve';
  clock?: Clock;
  nativeBinding?: string;
  log?: (msg: string, err?: unknown) => void;
}

export interface Host {
  readonly paths: HomePaths;
  readonly audit: AuditStore;
  readonly bus: EventBus<GatehouseContract['events']>;
  readonly dispatcher: Dispatcher;
  readonly startedAt: number;
  /** Records that an operator console connected (and, via the returned function, left). */
  operatorConnected(ctx: CallContext, details: Record<string, unknown>): () => void;
  chainState(): ChainState;
  close(reason?: string): Promise<void>;
}

export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export function createHost(opts: HostOptions): Host {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? ((m: string, e?: unknown) => console.error(`gatehouse: ${m}`, e ?? ''));
  const paths = ensureHome(opts.home);
  const bus = new EventBus(contract.events, log);
  const audit = new AuditStore({
    path: paths.auditDb,
    clock,
    log,
    ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {}),
    onCommit: (lastSeq, count) => bus.emit('audit.appended', { lastSeq, count }),
  });
  const startedAt = clock.now();
  let chain: ChainState = { state: 'checking', checked: 0, head: { seq: 0, hash: '' }, firstBad: null, verifiedAt: null };

  const verify = (): ChainState => {
    const r = audit.verify();
    chain = { state: r.ok ? 'verified' : 'broken', checked: r.checked, head: r.head, firstBad: r.firstBad, verifiedAt: Math.trunc(clock.now()) };
    bus.emit('audit.chain', chain);
    return chain;
  };
  // Verify before the first append, so a broken chain found at start is reported as found.
  verify();
  audit.append({ type: 'host.started', actor: 'host', payload: { shell: opts.shell, pid: process.pid, version, operator: operatorName() } });

  const handlers: Handlers<GatehouseContract['methods']> = {
    'host.info': () => ({ version, shell: opts.shell, home: paths.root, pid: process.pid, startedAt, operator: operatorName() }),
    'audit.verify': () => verify(),
    'audit.chainState': () => chain,
    'audit.tail': ({ limit }) => ({ events: audit.tail(limit) }),
  };
  const dispatcher = createDispatcher(contract.methods, handlers, log);

  let closed = false;
  return {
    paths,
    audit,
    bus,
    dispatcher,
    startedAt,
    chainState: () => chain,
    operatorConnected(ctx, details) {
      audit.append({ type: 'operator.connected', actor: `operator:${ctx.operator}`, payload: { console: ctx.console, ...details } });
      return () => {
        if (!closed) audit.append({ type: 'operator.disconnected', actor: `operator:${ctx.operator}`, payload: { console: ctx.console, ...details } });
      };
    },
    async close(reason = 'shutdown') {
      if (closed) return;
      closed = true;
      bus.emit('host.stopping', { reason });
      const last = audit.append({ type: 'host.stopped', actor: 'host', payload: { reason } });
      audit.flush();
      await last.durable;
      audit.close();
    },
  };
}
