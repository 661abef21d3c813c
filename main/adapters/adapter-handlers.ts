// The plugin.* and adapter.* methods of the contract, on top of an AdapterService. The host
// spreads these into its handler table. A refusal keeps ptywright's JSON-RPC code and data in
// the error's details, so the console and `gatehouse adapters --stdio` say the same thing.
import type { GatehouseContract } from '../../shared/contract.js';
import type { CallContext, Handlers } from '../core/handlers.js';
import { OperationError } from '../core/operation-error.js';
import { AdapterError, type AdapterService } from './adapter-service.js';

type AdapterMethods = Extract<keyof GatehouseContract['methods'], `adapter.${string}` | `plugin.${string}`>;
export type AdapterHandlers = Pick<Handlers<GatehouseContract['methods']>, AdapterMethods>;

export function adapterHandlers(adapters: AdapterService): AdapterHandlers {
  const actor = (ctx: CallContext) => `operator:${ctx.operator}`;
  const refusals = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AdapterError) throw new OperationError(err.reason, err.message, { code: err.code, ...err.data });
      throw err;
    }
  };
  return {
    'plugin.capabilities': () => adapters.capabilities(),
    'plugin.validate_manifest': ({ manifest }) => {
      const r = adapters.validateManifest(manifest);
      // ptywright: an unknown permission fails as the request is read, as Invalid params.
      const unknown = r.problems.find((p) => p.code === 'permission.unknown');
      if (unknown) throw new OperationError('invalid_params', `Invalid params: ${unknown.message}`, { code: -32602 });
      return { valid: r.valid, problems: r.problems.map((p) => ({ ...p })) };
    },
    'plugin.load': ({ manifest_path }, ctx) => refusals(() => ({ ...adapters.load(manifest_path, actor(ctx)) })),
    'plugin.unload': ({ plugin }, ctx) =>
      refusals(() => {
        adapters.unload(plugin, actor(ctx));
        return {};
      }),
    'adapter.list': () => ({ plugins: adapters.list().map((p) => ({ ...p })) }),
    'adapter.live': () => ({ sessions: adapters.live() }),
    'adapter.start': (p, ctx) => refusals(() => adapters.start(p, actor(ctx))),
    'adapter.send': ({ session, prompt }, ctx) => refusals(() => adapters.send(session, prompt, actor(ctx))),
    'adapter.wait': ({ session, timeout_ms }, ctx) => refusals(() => adapters.wait(session, timeout_ms, actor(ctx))),
    'adapter.snapshot': ({ session }, ctx) => refusals(() => adapters.snapshot(session, actor(ctx))),
    'adapter.state': ({ session }, ctx) => refusals(() => adapters.state(session, actor(ctx))),
    'adapter.inspect': ({ session }, ctx) => refusals(() => adapters.inspect(session, actor(ctx))),
    'adapter.transcript': ({ session }, ctx) => refusals(() => adapters.transcript(session, actor(ctx))),
    'adapter.close': ({ session }, ctx) => refusals(() => adapters.close(session, actor(ctx))),
  };
}
