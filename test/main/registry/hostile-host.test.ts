// The hostile plugins again, this time as an operator meets them: each one a WraithRun plugin
// folder (tool.toml + the script of test/fixtures/hostile) in a real host, run the way the host
// runs every plugin (its sandbox plan: bwrap and limits where the machine has them). Each case
// ends with its documented failure, leaves nothing running, moves its breaker where expected
// (three failures open it; a plugin that works keeps it closed), records the failure in the
// audit log, and leaves the host answering: another plugin still runs right after.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { listProcesses } from '../../../main/core/proc-scan.js';
import type { ResponseOf } from '../../../shared/contract.js';

const HOSTILE = fileURLToPath(new URL('../../fixtures/hostile/', import.meta.url));
/** The argument of a child a plugin leaves behind, so a survivor can be found among all processes. */
const MARK = `${271828 + Math.floor(Math.random() * 100000)}.${Math.floor(Math.random() * 1e6)}`;

interface Case {
  fixture: string;
  /** The script, when not the fixture file as it is. */
  script?: string;
  failure: string | null;
  message: RegExp;
  /** Seconds before the runner stops it (the manifest's timeout_secs). */
  timeout?: number;
}

const cases: Case[] = [
  { fixture: 'endless-loop.sh', failure: 'timeout', message: /^endless-loop did not finish within 1 s and was stopped\./, timeout: 1 },
  { fixture: 'stdout-flood.sh', failure: 'limit', message: /^stdout-flood wrote more than 1 MiB to stdout and was stopped/ },
  { fixture: 'huge-line.sh', failure: 'limit', message: /^huge-line wrote more than 1 MiB to stdout and was stopped/ },
  { fixture: 'stderr-flood.sh', failure: 'crash', message: /^stderr-flood exited with code 1: .*the last words$/s },
  { fixture: 'not-json.sh', failure: 'bad_output', message: /^not-json must print exactly one JSON object on stdout; it printed text that is not JSON/ },
  { fixture: 'json-then-garbage.sh', failure: 'bad_output', message: /^json-then-garbage printed a JSON object followed by more output at byte 17/ },
  { fixture: 'exit-before-stdin.sh', failure: 'bad_output', message: /^exit-before-stdin printed nothing on stdout; a tool must print exactly one JSON object\.$/ },
  { fixture: 'ignores-term.sh', failure: 'timeout', message: /^ignores-term did not finish within 1 s and was stopped\./, timeout: 1 },
  { fixture: 'crash.sh', failure: 'crash', message: /^crash exited with code 3: something went wrong: disk on fire$/ },
  // These two answer: their breaker stays closed.
  { fixture: 'stdin-never-read.sh', failure: null, message: /^$/ },
  { fixture: 'backgrounded-child.sh', failure: null, message: /^$/, script: `#!/bin/sh\n# Leaves a child in the background and answers at once.\nsleep ${MARK} &\necho '{"ok":true,"left":"a child behind"}'\n` },
];

const name = (c: Case) => c.fixture.replace(/\.sh$/, '');
let host: Host;
let plugins: string;
let root: string;

beforeAll(async () => {
  // One host for every case (each case has its own plugin and breaker); removed after them.
  root = mkdtempSync(join(tmpdir(), 'gatehouse-hostile-host-'));
  const home = join(root, 'home');
  plugins = join(root, 'plugins');
  for (const c of [...cases, { fixture: 'ok.sh', failure: null, message: /^$/ }]) {
    const dir = join(plugins, name(c));
    mkdirSync(dir, { recursive: true });
    if ('script' in c && c.script) writeFileSync(join(dir, c.fixture), c.script, { mode: 0o755 });
    else copyFileSync(join(HOSTILE, c.fixture), join(dir, c.fixture));
    writeFileSync(join(dir, 'tool.toml'), `name = "${name(c)}"\ndescription = "Hostile fixture ${name(c)}."\ncommand = "${c.fixture}"\ntimeout_secs = ${c.timeout ?? 10}\n`);
  }
  // A plugin that prints what it was given: only the base allow-list and what its manifest declares.
  const probe = join(plugins, 'env-probe');
  mkdirSync(probe, { recursive: true });
  writeFileSync(join(probe, 'gatehouse.toml'), 'name = "env-probe"\ndescription = "Prints the environment it was given."\nkind = "tool"\ncommand = "env.sh"\n\n[permissions]\nenv = ["GH_DECLARED"]\n');
  writeFileSync(join(probe, 'env.sh'), '#!/bin/sh\nprintf \'{"declared":"%s","secret":"%s","names":"%s"}\' "$GH_DECLARED" "$GH_SECRET" "$(env | cut -d= -f1 | sort | tr \'\\n\' \' \')"\n', { mode: 0o755 });
  mkdirSync(home, { recursive: true });
  // Enabled (and pinned) for this run, as `gatehouse serve --allowed-plugins` does.
  host = createHost({ home, shell: 'serve', log: () => {}, projectDir: root, watch: false, pluginDirs: [plugins], allowedPlugins: [...cases.map(name), 'ok', 'env-probe'] });
  await host.ready;
}, 60_000);

