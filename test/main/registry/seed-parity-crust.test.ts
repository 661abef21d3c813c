// Seed parity (crust): a checker written to crust's plugin docs, run unchanged behind a real
// `gatehouse serve`, reached through the Claude Code hook route as in seed-plugins.test.ts.
// crust-plugin-system.txt ~l.86-96 and l.121: the evaluate request of `Bash {"command": ...}`
// carries `"content": "{\"command\":\"rm -rf /etc\"}"` — "content: Write content or full raw
// JSON of all arguments". A crust DLP-style checker that looks at `content` must see the call's
// arguments for every tool, not only for writes.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath, runCli } from '../../support/cli.js';
import { startServe, type ServedHost } from '../../support/served-host.mjs';
import { tempDir } from '../../support/temp.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

// A crust checker in the doc's own shape: it reports what it was sent in the block message.
const ECHO_CHECKER = `#!/usr/bin/env python3
import json
import sys

def main():
    for line in sys.stdin:
        msg = json.loads(line)
        method = msg["method"]
        params = msg.get("params")
        if method == "init":
            result = "ok"
        elif method == "evaluate":
            result = {"rule_name": "probe:echo", "severity": "info",
                      "message": "SEEN " + json.dumps({"operation": params["operation"], "content": params["content"]})}
        elif method == "close":
            result = "ok"
        else:
            print(json.dumps({"error": "unknown method: %s" % method}), flush=True)
            continue
        print(json.dumps({"result": result}), flush=True)
        if method == "close":
            break

if __name__ == "__main__":
    main()
`;

describe('crust parity: evaluate params', () => {
  it('content is the raw JSON of all arguments for a non-write call (crust doc l.94, l.121)', async () => {
    const root = tempDir('gatehouse-parity-crust-');
    const home = join(root, 'home');
    const project = join(root, 'project');
    const dir = join(home, 'plugins', 'probe');
    mkdirSync(dir, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
    writeFileSync(join(dir, 'gatehouse.toml'), 'name = "probe"\ndescription = "Reports what crust sends."\nversion = "1.0.0"\nkind = "checker"\ncommand = "probe.py"\n');
    writeFileSync(join(dir, 'probe.py'), ECHO_CHECKER);
    chmodSync(join(dir, 'probe.py'), 0o755);
    for (const cmd of ['validate', 'scan', 'enable']) {
      const r = await runCli(['plugin', cmd, cmd === 'enable' ? 'probe' : dir, '--home', home]);
      expect(r.code, `${cmd}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    const served: ServedHost = await startServe(cliPath, home, { ...process.env, GATEHOUSE_HOME: home });
    cleanup.push(async () => {
      const gone = new Promise((r) => served.host.once('exit', r));
      served.host.kill('SIGTERM');
      await gone;
    });
    const res = await fetch(served.serve.hookUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.serve.agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 's', transcript_path: join(project, 't.jsonl'), cwd: project, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo hello' }, tool_use_id: 'tu-1', permission_mode: 'default' }),
    });
    const out = (await res.json()) as { hookSpecificOutput?: { permissionDecisionReason?: string } };
    const reason = out.hookSpecificOutput?.permissionDecisionReason ?? '';
    const seen = JSON.parse(reason.slice(reason.indexOf('SEEN ') + 5).replace(/[^}]*$/, '')) as { operation: string; content: string };
    expect(seen.operation).toBe('execute');
    // crust: "content — Write content or full raw JSON of all arguments".
    expect(JSON.parse(seen.content || 'null')).toEqual({ command: 'echo hello' });
  }, 120_000);
});
