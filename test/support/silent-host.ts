// A Gatehouse host that never answers, for tests of what `gatehouse hook` does while it waits:
// serve.json in `home` points the hook at a loopback server that takes the request and keeps it open.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SilentHost {
  /** The hook's request, once it arrives. */
  request: Promise<IncomingMessage>;
  /** Resolves when the hook closes its connection (it gave up waiting). */
  hungUp(req: IncomingMessage): Promise<void>;
  close(): void;
}

export async function silentHost(home: string): Promise<SilentHost> {
  let asked!: (req: IncomingMessage) => void;
  const request = new Promise<IncomingMessage>((resolve) => (asked = resolve));
  const server = createServer((req) => asked(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  writeFileSync(join(home, 'serve.json'), JSON.stringify({ pid: process.pid, hookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, agentToken: 'a'.repeat(32) }));
  return {
    request,
    hungUp: (req) => new Promise<void>((resolve) => req.socket.once('close', () => resolve())),
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
