// `gatehouse audit search` and `gatehouse audit export`: the audit log's search index read
// straight from the database file, opened read-only (WAL lets it be read while a host writes it),
// so they work with or without a running host. Output is redacted unless the operator opted in
// to raw values in Settings and asks for them with --raw.
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { defaultHome, homePaths } from '../home.js';
import type { AuditQuery, AuditFilter } from '../audit/audit-query.js';
import { UsageError } from '../core/usage-error.js';
import { examplesHelp } from './gatehouse-command.js';
import { runCliJob } from './progress.js';
import { JobCancelled } from '../host/jobs.js';
import { describeDecider } from '../../shared/decider.js';
import type { DeciderView, ResponseOf } from '../../shared/contract.js';
import { displayText, jsonEscapeHidden, jsonText } from '../../shared/display-text.js';
import { TEAM_URL_ENV, requireTeamUrl } from '../team/team-url.js';
import { onTeam } from './team-commands.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--since`: an ISO date or time ("2026-05-01", "2026-05-01T12:00Z"), or an age ("90m", "2h", "7d"). */
export function parseSince(v: string, now = Date.now()): number {
  const rel = /^(\d+)\s*([smhdw])$/.exec(v.trim());
  if (rel) return now - Number(rel[1]) * UNITS[rel[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}/.test(v)) {
    const t = Date.parse(v);
    if (!Number.isNaN(t)) return t;
  }
  throw new UsageError(`--since must be an ISO date ("2026-05-01", "2026-05-01T12:00:00Z") or an age like 30m, 2h, 7d, not "${v}".`);
}

