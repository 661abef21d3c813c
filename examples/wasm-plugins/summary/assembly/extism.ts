// The Extism kernel ABI as AssemblyScript declarations: what Extism's AssemblyScript kit wraps,
// written out so the plugin builds offline with nothing but the AssemblyScript compiler.
@external("extism:host/env", "input_length") export declare function input_length(): i64;
@external("extism:host/env", "input_load_u8") export declare function input_load_u8(offset: i64): u8;
@external("extism:host/env", "alloc") export declare function alloc(length: i64): i64;
@external("extism:host/env", "length") export declare function length(offset: i64): i64;
@external("extism:host/env", "load_u8") export declare function load_u8(offset: i64): u8;
@external("extism:host/env", "store_u8") export declare function store_u8(offset: i64, value: u8): void;
@external("extism:host/env", "output_set") export declare function output_set(offset: i64, length: i64): void;
@external("extism:host/env", "error_set") export declare function error_set(offset: i64): void;
// Gatehouse's file function: linked only when the manifest grants `permissions.read`.
@external("extism:host/user", "read_file") export declare function read_file(path: i64): i64;

/** The call's input, as bytes. */
export function input(): Uint8Array {
  const n = <i32>input_length();
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = input_load_u8(<i64>i);
  return out;
}

/** Copies bytes into a new host block and returns its offset. */
export function toHost(bytes: Uint8Array): i64 {
  const block = alloc(<i64>bytes.length);
  for (let i = 0; i < bytes.length; i++) store_u8(block + <i64>i, bytes[i]);
  return block;
}

/** A host block's bytes (empty for offset 0). */
export function fromHost(block: i64): Uint8Array {
  if (block == 0) return new Uint8Array(0);
  const n = <i32>length(block);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = load_u8(block + <i64>i);
  return out;
}

export function setOutput(text: string): void {
  const bytes = Uint8Array.wrap(String.UTF8.encode(text));
  output_set(toHost(bytes), <i64>bytes.length);
}

export function setError(text: string): void {
  error_set(toHost(Uint8Array.wrap(String.UTF8.encode(text))));
}
