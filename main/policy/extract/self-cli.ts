// Gatehouse's own command line, as a program an agent's command may start (issue #24).
//
// The CLI finds the default data folder and its operator token by itself, so `gatehouse url` or
// `npx gatehouse approvals approve ID` names no protected path, yet it acts with operator rights:
// a one-time console link, approving the agent's own calls, changing autonomy. The shell judge
// therefore records every program a command starts (Extraction.programs: command words,
// interpreter scripts, and here the packages a runner fetches), and the locked rule
// builtin.gatehouse-cli (rules/builtin.ts) denies those that are Gatehouse: by name anywhere
// (isGatehouseProgram), and by this installation's own files whatever they are called.
// Security-sensitive: a way of starting a program that records nothing runs the CLI unseen.
// It also says when a command may stop Gatehouse's host (signalsGatehouse): with Claude Code's HTTP
// hook a stopped host means unsupervised calls, so such a command is unsure.

/** `gatehouse`, and its entry file (`node …/bin/gatehouse.js`), in any letter case. */
const SELF_NAME = /^gatehouse(\.[cm]?[jt]s)?$/i;

/** Is this program (a name, or a path whose last part is checked) Gatehouse's command line by its name? */
export function isGatehouseProgram(program: string): boolean {
  return SELF_NAME.test(program.slice(program.lastIndexOf('/') + 1));
}

/** Runners that fetch a package and start its command: `npx gatehouse@latest url`. */
const RUNNERS = new Set(['npx', 'pnpx', 'bunx']);
/** Package managers that run a package's command by name: `yarn gatehouse`, `pnpm exec -p gatehouse …`. */
const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Their options that take the next word as a value (the value of `-p`/`--package` is a package). */
const VALUE_OPTS = new Set(['-p', '--package', '-c', '--call', '-w', '--workspace', '--filter', '--shell', '--cache', '--userconfig', '--prefix', '--cwd', '-C', '--dir']);

/**
 * The command a package spec starts: `gatehouse@1.2` and `@acme/gatehouse@next` start
 * `gatehouse`; a spec that is a path (`./bin/gatehouse.js`) is that path.
 */
export function packageCommand(spec: string): string {
  // `npx file:/opt/gatehouse url` installs the folder as a package: the folder, like a path spec.
  if (/^file:/i.test(spec)) return spec.slice(5).replace(/^\/\/(?=\/)/, '') || '.';
  if (/^[./~]/.test(spec)) return spec;
  const at = spec.indexOf('@', 1);
  const name = at > 0 ? spec.slice(0, at) : spec;
  return name.slice(name.lastIndexOf('/') + 1);
}

/**
 * The programs a package runner or manager starts by a package's name, beside its command word:
 * `npx [-y] NAME`, `npm exec NAME`, `pnpm dlx NAME`, `--package NAME`, and a manager's first word
 * (`yarn NAME` runs the bin or script NAME). `npx -c CMD` is judged as the command it runs by the
 * shell judge itself. Unknown words (`npx $PKG`) are the judge's evasive case already.
 */
