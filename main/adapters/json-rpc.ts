// JSON-RPC 2.0 for scripts (`gatehouse adapters --stdio`): one request per line in, one response
// per line out, over the same contract methods the console calls. Only plugin.* and adapter.*
// are served here: the stdio channel is for driving terminal adapters, not the whole console API.
// A refusal keeps ptywright's code and data (-32004, { method, required_permission } or
// { reason: "server_did_not_grant_plugin_load" }).
import type { Envelope } from '../../shared/contract.js';
import { isAdapterMethod } from './permissions.js';

export const PLUGIN_METHODS = ['plugin.capabilities', 'plugin.validate_manifest', 'plugin.load', 'plugin.unload'] as const;

export type EnvelopeDispatch = (method: string, params: unknown) => Promise<Envelope<unknown>>;

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

const reply = (id: unknown, body: { result: unknown } | { error: RpcError }) => JSON.stringify({ jsonrpc: '2.0', id: id ?? null, ...body });

/** One line in, one line out (null for a notification, which gets no answer). */
export async function handleJsonRpcLine(line: string, dispatch: EnvelopeDispatch): Promise<string | null> {
  let req: unknown;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return reply(null, { error: { code: -32700, message: `Parse error: ${(err as Error).message}; send one JSON object per line.` } });
  }
  if (req === null || typeof req !== 'object' || Array.isArray(req)) return reply(null, { error: { code: -32600, message: 'Invalid Request: send a JSON-RPC 2.0 object (batches are not served).' } });
  const r = req as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const notification = !('id' in r);
  const id = r.id;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return notification ? null : reply(id, { error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0" and "method" a string.' } });
  const method = r.method;
  if (!isAdapterMethod(method) && !(PLUGIN_METHODS as readonly string[]).includes(method)) {
    return notification ? null : reply(id, { error: { code: -32601, message: `Method not found: ${method}; this channel serves ${PLUGIN_METHODS.join(', ')} and adapter.*.` } });
  }
  const env = await dispatch(method, r.params ?? {});
  if (notification) return null;
  if (env.ok) return reply(id, { result: env.result });
  const details = (env.error.details ?? {}) as { code?: unknown; reason?: unknown; [k: string]: unknown };
  if (env.error.code === 'bad_request') return reply(id, { error: { code: -32602, message: `Invalid params: ${env.error.message}`, data: env.error.details } });
  if (env.error.code === 'rejected' && typeof details.code === 'number') {
    const { code, reason, ...data } = details;
    // A per-method denial carries method and required_permission; the server-level one carries its reason.
    const out = reason === 'permission_denied' ? data : { ...data, reason };
    return reply(id, { error: { code, message: env.error.message, data: out } });
  }
  return reply(id, { error: { code: -32603, message: env.error.message, ...(env.error.details !== undefined ? { data: env.error.details } : {}) } });
}
