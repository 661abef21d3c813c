// The inbox as a console watches it: the operator WebSocket of a running `gatehouse serve`, with
// `approvals.changed` events. The real-CLI runners (Claude Code, Codex) act on the event that adds
// a scenario's waiting call, instead of polling approvals.list.
// Plain JavaScript: the runners run under node without the test runner's transform.
import WebSocket from 'ws';

/** Connects to `serve` (its serve.json); `onAdded(id)` is called for the first item of each event that adds some. */
export async function watchInbox(serve, onAdded) {
  const url = new URL('/ws', serve.url);
  url.protocol = 'ws:';
  const ws = new WebSocket(url, ['gatehouse.v1', `gatehouse.token.${serve.token}`], { origin: new URL(serve.url).origin });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.event === 'approvals.changed' && frame.payload.added.length > 0) onAdded(frame.payload.added[0].id);
  });
  return ws;
}
