// The `gatehouse` command tree, built without parsing: index.ts runs it, and test/cli-help walks
// it so that every command, including one added later, is checked for help and usage errors.
// Without a subcommand it opens the console.
import { Option, type Command } from 'commander';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultHome, homePaths } from '../home.js';
import { runCliJob } from './progress.js';
import { displayText } from '../../shared/display-text.js';
import { findElectronBinary } from './electron-binary.js';
import { electronNativeBinding, packageRoot } from './paths.js';
import { UsageError, parsePort } from '../core/usage-error.js';
import { version } from '../version.js';
import { addPluginCommands } from './plugin-commands.js';
import { addCatalogCommands } from './catalog-commands.js';
import { addAdapterCommands } from './adapter-commands.js';
import { addDoctorCommand } from './doctor-command.js';
import { addAgentCommands } from './agent-commands.js';
import { addApprovalCommands } from './approval-commands.js';
import { addAuditQueryCommands } from './audit-commands.js';
import { addAuditRecoverCommand } from './audit-recover-command.js';
import { addPolicyCommands } from './policy-commands.js';
import { addConsoleUrlCommand } from './console-url-command.js';
import { AUTONOMY_LEVELS } from '../policy/autonomy-levels.js';
import { GatehouseCommand, examplesHelp, unknownCommand } from './gatehouse-command.js';
import { TEAM_MEMBER_ENV, TEAM_URL_ENV, memberName, teamUrl } from '../team/team-url.js';
import { addTeamCommands, verifyTeamCommand } from './team-commands.js';
import { addOperatorCommands } from './operator-commands.js';

export const DEFAULT_PORT = 7411;

// What a command needs is loaded when it runs, not when the program is built: `gatehouse --help`,
// a usage mistake or `approvals list` would otherwise load the whole host (the MCP SDK, SQLite,
// node-pty …), 0.6 s before the first line. scripts/build.mjs splits these into chunks.
const serveModule = () => import('../shells/serve/run-serve.js');
const auditStore = () => import('../audit/audit-store.js');
const auditHead = () => import('../audit/audit-head.js');

