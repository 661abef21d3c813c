// The child process of a module plugin (a Triggerfish-style `mod.ts`). It runs inside the
// sandbox with no network of its own: it loads the plugin's compiled module, reports its
// exports to the host as data, and runs executor calls. `fetch` (global and context.fetch) and
// `context.log` go back to the host over the line protocol, which checks and records them; the
// child knows nothing of policy. Which call a log line or a fetch belongs to is tracked with
// AsyncLocalStorage, so concurrent calls are told apart.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pathToFileURL } from 'node:url';
import type { ChildToHost, FetchInit, HostToChild, ReportedExports } from './protocol.js';
import { lineReader } from './protocol.js';

const out = process.stdout.write.bind(process.stdout);
function send(m: ChildToHost): void {
  out(`${JSON.stringify(m)}\n`);
}

// The protocol owns stdout: whatever the module prints goes to stderr (the host keeps a tail).
const toErr = (...a: unknown[]): void => void process.stderr.write(`${a.map((x) => (typeof x === 'string' ? x : safeJson(x))).join(' ')}\n`);
console.log = toErr;
console.info = toErr;
console.debug = toErr;
process.stdout.write = ((chunk: string | Uint8Array) => process.stderr.write(chunk)) as typeof process.stdout.write;

function safeJson(x: unknown): string {
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}

const callId = new AsyncLocalStorage<number>();
const fetches = new Map<number, { resolve(r: Response): void; reject(e: Error): void }>();
let nextFetch = 1;

async function mediatedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const headers: Record<string, string> = {};
  new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((v, k) => (headers[k] = v));
  const body = init?.body === undefined || init.body === null ? null : typeof init.body === 'string' ? init.body : String(init.body);
  const fi: FetchInit = { method: (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(), headers, body };
  const fid = nextFetch++;
  return new Promise<Response>((resolve, reject) => {
    fetches.set(fid, { resolve, reject });
    send({ t: 'fetch', id: callId.getStore() ?? null, fid, url, init: fi });
  });
}
globalThis.fetch = mediatedFetch as typeof fetch;

// The cap is counted here too: a tight loop of log calls would otherwise fill this process's
// memory with lines the host has not read yet. Past it, one log-flood message and nothing more.
const LOG_CAP = Number(process.env['GATEHOUSE_MODULE_LOG_CAP']) || 2000;
const LOG_BYTES_CAP = 1024 * 1024;
const logCounts = new Map<number | null, { lines: number; bytes: number; flooded: boolean }>();
function logger(level: string) {
  return (message: unknown, ...rest: unknown[]): void => {
    const id = callId.getStore() ?? null;
    let c = logCounts.get(id);
    if (!c) logCounts.set(id, (c = { lines: 0, bytes: 0, flooded: false }));
    if (c.flooded) return;
    const text = [typeof message === 'string' ? message : safeJson(message), ...rest.map(safeJson)].join(' ').slice(0, 4000);
    c.lines++;
    c.bytes += text.length;
    if (c.lines > LOG_CAP || c.bytes > LOG_BYTES_CAP) {
      c.flooded = true;
      return send({ t: 'log-flood', id, lines: c.lines, bytes: c.bytes });
    }
    send({ t: 'log', id, level, message: text });
  };
}
// Triggerfish's classification levels, lowest first; the host checks them again.
const LEVELS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'RESTRICTED'];
// Taint only rises: per call (Gatehouse has no session object in the child), starting at the
// plugin's own classification, since its data is at least that.
const taints = new Map<number | null, string>();
let baseTaint = 'PUBLIC';
const higher = (a: string, b: string): string => (LEVELS.indexOf(b) > LEVELS.indexOf(a) ? b : a);
const context = {
  pluginName: '',
  log: { debug: logger('debug'), info: logger('info'), warn: logger('warn'), error: logger('error') },
  fetch: mediatedFetch,
  config: {} as Record<string, unknown>,
  getSessionTaint: (): string => taints.get(callId.getStore() ?? null) ?? baseTaint,
  escalateTaint: (level: unknown): void => {
    if (typeof level !== 'string' || !LEVELS.includes(level)) throw new TypeError(`escalateTaint(${JSON.stringify(level)}): the level must be one of ${LEVELS.join(', ')}`);
    const id = callId.getStore() ?? null;
    const next = higher(context.getSessionTaint(), level);
    taints.set(id, next);
    send({ t: 'taint', id, level: next });
  },
};

