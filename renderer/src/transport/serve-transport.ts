// The serve shell: HTTP for the session check, one WebSocket for calls and events.
//
// A console opened from a printed URL first trades the URL's one-time code for a session
// credential (POST /api/session/exchange; token.ts says why). Every (re)connect then starts with
// GET /api/session so that a refused credential shows as 'unauthorized' instead of an endless
// reconnect loop (a browser cannot read the status of a failed WebSocket upgrade); its answer
// renews the session, which the host validates with a key derived from the operator token, so a
// console left open reconnects by itself after the host restarts. The credential rides as a
// WebSocket subprotocol, never in a URL.
import type { Envelope, WireError } from '../../../shared/contract.ts';
import { decodeBinaryEvent } from '../../../shared/event-frame.ts';
import { Backoff } from './backoff.ts';
import { forgetSession, saveSession, type ConsoleCredential } from './token.ts';
import { HostCallError } from './transport-error.ts';
import type { ConnectionState, RawEventListener, StateListener, Transport } from './types.ts';

export const WS_PROTOCOL = 'gatehouse.v1';
export const WS_TOKEN_PREFIX = 'gatehouse.token.';
/** How long a call made while disconnected waits for the connection before it fails. */
export const QUEUE_TIMEOUT_MS = 10_000;
/** How often a connected console renews its session (which lasts 12 hours from its last renewal). */
export const SESSION_RENEW_MS = 3_600_000;
export const EXCHANGE_PATH = '/api/session/exchange';

export interface ServeTransportOptions {
  credential: ConsoleCredential;
  /** Defaults to the page's own location; the console is always same-origin with its host. */
  origin?: { protocol: string; host: string };
  fetch?: typeof fetch;
  WebSocket?: typeof WebSocket;
  queueTimeoutMs?: number;
  backoff?: Backoff;
}

interface Pending {
  method: string;
  resolve: (envelope: Envelope<unknown>) => void;
  reject: (err: Error) => void;
}

interface Queued extends Pending {
  params: unknown;
  timer: ReturnType<typeof setTimeout>;
}

