// `gatehouse doctor`: is this machine ready to run plugins safely? One line per check — ok,
// warn or fail — and for anything not ok, what to do. Exit 1 when a check fails (something
// needs attention: no sandbox, a plugin that cannot run, a broken audit chain), else 0.
//
// Doctor only reads. With a host running it asks that host (plugins, checker health); without
// one it builds the plugin registry itself, read-only — it does not start a host, so it
// neither starts checkers nor appends to the audit log.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, statfsSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { openForVerify, verifyDatabase } from '../audit/audit-store.js';
import { checkHeadFile } from '../audit/audit-head.js';
import type { ChainState, TeamLinkView } from '../../shared/contract.js';
import { homePaths } from '../home.js';
import { BUILTIN_TOOLS, pluginSources } from '../registry/plugin-sources.js';
import { PluginRegistry } from '../registry/plugin-registry.js';
import { summary, type PluginSummary } from '../registry/plugin-service.js';
import { TrustStore } from '../registry/trust-store.js';
import { detectSandbox, processLimitSupport } from '../runner/sandbox.js';
import { installScope } from '../runner/box-scope.js';
import { Containment, type ContainmentStatus } from '../runner/containment.js';
import { readSettingsFile } from '../gateway/settings-store.js';
import { readServeFile } from '../shells/serve/serve-file.js';
import { findElectronBinary } from './electron-binary.js';
import { connectHost } from './host-client.js';
import { displayText } from '../../shared/display-text.js';
import { isAlive } from '../core/proc-scan.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  /** Stable id: sandbox, containment, process-limit, data-folder, disk, plugin-dirs, plugins, plugin:NAME, checkers, tools, electron, policy, audit. */
  id: string;
  status: CheckStatus;
  /** One sentence: what was found. */
  summary: string;
  /** What to do, when not ok. */
  fix: string | null;
}

export interface DoctorReport {
  ok: boolean;
  home: string;
  checks: DoctorCheck[];
}

export interface DoctorOptions {
  home: string;
  pluginDirs?: string[];
  projectDir?: string;
  env?: NodeJS.ProcessEnv;
}

const check = (id: string, status: CheckStatus, summary: string, fix: string | null = null): DoctorCheck => ({ id, status, summary, fix });