afterAll(async () => {
  await host?.close('test done');
  rmSync(root, { recursive: true, force: true });
});

const ctx = { operator: 'alice', console: 'serve' as const };

async function testRun(plugin: string): Promise<ResponseOf<'plugins.testRun'>> {
  const r = await host.dispatcher.dispatch('plugins.testRun', { name: plugin, input: { from: 'hostile-host' } }, ctx);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.result as ResponseOf<'plugins.testRun'>;
}

async function breaker(plugin: string) {
  const r = await host.dispatcher.dispatch('health.list', {}, ctx);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return (r.result as ResponseOf<'health.list'>).plugins.find((p) => p.name === plugin)!;
}

/** Live processes started from this plugin's folder, or a child one left (by its marker). */
function leftovers(plugin: string): string[] {
  const dir = join(plugins, plugin);
  const out: string[] = [];
  for (const p of listProcesses()) {
    if (p.state === 'Z' || p.state === 'X') continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(dir) || cmdline.includes(MARK)) out.push(`${p.pid}: ${cmdline.replace(/\0/g, ' ')}`);
  }
  return out;
}

describe('hostile plugins in a real host', () => {
  it.each(cases.map((c) => [name(c), c] as const))('%s', async (plugin, c) => {
    const appended = host.audit.headSeq;
    for (let i = 1; i <= 3; i++) {
      const r = await testRun(plugin);
      if (c.failure === null) {
        expect(r.ok, r.error ?? '').toBe(true);
      } else {
        expect({ ok: r.ok, failure: r.failure }).toEqual({ ok: false, failure: c.failure });
        expect(r.error).toMatch(c.message);
      }
      expect(leftovers(plugin)).toEqual([]);
    }
    const row = await breaker(plugin);
    if (c.failure === null) {
      expect(row.breaker).toMatchObject({ state: 'closed', consecutiveFailures: 0 });
      expect(row.metrics.successes).toBe(3);
    } else {
      expect(row.breaker).toMatchObject({ state: 'open', consecutiveFailures: 3 });
      expect(row.metrics.failures[c.failure as keyof typeof row.metrics.failures]).toBe(3);
      // A fourth call is refused without starting the plugin.
      const refused = await testRun(plugin);
      expect(refused).toMatchObject({ ok: false, failure: 'breaker_open' });
      // The audit log holds each failure and the breaker opening.
      host.audit.flush();
      const events = host.audit.db.prepare("SELECT type, payload FROM events WHERE seq > ? AND json_extract(payload, '$.plugin') = ?").all(appended, plugin) as { type: string; payload: string }[];
      expect(events.filter((e) => e.type === 'execution.ended').map((e) => JSON.parse(e.payload).failure)).toEqual([c.failure, c.failure, c.failure]);
      expect(events.filter((e) => e.type === 'breaker.changed').map((e) => JSON.parse(e.payload))).toEqual([expect.objectContaining({ from: 'closed', to: 'open', consecutiveFailures: 3 })]);
    }
    // The host still answers, and still runs a plugin that works.
    expect(await host.dispatcher.dispatch('host.info', {}, ctx)).toMatchObject({ ok: true });
    expect(await testRun('ok')).toMatchObject({ ok: true });
  }, 60_000);
});

describe('the environment a plugin gets', () => {
  it('is scrubbed to a short allow-list plus what its manifest declares: a secret of the host never reaches it', async () => {
    process.env.GH_SECRET = 'sk-host-secret-never-shared';
    process.env.GH_DECLARED = 'passed on purpose';
    try {
      const r = await testRun('env-probe');
      expect(r.ok, r.error ?? '').toBe(true);
      const out = JSON.parse(r.stdout) as { declared: string; secret: string; names: string };
      expect(out.declared).toBe('passed on purpose');
      expect(out.secret).toBe('');
      expect(r.stdout).not.toContain('sk-host-secret');
      const names = out.names.trim().split(' ');
      expect(names).toContain('GH_DECLARED');
      expect(names).toContain('GATEHOUSE_TOOL');
      expect(names).not.toContain('GH_SECRET');
    } finally {
      delete process.env.GH_SECRET;
      delete process.env.GH_DECLARED;
    }
  });
});
