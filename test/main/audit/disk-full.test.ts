// Issue #25 finding 6, on a real full disk: `gatehouse serve` (the built CLI) with its data folder
// on a 16 MiB tmpfs of its own (small-disk.ts), filled by the test until the kernel says ENOSPC.
// SQLite then fails for real (SQLITE_FULL / disk I/O on the WAL). Asserted as agents and operators
// see it: hook calls denied with a sentence naming the full disk, `gatehouse doctor` reporting the
// write failure and the free space, and once space is freed calls answered again and the chain
// verifying, without a restart, with every call's trail whole.
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readServeFile } from '../../../main/shells/serve/serve-file.js';
import { runCli, startCli } from '../../support/cli.js';
import { inside, seenBy, smallDiskCommand } from '../../support/small-disk.js';
import { tempDir } from '../../support/temp.js';
import { trailProblems } from '../../support/trails.js';

interface HookAnswer {
  permissionDecision: string;
  permissionDecisionReason: string;
}

function hook(url: string, token: string, command: string, n: number): Promise<HookAnswer> {
  const text = JSON.stringify({ session_id: 'disk-s', cwd: '/tmp', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: `tu-${n}` });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } }, (res) => {
      let out = '';
      res.setEncoding('utf8').on('data', (d: string) => (out += d));
      res.on('end', () => resolve((JSON.parse(out) as { hookSpecificOutput: HookAnswer }).hookSpecificOutput));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Writes zeros to `file` until the disk refuses (ENOSPC): the disk is then full for real. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return written;
}

describe('the data folder on a disk that fills up (a real tmpfs)', () => {
  it('denies calls naming the full disk, doctor reports the write failure and the free space, and freeing space brings calls back with the chain intact', async (ctx) => {
    const mount = join(tempDir('gatehouse-disk-'), 'mnt');
    mkdirSync(mount);
    const small = smallDiskCommand(mount, '16m');
    if ('why' in small) {
      console.warn(`skipped: no small disk here: ${small.why}`);
      return ctx.skip(small.why);
    }
    const home = join(mount, 'home');
    const serve = startCli(['serve', '--home', home, '--port', '0', '--live', '--autonomy', 'full'], {}, small.argv);
    await serve.waitForLine(/^Gatehouse console: http:\/\/127\.0\.0\.1:\d+\//);
    // The disk exists only in the host's mount namespace: the test reaches it through the host's root.
    const seen = seenBy(serve.child.pid!, home);
    const info = readServeFile(join(seen, 'serve.json'))!;
    let n = 0;
    // A cold host on a busy machine can deny its first call (a worker that misses its start-up or deadline): the host is warm once one call is allowed.
    let warm: HookAnswer | null = null;
    for (let i = 0; i < 5 && warm?.permissionDecision !== 'allow'; i++) warm = await hook(info.hookUrl, info.agentToken, 'ls', n++);
    expect(warm, warm?.permissionDecisionReason).toMatchObject({ permissionDecision: 'allow' });

    const filler = join(seen, 'filler');
    expect(fill(filler)).toBeGreaterThan(0);
    // Space left inside the database's pages and the WAL takes a few calls; then every call is denied.
    let denied: HookAnswer | null = null;
    for (let i = 0; i < 3000 && !denied; i++) {
      const a = await hook(info.hookUrl, info.agentToken, 'ls', n++);
      if (a.permissionDecision === 'deny') denied = a;
    }
    expect(denied, 'no call was denied although the disk was full').not.toBeNull();
    expect(denied!.permissionDecisionReason).toMatch(/the audit log cannot be written: disk full \(.*audit\.db\)\. Gatehouse denies every call until it can record them again; free space on that disk/);
    expect((await hook(info.hookUrl, info.agentToken, 'ls', n++)).permissionDecisionReason).toMatch(/disk full/);

    // doctor, looking at the same folder, reports the host's write failure and the disk.
    const doctor = await runCli(['doctor', '--home', home, '--json'], {}, '', inside(serve.child.pid!));
    const checks = (JSON.parse(doctor.stdout) as { checks: { id: string; status: string; summary: string }[] }).checks;
    expect(doctor.code).toBe(1);
    expect(checks.find((c) => c.id === 'audit')).toMatchObject({ status: 'fail', summary: expect.stringMatching(/cannot record calls, so it denies every one: the audit log cannot be written: disk full/) });
    expect(checks.find((c) => c.id === 'disk')).toMatchObject({ status: expect.stringMatching(/^(fail|warn)$/), summary: expect.stringMatching(/free (space )?in /) });

    // Space is freed: the next call is answered again, without a restart, and the chain verifies.
    rmSync(filler);
    let back: HookAnswer | null = null;
    for (let i = 0; i < 10 && !back; i++) {
      const a = await hook(info.hookUrl, info.agentToken, 'ls', n++);
      if (a.permissionDecision === 'allow') back = a;
    }
    expect(back, 'calls were not answered again after space was freed').not.toBeNull();
    const verified = await runCli(['audit', 'verify', '--home', home], {}, '', inside(serve.child.pid!));
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    // Every call's trail across the full disk holds (read from a copy taken outside the namespace).
    const copy = tempDir('gatehouse-disk-copy-');
    for (const f of ['audit.db', 'audit.db-wal']) if (existsSync(join(seen, f))) copyFileSync(join(seen, f), join(copy, f));
    expect(trailProblems(join(copy, 'audit.db'))).toEqual([]);
    const after = await runCli(['doctor', '--home', home, '--json'], {}, '', inside(serve.child.pid!));
    const audit = (JSON.parse(after.stdout) as { checks: { id: string; status: string; summary: string }[] }).checks.find((c) => c.id === 'audit');
    // Intact, and the window is still told: when, why and how many events it cost.
    expect(audit, audit?.summary).toMatchObject({ status: 'warn', summary: expect.stringMatching(/^audit chain intact: \d+ events, head row \d+\. The host could not write it from \S+ to \S+ \((SQLITE_FULL|SQLITE_IOERR\w*|ENOSPC); \d+ events lost\)\.$/) });
    serve.child.kill('SIGTERM');
    await serve.exited;
  }, 120_000);
});
