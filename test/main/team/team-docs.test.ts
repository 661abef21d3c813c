// docs/team.md's commands, run as written (issue #28; "run what you print"): every line of its
// shell blocks (gatehouse, pg_dump, pg_restore) in a clean folder outside the checkout with
// `gatehouse` and PostgreSQL's client programs on the PATH, and every SQL block with psql as the
// role its first line names (`-- as ROLE, in DATABASE`; "an administrator" is the cluster's
// superuser), against a throwaway PostgreSQL cluster and a hot standby of it. The one change is
// where the database is: the docs' db.internal:5432 and replica.internal:5432 (verify-full TLS) are
// the cluster and its standby on loopback (no TLS), and `appr-1234` is the id of an ask the test's
// agent raised. Blocks run in order as in one terminal: what a block exports, the next one has.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, repoRoot } from '../../support/cli.js';
import { findPgBin } from '../../support/pg-cluster.js';
import { pgMissing, useCluster } from '../../support/pg-suite.js';
import { askOf, sql } from '../../support/team-hosts.js';
import { tempDir, untilFile } from '../../support/temp.js';

interface Block {
  lang: 'sh' | 'sql';
  /** sh: its lines without their trailing comments; sql: the block as written. */
  lines: string[];
  text: string;
}

/** The shell and SQL blocks of docs/team.md, in order. */
function docBlocks(): Block[] {
  const text = readFileSync(join(repoRoot, 'docs', 'team.md'), 'utf8');
  return [...text.matchAll(/^( *)```(sh|sql)\n([\s\S]*?)^\1```$/gm)].map((m) => ({
    lang: m[2] as 'sh' | 'sql',
    lines: m[3]!.split('\n').map((l) => l.replace(/\s+# .*$/, '').trim()).filter((l) => l !== ''),
    text: m[3]!.replace(new RegExp(`^${m[1]}`, 'gm'), ''),
  }));
}

/** A Claude Code PreToolUse hook call of `make`, sent as the agent's hook sends it; resolves with the answer. */
function hookAsk(info: { hookUrl: string; agentToken: string }, cwd: string): Promise<string> {
  const body = JSON.stringify({ session_id: 'docs', transcript_path: '/tmp/t.jsonl', cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' }, tool_use_id: 'tu-docs', permission_mode: 'default' });
  return new Promise((resolve, reject) => {
    const req = request(info.hookUrl, { method: 'POST', headers: { Authorization: `Bearer ${info.agentToken}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * An SQL block with psql, as the role and in the database its first line names; a block that shows
 * what PostgreSQL refuses quotes the error (`-- ERROR:  …`), which must be the one psql prints.
 */
async function runSql(text: string, port: number, psql: string): Promise<void> {
  const head = /^-- as (an administrator|[a-z_][a-z0-9_]*), in ([a-z_][a-z0-9_]*)/.exec(text);
  expect(head, `an SQL block of docs/team.md must start with "-- as ROLE, in DATABASE":\n${text}`).not.toBeNull();
  // A managed service's administrator: CREATEROLE and CREATEDB, not a superuser (made by the test).
  const role = head![1] === 'an administrator' ? 'admin' : head![1]!;
  const refused = /^-- (ERROR: .*)$/m.exec(text)?.[1];
  const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', '-', `postgres://${role}@127.0.0.1:${port}/${head![2]}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
    child.stdin.end(text);
  });
  if (refused) {
    expect(r.code, text).not.toBe(0);
    expect(r.out).toContain(refused);
  } else {
    expect(r.code, `${text}\n${r.out}`).toBe(0);
  }
}

describe.runIf(pgMissing('team-docs') === null)('docs/team.md, run as written', () => {
  const cluster = useCluster();

  it("sets up the team database and its roles, starts a member, reads the team's trail, an operator decides an ask through the team and publishes the team policy, and the operations guide's backup, partitioning and replica steps", async () => {
    await sql(cluster().url, 'CREATE ROLE admin LOGIN CREATEROLE CREATEDB');
    const replica = await cluster().startReplica();
    const checked = { replicaSearch: false, drillVerify: false };
    const root = tempDir('gatehouse-team-docs-');
    const work = join(root, 'work');
    const bin = join(root, 'bin');
    mkdirSync(work);
    mkdirSync(bin);
    // `gatehouse` as the docs call it: this checkout's CLI, found on the PATH.
    writeFileSync(join(bin, 'gatehouse'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} "$@"\n`);
    chmodSync(join(bin, 'gatehouse'), 0o755);
    const pgBin = (findPgBin() as { bin: string }).bin;
    const env: NodeJS.ProcessEnv = { PATH: `${bin}:${pgBin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'home', '.config'), LANG: 'C.UTF-8' };
    const home = join(root, 'home', '.config', 'gatehouse');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // A member whose supervised asks wait in its inbox (and so in the team inbox): the setting, not a docs command.
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' }));
    const where = (line: string) =>
      line
        .replaceAll('replica.internal:5432', `127.0.0.1:${replica.port}`)
        .replaceAll('db.internal:5432', `127.0.0.1:${cluster().port}`)
        .replaceAll('db.internal', `127.0.0.1:${cluster().port}`)
        .replaceAll('sslmode=verify-full', 'sslmode=disable');

    // The example team policy, saved where the docs publish it from.
    const example = /^ *```yaml\n *# team-policy\.yaml\n([\s\S]*?)^ *```$/m.exec(readFileSync(join(repoRoot, 'docs', 'team.md'), 'utf8'));
    expect(example).not.toBeNull();
    writeFileSync(join(work, 'team-policy.yaml'), example![1]!.replace(/^ {2}/gm, ''));
    const blocks = docBlocks();
    const shell = blocks.filter((b) => b.lang === 'sh').map((b) => b.lines);
    const commands = shell.flat().filter((l) => l.startsWith('gatehouse '));
    expect(commands.length).toBeGreaterThan(8);
    expect(blocks.filter((b) => b.lang === 'sql').length).toBeGreaterThan(2);
    const ran = new Set<string>();
    let serve: ReturnType<typeof spawn> | null = null;
    let answered: Promise<string> | null = null;
    try {
      for (const [i, block] of blocks.entries()) {
        if (block.lang === 'sql') {
          await runSql(block.text, cluster().port, join(pgBin, 'psql'));
          continue;
        }
        // The least-privilege section shows the roles step ahead of "How to run it", which repeats it in its place.
        const later = blocks.slice(i + 1).flatMap((b) => (b.lang === 'sh' ? b.lines : []));
        const own = block.lines.filter((l) => l.startsWith('gatehouse '));
        if (own.length > 0 && own.every((l) => later.includes(l))) continue;
        for (const line of block.lines) {
          const exported = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
          if (exported) {
            env[exported[1]!] = where(exported[2]!);
            continue;
          }
          ran.add(line);
          if (line.startsWith('gatehouse serve')) {
            // The member host: it runs until stopped, so it is started, not waited for.
            serve = spawn('/bin/bash', ['-c', `exec ${where(line)}`], { cwd: work, env, stdio: ['ignore', 'ignore', 'ignore'] });
            const info = JSON.parse(await untilFile(join(home, 'serve.json'))) as { hookUrl: string; agentToken: string };
            // An agent on laptop-ana asks something the operator decides below: its hook waits for the answer.
            answered = hookAsk(info, work);
            continue;
          }
          // The id the docs stand in for: the ask the agent raised, as the team inbox lists it.
          const command = line.startsWith('gatehouse approvals approve appr-1234') ? where(line).replace('appr-1234', (await askOf(env.GATEHOUSE_TEAM_URL!, 'docs')).approval_id) : where(line);
          const r = await bash(command, env, work);
          expect(r.code, `${command}\n${r.stdout}${r.stderr}`).toBe(0);
          if (command.startsWith('gatehouse approvals approve')) {
            expect(r.stdout).toMatch(/laptop-ana checked the signature and answered its agent/);
            expect((JSON.parse(await answered!) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision).toBe('allow');
          }
          // On the standby, as on the primary: the member's events, found by team search.
          if (command.startsWith('gatehouse audit search') && command.includes(`127.0.0.1:${replica.port}`)) {
            expect(r.stdout).toMatch(/^laptop-ana {2}.*call\.received/m);
            checked.replicaSearch = true;
          }
          // The restore drill's copy verifies as the team database does.
          if (command.startsWith('gatehouse audit verify') && /gatehouse_team_drill|127\.0\.0\.1:\d+\/gatehouse_team\?/.test(command)) {
            expect(r.stdout).toMatch(/^laptop-ana: chain intact/m);
            checked.drillVerify ||= command.includes('gatehouse_team_drill');
          }
        }
      }
      expect(commands.filter((c) => !ran.has(c))).toEqual([]);
      expect(checked).toEqual({ replicaSearch: true, drillVerify: true });
      // What they did: the roles exist, and the member's trail is intact in the team database.
      const status = await bash('gatehouse team status && gatehouse audit verify --team', env, work);
      expect(status.stdout).toMatch(/laptop-ana/);
      expect(status.stdout).toMatch(/^laptop-ana: chain intact/m);
      expect(status.stdout).toMatch(/^Team policy: 1 version signed by registered operators\./m);
    } finally {
      const s = serve as ReturnType<typeof spawn> | null;
      if (s && s.exitCode === null) {
        s.kill('SIGTERM');
        await new Promise((resolve) => s.once('exit', resolve));
      }
      await replica.destroy();
    }
  }, 180_000);
});
