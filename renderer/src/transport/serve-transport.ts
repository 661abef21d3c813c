// The serve shell: HTTP for the session check, one WebSocket for calls and events.
//
// Every (re)connect starts with GET /api/session so that a refused token shows as
// 'unauthorized' instead of an endless reconnect loop (a browser cannot read the status of a
// failed WebSocket upgrade). The token rides as a WebSocket subprotocol, never in the URL.
import type { Envelope, WireError } from '../../../shared/contract.ts';
import { Backoff } from './backoff.ts';
import { forgetToken } from './token.ts';
import { HostCallError } from './transport-error.ts';
import type { ConnectionState, RawEventListener, StateListener, Transport } from './types.ts';

export const WS_PROTOCOL = 'gatehouse.v1';
export const WS_TOKEN_PREFIX = 'gatehouse.token.';
/** How long a call made while disconnected waits for the connection before it fails. */
export const QUEUE_TIMEOUT_MS = 10_000;

export interface ServeTransportOptions {
  token: string | null;
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
  const token = opts.token;

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

  const refuse = () => {
    clearRetry();
    forgetToken();
    const ws = socket;
    socket = null;
    ws?.close(1000, 'unauthorized');
    setState('unauthorized', 'The host refused the operator token.');
    failAll('unauthorized', (m) => `${m} was not sent: the host refused this console's operator token.`);
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
    if (!token) return refuse();
    attempting = true;
    try {
      let res: Response;
      try {
        res = await doFetch('/api/session', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
      } catch {
        return scheduleRetry('The host is not reachable.');
      }
      if (closed) return;
      if (res.status === 401) return refuse();
      if (!res.ok) {
        const text = await errorText(res);
        return scheduleRetry(`The host answered ${res.status}${text ? `: ${text}` : '.'}`);
      }
      openSocket(token);
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
    ws.onopen = () => {
      if (socket !== ws) return;
      backoff.reset();
      setState('connected');
      for (const q of queue.splice(0)) {
        clearTimeout(q.timer);
        send(ws, q.method, q.params, q);
      }
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (socket === ws && typeof ev.data === 'string') onFrame(ev.data);
    };
    ws.onclose = (ev: CloseEvent) => {
      if (socket !== ws) return;
      socket = null;
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
      for (const l of eventListeners) {
        try {
          l(frame.event, frame.payload);
        } catch (err) {
          console.error(`gatehouse: listener for ${frame.event} failed`, err);
        }
      }
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
          reject(new HostCallError(method, 'unauthorized', `${method} was not sent: the host refused this console's operator token.`));
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

async function errorText(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : '';
  } catch {
    return '';
  }
}