export function packagePrograms(name: string, words: readonly (string | null)[]): string[] {
  // `node --run serve` and `deno task serve` run a script of the nearest package.json.
  if (name === 'node' || name === 'nodejs') return words.some((w) => w === '--run' || w?.startsWith('--run=')) ? [PACKAGE_SCRIPTS] : [];
  if (name === 'deno') return words.find((w) => w !== null && !w.startsWith('-')) === 'task' ? [PACKAGE_SCRIPTS] : [];
  let runner = RUNNERS.has(name);
  if (!runner && !MANAGERS.has(name)) return [];
  const out: string[] = [];
  // A manager runs the scripts of the package in its folder (`npm start`, `yarn serve`, `npm
  // --prefix DIR run x`): in Gatehouse's installation, `npm run serve` starts its command line.
  let folder = '.';
  if (!runner) out.push(PACKAGE_SCRIPTS);
  for (let i = 0; i < words.length; i++) {
    const t = words[i];
    if (t === null || t === undefined) return withFolder(out, folder);
    if (t === '--') continue;
    const eq = t.indexOf('=');
    const opt = t.startsWith('--') && eq > 0 ? t.slice(0, eq) : t;
    if (opt === '-p' || opt === '--package') {
      const v = opt === t ? words[++i] : t.slice(eq + 1);
      if (v) out.push(packageCommand(v));
      continue;
    }
    if (FOLDER_OPTS.has(opt)) {
      const v = opt === t ? words[++i] : t.slice(eq + 1);
      if (v === null || v === undefined) return withFolder(out, folder);
      folder = v;
      continue;
    }
    if (t.startsWith('-')) {
      if (opt === t && VALUE_OPTS.has(t)) i++;
      continue;
    }
    // The first word: the package (a runner), or the manager's command or script; after
    // `exec`/`x`/`dlx`/`run` the next word is what a manager starts.
    if (runner) {
      const started = packageCommand(t);
      out.push(started);
      // `npx node FILE`, `yarn node FILE`: the interpreter runs the script it is given.
      if (SCRIPT_RUNNERS.has(started)) {
        const script = words.slice(i + 1).find((w) => w === null || !w.startsWith('-'));
        if (script) out.push(script.includes('/') ? script : `./${script}`);
      }
      return withFolder(out, folder);
    }
    if (SCRIPT_RUNNERS.has(t)) {
      runner = true;
      i--;
      continue;
    }
    out.push(t);
    if (t !== 'exec' && t !== 'x' && t !== 'dlx' && t !== 'run') return withFolder(out, folder);
    runner = true;
  }
  return withFolder(out, folder);
}

/**
 * What a call that runs package.json scripts starts: the file, relative to where the scripts run
 * (the rule matches it when it is, or lies under, the installation's root: rules/compile.ts).
 */
export const PACKAGE_SCRIPTS = './package.json';
/** A manager's options naming the folder whose package.json it runs. */
const FOLDER_OPTS = new Set(['--prefix', '-C', '--dir', '--cwd']);
/** Interpreters a runner or manager may start with a script (`yarn node FILE`, `npx tsx FILE`). */
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun', 'deno', 'tsx', 'ts-node']);

function withFolder(out: string[], folder: string): string[] {
  if (folder === '.') return out;
  const base = folder.replace(/\/+$/, '') || '/';
  return out.map((p) => (p === PACKAGE_SCRIPTS ? `${base === '/' ? '' : base}/package.json` : p));
}

/** Is this recorded program the package.json whose scripts a call runs (PACKAGE_SCRIPTS, made absolute)? */
export function isPackageScripts(program: string): boolean {
  return program.endsWith('/package.json');
}

/**
 * Does this word of a program the judge does not know name Gatehouse's command line, alone
 * (`chronic gatehouse url`) or as a command in shell code it is given (`tmux new -d 'gatehouse
 * url'`, `screen -dm sh -c 'gatehouse url'`)?
 */
