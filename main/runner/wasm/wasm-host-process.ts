// The child process that holds the WebAssembly worker pool, started by WasmHostProcess inside
// the same bubblewrap sandbox and limits as process plugins: a V8 escape from a guest lands in
// a sandbox with no network, no home and nothing writable but its private /tmp. It knows nothing
// of policy: every host function goes back to the host over the IPC channel, which judges it.
import { WasmPool } from './wasm-pool.js';
import type { HostCallReply } from './extism-kernel.js';
import { WireReader, WireWriter, type HostProcessMessage, type WireRequest } from './wasm-host-wire.js';

const pool = new WasmPool();
/** Module bytes by hash: the host sends a module's bytes once per process, then its hash only. */
const modules = new Map<string, Uint8Array>();
const MAX_MODULES = 64;
const pending = new Map<number, (r: HostCallReply) => void>();
let nextHostId = 1;

const writer = new WireWriter((m) => process.send?.(m));
const reader = new WireReader();

function send(m: HostProcessMessage): void {
  writer.message(m);
}

process.on('message', (w: WireRequest) => {
  const m = reader.request(w);
  if (!m) return;
  if (m.type === 'host-reply') {
    pending.get(m.hostId)?.(m.reply);
    pending.delete(m.hostId);
    return;
  }
  if (m.module.bytes) {
    if (modules.size >= MAX_MODULES) modules.delete(modules.keys().next().value!);
    modules.set(m.module.hash, m.module.bytes);
  }
  const bytes = modules.get(m.module.hash);
  if (!bytes) {
    send({ type: 'ran', id: m.id, result: { ok: false, output: new Uint8Array(0), error: 'the module is not loaded in the WebAssembly process', failure: 'crash', fuelUsed: 0, logs: [], memoryBytes: 0, durationMs: 0 } });
    return;
  }
  void pool
    .run({
      module: { hash: m.module.hash, bytes },
      call: m.call,
      timeoutMs: m.timeoutMs,
      hostCall: (req) =>
        new Promise<HostCallReply>((resolve) => {
          const hostId = nextHostId++;
          pending.set(hostId, resolve);
          send({ type: 'host', id: m.id, hostId, req });
        }),
    })
    .then((result) => send({ type: 'ran', id: m.id, result }));
});

// The host went away (its end of the channel closed): nothing is left running.
process.on('disconnect', () => {
  void pool.close().finally(() => process.exit(0));
});

send({ type: 'ready', pid: process.pid });
