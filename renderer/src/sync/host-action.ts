// A one-call action of a domain: the view calls `previewX(client, request)` from its domain's
// sync/<domain>-actions.ts instead of `client.call('x.preview', …)`, so every method a view uses
// is named in sync/ (test/repo/layering.test.ts forbids client.call under views/ and components/).
import type { MethodName, RequestOf, ResponseOf } from '../../../shared/contract.ts';
import type { GatehouseClient } from '../transport/client.ts';

export type HostAction<M extends MethodName> = (client: GatehouseClient, request: RequestOf<M>) => Promise<ResponseOf<M>>;

/** The action that sends `method` with the caller's request and answers the host's response (a refusal throws). */
export function hostAction<M extends MethodName>(method: M): HostAction<M> {
  return (client, request) => client.call(method, request);
}