export function buildProgram(): Command {
  const cli = new GatehouseCommand('gatehouse')
    .description('Gatehouse: supervise AI agents\' tool calls.')
    .version(version)
    // Settings here are copied to every subcommand as it is created.
    .exitOverride()
    // Program options only before a subcommand, so `serve --home X` reaches serve.
    .enablePositionalOptions()
    // Commander offers `help [command]` only on commands without an action; the root has one.
    .helpCommand(true)
    .addHelpText('after', examplesHelp([
      ['open the console (Electron, or the browser console if Electron is missing)', 'gatehouse'],
      ['serve the console on a free loopback port', 'gatehouse serve --port 0'],
      ['check the audit log for tampering', 'gatehouse audit verify'],
    ]));

  cli
    .option('--home <dir>', 'data folder (default: $GATEHOUSE_HOME or the platform config folder)')
    .action(async (o: { home?: string }, cmd: Command) => {
      // The root has an action (open the console), so commander takes `gatehouse frob` as an
      // argument to it rather than an unknown command; say what it is.
      if (cmd.args.length > 0) unknownCommand(cmd);
      await startConsole(o.home ?? defaultHome());
    });

  cli
    .command('serve')
    .description('Serve the console over HTTP and WebSocket (loopback by default).')
    .option('--host <host>', 'address to bind; a non-loopback address exposes the console to the network', '127.0.0.1')
    .option('--port <n>', 'port to listen on; 0 picks a free one', String(DEFAULT_PORT))
    .option('--home <dir>', 'data folder')
    .option('--token-file <path>', 'read the operator token from this file ("-": stdin) instead of the one kept in the data folder; or set GATEHOUSE_TOKEN')
    // Declared only to refuse them with a sentence saying what to use: argv is public (/proc/PID/cmdline).
    .addOption(new Option('--token <t>').hideHelp())
    .addOption(new Option('--agent-token <t>').hideHelp())
    .option('--new-token', 'generate a new operator token, invalidating the old one')
    .option('--plugins-dir <dir>', 'another plugin folder to search (repeatable; later ones override earlier)', (v: string, p: string[] = []) => [...p, v])
    .option('--allowed-plugins <names>', 'enable these plugins for this run only, pinned as they are now: a change quarantines them (comma-separated)')
    .option('--agent-token-file <path>', 'read the token agents use for /mcp and the hook route from this file ("-": stdin); or set GATEHOUSE_AGENT_TOKEN (default: generated once and kept in the data folder)')
    .option('--live', 'execute allowed calls for this run (new installs start in dry-run: evaluate and show, never execute)')
    .option('--autonomy <level>', `autonomy for this run: ${AUTONOMY_LEVELS.join(', ')}`)
    .option('--allow-plugin-load', 'let consoles and scripts load terminal adapters at run time (plugin.load / plugin.unload)')
    .option('--team <url>', `ship this host's audit events to the team database (postgres://USER@HOST/DB, no password: that goes in ${TEAM_URL_ENV}, PGPASSFILE or ~/.pgpass); or set ${TEAM_URL_ENV}`)
    .option('--team-member <name>', `this machine's name in the team (default: $${TEAM_MEMBER_ENV} or the host name)`)
    .addHelpText('after', examplesHelp([
      'gatehouse serve --port 0 --home /tmp/gh --plugins-dir ./examples/plugins',
      'gatehouse serve --live --autonomy read-only',
      ['a token of your own, from a file only you can read', 'gatehouse serve --token-file ~/.secrets/gatehouse-token'],
    ]))
    .action(async (o: { host: string; port: string; home?: string; token?: string; tokenFile?: string; newToken?: boolean; pluginsDir?: string[]; allowedPlugins?: string; agentToken?: string; agentTokenFile?: string; live?: boolean; autonomy?: string; allowPluginLoad?: boolean; team?: string; teamMember?: string }) => {
      const { runServe, tokensFromCli } = await serveModule();
      const tokens = tokensFromCli(o);
      const url = teamUrl(o.team);
      const team = url === null ? null : { url, member: memberName(o.teamMember) };
      // SECURITY: the URL may hold the team database's password; agents, plugins and terminals this
      // host starts inherit its environment and must not find it there.
      delete process.env[TEAM_URL_ENV];
      if (o.autonomy !== undefined && !(AUTONOMY_LEVELS as readonly string[]).includes(o.autonomy)) {
        throw new UsageError(`--autonomy must be one of ${AUTONOMY_LEVELS.join(', ')}, not "${o.autonomy}".`);
      }
      const overrides = {
        ...(o.live ? { mode: 'live' as const } : {}),
        ...(o.autonomy !== undefined ? { autonomy: o.autonomy as (typeof AUTONOMY_LEVELS)[number] } : {}),
      };
      await runServe({
        ...tokens,
        ...(Object.keys(overrides).length ? { settingsOverrides: overrides } : {}),
        home: o.home ?? defaultHome(),
        host: o.host,
        port: parsePort(o.port),
        newToken: o.newToken ?? false,
        pluginDirs: (o.pluginsDir ?? []).map((d) => resolve(d)),
        allowedPlugins: o.allowedPlugins ? o.allowedPlugins.split(',').map((s) => s.trim()).filter(Boolean) : [],
        ...(o.allowPluginLoad ? { allowPluginLoad: true } : {}),
        ...(team ? { team } : {}),
      });
    });

  addPluginCommands(cli);
  addCatalogCommands(cli);
  addAdapterCommands(cli);
  addDoctorCommand(cli);
  addAgentCommands(cli);
  addApprovalCommands(cli);
  addPolicyCommands(cli);
  addConsoleUrlCommand(cli);
  addTeamCommands(cli);
  addOperatorCommands(cli);

  const audit = cli
    .command('audit')
    .description('Audit log commands: search, export, verify, recover.')
    .addHelpText('after', examplesHelp([
      ['is the log intact?', 'gatehouse audit verify'],
      ['events mentioning both rm and tmp, from the last two hours', 'gatehouse audit search "rm AND tmp" --since 2h'],
      ['hand a week of events to someone else', 'gatehouse audit export --since 7d > incident.jsonl'],
    ]));
  addAuditQueryCommands(audit);
  addAuditRecoverCommand(audit);
  audit
    .command('verify')
    .description('Check the hash chain; exit 0 when intact, 1 naming the first bad row, 130 when cancelled (Ctrl-C; progress is on stderr).')
    .option('--home <dir>', 'data folder')
    .option('--team', `check every member's chain in the team database instead (URL: --team-url or $${TEAM_URL_ENV}), naming gaps, forks and members that stopped shipping`)
    .option('--team-url <url>', 'the team database (no password in it; see gatehouse team --help)')
    .option('--member <name>', 'with --team: only this member')
    .option('--stale <age>', 'with --team: a member not seen for this long has stopped shipping', '10m')
    .addHelpText('after', examplesHelp(['gatehouse audit verify --home ~/.config/gatehouse', `${TEAM_URL_ENV}=postgres://… gatehouse audit verify --team`]))
    .action(async (o: { home?: string; team?: boolean; teamUrl?: string; member?: string; stale: string }) => {
      if (o.team || o.teamUrl !== undefined) return verifyTeamCommand(o);
      const path = homePaths(o.home ?? defaultHome()).auditDb;
      const [{ verifyDatabaseChunked, openForVerify, readCheckpoint }, { checkHeadFile }] = await Promise.all([auditStore(), auditHead()]);
      if (!existsSync(path)) {
        // A log deleted since a host last wrote it: the head file beside it remembers.
        const gap = checkHeadFile(path, null);
        if (!gap) throw new UsageError(`No audit log at ${path}. Pass the data folder with --home DIR.`);
        console.log(`Audit history missing: ${gap}`);
        process.exitCode = 1;
        return;
      }
      const db = openForVerify(path);
      try {
        // A long chain shows how far it is on stderr; Ctrl-C stops it (exit 130).
        const r = await runCliJob({ kind: 'audit.verify', title: 'Verifying the audit chain', unit: 'events' }, (job) => verifyDatabaseChunked(db, job));
        // Retention pruned the rows before the checkpoint; the chain is verified from there.
        const cp = readCheckpoint(db);
        const from = cp ? ` Verified from the retention checkpoint at row ${cp.seq} (${displayText(cp.hash.slice(0, 16))}…); older rows were pruned.` : '';
        // An intact chain can still be a log older than, or other than, the one Gatehouse wrote.
        const gap = r.ok ? checkHeadFile(path, db) : null;
        if (gap) {
          console.log(`Audit history missing: ${gap}`);
          process.exitCode = 1;
        } else if (r.ok) {
          console.log(`Audit chain intact: ${r.checked} events, head row ${r.head.seq} (${r.head.hash.slice(0, 16)}…); the search index matches them.${from}`);
        } else if (r.index && r.index.total > 0) {
          // The chain held but the index beside it (facets, search text) was edited: every difference is named.
          console.log(`Audit search index altered: ${r.index.total} ${r.index.total === 1 ? 'difference' : 'differences'} from the ${r.checked} chained events (which are intact).${from}`);
          for (const m of r.index.mismatches) console.log(`  ${m.field}: ${displayText(m.reason)}`);
          if (r.index.total > r.index.mismatches.length) console.log(`  … and ${r.index.total - r.index.mismatches.length} more.`);
          process.exitCode = 1;
        } else {
          // The reason quotes hashes as stored in the file (a prev_hash, the checkpoint's), which whoever
          // edited it chose: escaped, so its escape codes cannot erase or hide this verdict.
          console.log(`Audit chain broken at row ${r.firstBad!.seq}: ${displayText(r.firstBad!.reason)}. ${r.checked} rows before it verified.${from}`);
          process.exitCode = 1;
        }
      } finally {
        db.close();
      }
    });

  // Only the root takes extra operands (to report them as an unknown command, above). Set last:
  // subcommands copy this setting when created, and theirs must stay strict.
  cli.allowExcessArguments(true);
  return cli;
}

