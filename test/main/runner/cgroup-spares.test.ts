// Each contained call runs in a pids cgroup of its own, made ahead of the call off the host's event
// loop (runner/limits.ts CgroupSpares): a mkdir in the cgroup tree waits for the kernel's cgroup
// lock, which every launcher joining its cgroup takes too, and under load that stalled the host.
// Real cgroups: skipped, saying why, where this process cannot make any.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { CgroupSpares, detectPidsCgroup, PidsCgroup, SPARE_CGROUPS, cgroupSparesOf } from '../../../main/runner/limits.js';

const cg = detectPidsCgroup();
const none = cg.available ? null : `no pids cgroup can be made here (${cg.reason})`;
if (none) console.log(`cgroup-spares: skipped: ${none}`);

const limitsModule = fileURLToPath(new URL('../../../main/runner/limits.ts', import.meta.url));

/**
 * Runs `source` (TypeScript importing the limits module as LIMITS) in a Node process of its own,
 * as a host is one: its exit code and what it printed as JSON.
 */
async function runHolder<T>(source: string): Promise<{ code: number | null; said: T }> {
  const root = mkdtempSync(join(fileURLToPath(new URL('../../../node_modules/.cache/', import.meta.url)), 'gatehouse-spares-'));
  try {
    writeFileSync(join(root, 'holder.ts'), source.replaceAll('LIMITS', limitsModule));
    buildSync({ entryPoints: [join(root, 'holder.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', outfile: join(root, 'holder.mjs'), logLevel: 'silent' });
    const child = spawn(process.execPath, [join(root, 'holder.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      return { code, said: JSON.parse(out) as T };
    } catch {
      throw new Error(`the holder exited with ${code} and printed no JSON: ${JSON.stringify(out)}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('cgroups made ahead of the calls', () => {
  it('the first is made when asked; then SPARE_CGROUPS empty ones wait with its limit, each taken once, and closing removes those not taken', async (ctx) => {
    if (!cg.available) return ctx.skip(none!);
    const spares = new CgroupSpares(cg.base);
    const first = spares.take(9);
    expect(readFileSync(join(first, 'pids.max'), 'utf8').trim()).toBe('9');
    const waiting = await spares.settled();
    expect(waiting).toHaveLength(SPARE_CGROUPS);
    for (const dir of waiting) {
      expect(readFileSync(join(dir, 'cgroup.procs'), 'utf8')).toBe('');
      expect(readFileSync(join(dir, 'pids.max'), 'utf8').trim()).toBe('9');
    }
    // Another limit is written into the spare taken for it.
    const second = spares.take(4);
    expect(second).toBe(waiting[0]);
    expect(readFileSync(join(second, 'pids.max'), 'utf8').trim()).toBe('4');
    expect(new Set([first, ...waiting, ...(await spares.settled())]).size).toBe(SPARE_CGROUPS + 2);
    const left = await spares.settled();
    spares.close();
    for (const dir of left) expect(existsSync(dir), dir).toBe(false);
    // Closed: none made after; what was taken is its caller's to remove.
    expect(await spares.settled()).toEqual([]);
    for (const dir of [first, second]) rmdirSync(dir);
  });

  it("a call's cgroup is a spare, with the call's process limit written, and the next spare is made meanwhile", async (ctx) => {
    if (!cg.available) return ctx.skip(none!);
    PidsCgroup.create(cg.base, 5).tryRemove();
    const spares = cgroupSparesOf(cg.base)!;
    const ready = await spares.settled();
    const call = PidsCgroup.create(cg.base, 7);
    expect(call.dir).toBe(ready[0]);
    expect(readFileSync(join(call.dir, 'pids.max'), 'utf8').trim()).toBe('7');
    expect(await spares.settled()).toHaveLength(SPARE_CGROUPS);
    expect(await call.drain()).toBe(true);
    expect(existsSync(call.dir)).toBe(false);
  });

  it('a process that exits leaves none of its spares behind', async (ctx) => {
    if (!cg.available) return ctx.skip(none!);
    const { code, said } = await runHolder<{ pid: number; spares: string[] }>(`import { cgroupSparesOf, PidsCgroup } from 'LIMITS';
const call = PidsCgroup.create(${JSON.stringify(cg.base)}, 3);
const spares = await cgroupSparesOf(${JSON.stringify(cg.base)})!.settled();
await call.drain();
console.log(JSON.stringify({ pid: process.pid, spares }));
`);
    expect(code).toBe(0);
    expect(said.spares).toHaveLength(SPARE_CGROUPS);
    expect(readdirSync(cg.base).filter((n) => n.startsWith(`gatehouse-${said.pid}-`))).toEqual([]);
  }, 30_000);

  it("a process that exits in the middle of its calls leaves no empty cgroup of its own; one still holding a process stays for the next host's sweep", async (ctx) => {
    if (!cg.available) return ctx.skip(none!);
    // Two calls' cgroups, neither drained: one empty (its program gone, the removal not run yet),
    // one holding a program that outlives the process (detached, in its own session).
    const { code, said } = await runHolder<{ pid: number; empty: string; busy: string; sleeper: number }>(`import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PidsCgroup } from 'LIMITS';
const empty = PidsCgroup.create(${JSON.stringify(cg.base)}, 3);
const busy = PidsCgroup.create(${JSON.stringify(cg.base)}, 3);
const sleeper = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
sleeper.unref();
writeFileSync(join(busy.dir, 'cgroup.procs'), String(sleeper.pid));
console.log(JSON.stringify({ pid: process.pid, empty: empty.dir, busy: busy.dir, sleeper: sleeper.pid }));
process.exit(0);
`);
    expect(code).toBe(0);
    try {
      expect(existsSync(said.empty)).toBe(false);
      expect(readdirSync(cg.base).filter((n) => n.startsWith(`gatehouse-${said.pid}-`))).toEqual([said.busy.split('/').pop()]);
    } finally {
      process.kill(said.sleeper, 'SIGKILL');
      await new PidsCgroup(said.busy).drain();
    }
    expect(existsSync(said.busy)).toBe(false);
  }, 30_000);
});