/** The running host of this data folder, if any: reachable (serve) or only locked (Electron). */
function runningHost(home: string): { kind: 'serve'; pid: number } | { kind: 'other'; pid: number } | null {
  const info = readServeFile(homePaths(home).serveJson);
  if (info && isAlive(info.pid)) return { kind: 'serve', pid: info.pid };
  try {
    const pid = Number(readFileSync(resolve(home, 'host.lock'), 'utf8').trim());
    if (pid > 0 && isAlive(pid)) return { kind: 'other', pid };
  } catch {
    // No lock: no host.
  }
  return null;
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const env = opts.env ?? process.env;
  const home = resolve(opts.home);
  const paths = homePaths(home);
  const pluginDirs = (opts.pluginDirs ?? []).map((d) => resolve(d));
  const checks: DoctorCheck[] = [];

  // Sandbox and process limit.
  const sandbox = detectSandbox({ env });
  if (sandbox.kind === 'bwrap') {
    checks.push(check('sandbox', 'ok', `bubblewrap ${sandbox.version} works (${sandbox.path}): plugins run confined to their declared paths, with a private /tmp, their own PID namespace and no network unless they declare hosts.`));
  } else {
    const fix =
      process.platform === 'linux'
        ? 'install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then run gatehouse doctor again; until then enable only plugins you trust, or turn on "require sandbox" to refuse unsandboxed runs.'
        : 'enable only plugins you trust, or turn on "require sandbox" to refuse unsandboxed runs.';
    checks.push(check('sandbox', 'fail', `plugins run unsandboxed: ${sandbox.reason}; a plugin can read and write whatever your account can.`, fix));
  }
  // Containment: the box that let-through Bash commands of Claude Code run in (runner/containment.ts).
  const settingsNow = existsSync(paths.settings) ? readSettingsFile(paths.settings).settings : null;
  // Doctor only reads: where the data folder has no Landlock helper yet, one is built in a temp
  // folder to see whether the host would manage to, and removed.
  const probe = mkdtempSync(join(tmpdir(), 'gatehouse-doctor-'));
  let boxed: ContainmentStatus;
  try {
    const scope = async (dir: string) => {
      const have = await installScope(dir, { build: false });
      return have.ok ? have : installScope(probe);
    };
    const containment = new Containment({ home: env.HOME ?? homedir(), gatehouseHome: home, pluginDirs: () => pluginDirs, when: () => settingsNow?.containment, detect: () => sandbox, scope });
    await containment.ready();
    boxed = containment.status()!;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  if (boxed.available && boxed.scoped === false) checks.push(check('containment', 'warn', boxed.detail, 'on Linux 6.12 or later, install a C compiler (Debian/Ubuntu: sudo apt install gcc) and run gatehouse doctor again.'));
  else if (boxed.available) checks.push(check('containment', 'ok', boxed.detail));
  else
    checks.push(
      check(
        'containment',
        boxed.when.length ? 'fail' : 'warn',
        `${boxed.detail}`,
        process.platform === 'linux' ? 'install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap) where user namespaces are enabled, then run gatehouse doctor again; until then keep autonomy at supervised.' : 'keep autonomy at supervised on this system.',
      ),
    );
  const limit = processLimitSupport(sandbox.kind === 'bwrap');
  checks.push(
    limit.kind === 'none'
      ? check('process-limit', 'warn', `${limit.detail}.`, 'run Gatehouse as a normal user with bubblewrap installed (the process limit then holds inside the sandbox), or give it a pids cgroup it may create children in.')
      : check('process-limit', 'ok', `process count limited by ${limit.detail}: a fork bomb stops at the limit.`),
  );

  // Data folder and plugin folders.
  const homeExists = existsSync(home);
  checks.push(homeExists ? check('data-folder', 'ok', `data folder ${home}.`) : check('data-folder', 'warn', `the data folder ${home} does not exist yet.`, 'start Gatehouse once (gatehouse serve) to create it, or pass the right one with --home DIR.'));
  if (homeExists) checks.push(diskCheck(home));
  const sources = pluginSources(home, opts.projectDir ?? process.cwd(), pluginDirs);
  const isDir = (d: string) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  };
  const dirText = sources.map((s) => `${s.dir} (${s.origin}, ${isDir(s.dir) ? 'exists' : 'missing'})`).join('; ');
  const missingCli = sources.filter((s) => s.origin === 'cli' && !isDir(s.dir));
  checks.push(
    missingCli.length > 0
      ? check('plugin-dirs', 'fail', `plugin folders: ${dirText}.`, `${missingCli.map((s) => s.dir).join(', ')} passed with --plugins-dir does not exist; fix the path.`)
      : check('plugin-dirs', 'ok', `plugin folders: ${dirText}.`),
  );

  // Plugins and checkers: from the running host, else from a read-only registry of our own.
  const host = homeExists ? runningHost(home) : null;
  let plugins: PluginSummary[] | null = null;
  let checkerCheck: DoctorCheck;
  // Tool breakers too: an open one refuses every call of that tool until it closes or is reset.
  let toolCheck: DoctorCheck | null = null;
  // What the running host knows of its log (a write failure, a file deleted under it): the file alone cannot say.
  let hostChain: ChainState | null = null;
  // Team mode (serve --team): whether the host's events reach the team database.
  let teamCheck: DoctorCheck | null = null;
  if (host?.kind === 'serve') {
    try {
      const caller = await connectHost(home);
      try {
        plugins = (await caller.call('plugins.list', {})).plugins;
        hostChain = await caller.call('audit.chainState', {});
        const team = await caller.call('team.status', {});
        if (team) teamCheck = teamLinkCheck(host.pid, team);
        const health = await caller.call('health.list', {});
        const rows = health.plugins.filter((p) => p.kindInfo?.judgesCalls && p.status === 'enabled');
        const bad = rows.filter((r) => r.breaker.state !== 'closed' || (r.processes !== null && r.processes.ready < r.processes.running) || r.processes?.running === 0);
        const describe = (r: (typeof rows)[number]) => `${r.name} (${r.breaker.state}${r.processes ? `, ${r.processes.ready}/${r.processes.running} ready` : ''}${r.breaker.lastFailure ? `, last failure: ${r.breaker.lastFailure}` : ''})`;
        checkerCheck =
          rows.length === 0
            ? check('checkers', 'ok', `host pid ${host.pid} is running; no checker is enabled.`)
            : bad.length === 0
              ? check('checkers', 'ok', `host pid ${host.pid}: ${rows.length} checker${rows.length === 1 ? '' : 's'} healthy: ${rows.map(describe).join(', ')}.`)
              : check('checkers', 'fail', `host pid ${host.pid}: checker${bad.length === 1 ? '' : 's'} not healthy: ${bad.map(describe).join(', ')}; calls they see are blocked (fail closed).`, 'open the Health view to see why; fix the checker, then reset or restart it there (or disable it: gatehouse plugin disable NAME).');
        const tools = health.plugins.filter((p) => p.kindInfo?.callable && p.status === 'enabled');
        const open = tools.filter((r) => r.breaker.state !== 'closed');
        const describeTool = (r: (typeof tools)[number]) =>
          `${r.name} (breaker ${r.breaker.state}${r.breaker.state !== 'closed' ? ` after ${r.breaker.consecutiveFailures} failure${r.breaker.consecutiveFailures === 1 ? '' : 's'}` : ''}${r.breaker.nextProbeAt !== null ? `, closes at ${new Date(r.breaker.nextProbeAt).toISOString().slice(11, 16)} UTC if a trial call succeeds` : ''}${r.breaker.lastFailure ? `, last failure: ${r.breaker.lastFailure}` : ''})`;
        toolCheck =
          tools.length === 0
            ? check('tools', 'ok', 'no tool plugin is enabled.')
            : open.length === 0
              ? check('tools', 'ok', `${tools.length} tool${tools.length === 1 ? '' : 's'}, every breaker closed: ${tools.map((r) => r.name).join(', ')}.`)
              : check('tools', 'fail', `tool${open.length === 1 ? '' : 's'} refused by an open circuit breaker: ${open.map(describeTool).join(', ')}; agents' calls of ${open.length === 1 ? 'it' : 'them'} are not run.`, 'open the Health view to see why; fix the tool, then reset its breaker there (or disable it: gatehouse plugin disable NAME).');
      } finally {
        await caller.close();
      }
    } catch (err) {
      checkerCheck = check('checkers', 'fail', `host pid ${host.pid} is running but did not answer: ${(err as Error).message}`, 'restart it (stop the gatehouse serve process and start it again).');
    }
  } else if (host?.kind === 'other') {
    checkerCheck = check('checkers', 'ok', `a host (pid ${host.pid}, the Electron console) is running; its Health view shows checker health.`);
  } else {
    checkerCheck = check('checkers', 'ok', 'no host running; checkers not started (they start with the console: gatehouse or gatehouse serve).');
  }
  if (plugins === null) {
    try {
      plugins = await readPlugins(home, sources);
    } catch (err) {
      checks.push(check('plugins', 'fail', `could not read the plugins: ${(err as Error).message}`, 'fix the file named above, then run gatehouse doctor again.'));
    }
  }
  if (plugins) checks.push(...pluginChecks(plugins));
  checks.push(checkerCheck);
  if (toolCheck) checks.push(toolCheck);
  if (teamCheck) checks.push(teamCheck);

  // Electron.
  const electron = findElectronBinary(env);
  checks.push(
    electron.found
      ? check('electron', 'ok', `Electron binary at ${electron.path}.`)
      : check('electron', 'warn', `no Electron binary (${electron.reason}); gatehouse opens the console in your browser instead.`, 'to use the desktop console, reinstall with scripts allowed: npm install electron; the browser console (gatehouse serve) works meanwhile.'),
  );

  if (homeExists) checks.push(await policyCheck(paths.policy, home));

  // Audit chain.
  checks.push(auditCheck(paths.auditDb, host?.pid ?? null, hostChain));

  return { ok: !checks.some((c) => c.status === 'fail'), home, checks };
}