async function startConsole(home: string): Promise<void> {
  const electron = findElectronBinary();
  if (!electron.found) {
    const { runServe } = await serveModule();
    const banner = `The Electron binary is not installed (${electron.reason}), so Gatehouse is serving the console to your browser instead; open the URL below.`;
    try {
      await runServe({ home, host: '127.0.0.1', port: DEFAULT_PORT, banner });
    } catch (err) {
      // The usual port is taken (another program, or another Gatehouse with its own home):
      // any free port will do for a console opened from the printed URL.
      if (!/is in use/.test((err as Error).message)) throw err;
      await runServe({ home, host: '127.0.0.1', port: 0, banner: `${banner} (Port ${DEFAULT_PORT} is in use, so another port was picked.)` });
    }
    return;
  }
  if (!existsSync(electronNativeBinding)) {
    // The tests use better-sqlite3 built for Node; Electron needs its own ABI, built apart.
    console.log('Building the SQLite addon for Electron (once)…');
    const r = spawnSync(process.execPath, [join(packageRoot, 'scripts', 'build-electron-native.mjs')], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('Could not build better-sqlite3 for Electron; see the output above. Run `gatehouse serve` to use the browser console meanwhile.');
  }
  const child = spawn(electron.path, [packageRoot], { stdio: 'inherit', env: { ...process.env, GATEHOUSE_HOME: home } });
  child.on('exit', (code) => process.exit(code ?? 0));
}

