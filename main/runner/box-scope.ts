// The box's one reach bubblewrap cannot take away: sockets in the abstract namespace. They have
// no path to mask, and the box shares the network namespace (contained commands need the
// network), so an X server listening on `@/tmp/.X11-unix/X0` — which lets in any process of the
// same user without a cookie where the desktop says `xhost +si:localuser:USER`, as GNOME does —
// would take a contained command's keystrokes into the user's terminal. Landlock (Linux 6.12,
// ABI 6) scopes them: a process in a Landlock domain cannot connect to an abstract socket made
// outside it. bubblewrap does not set up Landlock, so a tiny program does, and then runs
// bubblewrap (the domain is inherited by everything the box starts; it restricts no file access,
// so bubblewrap can still build the box). It is compiled once from the source below with the C
// compiler the machine has, into Gatehouse's data folder (hidden in the box) under its source's
// hash, and used only where it was seen to work; elsewhere containment says these sockets stay
// reachable.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBriefly } from '../core/run-briefly.js';

const SOURCE = `/* Runs a program in a Landlock domain that cannot reach abstract unix sockets made outside it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* struct landlock_ruleset_attr as of ABI 6 (system headers may be older). */
struct attr { uint64_t fs, net, scoped; };

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: gatehouse-scope PROGRAM [ARG...]\\n", stderr);
    return 2;
  }
  struct attr a = { 0, 0, 1 /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */ };
  /* landlock_create_ruleset and landlock_restrict_self: the same numbers on every architecture. */
  long fd = syscall(444, &a, sizeof a, 0);
  if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(446, fd, 0) != 0) {
    fprintf(stderr, "gatehouse: the box could not be scoped (Landlock: %s); the command was not run\\n", strerror(errno));
    return 126;
  }
  close((int)fd);
  execvp(argv[1], argv + 1);
  fprintf(stderr, "gatehouse: %s: %s\\n", argv[1], strerror(errno));
  return 127;
}
`;

export type ScopeResult = { ok: true; path: string } | { ok: false; reason: string };

const COMPILERS = ['cc', 'gcc', 'clang'];

/**
 * The scope program in `dir`, compiled when it is not there yet (unless `build` is false), and
 * tried (it must run `true` in a domain of its own); or why it cannot be had here.
 */
export async function installScope(dir: string, { build = true, platform = process.platform }: { build?: boolean; platform?: NodeJS.Platform } = {}): Promise<ScopeResult> {
  if (platform !== 'linux') return { ok: false, reason: 'Landlock is Linux only' };
  const file = join(dir, `scope-${createHash('sha256').update(SOURCE).digest('hex').slice(0, 16)}`);
  if (!existsSync(file)) {
    if (!build) return { ok: false, reason: 'not built yet' };
    const built = await compile(dir, file);
    if (!built.ok) return built;
  }
  const t = await runBriefly(file, ['/bin/true'], { timeoutMs: 10_000 });
  if (t.status === 0) return { ok: true, path: file };
  // An older kernel refuses the ruleset (Landlock before ABI 6 knows no `scoped`, or is off).
  const refused = /\(Landlock: ([^)]*)\)/.exec(t.stderr ?? '');
  return { ok: false, reason: refused ? `this kernel's Landlock cannot scope them (${refused[1]})` : (t.stderr || t.error?.message || `exit ${t.status}`).trim() };
}

async function compile(dir: string, file: string): Promise<ScopeResult> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Its own names: two builds at once (two hosts, or two in one process now that it waits without blocking) each rename a whole file.
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const src = `${own}.c`;
  const tmp = `${own}.tmp`;
  writeFileSync(src, SOURCE);
  try {
    const tried: string[] = [];
    for (const cc of COMPILERS) {
      const r = await runBriefly(cc, ['-O2', '-o', tmp, src], { timeoutMs: 60_000 });
      if (r.status === 0) {
        renameSync(tmp, file);
        return { ok: true, path: file };
      }
      const missing = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
      tried.push(r.error ? `${cc}: ${missing ? 'not found' : r.error.message}` : `${cc}: ${r.stderr.trim().split('\n')[0] ?? `exit ${r.status}`}`);
    }
    return { ok: false, reason: `no C compiler could build its Landlock helper (${tried.join('; ')})` };
  } finally {
    rmSync(src, { force: true });
    rmSync(tmp, { force: true });
  }
}