async function readPlugins(home: string, sources: ReturnType<typeof pluginSources>): Promise<PluginSummary[]> {
  // TrustStore only reads here; a missing trust file means nothing is enabled yet.
  const trust = new TrustStore(home);
  const registry = new PluginRegistry({ sources, trust, builtins: BUILTIN_TOOLS });
  await registry.refreshAll();
  return registry.list().map(summary);
}

function pluginChecks(plugins: PluginSummary[]): DoctorCheck[] {
  if (plugins.length === 0) return [check('plugins', 'ok', 'no plugins found.')];
  const counts = new Map<string, number>();
  for (const p of plugins) counts.set(p.status, (counts.get(p.status) ?? 0) + 1);
  const list = plugins.map((p) => `${p.name} (${p.status})`).join(', ');
  const out = [check('plugins', 'ok', `${plugins.length} plugin${plugins.length === 1 ? '' : 's'}: ${list}.`)];
  for (const p of plugins) {
    if (p.status === 'invalid') out.push(check(`plugin:${p.name}`, 'fail', `${p.name} is invalid (${p.errors} error${p.errors === 1 ? '' : 's'}) and will not run.`, `see the errors with: gatehouse plugin validate ${p.dir}`));
    else if (p.status === 'scan_failed') out.push(check(`plugin:${p.name}`, 'fail', `${p.name} failed the security scan (weight ${p.scanWeight}) and cannot be enabled.`, `review the findings with: gatehouse plugin scan ${p.dir}; enable it only with a reason (gatehouse plugin enable ${p.name} --override-reason "…") if you accept them.`));
    else if (p.status === 'quarantined') out.push(check(`plugin:${p.name}`, 'fail', `${p.name} is quarantined: its files changed after it was enabled, and it does not run${p.kindInfo?.judgesCalls ? `; as an enabled ${p.kindInfo.label} it blocks every agent call until then` : ''}.`, `review the diff in the console's Plugins view, then approve the change or disable it (gatehouse plugin disable ${p.name}).`));
    else if (p.trusted) out.push(check(`plugin:${p.name}`, 'warn', `${p.name} runs without the OS sandbox: its manifest says sandbox = "none" and an operator marked it trusted; it can read and write whatever your account can.`, `if that is no longer intended: gatehouse plugin untrust ${p.name}.`));
  }
  return out;
}

