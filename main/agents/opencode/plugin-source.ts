// The opencode plugin Gatehouse writes (~/.config/opencode/plugins/gatehouse.js, or a project's
// .opencode/plugins/gatehouse.js; opencode loads every .js there). opencode has no command hooks,
// so the plugin hands each call to the same `gatehouse hook --agent opencode` command as the
// other agents' hooks use (one implementation of the deadline, tokens and "host down") and throws
// what it answers when it is not "allow" or "none"; opencode gives the model the message.
//
// Security-sensitive, as opencode 1.18 runs plugins (its binary: Plugin.trigger, the plugin
// loader):
// - a plugin file that fails to load is logged and skipped, and every tool then runs: the text
//   is plain JavaScript with Node's child_process only (Bun has it), nothing to install;
// - a hook that throws blocks the call, so every failure (the command missing, killed, a non-zero
//   exit, output that is not the answer) throws;
// - opencode puts no timeout on a hook: the plugin kills the command at its own deadline and throws;
// - every export of the module is called as a plugin: there is exactly one.
import { shellQuote, type HookLauncher } from '../../../shared/claude-config.js';

export const OPENCODE_PLUGIN_FILE = 'gatehouse.js';
/** The first line of the plugin: how verify() and the console recognise Gatehouse's file. */
export const OPENCODE_PLUGIN_MARK = '// Gatehouse opencode plugin';

export interface OpencodePluginOptions {
  launcher: HookLauncher | null;
  home: string | null;
  /** The command's --timeout (seconds): how long it waits for the host. */
  commandTimeoutS: number;
  /** How long the plugin waits for the command before it kills it and blocks the call (ms). */
  pluginTimeoutMs: number;
  /** How long it waits for the report of what ran (ms). */
  reportTimeoutMs: number;
}

/** The command line the plugin starts, as an argv (no shell). */
export function opencodeHookArgv(o: Pick<OpencodePluginOptions, 'launcher' | 'home' | 'commandTimeoutS'>): string[] {
  const start = o.launcher ? [o.launcher.node, o.launcher.entry] : ['gatehouse'];
  return [...start, 'hook', '--agent', 'opencode', ...(o.home ? ['--home', o.home] : []), '--timeout', String(o.commandTimeoutS)];
}

/** The plugin's text: the same bytes for the same options (verify() compares them exactly). */
export function opencodePluginSource(o: OpencodePluginOptions): string {
  const argv = opencodeHookArgv(o);
  return `${OPENCODE_PLUGIN_MARK}, written by Gatehouse's "write it for me". Do not edit: writing it again replaces it.
// Before each tool call it runs: ${argv.map(shellQuote).join(' ')}
// and blocks the call (by throwing) unless that answers "allow" or "none". After the call it reports what ran.
import { spawn } from "node:child_process";

const COMMAND = ${JSON.stringify(argv)};
const ENV = ${JSON.stringify(o.launcher?.env ?? {})};
const TIMEOUT_MS = ${o.pluginTimeoutMs};
const REPORT_TIMEOUT_MS = ${o.reportTimeoutMs};

function run(event, timeoutMs) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { env: { ...process.env, ...ENV }, stdio: ["pipe", "pipe", "pipe"] });
    } catch (err) {
      resolve({ failed: "could not start (" + (err && err.message) + ")" });
      return;
    }
    let out = "";
    let err = "";
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ failed: "did not answer within " + Math.round(timeoutMs / 1000) + " s" });
    }, timeoutMs);
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => finish({ failed: "could not run (" + e.message + "; is node or gatehouse missing?)" }));
    child.on("close", (code) => finish({ code, out, err }));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

function answerOf(r) {
  if (r.failed) return { blocked: "Gatehouse: the hook command " + r.failed + "; this call is blocked." };
  let a = null;
  try {
    a = JSON.parse(r.out);
  } catch {
    a = null;
  }
  if (r.code === 0 && a && (a.decision === "allow" || a.decision === "none")) return { args: a.args && typeof a.args === "object" ? a.args : null };
  if (a && a.decision === "deny" && typeof a.reason === "string" && a.reason) return { blocked: a.reason };
  const said = (r.err || r.out || "").trim().slice(-500);
  return { blocked: "Gatehouse: the hook command failed (exit " + r.code + (said ? ": " + said : "") + "); this call is blocked." };
}

export const GatehousePlugin = async (ctx) => {
  const directory = (ctx && (ctx.directory || ctx.worktree)) || process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      const r = await run({ event: "before", tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: output.args, directory }, TIMEOUT_MS);
      const a = answerOf(r);
      if (a.blocked) throw new Error(a.blocked);
      if (a.args) Object.assign(output.args, a.args);
    },
    "tool.execute.after": async (input, output) => {
      const result = output ? { title: output.title, output: typeof output.output === "string" ? output.output.slice(0, 65536) : output.output } : null;
      await run({ event: "after", tool: input.tool, sessionID: input.sessionID, callID: input.callID, args: input.args, directory, output: result }, REPORT_TIMEOUT_MS);
    },
  };
};
`;
}