export function createServeTransport(opts: ServeTransportOptions): Transport {
  const origin = opts.origin ?? window.location;
  const doFetch = opts.fetch ?? window.fetch.bind(window);
  const WS = opts.WebSocket ?? window.WebSocket;
  const queueTimeoutMs = opts.queueTimeoutMs ?? QUEUE_TIMEOUT_MS;
  const backoff = opts.backoff ?? new Backoff();
  let code = opts.credential.code;
  let session = opts.credential.session;
  let renewTimer: ReturnType<typeof setInterval> | null = null;

  const stateListeners = new Set<StateListener>();
  const eventListeners = new Set<RawEventListener>();
  const pending = new Map<number, Pending>();
  const queue: Queued[] = [];
  let state: ConnectionState = 'connecting';
  let detail: string | null = null;
  let socket: WebSocket | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let attempting = false;
  let started = false;
  let closed = false;
  let nextId = 1;

  const setState = (next: ConnectionState, why: string | null = null) => {
    if (next === state && why === detail) return;
    detail = why;
    const previous = state;
    state = next;
    for (const l of stateListeners) l(next, previous);
  };

  const failAll = (code: 'disconnected' | 'unauthorized', message: (method: string) => string) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.reject(new HostCallError(p.method, code, message(p.method)));
    }
    for (const q of queue.splice(0)) {
      clearTimeout(q.timer);
      q.reject(new HostCallError(q.method, code, message(q.method)));
    }
  };

  const refuse = (why: string) => {
    clearRetry();
    stopRenewing();
    forgetSession();
    session = null;
    const ws = socket;
    socket = null;
    ws?.close(1000, 'unauthorized');
    setState('unauthorized', why);
    failAll('unauthorized', (m) => `${m} was not sent: the host refused this console's session.`);
  };

  const stopRenewing = () => {
    if (renewTimer !== null) clearInterval(renewTimer);
    renewTimer = null;
  };

  /** GET /api/session with this tab's session; keeps the renewed one the host hands back. */
  const checkSession = async (s: string): Promise<Response> => {
    const res = await doFetch('/api/session', { headers: { Authorization: `Bearer ${s}` }, cache: 'no-store' });
    if (res.ok) {
      const renewed = await sessionIn(res.clone());
      if (renewed && session === s) {
        session = renewed;
        saveSession(renewed);
      }
    }
    return res;
  };

  const clearRetry = () => {
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
  };

  const scheduleRetry = (why: string) => {
    if (closed || state === 'unauthorized') return;
    clearRetry();
    const delay = backoff.next();
    setState('reconnecting', `${why} Retrying in ${delay < 1000 ? `${delay} ms` : `${delay / 1000} s`}.`);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void attempt();
    }, delay);
  };

  async function attempt(): Promise<void> {
    if (closed || attempting || state === 'unauthorized' || socket) return;
    attempting = true;
    try {
      if (code) {
        let res: Response;
        try {
          res = await doFetch(EXCHANGE_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }), cache: 'no-store' });
        } catch {
          // The code stays: it is still good if the host comes back within its two minutes.
          return scheduleRetry('The host is not reachable.');
        }
        if (closed) return;
        if (res.status === 400 || res.status === 401) {
          code = null;
          return refuse((await errorText(res)) || 'The host refused this console link. Run `gatehouse url` for a new one.');
        }
        if (!res.ok) {
          const text = await errorText(res);
          return scheduleRetry(`The host answered ${res.status}${text ? `: ${text}` : '.'}`);
        }
        code = null;
        const got = await sessionIn(res);
        if (!got) return refuse('The host answered the console link without a session. Run `gatehouse url` for a new link.');
        session = got;
        saveSession(got);
      }
      const s = session;
      if (!s) return refuse(opts.credential.problem ?? 'This console has no session. Open the URL that `gatehouse serve` printed, or run `gatehouse url` for a new one.');
      let res: Response;
      try {
        res = await checkSession(s);
      } catch {
        return scheduleRetry('The host is not reachable.');
      }
      if (closed) return;
      if (res.status === 401) return refuse('This console\'s session has expired or was revoked (the operator token changed). Run `gatehouse url` for a new link.');
      if (!res.ok) {
        const text = await errorText(res);
        return scheduleRetry(`The host answered ${res.status}${text ? `: ${text}` : '.'}`);
      }
      openSocket(session ?? s);
    } finally {
      attempting = false;
    }
  }

  function openSocket(t: string): void {
    const scheme = origin.protocol === 'https:' ? 'wss' : 'ws';
    let ws: WebSocket;
    try {
      ws = new WS(`${scheme}://${origin.host}/ws`, [WS_PROTOCOL, WS_TOKEN_PREFIX + t]);
    } catch (err) {
      return scheduleRetry(`The WebSocket could not be opened: ${(err as Error).message}.`);
    }
    socket = ws;
    // Terminal output comes as binary frames (shared/event-frame.ts), read as they came.
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      if (socket !== ws) return;
      backoff.reset();
      setState('connected');
      // A console open for days keeps a live session: renew it well inside its 12 hours.
      stopRenewing();
      renewTimer = setInterval(() => {
        if (session) void checkSession(session).catch(() => {});
      }, SESSION_RENEW_MS);
      for (const q of queue.splice(0)) {
        clearTimeout(q.timer);
        send(ws, q.method, q.params, q);
      }
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (socket !== ws) return;
      if (typeof ev.data === 'string') onFrame(ev.data);
      else if (ev.data instanceof ArrayBuffer) onBinaryFrame(new Uint8Array(ev.data));
      // binaryType was set above; anything else is a frame this console cannot read, said aloud.
      else console.warn('gatehouse: the host sent a frame this console cannot read; ignored.');
    };
    ws.onclose = (ev: CloseEvent) => {
      if (socket !== ws) return;
      socket = null;
      stopRenewing();
      failAll('disconnected', (m) => `The connection to the host closed before ${m} answered; it may or may not have run. Check the result once the console has reconnected.`);
      scheduleRetry(ev.reason ? `The connection closed (${ev.reason}).` : 'The connection to the host closed.');
    };
    // An error is always followed by close, which does the reconnecting.
    ws.onerror = () => {};
  }

  function send(ws: WebSocket, method: string, params: unknown, p: Pending): void {
    const id = nextId++;
    pending.set(id, p);
    try {
      ws.send(JSON.stringify({ id, method, params }));
    } catch (err) {
      pending.delete(id);
      p.reject(new HostCallError(method, 'disconnected', `${method} could not be sent: ${(err as Error).message}.`));
    }
  }

  function emit(event: string, payload: unknown): void {
    for (const l of eventListeners) {
      try {
        l(event, payload);
      } catch (err) {
        console.error(`gatehouse: listener for ${event} failed`, err);
      }
    }
  }

  function onBinaryFrame(bytes: Uint8Array): void {
    const e = decodeBinaryEvent(bytes);
    if ('error' in e) console.warn(`gatehouse: the host sent ${e.error}; ignored.`);
    else emit(e.event, e.payload);
  }

  function onFrame(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      console.warn('gatehouse: the host sent a frame that is not JSON; ignored.');
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const frame = msg as Record<string, unknown>;
    if (typeof frame.event === 'string') {
      emit(frame.event, frame.payload);
      return;
    }
    if (typeof frame.id !== 'number') {
      // id null: the host could not read one of our frames at all.
      const error = frame.error as WireError | undefined;
      console.warn(`gatehouse: the host rejected a frame: ${error?.message ?? 'no reason given'}`);
      return;
    }
    const p = pending.get(frame.id);
    if (!p) return;
    pending.delete(frame.id);
    p.resolve(frame.ok === true ? { ok: true, result: frame.result } : { ok: false, error: frame.error as WireError });
  }

  const retryNow = () => {
    if (retryTimer === null || closed) return;
    clearRetry();
    void attempt();
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') retryNow();
  };

  return {
    shell: 'serve',
    invoke(method, params) {
      return new Promise<Envelope<unknown>>((resolve, reject) => {
        if (state === 'unauthorized') {
          reject(new HostCallError(method, 'unauthorized', `${method} was not sent: the host refused this console's session.`));
          return;
        }
        if (closed) {
          reject(new HostCallError(method, 'disconnected', `${method} was not sent: the console was closed.`));
          return;
        }
        const ws = socket;
        if (ws && ws.readyState === WS.OPEN && state === 'connected') {
          send(ws, method, params, { method, resolve, reject });
          return;
        }
        const q: Queued = {
          method,
          params,
          resolve,
          reject,
          timer: setTimeout(() => {
            const i = queue.indexOf(q);
            if (i >= 0) queue.splice(i, 1);
            reject(new HostCallError(method, 'timeout', `${method} was not sent: the console has not reached the host for ${Math.round(queueTimeoutMs / 1000)} s. It keeps reconnecting by itself; try again when the status bar shows Connected.`));
          }, queueTimeoutMs),
        };
        queue.push(q);
      });
    },
    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    getState: () => state,
    getDetail: () => detail,
    start() {
      if (started) return;
      started = true;
      if (typeof window !== 'undefined') {
        // The network came back or the tab became visible: do not wait out the backoff.
        window.addEventListener('online', retryNow);
        document.addEventListener('visibilitychange', onVisible);
      }
      void attempt();
    },
    close() {
      closed = true;
      clearRetry();
      stopRenewing();
      if (typeof window !== 'undefined') {
        window.removeEventListener('online', retryNow);
        document.removeEventListener('visibilitychange', onVisible);
      }
      const ws = socket;
      socket = null;
      ws?.close(1000, 'console closed');
      failAll('disconnected', (m) => `${m} was not sent: the console was closed.`);
    },
  };
}

async function sessionIn(res: Response): Promise<string | null> {
  try {
    const body = (await res.json()) as { result?: { session?: unknown } };
    return typeof body.result?.session === 'string' ? body.result.session : null;
  } catch {
    return null;
  }
}

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : '';
  } catch {
    return '';
  }
}
