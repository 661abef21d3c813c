// Containment: which let-through Bash commands run in the box (box.ts), and the command line
// that does it. The judge decides what may run; the box decides what a running command can
// reach. A call is contained when nobody read it before it ran — allowed by autonomy at a level
// the `containment` setting names, or by a grant or an allow rule ("grants") — and it is a
// command the agent runs itself (Claude Code's Bash, through its PreToolUse hook, which answers
// with the boxed command as `updatedInput`). The MCP `shell` tool needs none of this: it always
// runs in the runner's own, narrower sandbox (sandbox-plan.ts).
//
// Where the box cannot be built (no bubblewrap, user namespaces off) the call is not held back:
// it runs uncontained, the audit says so with the reason, and the console and `doctor` say that
// containment is off.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DEFAULT_CONTAINMENT, type ContainWhen } from '../../shared/contract.js';
import { installedCliFiles, installedCodeFiles } from '../core/install-files.js';
import { builtinRules } from '../policy/rules/builtin.js';
import { defaultCaseInsensitive } from '../policy/rules/paths.js';
import type { Decider, ToolCall } from '../policy/types.js';
import { boxedCommandLine, boxPlan, installBoxCheck, tryBox, type BoxPlan, type BoxProgram } from './box.js';
import { boxFolder } from './box-journal.js';
import { installScope, type ScopeResult } from './box-scope.js';
import { detectSandbox, type SandboxDetection } from './sandbox.js';

/** Claude Code's shell tool: the one whose input is a command line the box can wrap. */
export const CONTAINED_TOOLS = new Set(['Bash']);

export type BoxKind = 'bwrap' | 'seatbelt';

export interface ContainmentStatus {
  /** A box can be built here. */
  available: boolean;
  box: BoxKind | null;
  /** One sentence: what boxes the commands, or why nothing does. */
  detail: string;
  /** When a let-through command is contained (the setting). */
  when: ContainWhen[];
  /** bubblewrap only: whether sockets in the abstract namespace are out of the box's reach (Landlock). */
  scoped?: boolean;
}

/** What the pipeline records and the hook answers with. */
export type ContainVerdict =
  | { contained: true; box: BoxKind; input: Record<string, unknown>; command: string; plan: BoxPlan }
  | { contained: false; reason: string };

export interface ContainmentDeps {
  home: string;
  gatehouseHome: string;
  pluginDirs: () => readonly string[];
  /** The `containment` setting (absent: full and grants). */
  when: () => readonly ContainWhen[] | undefined;
  /** The host's sandbox detection (default detectSandbox()). */
  detect?: () => SandboxDetection;
  platform?: NodeJS.Platform;
  /** The Landlock scope program (default installScope into the data folder). */
  scope?: (dir: string) => Promise<ScopeResult>;
  /** Milliseconds, for how long a folder's box is reused (default Date.now). */
  now?: () => number;
}

/**
 * How long the box of one folder is reused: an agent's commands come in bursts from one folder,
 * and building the box walks the project. A secret file created since is masked from the next one.
 */
export const BOX_REUSE_MS = 2_000;

const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

type Box = (BoxProgram & { unscoped?: string }) | { kind: null; reason: string };

export class Containment {
  private boxValue: Box | null = null;
  private probing: Promise<Box> | null = null;

  constructor(private readonly deps: ContainmentDeps) {}

  /**
   * Which box this machine has, found out once with a real box and kept; for bubblewrap, with its
   * Landlock scope or why there is none. Off the event loop: two trial boxes and, the first time
   * in a data folder, the scope helper's build with the C compiler (a quarter of a second to a
   * second) held the host's loop when this ran synchronously, and nothing else was answered. A probe that throws (the data folder cannot be written)
   * is not kept: the call that asked fails (a deny) and the next one tries again.
   */
  ready(): Promise<Box> {
    if (this.boxValue) return Promise.resolve(this.boxValue);
    this.probing ??= this.probe().then(
      (b) => (this.boxValue = b),
      (err: unknown) => {
        this.probing = null;
        throw err;
      },
    );
    return this.probing;
  }

  private async probe(): Promise<Box> {
    const platform = this.deps.platform ?? process.platform;
    if (platform === 'darwin') return existsSync(SANDBOX_EXEC) ? { kind: 'seatbelt', path: SANDBOX_EXEC } : { kind: null, reason: `${SANDBOX_EXEC} is missing` };
    const d = (this.deps.detect ?? (() => detectSandbox()))();
    if (d.kind !== 'bwrap') return { kind: null, reason: d.reason };
    // bwrap may build a plugin's narrow sandbox and still refuse this one (a read-only bind of
    // /): the box itself is tried, once, on a folder with nothing in it.
    const empty = boxPlan({ home: this.deps.home, rules: [], tmpDirs: [] }, tmpdir());
    const t = await tryBox(d.path, empty);
    if (!t.ok) return { kind: null, reason: `bubblewrap ${d.version} cannot build the box here (${t.reason})` };
    // Abstract-namespace sockets scoped where Landlock can (box-scope.ts); the box still runs where it cannot.
    const scope = await (this.deps.scope ?? ((dir) => installScope(dir)))(boxFolder(this.deps.gatehouseHome));
    const scoped = scope.ok ? await tryBox(d.path, empty, scope.path) : scope;
    return scope.ok && scoped.ok ? { kind: 'bwrap', path: d.path, scope: scope.path } : { kind: 'bwrap', path: d.path, unscoped: 'reason' in scoped ? scoped.reason : '' };
  }

