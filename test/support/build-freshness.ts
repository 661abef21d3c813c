// Whether the built output the tests run (the CLI as a child process, the preload bundle, the
// renderer's index.html) is older than the sources it is built from. A test of the built CLI
// that runs last hour's bundle passes or fails for the wrong reason, so test/global-setup.ts
// rebuilds a target when it is missing or stale. Only mtimes are compared (a stat walk of the
// source folders), which costs milliseconds; a content hash would cost a read of every file.
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** One entry of scripts/build-entries.json: a build job, the file it writes, and how the desktop package ships it. */
export interface BuildEntry {
  job: string;
  out: string;
  /** "asar": loaded by the Electron shell; "unpacked": run by a real Node beside the asar; null: not shipped. */
  shell: 'asar' | 'unpacked' | null;
  also?: string[];
}

/** The one list scripts/build.mjs builds from and electron-builder.yml is checked against. */
export const BUILD_ENTRIES: readonly BuildEntry[] = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'scripts', 'build-entries.json'), 'utf8')) as { entries: BuildEntry[] }).entries;

const outputsOf = (jobs: readonly string[]) =>
  jobs.map((job) => {
    const e = BUILD_ENTRIES.find((x) => x.job === job);
    if (!e) throw new Error(`scripts/build-entries.json has no entry for the build job ${job}`);
    return e.out;
  });

export interface BuildTarget {
  /** scripts/build.mjs jobs that write `outputs`, built together with `--only=`. */
  jobs: readonly string[];
  /** Files under the repository root; the oldest of them is what the sources are compared with. */
  outputs: readonly string[];
  /** Files and folders under the repository root; folders are walked. */
  sources: readonly string[];
}

export interface BuildDecision {
  jobs: readonly string[];
  state: 'fresh' | 'missing' | 'stale';
  /** Why, in a sentence naming the files ("main/cli/run.ts is newer than out/main/cli.js"). */
  reason: string;
}

const NODE_SIDE = ['main', 'shared', 'bin', 'scripts/build.mjs', 'scripts/build-entries.json'];

/** What the tests run as built output, and what each is built from. */
export const BUILD_TARGETS: readonly BuildTarget[] = [
  {
    // The CLI and everything it starts from out/main: the hook fast path, the extraction and
    // WebAssembly workers, the WebAssembly host process, the module plugins' child, the Lua worker;
    // and the Electron main, whose package test/repo/packaging.test.ts checks against the built tree.
    jobs: ['cli', 'hook', 'electron', 'extractWorker', 'auditWriter', 'ptyForkWorker', 'spawner', 'wasmWorker', 'wasmHost', 'moduleChild', 'luaWorker'],
    outputs: outputsOf(['cli', 'hook', 'electron', 'extractWorker', 'auditWriter', 'ptyForkWorker', 'spawner', 'wasmWorker', 'wasmHost', 'moduleChild', 'luaWorker']),
    sources: NODE_SIDE,
  },
  { jobs: ['preload'], outputs: outputsOf(['preload']), sources: ['preload', 'shared', 'scripts/build.mjs', 'scripts/build-entries.json'] },
  { jobs: ['renderer'], outputs: ['out/renderer/index.html'], sources: ['renderer', 'shared', 'vite.config.ts', 'scripts/build.mjs'] },
];

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** The most recently modified file at or under `path` (null when there is none). */
function newestFile(path: string, rel: string): { rel: string; mtimeMs: number } | null {
  const st = statOrNull(path);
  if (!st) return null;
  if (!st.isDirectory()) return { rel, mtimeMs: st.mtimeMs };
  let newest: { rel: string; mtimeMs: number } | null = null;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    // Installed packages and dot folders (caches) are not our sources.
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const found = newestFile(join(path, entry.name), `${rel}/${entry.name}`);
    if (found && (!newest || found.mtimeMs > newest.mtimeMs)) newest = found;
  }
  return newest;
}

/** For each target: fresh, missing (an output does not exist) or stale (a source is newer). */
export function decideBuild(root: string, targets: readonly BuildTarget[] = BUILD_TARGETS): BuildDecision[] {
  const newestOf = new Map<string, { rel: string; mtimeMs: number } | null>();
  const newest = (rel: string) => {
    if (!newestOf.has(rel)) newestOf.set(rel, newestFile(join(root, rel), rel));
    return newestOf.get(rel) ?? null;
  };
  return targets.map((t) => {
    let oldest: { rel: string; mtimeMs: number } | null = null;
    for (const rel of t.outputs) {
      const st = statOrNull(join(root, rel));
      if (!st) return { jobs: t.jobs, state: 'missing', reason: `${rel} does not exist` };
      if (!oldest || st.mtimeMs < oldest.mtimeMs) oldest = { rel, mtimeMs: st.mtimeMs };
    }
    let source: { rel: string; mtimeMs: number } | null = null;
    for (const rel of t.sources) {
      const s = newest(rel);
      if (s && (!source || s.mtimeMs > source.mtimeMs)) source = s;
    }
    if (oldest && source && source.mtimeMs > oldest.mtimeMs) return { jobs: t.jobs, state: 'stale', reason: `${source.rel} is newer than ${oldest.rel}` };
    return { jobs: t.jobs, state: 'fresh', reason: oldest ? `${oldest.rel} is newer than every source` : 'nothing to build' };
  });
}
