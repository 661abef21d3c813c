// TCP relays in front of a PostgreSQL cluster that change only when (or whether) the real server's
// bytes arrive, never what they say, to cause at a chosen moment a fault that a test cannot time
// by stopping the server.
//
// burstRelay delivers, once, what the server says in one burst: after a client sends a query
// containing `marker`, the server's answers on that connection are held until the server closes
// it, then written at once, with the close. The client then reads the query's answer and the
// server's goodbye (FATAL: terminating connection) in a single read, as a host on a busy machine
// does when PostgreSQL goes down just as that query is answered.
//
// cutRelay cuts each connection whose client sends `marker`, before the server sees it, until
// restored: the client's query fails with its connection gone, as when the server becomes
// unreachable exactly as that query is sent, while its other connections go on working.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface Relay {
  /** `url` (a postgres:// URL of the cluster) through this relay. */
  url(url: string): string;
  close(): void;
}

export interface BurstRelay extends Relay {
  /** Resolves once the server has answered the marked query (ReadyForQuery) and the answer is held. */
  held: Promise<void>;
}

export interface CutRelay extends Relay {
  /** From now on the marker passes like any other query. */
  restore(): void;
}

/** One relayed connection: the client's socket and the one to the server. */
interface Pipe {
  client: Socket;
  upstream: Socket;
}

/** ReadyForQuery, idle: the end of a query's answer outside a transaction. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

/** A relay on a free loopback port to the cluster on `port`; `wire` sets up each connection's piping. */
async function relay(port: number, wire: (p: Pipe) => void): Promise<Relay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    wire({ client, upstream });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as AddressInfo).port;
  return {
    url: (url) => url.replace(`127.0.0.1:${port}/`, `127.0.0.1:${relayPort}/`),
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** Fed each chunk a client sends: true once `marker` has been seen, also split across chunks. */
function watch(marker: string): (d: Buffer) => boolean {
  let seen = '';
  return (d) => {
    seen = (seen + d.toString('latin1')).slice(-4 * marker.length);
    return seen.includes(marker);
  };
}

export async function burstRelay(port: number, marker: string): Promise<BurstRelay> {
  let used = false;
  let answered!: () => void;
  const held = new Promise<void>((resolve) => (answered = resolve));
  const r = await relay(port, ({ client, upstream }) => {
    let holding: Buffer[] | null = null;
    const marked = watch(marker);
    client.on('data', (d: Buffer) => {
      if (!used && marked(d)) {
        used = true;
        holding = [];
      }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      if (!holding) return void client.write(d);
      holding.push(d);
      const all = Buffer.concat(holding);
      if (all.subarray(-READY_IDLE.length).equals(READY_IDLE)) answered();
    });
    upstream.on('end', () => (holding ? client.end(Buffer.concat(holding)) : client.end()));
  });
  return { ...r, held };
}

export async function cutRelay(port: number, marker: string): Promise<CutRelay> {
  let cutting = true;
  const r = await relay(port, ({ client, upstream }) => {
    const marked = watch(marker);
    client.on('data', (d: Buffer) => {
      if (cutting && marked(d)) {
        // Neither side hears of the query: the client sees its connection end under it.
        upstream.destroy();
        client.destroy();
        return;
      }
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => client.write(d));
    upstream.on('end', () => client.end());
  });
  return { ...r, restore: () => (cutting = false) };
}