function positiveInt(name: string, v: string, max: number): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}, not "${v}".`);
  return n;
}

/** SQLite, the judge, the settings' schema and the team client are loaded by the command that uses them, not by `gatehouse --help`. */
const auditStore = () => import('../audit/audit-store.js');
const settingsFile = async (path: string) => (await import('../gateway/settings-store.js')).readSettingsFile(path).settings;

async function openQuery(home: string | undefined, raw: boolean): Promise<{ q: AuditQuery; close: () => void }> {
  const paths = homePaths(home ?? defaultHome());
  if (!existsSync(paths.auditDb)) throw new UsageError(`No audit log at ${paths.auditDb}. Pass the data folder with --home DIR.`);
  if (raw && !(await settingsFile(paths.settings)).auditRaw) {
    throw new UsageError('--raw needs the "Show raw audit values" setting (auditRaw) turned on in Settings; without it secrets stay masked.');
  }
  const [{ openForVerify }, { AuditQuery }] = await Promise.all([auditStore(), import('../audit/audit-query.js')]);
  const db = openForVerify(paths.auditDb);
  return { q: new AuditQuery({ db, raw: () => raw }), close: () => db.close() };
}

/**
 * One line per event. Type, actor (`agent:<name>`) and the payload's strings are the agent's own
 * words: each is escaped (displayText), so escape codes, newlines and bidi controls in an agent or
 * session name cannot erase lines or print a forged one on the operator's terminal.
 */
function summary(e: { seq: number; ts: number; type: string; actor: string; payload: unknown }): string {
  const p = (e.payload ?? {}) as Record<string, unknown>;
  const bits = ['tool', 'session', 'decision', 'reason', 'plugin'].filter((k) => typeof p[k] === 'string').map((k) => `${k}=${displayText(String(p[k]).slice(0, 80))}`);
  return `${String(e.seq).padStart(8)}  ${new Date(e.ts).toISOString()}  ${displayText(e.type).padEnd(18)} ${displayText(e.actor).padEnd(22)} ${bits.join(' ')}`;
}

type ReplayRow = ResponseOf<'audit.replay'>['calls'][number];

/**
 * One row per call: which call it is (time, agent, session, tool, command) and its decision then
 * and now, each with who decided. Agent-supplied text is escaped (displayText), as in `summary`.
 */
function replayTable(rows: ReplayRow[]): string {
  const d = displayText;
  const who = (x: { decision: string; decider: unknown } | null) => (x ? `${x.decision} (${describeDecider(x.decider as DeciderView)})` : 'not recorded');
  const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  const cells = rows.map((c) => [
    c.changed ? 'CHANGED' : 'same',
    new Date(c.ts).toISOString(),
    d(c.agent),
    d(c.session),
    d(c.tool),
    d(cut(c.command, 60)) || '-',
    `${d(who(c.recorded))}${c.waiting ? ' waiting' : ''}`,
    d(who(c.replayed)),
    c.call,
  ]);
  const head = ['', 'TIME', 'AGENT', 'SESSION', 'TOOL', 'COMMAND', 'RECORDED', 'REPLAYED', 'CALL'];
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(width[i]!))).join('  ');
  return [line(head), ...cells.map(line)].join('\n');
}

interface FacetOptions {
  agent?: string;
  session?: string;
  plugin?: string;
  decision?: string;
  type?: string[];
  since?: string;
}

/** The facet options of `audit search`, as the local and the team search both take them. */
function searchFacets(o: FacetOptions): { agent?: string; session?: string; plugin?: string; decision?: string; types?: string[]; from?: number } {
  return {
    ...(o.agent ? { agent: o.agent } : {}),
    ...(o.session ? { session: o.session } : {}),
    ...(o.plugin ? { plugin: o.plugin } : {}),
    ...(o.decision ? { decision: o.decision } : {}),
    ...(o.type ? { types: o.type } : {}),
    ...(o.since ? { from: parseSince(o.since) } : {}),
  };
}

/** `audit search --team`: the same output as the local search, each event with its member. */
async function searchTeam(query: string, limit: number, o: FacetOptions & { json?: boolean; before?: string; raw?: boolean; teamUrl?: string; member?: string }): Promise<void> {
  if (o.raw) throw new UsageError('--raw is not available with --team: team search always masks secrets.');
  if (o.before !== undefined) throw new UsageError('--before is not available with --team yet: narrow the search with --since, --member or a facet.');
  const url = requireTeamUrl(o.teamUrl);
  const { teamSearch } = await import('../team/team-search.js');
  const r = await onTeam(url, (pool) =>
    teamSearch(pool, { query, limit, ...(o.member ? { member: o.member } : {}), ...searchFacets(o) }),
  );
  if (o.json) {
    console.log(jsonText({ events: r.events, total: r.total, totalCapped: r.totalCapped, nextBefore: r.nextBefore }));
    return;
  }
  const width = Math.max(0, ...r.events.map((e) => displayText(e.member).length));
  for (const e of r.events) console.log(`${displayText(e.member).padEnd(width)}  ${summary(e)}`);
  console.log(`${r.total}${r.totalCapped ? '+' : ''} matching events across the team, ${r.events.length} shown (${r.tookMs} ms).`);
}

export function addAuditQueryCommands(audit: Command): void {
  audit
    .command('search')
    .description('Search the audit log (FTS5 syntax) newest first, with facet filters.')
    .argument('[query]', 'FTS5 query: words, "exact phrase", prefix*, AND / OR / NOT; empty matches every event', '')
    .option('--json', 'one JSON object: events, total, totalCapped, nextBefore')
    .option('--agent <name>', 'only events of this agent')
    .option('--session <id>', 'only events of this session')
    .option('--plugin <name>', 'only events of this plugin')
    .option('--decision <d>', 'only events with this decision (allow, deny, ask, …)')
    .option('--type <type...>', 'only these event types (repeatable)')
    .option('--since <when>', 'ISO date or an age (30m, 2h, 7d)')
    .option('--before <seq>', 'only events before this seq (the previous page\'s nextBefore)')
    .option('--limit <n>', 'events to show (1-1000)', '50')
    .option('--raw', 'secrets unmasked (only when the auditRaw setting is on)')
    .option('--home <dir>', 'data folder')
    .option('--team', `search every member's events in the team database (PostgreSQL web-search syntax: words, "a phrase", OR, -word; URL: --team-url or $${TEAM_URL_ENV})`)
    .option('--team-url <url>', 'the team database (no password in it; see gatehouse team --help)')
    .option('--member <name>', 'with --team: only events of this member')
    .addHelpText('after', examplesHelp(['gatehouse audit search "rm AND tmp"', 'gatehouse audit search deploy --agent claude-code --since 2h --json', `${TEAM_URL_ENV}=postgres://… gatehouse audit search --team deploy`]))
    .action(async (query: string, o: { json?: boolean; agent?: string; session?: string; plugin?: string; decision?: string; type?: string[]; since?: string; before?: string; limit: string; raw?: boolean; home?: string; team?: boolean; teamUrl?: string; member?: string }) => {
      const limit = positiveInt('limit', o.limit, 1000);
      if (o.team || o.teamUrl !== undefined) return searchTeam(query, limit, o);
      if (o.member !== undefined) throw new UsageError('--member needs --team: a local log holds one member\'s events.');
      const { q, close } = await openQuery(o.home, o.raw === true);
      try {
        const r = q.search({
          query,
          limit,
          ...searchFacets(o),
          ...(o.before ? { before: positiveInt('before', o.before, Number.MAX_SAFE_INTEGER) } : {}),
        });
        if (o.json) {
          console.log(jsonText({ events: r.events, total: r.total, totalCapped: r.totalCapped, nextBefore: r.nextBefore }));
          return;
        }
        for (const e of r.events) console.log(summary(e));
        const more = r.nextBefore !== null ? ` More: --before ${r.nextBefore}.` : '';
        console.log(`${r.total}${r.totalCapped ? '+' : ''} matching events, ${r.events.length} shown (${r.tookMs} ms).${more}`);
      } finally {
        close();
      }
    });

  audit
    .command('export')
    .description('Print the filtered events as JSONL (one event per line), oldest first, secrets masked.')
    .option('--query <q>', 'FTS5 query', '')
    .option('--since <when>', 'ISO date or an age (30m, 2h, 7d)')
    .option('--agent <name>', 'only events of this agent')
    .option('--session <id>', 'only events of this session')
    .option('--type <type...>', 'only these event types (repeatable)')
    .option('--raw', 'secrets unmasked (only when the auditRaw setting is on)')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp(['gatehouse audit export --since 7d --query curl > incident.jsonl'], 'Progress goes to stderr; Ctrl-C stops the export (exit 130).'))
    .action(async (o: { query: string; since?: string; agent?: string; session?: string; type?: string[]; raw?: boolean; home?: string }) => {
      const filter: AuditFilter = {
        query: o.query,
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.session ? { session: o.session } : {}),
        ...(o.type ? { types: o.type } : {}),
        ...(o.since ? { from: parseSince(o.since) } : {}),
      };
      const { q, close } = await openQuery(o.home, o.raw === true);
      try {
        // Streamed a page at a time: an export of the whole log is not held in memory, stdout's
        // pace is kept, progress goes to stderr, and Ctrl-C stops between pages (exit 130).
        await runCliJob({ kind: 'audit.export', title: 'Exporting audit events', unit: 'events' }, async (job) => {
          const total = q.countUpTo(filter, Number.MAX_SAFE_INTEGER);
          job.progress(0, total);
          let done = 0;
          for (const page of q.exportPages(filter)) {
            // Same JSON values, with bidi and invisible characters as \u escapes (a terminal shows them).
            const more = process.stdout.write(page.map(jsonEscapeHidden).join('\n') + '\n');
            done += page.length;
            job.progress(done, total);
            if (!more) await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
            await job.checkpoint();
          }
        });
      } catch (err) {
        if (err instanceof JobCancelled) throw new JobCancelled(`${err.message.replace(/; nothing was changed\.$/, '')}: the lines written are a true but incomplete export.`);
        throw err;
      } finally {
        close();
      }
    });

  audit
    .command('replay')
    .description("Shadow mode: today's policy, or a draft file, over the recorded calls of a session or time range, judged as the saved policy was then (recorded extraction and built-in matches, autonomy and grants of the time); lists the decisions that would change, waiting calls marked. Runs nothing, changes nothing.")
    .option('--session <id>', 'only the calls of this session')
    .option('--since <when>', 'calls from this time: ISO date or an age (30m, 2h, 7d)')
    .option('--until <when>', 'calls up to this time: ISO date or an age')
    .option('--policy <file>', 'a draft policy file to judge with instead of GATEHOUSE_HOME/policy.yaml')
    .option('--limit <n>', 'calls to replay at most (1-100000)', '10000')
    .option('--json', 'one JSON object: calls, changed, policyProblems')
    .option('--all', 'list every call, not only the changed ones')
    .option('--home <dir>', 'data folder')
    .addHelpText('after', examplesHelp([
      ['what a stricter draft would have changed over the last week', 'gatehouse audit replay --since 7d --policy ./policy.draft.yaml'],
      ["today's policy over one agent session", 'gatehouse audit replay --session 6f1c2d --all'],
    ], 'Progress goes to stderr; Ctrl-C stops the replay (exit 130). Exit 1 when a decision would change.'))
    .action(async (o: { session?: string; since?: string; until?: string; policy?: string; limit: string; json?: boolean; all?: boolean; home?: string }) => {
      const limit = positiveInt('limit', o.limit, 100_000);
      const home = o.home ?? defaultHome();
      const paths = homePaths(home);
      if (!existsSync(paths.auditDb)) throw new UsageError(`No audit log at ${paths.auditDb}. Pass the data folder with --home DIR.`);
      let policyText: string | undefined;
      if (o.policy !== undefined) {
        if (!existsSync(o.policy)) throw new UsageError(`--policy ${o.policy}: no such file.`);
        policyText = readFileSync(o.policy, 'utf8');
      }
      const settings = await settingsFile(paths.settings);
      // Replay judges recorded calls, not this machine's files as they are now: no hard-link look-ups.
      const [{ PolicyStore }, { extract, initExtractor }, { replayCalls }, { openForVerify }] = await Promise.all([import('../policy/rules/store.js'), import('../policy/extract/index.js'), import('../audit/replay.js'), auditStore()]);
      const policy = new PolicyStore({ file: paths.policy, home: homedir(), gatehouseHome: paths.root, extract: (call) => extract(call, { home: homedir() }), watch: false, log: () => {}, hardLinks: false });
      await Promise.all([initExtractor(), policy.start()]);
      const db = openForVerify(paths.auditDb);
      try {
        const req = {
          limit,
          ...(o.session ? { session: o.session } : {}),
          ...(o.since ? { from: parseSince(o.since) } : {}),
          ...(o.until ? { to: parseSince(o.until) } : {}),
          ...(policyText !== undefined ? { policyText } : {}),
        };
        const r = await runCliJob({ kind: 'audit.replay', title: 'Replaying the policy over recorded calls', unit: 'calls' }, (job) =>
          replayCalls({ db, policy, autonomy: () => ({ level: settings.autonomy, autoApprove: settings.autoApprove, alwaysAsk: settings.alwaysAsk }) }, req, job),
        );
        if (o.json) console.log(jsonText(r));
        else {
          for (const p of r.policyProblems) console.log(`${o.policy ?? paths.policy}:${p.line}:${p.column}: ${displayText(p.message)}`);
          const rows = r.calls.filter((c) => c.changed || o.all);
          if (rows.length > 0) console.log(replayTable(rows));
          const source = o.policy ? `the draft ${o.policy}` : "today's policy";
          console.log(r.policyProblems.length && r.calls.length === 0 ? `The policy has errors; nothing was replayed.` : `Replayed with ${source}: ${r.changed} of ${r.calls.length} decisions would change.`);
        }
        if (r.changed > 0 || (r.policyProblems.length > 0 && r.calls.length === 0)) process.exitCode = 1;
      } finally {
        db.close();
        await policy.close();
      }
    });
}
