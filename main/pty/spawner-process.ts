// The spawner process (main/pty/spawner.ts starts it and says why): a small Node that starts the
// host's one-shot plugin processes, so that the host itself never forks. It serves the host's
// SpawnRequests over its IPC channel with the same handler as the fork thread (spawn-service.ts),
// and sends back each process's events.
//
// It lives exactly as long as its host: when the channel closes (the host exited, crashed or was
// killed) it kills every process it started, with what their sessions left, and exits, so nothing
// runs on unsupervised. (bwrap's --die-with-parent now names the spawner as the parent: it holds
// because the spawner goes with the host.) It is in its own process group, so a signal to the
// host's terminal group (Ctrl-C) reaches the host, which decides, and not the spawner.
import { serveSpawns, type ChildReply, type SpawnRequest } from './spawn-service.js';
import { leaveToolsGroup, lowerForTools } from './tool-priority.js';

const send = process.send?.bind(process);
if (!send) throw new Error('the spawner process runs as a child with an IPC channel');

// Before any process is started: each inherits the tools' priority, and the tools' cpu group the
// host named (its first argument), if any (tool-priority.ts says why).
lowerForTools('process', process.argv[2] ?? null);

const spawns = serveSpawns((reply: ChildReply) => {
  // The channel is gone: the disconnect handler below is on its way.
  if (process.connected) send(reply);
});
process.on('message', (r: SpawnRequest) => spawns.handle(r));
process.on('disconnect', () => {
  spawns.killAll();
  // Its host is gone, and with it the tools' cpu group's use (tool-priority.ts).
  leaveToolsGroup();
  process.exit(0);
});
send({ type: 'ready', pid: process.pid });
