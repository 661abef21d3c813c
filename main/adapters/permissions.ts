// The one table of what an adapter may do. ptywright's permission set, the permission each
// JSON-RPC (and console) method needs, and the permission each Lua host function needs. The Lua
// state is built from HOST_FUNCTIONS (an ungranted function is never installed) and every method
// call and every action an adapter returns is checked again against the same tables, so the two
// can never disagree.

export const ADAPTER_PERMISSIONS = ['session.spawn', 'session.kill', 'session.resize', 'screen.read', 'transcript.read', 'input.write', 'matcher.wait'] as const;
export type AdapterPermission = (typeof ADAPTER_PERMISSIONS)[number];

export const ADAPTER_KINDS = ['adapter', 'macro', 'matcher'] as const;
export type AdapterKind = (typeof ADAPTER_KINDS)[number];

/** The JSON-RPC error code of a denial, as ptywright defines it. */
export const PERMISSION_DENIED = -32004;

/** Every adapter method and the permission it needs (null: read-only, needs none). */
export const METHOD_PERMISSIONS = {
  'adapter.start': 'session.spawn',
  'adapter.send': 'input.write',
  'adapter.wait': 'matcher.wait',
  'adapter.snapshot': 'screen.read',
  'adapter.state': 'screen.read',
  'adapter.inspect': 'screen.read',
  'adapter.transcript': 'transcript.read',
  'adapter.close': 'session.kill',
  'adapter.list': null,
  'adapter.live': null,
} as const satisfies Record<string, AdapterPermission | null>;
export type AdapterMethod = keyof typeof METHOD_PERMISSIONS;

/**
 * The host functions of the `ptywright` table in Lua and what each needs. They only build values
 * (an action, a matcher); the host runs what the adapter returns, and checks that run again.
 */
export const HOST_FUNCTIONS = {
  'action.text': 'input.write',
  'action.key': 'input.write',
  'action.resize': 'session.resize',
  'matcher.screen_stable': 'matcher.wait',
  'matcher.text': 'matcher.wait',
  'matcher.any': 'matcher.wait',
} as const satisfies Record<string, AdapterPermission>;
export type HostFunction = keyof typeof HOST_FUNCTIONS;

/** The permission an action of this type needs when the host carries it out. */
export const ACTION_PERMISSIONS: Record<string, AdapterPermission> = { text: 'input.write', key: 'input.write', resize: 'session.resize' };

/** The host functions a set of granted permissions installs. */
export function grantedHostFunctions(granted: readonly string[]): HostFunction[] {
  return (Object.keys(HOST_FUNCTIONS) as HostFunction[]).filter((f) => granted.includes(HOST_FUNCTIONS[f]));
}

export function isAdapterMethod(m: string): m is AdapterMethod {
  return Object.hasOwn(METHOD_PERMISSIONS, m);
}