/** Below this much free space in the data folder the log is close to failing (every call then denied). */
const LOW_DISK_BYTES = 100 * 1024 * 1024;

/**
 * policy.yaml as a host started now would load it: a file that loads whole as written; otherwise
 * the policy saved by the last run (its last good and last loaded copies beside the file) under a
 * broken, partly rejected or missing file; with none saved, a missing file leaves the built-in
 * rules and a broken one denies every call.
 */
async function policyCheck(file: string, home: string): Promise<DoctorCheck> {
  const { PolicyStore, lastGoodPath, lastLoadedPath } = await import('../policy/rules/store.js');
  const exists = existsSync(file);
  const savedCopies = [lastGoodPath(file), lastLoadedPath(file)].filter((p) => existsSync(p));
  if (!exists && savedCopies.length === 0) return check('policy', 'ok', `no ${file}: the built-in rules and the autonomy level decide.`);
  const store = new PolicyStore({ file, home: homedir(), gatehouseHome: home, watch: false });
  // The saved copies a start would apply: those that load (a copy that does not load is skipped).
  const saved = savedCopies.filter((p) => {
    try {
      return !store.check(readFileSync(p, 'utf8')).broken;
    } catch {
      return false;
    }
  });
  const savedNames = saved.map((p) => basename(p)).join(' and ');
  if (!exists) {
    if (saved.length === 0) return check('policy', 'ok', `no ${file} (and no saved copy beside it that loads): the built-in rules and the autonomy level decide.`);
    return check('policy', 'warn', `no ${file}, so a host started now applies the policy the last run saved beside it (${savedNames}) until the file is back.`, `restore ${file}, or write an empty one to clear the user rules (deleting it keeps the saved policy).`);
  }
  const r = store.check(readFileSync(file, 'utf8'));
  const fix = `run gatehouse policy check ${file} for each problem with its line, fix the file, and save it (a running host reloads it).`;
  const first = r.problems[0] ? ` (line ${r.problems[0].line}: ${r.problems[0].message})` : '';
  if (r.broken) {
    return check('policy', 'fail', `${file} cannot be loaded${first}; ${saved.length > 0 ? `a running host keeps the policy in force, and a host started now applies the one the last run saved (${savedNames})` : 'no policy ever loaded whole here, so Gatehouse denies every call'} until it is fixed.`, fix);
  }
  if (r.problems.length > 0) return check('policy', 'warn', `${file}: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}${first}; a rejected rule keeps its last good version, a new one is left out.`, fix);
  return check('policy', 'ok', `${file}: ${r.rules.length} rule${r.rules.length === 1 ? '' : 's'}, loads as written.`);
}

