// What a home remembers about its first run (GATEHOUSE_HOME/first-run.json): whether the example
// plugins were copied in, and how far the operator got with the Getting Started panel. None of
// it is security state: a lost or unreadable file only means the panel and the offer of the
// examples come back (names already in the plugins folder are never overwritten).
import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const state = z.object({
  version: z.literal(1),
  /** Set once the examples were offered to this home, so deleting them does not bring them back. */
  examples: z.object({ at: z.number(), from: z.string(), copied: z.array(z.string()) }).nullable().default(null),
  dismissedAt: z.number().nullable().default(null),
  /** The first time every step was done; the panel no longer opens on its own after it. */
  completedAt: z.number().nullable().default(null),
  /** The operator said an agent is connected (or skipped the step) without one having called yet. */
  agentSkippedAt: z.number().nullable().default(null),
  /** The first agent call seen in the audit log (kept, so retention cannot undo the step). */
  agentSeen: z.object({ agent: z.string(), source: z.string(), at: z.number() }).nullable().default(null),
  /** The latest test call sent from the console. */
  testCall: z.object({ call: z.string(), session: z.string(), tool: z.string(), agent: z.string(), operator: z.string(), sentAt: z.number() }).nullable().default(null),
});
export type FirstRunState = z.output<typeof state>;

const fresh = (): FirstRunState => ({ version: 1, examples: null, dismissedAt: null, completedAt: null, agentSkippedAt: null, agentSeen: null, testCall: null });

/**
 * The examples a first run copies into the home. fs-mcp is not one of them: its run.sh starts the
 * filesystem server from Gatehouse's own node_modules by a path relative to examples/plugins,
 * which a copy would break (`gatehouse serve --plugins-dir examples/plugins` shows it instead).
 */
export const FIRST_RUN_EXAMPLES = ['hello', 'path-guard', 'rate-limit'] as const;

export class FirstRunFile {
  private current: FirstRunState;
  /** Why the file could not be read, once (the host logs it). */
  readonly error: string | null = null;

  constructor(private readonly file: string) {
    this.current = fresh();
    if (!existsSync(file)) return;
    try {
      const parsed = state.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (parsed.success) this.current = parsed.data;
      else this.error = `${file} is not a valid first-run file (${parsed.error.issues[0]?.message ?? 'unknown shape'}); starting it over.`;
    } catch (err) {
      this.error = `${file} could not be read (${(err as Error).message}); starting it over.`;
    }
  }

  get(): Readonly<FirstRunState> {
    return this.current;
  }

  update(patch: Partial<Omit<FirstRunState, 'version'>>): Readonly<FirstRunState> {
    this.current = { ...this.current, ...patch };
    const tmp = `${this.file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(this.current, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
    return this.current;
  }
}

/**
 * The first time a console host starts on a home, the bundled examples are copied into
 * home/plugins, where discovery finds them disabled. Copied rather than searched in place: a
 * packaged app's resources folder can move between runs (an AppImage mounts at a new path each
 * time), and an enabled plugin pinned to a folder that moved is quarantined; a copy in the home
 * stays where it was pinned, survives app updates unchanged, and can be edited in the Plugins
 * view like the operator's own plugins. A folder already in home/plugins is left alone.
 * Returns the names copied, or null when there was nothing to offer (no examples folder, or this
 * home was offered them before).
 */
export function offerExamples(file: FirstRunFile, examplesDir: string, pluginsDir: string, now: number): string[] | null {
  if (file.get().examples || !existsSync(examplesDir)) return null;
  const copied: string[] = [];
  for (const name of FIRST_RUN_EXAMPLES) {
    const from = join(examplesDir, name);
    const to = join(pluginsDir, name);
    if (!existsSync(from) || existsSync(to)) continue;
    cpSync(from, to, { recursive: true, errorOnExist: true, force: false });
    copied.push(name);
  }
  file.update({ examples: { at: now, from: examplesDir, copied } });
  return copied;
}
