// A TCP relay in front of a PostgreSQL cluster that delivers, once, what the server says in one
// burst: after a client sends a query containing `marker`, the server's answers on that connection
// are held until the server closes it, then written at once, with the close. The client then reads
// the query's answer and the server's goodbye (FATAL: terminating connection) in a single read, as
// a host on a busy machine does when PostgreSQL goes down just as that query is answered. The
// server is the real one; nothing is rewritten, only when the bytes arrive.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface BurstRelay {
  /** `url` (a postgres:// URL of the cluster) through this relay. */
  url(url: string): string;
  /** Resolves once the server has answered the marked query (ReadyForQuery) and the answer is held. */
  held: Promise<void>;
  close(): void;
}

/** ReadyForQuery, idle: the end of a query's answer outside a transaction. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

export async function burstRelay(port: number, marker: string): Promise<BurstRelay> {
  let used = false;
  let answered!: () => void;
  const held = new Promise<void>((resolve) => (answered = resolve));
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    let holding: Buffer[] | null = null;
    let seen = '';
    client.on('data', (d: Buffer) => {
      if (!used) {
        seen = (seen + d.toString('latin1')).slice(-4 * marker.length);
        if (seen.includes(marker)) {
          used = true;
          holding = [];
        }
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
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayPort = (server.address() as AddressInfo).port;
  return {
    url: (url) => url.replace(`127.0.0.1:${port}/`, `127.0.0.1:${relayPort}/`),
    held,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