  when(): ContainWhen[] {
    return [...(this.deps.when() ?? DEFAULT_CONTAINMENT)];
  }

  /** What containment does here; undefined until ready() has found out (asking starts it). */
  status(): ContainmentStatus | undefined {
    const b = this.boxValue;
    if (!b) {
      void this.ready().catch(() => undefined);
      return undefined;
    }
    const when = this.when();
    if (b.kind === null) return { available: false, box: null, detail: `Containment is off: ${b.reason}. Bash commands Gatehouse lets through run with everything your account can reach.`, when };
    const what = b.kind === 'bwrap' ? `bubblewrap (${b.path})` : 'Seatbelt (sandbox-exec)';
    const scope = when.length ? `commands allowed by ${when.map((w) => (w === 'grants' ? 'a grant or an allow rule' : `${w} autonomy`)).join(', ')}` : 'no commands (the setting names none)';
    const sockets =
      b.kind !== 'bwrap' ? '' : b.scope ? ' Landlock keeps it from sockets in the abstract namespace (an X server, a session bus).' : ` Sockets in the abstract namespace (an X server, a session bus) stay reachable: ${b.unscoped} (Landlock on Linux 6.12 or later, and a C compiler to build its helper once, close this).`;
    return { available: true, box: b.kind, detail: `Containment is on for ${scope}: ${what} hides credentials and Gatehouse's data folder and keeps everything but the project and temp folders read-only.${sockets}`, scoped: b.kind === 'bwrap' ? !!b.scope : undefined, when };
  }

  /**
   * Whether a decider's allow is one nobody read: autonomy at a contained level, or a grant or
   * allow rule — unless the operator made that grant uncontained.
   */
  applies(decider: Decider, grant?: { uncontained?: boolean } | null): boolean {
    const when = this.when();
    if (decider.kind === 'autonomy') return when.includes(decider.level as ContainWhen);
    if (decider.kind === 'grant') return when.includes('grants') && grant?.uncontained !== true;
    if (decider.kind === 'rule') return when.includes('grants');
    return false;
  }

  /**
   * For an allowed call the agent runs itself: the boxed input, the reason it runs uncontained,
   * or null when containment does not apply (another tool, an operator read it, the setting).
   * `cannotBox`: why this caller cannot run a boxed command (a terminal program answered with a key).
   */
  async decide(call: ToolCall, decider: Decider, grant?: { uncontained?: boolean } | null, cannotBox?: string): Promise<ContainVerdict | null> {
    if (call.source !== 'hook' || !CONTAINED_TOOLS.has(call.tool) || !this.applies(decider, grant)) return null;
    if (cannotBox !== undefined) return { contained: false, reason: cannotBox };
    const b = await this.ready();
    if (b.kind === null) return { contained: false, reason: b.reason };
    const args = call.arguments ?? {};
    const command = args.command;
    if (typeof command !== 'string') return { contained: false, reason: 'the call has no command line to box' };
    const plan = this.planFor(call.cwd);
    const line = boxedCommandLine(b, plan, command, undefined, this.checkFile());
    // updatedInput replaces the whole input: timeout, run_in_background and description are kept.
    return { contained: true, box: b.kind, input: { ...args, command: line }, command: line, plan };
  }

  /**
   * The check around the box, from its file in the data folder; inline when that cannot be
   * written (a full or read-only disk), which still works but makes a long command line.
   */
  checkFile(): string | undefined {
    try {
      return installBoxCheck(boxFolder(this.deps.gatehouseHome));
    } catch {
      return undefined;
    }
  }

  private readonly plans = new Map<string, { at: number; rulesKey: string; plan: BoxPlan }>();

  private planFor(cwd: string): BoxPlan {
    const now = (this.deps.now ?? Date.now)();
    const rules = this.rules();
    const hit = this.plans.get(cwd);
    if (hit && hit.rulesKey === this.rulesCache!.key && now - hit.at < BOX_REUSE_MS) return hit.plan;
    const plan = boxPlan({ home: this.deps.home, rules }, cwd);
    if (this.plans.size >= 64) this.plans.delete(this.plans.keys().next().value!);
    this.plans.set(cwd, { at: now, rulesKey: this.rulesCache!.key, plan });
    return plan;
  }

  private rulesCache: { key: string; rules: ReturnType<typeof builtinRules> } | null = null;

  private rules(): ReturnType<typeof builtinRules> {
    const dirs = this.deps.pluginDirs();
    const key = dirs.join('\0');
    if (this.rulesCache?.key !== key) {
      this.rulesCache = { key, rules: builtinRules({ home: this.deps.home, gatehouseHome: this.deps.gatehouseHome, pluginDirs: dirs, cliFiles: installedCliFiles(), installFiles: installedCodeFiles(), caseInsensitive: defaultCaseInsensitive() }) };
    }
    return this.rulesCache.rules;
  }
}
