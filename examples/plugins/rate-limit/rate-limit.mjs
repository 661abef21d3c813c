#!/usr/bin/env node
// crust NDJSON checker: counts calls per tool in a sliding window and blocks past the limit.
import { createInterface } from 'node:readline';

let maxCalls = 30;
let windowMs = 60_000;
const calls = new Map();

function evaluate(params) {
  const now = Date.now();
  const recent = (calls.get(params.tool_name) ?? []).filter((t) => now - t < windowMs);
  recent.push(now);
  calls.set(params.tool_name, recent);
  if (recent.length <= maxCalls) return null;
  return {
    rule_name: 'rate-limit',
    severity: 'warning',
    action: 'block',
    message: `${params.tool_name} was called ${recent.length} times in ${windowMs / 1000} s (limit ${maxCalls}).`,
  };
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let answer;
  try {
    const req = JSON.parse(line);
    if (req.method === 'init') {
      const config = req.params?.config ?? {};
      maxCalls = Number(config.max_calls ?? maxCalls);
      windowMs = Number(config.window_secs ?? windowMs / 1000) * 1000;
      answer = { result: 'ok' };
    } else if (req.method === 'evaluate') {
      answer = { result: evaluate(req.params) };
    } else if (req.method === 'close') {
      process.stdout.write(JSON.stringify({ result: 'ok' }) + '\n', () => process.exit(0));
      return;
    } else {
      answer = { error: `unknown method ${JSON.stringify(req.method)}` };
    }
  } catch (err) {
    answer = { error: `rate-limit: ${err.message}` };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
