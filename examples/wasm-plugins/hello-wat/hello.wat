;; greet: answers {"greeting": "hello from WebAssembly"} whatever its input, using only the
;; Extism kernel ABI (no permissions needed). Build: npx wat2wasm hello.wat -o plugin.wasm
(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (memory (export "memory") 1)
  (data (i32.const 0) "{\"greeting\":\"hello from WebAssembly\"}")
  (func (export "greet") (result i32)
    (local $out i64) (local $i i32)
    (local.set $out (call $alloc (i64.const 37)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (i32.const 37)))
        (call $store_u8 (i64.add (local.get $out) (i64.extend_i32_u (local.get $i))) (i32.load8_u (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $output_set (local.get $out) (i64.const 37))
    (i32.const 0)))
