// The host functions a WebAssembly plugin can import, and which manifest permission links each.
// The Extism kernel ABI (module "extism:host/env") is what Extism's plugin kits compile against;
// Gatehouse's file functions live under "extism:host/user", where Extism puts host functions.
// WASI preview 1 (module "wasi_snapshot_preview1", what wasm32-wasip1 toolchains import) is
// linked too: its files reach only the folders the manifest grants (preopens), its sockets none.
// AgentZero's plugin ABI v2 (what its SDK's declare_tool! exports: az_alloc, az_tool_execute) runs
// as AgentZero runs it, with its one always-linked host function, az.az_log.
// Anything not in these tables does not exist for the guest, and a module that imports it is
// refused when it is loaded, naming the import.
import type { WasmImport } from './wasm-module-info.js';

export const EXTISM_ENV = 'extism:host/env';
export const EXTISM_USER = 'extism:host/user';
export const WASI_P1 = 'wasi_snapshot_preview1';
/** AgentZero's host module. */
export const AZ_MODULE = 'az';

/**
 * Every function of WASI preview 1. They need no grant of their own: a file function reaches
 * only the preopened folders, which are the manifest's `read` and `write` grants (none without
 * them), and the socket functions always fail (Gatehouse preopens no socket).
 */
const WASI_FUNCTIONS = new Set([
  'args_get', 'args_sizes_get', 'environ_get', 'environ_sizes_get', 'clock_res_get', 'clock_time_get',
  'fd_advise', 'fd_allocate', 'fd_close', 'fd_datasync', 'fd_fdstat_get', 'fd_fdstat_set_flags', 'fd_fdstat_set_rights',
  'fd_filestat_get', 'fd_filestat_set_size', 'fd_filestat_set_times', 'fd_pread', 'fd_prestat_get', 'fd_prestat_dir_name',
  'fd_pwrite', 'fd_read', 'fd_readdir', 'fd_renumber', 'fd_seek', 'fd_sync', 'fd_tell', 'fd_write',
  'path_create_directory', 'path_filestat_get', 'path_filestat_set_times', 'path_link', 'path_open', 'path_readlink',
  'path_remove_directory', 'path_rename', 'path_symlink', 'path_unlink_file', 'poll_oneoff', 'proc_exit', 'proc_raise',
  'sched_yield', 'random_get', 'sock_accept', 'sock_recv', 'sock_send', 'sock_shutdown',
]);

export interface ModuleAbi {
  /** Imports WASI preview 1. */
  wasi: boolean;
  /** Imports the Extism kernel or Extism host functions. */
  extism: boolean;
  /** A WASI command: WASI without Extism, exporting _start; it runs as a program (stdin → stdout). */
  command: boolean;
  /**
   * AgentZero's ABI v2 (its SDK's declare_tool!): exports az_alloc and az_tool_execute. The host
   * writes {"input": <the arguments as JSON text>, "workspace_root"} into the guest's memory and
   * reads {"output", "error"} back from the packed pointer and length the export returns.
   */
  agentzero: boolean;
}

/** The export every tool of an AgentZero module runs. */
export const AZ_EXECUTE = 'az_tool_execute';

/** How a module talks to its host, from its imports and exports (engine and validation agree on it). */
export function moduleAbi(imports: readonly { module: string }[], exports: readonly { name: string; kind: string }[]): ModuleAbi {
  const wasi = imports.some((i) => i.module === WASI_P1);
  const extism = imports.some((i) => i.module === EXTISM_ENV || i.module === EXTISM_USER);
  const fn = (name: string) => exports.some((e) => e.name === name && (e.kind === 'func' || e.kind === 'function'));
  const agentzero = !extism && fn(AZ_EXECUTE) && fn('az_alloc');
  const command = wasi && !extism && !agentzero && fn('_start');
  return { wasi, extism, command, agentzero };
}

/** The permission that links a host function; `core` functions only move bytes between guest and host. */
export type Grant = 'core' | 'log' | 'hosts' | 'read' | 'write';

const ENV_FUNCTIONS: Record<string, Grant> = {
  input_length: 'core',
  input_load_u8: 'core',
  input_load_u64: 'core',
  length: 'core',
  length_unsafe: 'core',
  alloc: 'core',
  free: 'core',
  output_set: 'core',
  error_set: 'core',
  load_u8: 'core',
  load_u64: 'core',
  store_u8: 'core',
  store_u64: 'core',
  config_get: 'core',
  var_get: 'core',
  var_set: 'core',
  reset: 'core',
  get_log_level: 'core',
  log_trace: 'log',
  log_debug: 'log',
  log_info: 'log',
  log_warn: 'log',
  log_error: 'log',
  http_request: 'hosts',
  http_status_code: 'hosts',
  http_headers: 'hosts',
};

const USER_FUNCTIONS: Record<string, Grant> = {
  read_file: 'read',
  write_file: 'write',
};

export interface GrantedPermissions {
  read: readonly string[];
  write: readonly string[];
  hosts: readonly string[];
  log: boolean;
}

export function grantOf(imp: WasmImport): Grant | null {
  if (imp.kind !== 'func') return null;
  if (imp.module === EXTISM_ENV) return Object.hasOwn(ENV_FUNCTIONS, imp.name) ? ENV_FUNCTIONS[imp.name]! : null;
  if (imp.module === EXTISM_USER) return Object.hasOwn(USER_FUNCTIONS, imp.name) ? USER_FUNCTIONS[imp.name]! : null;
  if (imp.module === WASI_P1) return WASI_FUNCTIONS.has(imp.name) ? 'core' : null;
  // AssemblyScript's abort(message, file, line, column): it only ends the call with a message.
  if (imp.module === 'env' && imp.name === 'abort') return 'core';
  // AgentZero links az_log for every plugin: it only adds a line to the call's logs.
  if (imp.module === AZ_MODULE && imp.name === 'az_log') return 'core';
  return null;
}

export function isGranted(grant: Grant, perms: GrantedPermissions): boolean {
  switch (grant) {
    case 'core':
      return true;
    case 'log':
      return perms.log;
    case 'hosts':
      return perms.hosts.length > 0;
    case 'read':
      return perms.read.length > 0;
    case 'write':
      return perms.write.length > 0;
  }
}

export interface ImportVerdict {
  import: WasmImport;
  /** The permission that would link it, or null when Gatehouse provides no such function. */
  grant: Grant | null;
  granted: boolean;
}

/** Every import of a module next to what the manifest grants (the Plugins view shows this). */
export function judgeImports(imports: readonly WasmImport[], perms: GrantedPermissions): ImportVerdict[] {
  return imports.map((imp) => {
    const grant = grantOf(imp);
    return { import: imp, grant, granted: grant !== null && isGranted(grant, perms) };
  });
}

/** The sentence for an import that is refused. */
export function refusal(v: ImportVerdict): string {
  const what = `${v.import.module}.${v.import.name}`;
  if (v.grant === null) {
    return v.import.kind === 'func'
      ? `the module imports ${what}, a function Gatehouse does not provide to WebAssembly plugins (only the Extism kernel ABI, the granted host functions, WASI preview 1 and AgentZero's az_log); remove the import`
      : `the module imports a ${v.import.kind} ${what}; a plugin module must define its own memory, tables and globals`;
  }
  const how = v.grant === 'log' ? 'permissions.log = true' : `a path or host in permissions.${v.grant}`;
  return `the module imports ${what}, which needs ${how}, and the manifest does not grant it; grant it or remove the import`;
}