type Executor = (name: string, input: unknown) => Promise<unknown>;
let executor: Executor | null = null;

function plain(x: unknown): unknown {
  if (x === undefined || typeof x === 'function') return undefined;
  try {
    return JSON.parse(JSON.stringify(x)) as unknown;
  } catch {
    return { unserializable: typeof x };
  }
}

async function load(): Promise<void> {
  const file = process.env['GATEHOUSE_MODULE_BUNDLE'];
  if (!file) return send({ t: 'load-error', error: 'no module named (GATEHOUSE_MODULE_BUNDLE is empty)' });
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    return send({ t: 'load-error', error: `the module threw while loading: ${(err as Error)?.message ?? String(err)}` });
  }
  const exports: ReportedExports = {
    names: Object.keys(mod).sort(),
    manifest: plain(mod['manifest']),
    toolDefinitions: plain(mod['toolDefinitions']),
    systemPrompt: plain(mod['systemPrompt']),
    createExecutor: typeof mod['createExecutor'],
  };
  const m = mod['manifest'] as { name?: unknown; classification?: unknown } | undefined;
  if (typeof m?.name === 'string') context.pluginName = m.name;
  if (typeof m?.classification === 'string' && LEVELS.includes(m.classification)) baseTaint = m.classification;
  if (typeof mod['createExecutor'] === 'function') {
    try {
      const ex: unknown = (mod['createExecutor'] as (c: typeof context) => unknown)(context);
      if (typeof ex === 'function') executor = ex as Executor;
      else exports.createExecutor = `function returning ${ex === null ? 'null' : typeof ex}`;
    } catch (err) {
      return send({ t: 'load-error', error: `createExecutor(context) threw: ${(err as Error)?.message ?? String(err)}` });
    }
  }
  send({ t: 'loaded', exports });
}

async function call(id: number, name: string, input: unknown): Promise<void> {
  if (!executor) return send({ t: 'result', id, ok: false, error: 'the module has no executor' });
  try {
    const v = await callId.run(id, () => executor!(name, input)).finally(() => {
      logCounts.delete(id);
      taints.delete(id);
    });
    if (v === null || v === undefined) return send({ t: 'result', id, ok: true, handled: false, value: null });
    send({ t: 'result', id, ok: true, handled: true, value: typeof v === 'string' ? v : plain(v) });
  } catch (err) {
    send({ t: 'result', id, ok: false, error: (err as Error)?.message ?? String(err) });
  }
}

process.stdin.on(
  'data',
  lineReader(
    (line) => {
      let m: HostToChild;
      try {
        m = JSON.parse(line) as HostToChild;
      } catch {
        return;
      }
      if (m.t === 'call') void call(m.id, m.name, m.input);
      else if (m.t === 'fetch-reply') {
        const f = fetches.get(m.fid);
        fetches.delete(m.fid);
        if (!f) return;
        // A Response with status 204, 205 or 304 may not have a body (the constructor throws).
        if (m.ok) f.resolve(new Response([101, 103, 204, 205, 304].includes(m.status) ? null : m.body, { status: m.status, statusText: m.statusText, headers: m.headers }));
        else f.reject(new TypeError(m.error));
      }
    },
    () => process.exit(3),
  ),
);
// The host went away: nothing is left running.
process.stdin.on('end', () => process.exit(0));

void load();
