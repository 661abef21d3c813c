// The worker thread a WebAssembly plugin runs in (never the host's main thread). Two jobs:
//  - meter: binaryen over untrusted bytes (meter.ts), once per module version, in a worker of
//    its own that ends after it;
//  - run: one call, in a warm worker that keeps compiled modules by hash (compiled once).
// Host functions (read_file, write_file, http_request) are answered by the host, which checks
// each against policy and records it: the worker posts the request on its port and blocks on a
// shared flag until the answer is there (the guest's call is synchronous).
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { runEngineCall, type EngineCall } from './engine.js';
import type { HostCallReply, HostCallRequest } from './extism-kernel.js';

export type WorkerRequest =
  | { type: 'meter'; id: number; bytes: Uint8Array; memoryMb: number; fuelLimit: number; fuel: boolean }
  | { type: 'run'; id: number; hash: string; bytes?: Uint8Array; call: EngineCall };

export type WorkerReply =
  | { type: 'metered'; id: number; bytes?: Uint8Array; error?: string }
  | { type: 'ran'; id: number; result?: import('./engine.js').EngineResult; error?: string; needBytes?: boolean }
  | { type: 'host'; id: number; req: HostCallRequest };

const data = workerData as { hostPort?: MessagePort; flag?: SharedArrayBuffer } | undefined;
const modules = new Map<string, WebAssembly.Module>();
const MAX_MODULES = 32;

function hostCall(callId: number, req: HostCallRequest): HostCallReply {
  const port = data?.hostPort;
  const flag = data?.flag ? new Int32Array(data.flag) : null;
  if (!port || !flag) return { ok: false, error: 'host functions are not available in this worker' };
  Atomics.store(flag, 0, 0);
  parentPort!.postMessage({ type: 'host', id: callId, req } satisfies WorkerReply);
  for (;;) {
    Atomics.wait(flag, 0, 0);
    const m = receiveMessageOnPort(port);
    if (m) return m.message as HostCallReply;
    Atomics.store(flag, 0, 0);
  }
}

async function meter(m: Extract<WorkerRequest, { type: 'meter' }>): Promise<void> {
  try {
    // Loaded here only: a worker that runs calls never loads binaryen.
    const { meterModule } = await import('./meter.js');
    const bytes = await meterModule(m.bytes, { memoryMb: m.memoryMb, fuelLimit: m.fuelLimit, fuel: m.fuel });
    parentPort!.postMessage({ type: 'metered', id: m.id, bytes } satisfies WorkerReply, [bytes.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ type: 'metered', id: m.id, error: (err as Error).message } satisfies WorkerReply);
  }
}

// A run is synchronous (the guest blocks on host calls), so only metering is async; it answers
// its own failures as a `metered` reply.
parentPort?.on('message', (m: WorkerRequest) => {
  if (m.type === 'meter') {
    void meter(m);
    return;
  }
  try {
    let mod = modules.get(m.hash);
    if (!mod) {
      if (!m.bytes) {
        parentPort!.postMessage({ type: 'ran', id: m.id, needBytes: true } satisfies WorkerReply);
        return;
      }
      mod = new WebAssembly.Module(m.bytes as Uint8Array<ArrayBuffer>);
      if (modules.size >= MAX_MODULES) modules.delete(modules.keys().next().value!);
      modules.set(m.hash, mod);
    }
    const result = runEngineCall(mod, m.call, (req) => hostCall(m.id, req));
    parentPort!.postMessage({ type: 'ran', id: m.id, result } satisfies WorkerReply);
  } catch (err) {
    parentPort!.postMessage({ type: 'ran', id: m.id, error: (err as Error).message } satisfies WorkerReply);
  }
});