function diskCheck(home: string): DoctorCheck {
  let free: number;
  try {
    const fs = statfsSync(home);
    free = fs.bavail * fs.bsize;
  } catch (err) {
    return check('disk', 'warn', `free space in ${home} could not be read: ${(err as Error).message}`, 'check the disk holding the data folder.');
  }
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
  if (free === 0) return check('disk', 'fail', `no free space in ${home}: the audit log cannot record anything, so every agent call is denied.`, 'free space on that disk; calls are answered again without a restart.');
  if (free < LOW_DISK_BYTES) return check('disk', 'warn', `${mib(free)} free in ${home}: when it runs out the audit log cannot record calls and every call is denied.`, `free space on that disk (keep at least ${mib(LOW_DISK_BYTES)}).`);
  return check('disk', 'ok', `${mib(free)} free in ${home}.`);
}

/** The team link of a running host: up (with its lag), connecting, down (events wait locally) or forked (shipping stopped). */
function teamLinkCheck(pid: number, t: TeamLinkView): DoctorCheck {
  const lag = `${t.lag} event${t.lag === 1 ? '' : 's'} not shipped yet${t.lag > 0 ? ` (the oldest ${Math.round(t.lagMs / 1000)} s old)` : ''}`;
  const as = `host pid ${pid} ships as member ${displayText(t.member)}`;
  if (t.link === 'up' || t.link === 'connecting') return check('team', 'ok', `${as}: link ${t.link}, ${lag}.`);
  if (t.link === 'down') {
    const retry = t.nextRetryAt !== null ? `; it tries again at ${new Date(t.nextRetryAt).toISOString().slice(11, 19)} UTC` : '';
    return check('team', 'warn', `${as}: the team database cannot be reached (${displayText(t.lastError ?? 'no reason given')}); ${lag}, kept in the local log until it is back${retry}. Asks wait in this host's own inbox meanwhile.`, 'check that PostgreSQL runs and that this machine reaches it: gatehouse team status, with the same URL, tries the same connection.');
  }
  if (t.link === 'forked') return check('team', 'fail', `${as}, but shipping stopped: ${displayText(t.lastError ?? 'another host ships under this member name')}; ${lag}.`, 'give this host its own --team-member name and start it again.');
  return check('team', 'warn', `${as}: link ${t.link}.`);
}