export function mentionsGatehouse(word: string): boolean {
  if (isGatehouseProgram(word)) return true;
  if (!/gatehouse/i.test(word)) return false;
  return word.split(/[\s;&|()<>`'"=]+/).some((w) => w !== '' && isGatehouseProgram(w));
}

/**
 * What Gatehouse's host looks like to a program that picks processes by name or command line:
 * its node process running the entry or the bundle, or the desktop app. A pattern matching one of
 * these may stop the host; with Claude Code's HTTP hook a stopped host means unsupervised calls.
 */
const HOST_LINES = [
  'gatehouse', 'Gatehouse', 'node', 'nodejs', 'electron',
  'node /usr/lib/node_modules/gatehouse/bin/gatehouse.js serve --port 7411',
  '/usr/bin/node /opt/gatehouse/out/main/cli.js serve',
  '/opt/Gatehouse/gatehouse --no-sandbox',
];

/** Does a pkill/killall pattern (an extended regular expression, matched anywhere) match the host? */
function matchesHost(pattern: string): boolean {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'i');
  } catch {
    return HOST_LINES.some((l) => l.toLowerCase().includes(pattern.toLowerCase()));
  }
  return HOST_LINES.some((l) => re.test(l));
}

/** Options of pkill/pgrep/killall/skill that take the next word as a value (not a pattern). */
const SIGNAL_VALUE_OPTS = new Set(['-s', '-n', '--signal', '-g', '-G', '-P', '-t', '-u', '-U', '-F', '--pidfile', '--ns', '--nslist', '--session', '--terminal', '--euid', '--uid', '--group', '--pgroup', '--parent', '--user', '-o', '--older-than', '-y', '--younger-than', '-c', '--context']);
/** systemctl/service/launchctl verbs that stop or unload a unit. */
const STOP_VERBS = /^(stop|kill|disable|mask|freeze|restart|try-restart|reload-or-restart|condrestart|force-reload|unload|bootout|remove|clean)$/;

/**
 * Why a command that sends signals may stop Gatehouse's host (and so its supervision), or null:
 * `pkill -f 'gatehouse serve'`, `killall node`, `kill $(pgrep -f gatehouse)`, `kill -9 -1`, `fuser
 * -k PORT/tcp`, `systemctl --user stop gatehouse`. A pid chosen at run time may be the host's; a
 * literal pid (`kill 4242`, `kill %1`) is not judged: the judge does not know which is the host's.
 */
export function signalsGatehouse(name: string, args: readonly { t: string; known: boolean }[]): string | null {
  if (name === 'kill') {
    let i = 0;
    const first = args[0];
    if (first?.known && /^-[lL]$|^--(list|table)$/.test(first.t)) return null;
    // `-s SIG`, `-n NUM`, or one `-SIG` (`-9`, `-KILL`) first; then `--`; the rest are pids.
    if (first?.known && (first.t === '-s' || first.t === '-n')) i = 2;
    else if (first?.known && first.t.startsWith('-') && first.t !== '--') i = 1;
    if (args[i]?.known && args[i]?.t === '--') i++;
    for (const a of args.slice(i)) {
      if (!a.known && a.t !== '$!') return 'kill signals a process chosen at run time, which may be Gatehouse\'s host (stopping it ends supervision)';
      if (a.known && a.t === '-1') return 'kill -1 signals every process of the user, Gatehouse\'s host among them';
    }
    return null;
  }
  if (name === 'pkill' || name === 'killall' || name === 'skill' || name === 'killall5') {
    if (name === 'killall5') return 'killall5 signals every process, Gatehouse\'s host among them';
    const patterns: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i] as { t: string; known: boolean };
      if (!a.known) return `${name} signals processes chosen at run time, which may be Gatehouse's host`;
      if (a.t === '--') continue;
      if (a.t.startsWith('-')) {
        if (SIGNAL_VALUE_OPTS.has(a.t)) i++;
        continue;
      }
      patterns.push(a.t);
    }
    if (patterns.length === 0) return `${name} without a name signals every process it selects, Gatehouse's host among them`;
    const hit = patterns.find(matchesHost);
    return hit === undefined ? null : `${name} ${hit} may stop Gatehouse's host (stopping it ends supervision)`;
  }
  if (name === 'fuser') {
    return args.some((a) => a.known && /^-[a-zA-Z]*k/.test(a.t)) ? 'fuser -k signals whatever process uses the file or port, which may be Gatehouse\'s host' : null;
  }
  if (name === 'systemctl' || name === 'service' || name === 'launchctl') {
    const verb = args.some((a) => a.known && STOP_VERBS.test(a.t));
    const unit = args.find((a) => a.known && /gatehouse/i.test(a.t));
    return verb && unit ? `${name} may stop Gatehouse's own service (${unit.t})` : null;
  }
  return null;
}
