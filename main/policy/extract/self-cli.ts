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
  let runner = RUNNERS.has(name);
  if (!runner && !MANAGERS.has(name)) return [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const t = words[i];
    if (t === null || t === undefined) return out;
    if (t === '--') continue;
    const eq = t.indexOf('=');
    const opt = t.startsWith('--') && eq > 0 ? t.slice(0, eq) : t;
    if (opt === '-p' || opt === '--package') {
      const v = opt === t ? words[++i] : t.slice(eq + 1);
      if (v) out.push(packageCommand(v));
      continue;
    }
    if (t.startsWith('-')) {
      if (opt === t && VALUE_OPTS.has(t)) i++;
      continue;
    }
    // The first word: the package (a runner), or the manager's command or script; after
    // `exec`/`x`/`dlx`/`run` the next word is what a manager starts.
    if (runner) {
      out.push(packageCommand(t));
      return out;
    }
    out.push(t);
    if (t !== 'exec' && t !== 'x' && t !== 'dlx' && t !== 'run') return out;
    runner = true;
  }
  return out;
}