function auditCheck(path: string, hostPid: number | null, hostChain: ChainState | null): DoctorCheck {
  const keep = 'keep the data folder as it is for investigation; gatehouse audit verify shows the same.';
  if (hostChain?.writeError) return check('audit', 'fail', `host pid ${hostPid} cannot record calls, so it denies every one: ${hostChain.writeError}`, keep);
  if (hostChain?.state === 'broken' && hostChain.firstBad) return check('audit', 'fail', `host pid ${hostPid}: audit chain broken at row ${hostChain.firstBad.seq}: ${hostChain.firstBad.reason}`, keep);
  if (!existsSync(path)) {
    if (hostPid !== null) return check('audit', 'fail', `the audit log ${path} is missing while a host (pid ${hostPid}) runs: it was deleted, and what the host records is lost.`, `stop the host, keep the data folder as it is for investigation, and start it again (the restart records the missing history).`);
    let gap: string | null;
    try {
      gap = checkHeadFile(path, null);
    } catch (err) {
      return check('audit', 'fail', (err as Error).message, keep);
    }
    if (gap) return check('audit', 'fail', gap, keep);
    return check('audit', 'ok', 'no audit log yet; the host creates it when it first starts.');
  }
  let db;
  try {
    db = openForVerify(path);
  } catch (err) {
    return check('audit', 'fail', `the audit log ${path} cannot be opened: ${(err as Error).message}`, 'keep the file for investigation and check its permissions and disk; do not delete it.');
  }
  try {
    const r = verifyDatabase(db);
    const gap = r.ok ? checkHeadFile(path, db) : null;
    if (gap) return check('audit', 'fail', gap, keep);
    if (r.ok) {
      const intact = `audit chain intact: ${r.checked} events, head row ${r.head.seq}.`;
      const failed = recentWriteFailure(db);
      return failed ? check('audit', 'warn', `${intact} ${failed}`, 'make sure the disk holding the data folder keeps free space; the calls of that time were denied, and their trails end in call.lost.') : check('audit', 'ok', intact);
    }
    return check('audit', 'fail', `audit chain broken at row ${r.firstBad!.seq}: ${r.firstBad!.reason}.`, `the log was changed outside Gatehouse: keep a copy of ${path} for investigation (gatehouse audit verify shows the same) and review the events around row ${r.firstBad!.seq}.`);
  } catch (err) {
    return check('audit', 'fail', `the audit log ${path} could not be verified: ${(err as Error).message}`, 'keep the file for investigation; do not delete it.');
  } finally {
    db.close();
  }
}

/** A write failure the host recorded in the last week (audit.write-resumed), in a sentence; null when none. */
const RECENT_WRITE_FAILURE_MS = 7 * 86_400_000;
function recentWriteFailure(db: ReturnType<typeof openForVerify>): string | null {
  const row = db.prepare("SELECT ts, payload FROM events WHERE type = 'audit.write-resumed' ORDER BY seq DESC LIMIT 1").get() as { ts: number; payload: string } | undefined;
  if (!row || Date.now() - row.ts > RECENT_WRITE_FAILURE_MS) return null;
  const p = JSON.parse(row.payload) as { failedSince?: number; lostEvents?: number; code?: string | null };
  const since = typeof p.failedSince === 'number' ? new Date(p.failedSince).toISOString() : 'an unknown time';
  return `The host could not write it from ${since} to ${new Date(row.ts).toISOString()} (${p.code ?? 'a write error'}; ${p.lostEvents ?? 0} events lost).`;
}

const LABEL: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

export function formatReport(r: DoctorReport): string {
  const width = Math.max(...r.checks.map((c) => c.id.length));
  // Summaries quote plugin names, folders and audit rows: escaped (displayText) before printing.
  const lines = r.checks.map((c) => `${LABEL[c.status]}  ${c.id.padEnd(width)}  ${displayText(c.summary)}${c.fix ? ` To do: ${displayText(c.fix)}` : ''}`);
  const fails = r.checks.filter((c) => c.status === 'fail').length;
  const warns = r.checks.filter((c) => c.status === 'warn').length;
  lines.push(fails > 0 ? `${fails} problem${fails === 1 ? '' : 's'} need${fails === 1 ? 's' : ''} attention${warns ? `, ${warns} warning${warns === 1 ? '' : 's'}` : ''}.` : warns > 0 ? `Ready, with ${warns} warning${warns === 1 ? '' : 's'}.` : 'Ready.');
  return lines.join('\n');
}
