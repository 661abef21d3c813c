// The active policy: built-in rules plus the user rules of GATEHOUSE_HOME/policy.yaml, reloaded
// when the file changes. Security-sensitive: a broken file never empties or weakens the policy —
// the last good rules stay active and the error is exposed for the UI until the file is fixed.
// That holds across a restart too: the text of the last policy that loaded whole is kept beside
// the file (`.policy.yaml.last-good`), and so is the text last put in force (`.policy.yaml.last-loaded`,
// which differs when that text had rules rejected); a start that finds the file broken, with rules
// rejected, or gone applies the first, then the second, then the file, so it begins from what was
// in force when the host stopped. (A later review found a start with only the first copy brought
// back a rule the operator had removed in an edit that had one bad glob elsewhere.) With neither
// copy, a broken file at start denies every call (fail closed) until a text loads: a review
// restarted a host after a one-character typo and every deny rule was gone, while the console said
// the last good policy stayed active.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { RuleSnapshot } from '../../core/checker-protocol.js';
import { installedCliFiles, installedCodeFiles } from '../../core/install-files.js';
import type { Extraction, ToolCall } from '../types.js';
import type { Resolver } from '../network.js';
import { compileBuiltinRules, type BuiltinContext } from './builtin.js';
import type { CompiledRule, UnresolvedPolicy } from './compile.js';
import { buildRuleSet, evaluatePolicy, evaluatePolicyAsync, type PolicyResult, type RuleSet } from './engine.js';
import type { ExtractFn } from './examples.js';
import { loadPolicyFile, parsePolicyText, type ExampleResult, type LoadResult, type PolicyProblem } from './load.js';
import { defaultCaseInsensitive } from './paths.js';
import { ProtectedIdentities } from './protected-identities.js';
import { toSnapshots } from './snapshot.js';

export interface PolicyStoreOptions {
  /** The policy file, normally GATEHOUSE_HOME/policy.yaml. */
  file: string;
  /** The user's home (`~` in globs). */
  home: string;
  gatehouseHome: string;
  /** Every folder plugins are loaded from: writes there are denied by a built-in rule. */
  pluginDirs?: readonly string[];
  /** This installation's command line, which agents may not start (default: where this code is loaded from). */
  cliFiles?: readonly string[];
  /** Everything this installation runs, which agents may not change (default: installedCodeFiles()). */
  installFiles?: readonly string[];
  caseInsensitive?: boolean;
  extract?: ExtractFn;
  /** Where the text of the last policy that loaded whole is kept for the next start (default `.<file name>.last-good` beside the file). */
  lastGoodFile?: string;
  /** Where the text last put in force (loaded whole, or with rules rejected) is kept for the next start (default `.<file name>.last-loaded` beside the file). */
  lastLoadedFile?: string;
  /** Watch the file and reload on change (default true; start() sets the watch up). */
  watch?: boolean;
  resolver?: Resolver;
  unresolved?: UnresolvedPolicy;
  /** Snapshot hit counts are refreshed at most this often, so checkers reuse serialised snapshots (default 1000 ms). */
  snapshotRefreshMs?: number;
  now?: () => number;
  log?: (msg: string, err?: unknown) => void;
  /**
   * Judge hard links to protected files as those files (default true). Off only where calls are
   * not judged against this machine's files.
   */
  hardLinks?: boolean;
}

/** Which policy judged a call, as call.decided records it. */
export interface PolicyTag {
  /** The team policy version applied (team mode), else absent. */
  team?: number;
  /** The first 16 hex digits of the SHA-256 of the policy.yaml text whose rules are active ('' for none). */
  local: string;
}

export interface PolicyState {
  rules: RuleSet;
  problems: readonly PolicyProblem[];
  examples: readonly ExampleResult[];
  /** A readable sentence when the file is broken or rules were rejected; null when all is well. */
  error: string | null;
  /** Increases with every reload that replaced the active rules (a broken file does not). */
  version: number;
}

const RELOAD_DELAY_MS = 75;
const VERIFY_DELAY_MS = 250;
/**
 * A file that turned empty is applied only after it stayed empty this long: a writer truncates
 * before it writes, and a read in between must not drop every user rule (deny rules included).
 */
const EMPTY_SETTLE_MS = 1000;

export class PolicyStore {
  private readonly builtin: CompiledRule[];
  private readonly ctx: BuiltinContext;
  private readonly file: string;
  private ruleSetValue: RuleSet;
  private userRules: CompiledRule[] = [];
  /** The team policy's rules (team mode): between the built-ins and this machine's own. */
  private teamRules: CompiledRule[] = [];
  private tagValue: PolicyTag = { local: '' };
  private problemsValue: PolicyProblem[] = [];
  private examplesValue: ExampleResult[] = [];
  private errorValue: string | null = null;
  private versionValue = 0;
  private readonly listeners = new Set<(state: PolicyState) => void>();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private loadedText: string | null = null;
  /** Text read once since the last change, applied when the next read finds it unchanged. */
  private pendingText: string | null = null;
  private readonly hits = new Map<string, number>();
  private hitsDirty = false;
  private snapshotCache: { at: number; version: number; value: readonly RuleSnapshot[] } | null = null;
  private readonly identities: ProtectedIdentities | null;
  private readonly lastGoodFile: string;
  private readonly lastLoadedFile: string;
  /** The text last read from or written to each of lastGoodFile and lastLoadedFile, by path. */
  private readonly savedText = new Map<string, string>();
  /** Whether a policy has been loaded yet: the first load is the start, where the saved copy counts. */
  private loadedOnce = false;
  /** Set at a start that found the file broken with no good policy to fall back on: every call is denied. */
  private unloadable: string | null = null;

  constructor(private readonly opts: PolicyStoreOptions) {
    this.file = resolve(opts.file);
    this.lastGoodFile = opts.lastGoodFile ?? lastGoodPath(this.file);
    this.lastLoadedFile = opts.lastLoadedFile ?? lastLoadedPath(this.file);
    this.ctx = {
      home: opts.home,
      gatehouseHome: opts.gatehouseHome,
      pluginDirs: (opts.pluginDirs ?? []).map((d) => resolve(d)),
      cliFiles: opts.cliFiles ?? installedCliFiles(),
      installFiles: opts.installFiles ?? installedCodeFiles(),
      caseInsensitive: opts.caseInsensitive ?? defaultCaseInsensitive(),
    };
    this.builtin = compileBuiltinRules(this.ctx);
    this.ruleSetValue = buildRuleSet(this.builtin, []);
    this.identities =
      opts.hardLinks === false
        ? null
        : new ProtectedIdentities({ rules: this.builtin, home: opts.home, extraRoots: [resolve(opts.gatehouseHome), ...(this.ctx.pluginDirs ?? [])], now: opts.now ?? Date.now });
  }

  get rules(): RuleSet {
    return this.ruleSetValue;
  }
  get problems(): readonly PolicyProblem[] {
    return this.problemsValue;
  }
  get examples(): readonly ExampleResult[] {
    return this.examplesValue;
  }
  get error(): string | null {
    return this.errorValue;
  }
  get version(): number {
    return this.versionValue;
  }
  /** The policy in effect now, for the decision record. */
  get tag(): PolicyTag {
    return this.tagValue;
  }
  get state(): PolicyState {
    return { rules: this.ruleSetValue, problems: this.problemsValue, examples: this.examplesValue, error: this.errorValue, version: this.versionValue };
  }

  /** Called after every reload (good or bad); returns an unsubscribe function. */
  onChange(listener: (state: PolicyState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads the file, then (unless watch is false) watches it; resolves once the watch is in place. */
  async start(): Promise<void> {
    this.reload();
    if (this.opts.watch === false || this.watcher) return;
    const dir = dirname(this.file);
    const name = basename(this.file);
    // Watch the folder, not the file: the file may not exist yet, and editors replace it on save.
    // The folder is GATEHOUSE_HOME, where the audit database is written on every call: the
    // kernel's event carries the file name, so the filter costs nothing per write (chokidar
    // here stat'ed and re-read the folder for each of them, a millisecond per tool call).
    const w = watch(dir, { persistent: false }, (_event, file) => {
      if (file !== null && file !== name) return;
      this.schedule(existsSync(this.file) ? 'change' : 'unlink', RELOAD_DELAY_MS);
    });
    this.watcher = w;
    w.on('error', (err) => this.opts.log?.('policy watcher error', err));
  }

  /**
   * Reload after `ms`. One save can arrive as several watch events (truncate, write, rename), so
   * the read waits for them to stop, and each reload is followed by one verification read that
   * catches anything else a watcher missed.
   *
   * A read replaces the rules only when the next read, a moment later, finds the same text: a
   * writer truncates the file and then writes it, and a read between the two (a loaded machine
   * can hold a writer that long) would otherwise load a half-written or empty policy, and the
   * complete text after it would be judged against that instead of the last good policy.
   */
  private schedule(kind: 'change' | 'unlink' | 'verify' | 'settle', ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.watcher) return;
      const text = this.readText();
      // Once watching, a missing file is a removal (or an editor mid-save), never "no rules".
      if (kind === 'unlink' || text === null) {
        this.pendingText = null;
        return this.fileRemoved();
      }
      if (kind === 'verify' && text === this.loadedText) return;
      if (kind !== 'settle' || text !== this.pendingText) {
        this.pendingText = text;
        const emptied = text.trim() === '' && (this.loadedText ?? '').trim() !== '';
        return this.schedule('settle', emptied ? EMPTY_SETTLE_MS : RELOAD_DELAY_MS);
      }
      this.pendingText = null;
      this.apply(text);
      this.schedule('verify', VERIFY_DELAY_MS);
    }, ms);
  }

  private readText(): string | null {
    try {
      return readFileSync(this.file, 'utf8');
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.watcher;
    this.watcher = null;
    w?.close();
  }

  private loadContext() {
    const reserved = new Set(this.builtin.map((r) => r.rule.name));
    return { ...this.ctx, extract: this.opts.extract, reservedNames: reserved, teamNames: new Set(this.teamRules.map((r) => r.rule.name)) };
  }

  /** Validates a team policy version's text as setTeamPolicy would load it; changes nothing. */
  checkTeamPolicy(text: string, version: number): LoadResult {
    return parsePolicyText(text, `team policy v${version}`, { ...this.ctx, extract: this.opts.extract, reservedNames: new Set(this.builtin.map((r) => r.rule.name)) });
  }

  /**
   * Puts a team policy version in force (team-policy.ts calls it only for a version a registered
   * operator signed). All or nothing: a text with any problem changes nothing and is returned as
   * is, since a team rule left out on one member would judge that member differently from the rest.
   * The local rules are loaded again, so a local rule that now shares a team rule's name is named.
   */
  setTeamPolicy(text: string, version: number): LoadResult {
    const r = this.checkTeamPolicy(text, version);
    if (r.broken || r.problems.length > 0) return r;
    this.teamRules = r.compiled;
    this.tagValue = { ...this.tagValue, team: version };
    const before = this.versionValue;
    // A file missing at start left the saved policy in force: loading "no file" again would drop it.
    if (this.loadedText !== null) this.apply(this.loadedText);
    if (this.versionValue === before) {
      // policy.yaml is broken, so apply() kept its last good rules without rebuilding: the new team
      // rules take effect beside them all the same.
      this.ruleSetValue = buildRuleSet(this.builtin, [...this.teamRules, ...this.userRules]);
      this.versionValue++;
      this.emit();
    }
    return r;
  }

  /** Validates policy text as this store would load it (problems, example results); changes nothing. */
  check(text: string): LoadResult {
    return parsePolicyText(text, this.file, this.loadContext());
  }

  /** The file's text as last read (null: there was no file). */
  get text(): string | null {
    return this.loadedText;
  }

  /** Reads the file again now. Returns the load result (the store state is updated from it). */
  reload(): LoadResult {
    const text = this.readText();
    if (!this.loadedOnce) return this.start_(text);
    return this.apply(text);
  }

  /**
   * The first load. A file that loads whole is applied as it is. Otherwise what an earlier run saved
   * is applied first: the last text that loaded whole, then the last text put in force when that
   * was a later one with rules rejected (its rejected rules keep their versions from the first, as
   * they did while it ran). The file goes over that: a broken file keeps it, a rejected rule keeps
   * its saved version, and a missing file keeps it as a removal while running does. With nothing
   * saved, or nothing saved that loads, a broken file leaves nothing to judge by: every call is
   * denied until a text loads.
   */
  private start_(text: string | null): LoadResult {
    this.loadedOnce = true;
    const ctx = this.loadContext();
    const first = text === null ? loadPolicyFile(this.file, ctx) : parsePolicyText(text, this.file, ctx);
    if (!first.broken && first.problems.length === 0 && text !== null) return this.apply(text);
    const good = this.readSaved(this.lastGoodFile);
    const loaded = this.readSaved(this.lastLoadedFile);
    const before = this.versionValue;
    const restoredFrom: string[] = [];
    for (const [saved, from] of [[good, this.lastGoodFile], [loaded === good ? null : loaded, this.lastLoadedFile]] as const) {
      if (saved === null) continue;
      const v = this.versionValue;
      this.apply(saved, false);
      if (this.versionValue !== v) restoredFrom.push(from);
    }
    if (this.versionValue === before) {
      // Nothing saved that loads (a saved copy that no longer loads leaves the rules as they were).
      this.problemsValue = [];
      this.errorValue = null;
      if (text !== null && first.broken) {
        this.unloadable = this.unloadableMessage(first.problems);
        this.loadedText = text;
        this.problemsValue = first.problems;
        this.examplesValue = first.examples;
        this.errorValue = this.unloadable;
        this.emit();
        return first;
      }
      return this.apply(text);
    }
    if (text === null) {
      this.loadedText = null;
      this.errorValue = `${this.file} is missing; the last good policy (saved in ${restoredFrom.join(' and ')}) stays active until the file is back (write an empty file to clear the user rules)`;
      this.emit();
      return first;
    }
    return this.apply(text);
  }

  private unloadableMessage(problems: readonly PolicyProblem[]): string {
    return `${this.file} has errors and no earlier policy loaded whole, so every call is denied until it is fixed: ${describe(problems)}`;
  }

  /** A saved policy's text, or null when there is none. */
  private readSaved(path: string): string | null {
    try {
      const text = readFileSync(path, 'utf8');
      this.savedText.set(path, text);
      return text;
    } catch {
      return null;
    }
  }

  /** Keeps `text` in `path` for the next start (written to a temporary file and renamed, so a crash leaves the old copy or the new). */
  private save(path: string, text: string): void {
    if (this.savedText.get(path) === text) return;
    try {
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, path);
      this.savedText.set(path, text);
    } catch (err) {
      this.opts.log?.(`could not save the policy in force to ${path}`, err);
    }
  }

  /** Puts `text` in force (a broken one changes only the problems); `persist` false for a saved copy being applied at start. */
  private apply(text: string | null, persist = true): LoadResult {
    const ctx = this.loadContext();
    this.loadedText = text;
    // A missing file is an empty policy; an unreadable one goes through loadPolicyFile for its error.
    const result = text === null ? loadPolicyFile(this.file, ctx) : parsePolicyText(text, this.file, ctx);
    if (result.broken) {
      // Keep the last good rules; only the problems change. With none (unloadable), every call
      // stays denied, now for this text's errors.
      if (this.unloadable !== null) this.unloadable = this.unloadableMessage(result.problems);
      this.problemsValue = result.problems;
      this.examplesValue = result.examples;
      this.errorValue = this.unloadable ?? `${this.file} has errors, so the last good policy stays active: ${describe(result.problems)}`;
      this.emit();
      return result;
    }
    this.unloadable = null;
    if (text !== null && persist) {
      // The text in force first, then the last whole one: a crash between the two writes leaves a
      // pair that a start still applies in the right order (the old whole text, then this one).
      this.save(this.lastLoadedFile, text);
      if (result.problems.length === 0) this.save(this.lastGoodFile, text);
    }
    // A rule rejected now that loaded before keeps its last good version: an edit that breaks a
    // deny rule must not silently drop it.
    const kept: CompiledRule[] = [];
    const previous = new Map(this.userRules.map((r) => [r.rule.name, r]));
    const fresh = new Set(result.compiled.map((r) => r.rule.name));
    for (const rej of result.rejected) {
      const prev = rej.name ? previous.get(rej.name) : undefined;
      if (prev && !fresh.has(prev.rule.name)) kept.push(prev);
    }
    this.userRules = [...result.compiled, ...kept];
    this.ruleSetValue = buildRuleSet(this.builtin, [...this.teamRules, ...this.userRules]);
    this.tagValue = { ...this.tagValue, local: text === null || text.trim() === '' ? '' : createHash('sha256').update(text).digest('hex').slice(0, 16) };
    this.problemsValue = result.problems;
    this.examplesValue = result.examples;
    this.errorValue =
      result.problems.length === 0
        ? null
        : `${result.rejected.length} rule${result.rejected.length === 1 ? ' was' : 's were'} rejected${kept.length > 0 ? ` (${kept.map((k) => k.rule.name).join(', ')} kept ${kept.length === 1 ? 'its' : 'their'} last good version)` : ''}: ${describe(result.problems)}`;
    this.versionValue++;
    this.emit();
    return result;
  }

  /** The file disappeared while watched: keep the policy (an editor may be mid-save, or it was a mistake). */
  private fileRemoved(): void {
    if (this.unloadable !== null) {
      // No policy was ever in force: every call stays denied, and the message says that.
      this.unloadable = `${this.file} was removed after it failed to load, and no earlier policy loaded whole, so every call is still denied until a policy loads (write an empty file to clear the user rules)`;
      this.errorValue = this.unloadable;
    } else this.errorValue = `${this.file} was removed; the last loaded policy stays active until the file is back (write an empty file to clear the user rules)`;
    this.emit();
  }

  private emit(): void {
    const s = this.state;
    for (const l of this.listeners) {
      try {
        l(s);
      } catch (err) {
        this.opts.log?.('policy change listener failed', err);
      }
    }
  }

  /** The answer while no policy can be loaded (unloadable): deny, with the reason. */
  private refused(): PolicyResult | null {
    const message = this.unloadable;
    return message === null ? null : { decision: 'deny', decider: { kind: 'error', message }, decisive: null, matched: [], logs: [], reason: message };
  }

  /** Judges a call synchronously (names not resolved: see evaluateAsync) and counts rule hits. */
  evaluate(x: Extraction, call: ToolCall | null): PolicyResult {
    const refused = this.refused();
    if (refused) return refused;
    const linked = this.throughLinks(x, call);
    return this.count(explainLinks(evaluatePolicy(linked.x, call, { rules: this.ruleSetValue, unresolved: this.opts.unresolved }), linked.aliases));
  }

  /** Judges a call, resolving host names first when it goes to the network. */
  async evaluateAsync(x: Extraction, call: ToolCall | null): Promise<PolicyResult> {
    const refused = this.refused();
    if (refused) return refused;
    const linked = this.throughLinks(x, call);
    return this.count(explainLinks(await evaluatePolicyAsync(linked.x, call, { rules: this.ruleSetValue, unresolved: this.opts.unresolved, resolver: this.opts.resolver }), linked.aliases));
  }

  /**
   * The call as the rules judge it: a path that is a hard link to a protected file (or a walked
   * folder holding one) also names that file. Every live judgement passes here, whatever the
   * ingress: hook and MCP calls, the shell tool, WebAssembly plugins' file requests.
   */
  private throughLinks(x: Extraction, call: ToolCall | null): { x: Extraction; aliases: ReadonlyMap<string, string> } {
    if (!this.identities || (x.paths.length === 0 && !x.recursive?.length)) return { x, aliases: NO_ALIASES };
    const r = this.identities.linked(x.paths, x.recursive ?? [], call?.cwd ?? null);
    if (r.aliases.size === 0 && r.unsure === null) return { x, aliases: NO_ALIASES };
    const targets = [...new Set(r.aliases.values())].filter((t) => !x.paths.includes(t));
    return {
      x: { ...x, paths: [...x.paths, ...targets], ...(r.unsure ? { evasive: true, evasiveReasons: [...x.evasiveReasons, r.unsure] } : {}) },
      aliases: r.aliases,
    };
  }

  /**
   * For shadow replay: the active user rules, or a draft's (`text`, checked as check() does; its
   * rejected rules are left out and named in problems). Only user rules are judged here: replay
   * takes the built-ins' matches as each call recorded them (this store's plugin folders and home
   * may not be the recording host's). `rule` finds a rule by name (built-ins included) for its
   * precedence and message. Hit counts are not touched: a replay is not traffic.
   */
  evaluator(text?: string): { problems: PolicyProblem[]; broken: boolean; evaluateUser(x: Extraction, call: ToolCall | null): PolicyResult; rule(name: string): Readonly<CompiledRule> | undefined } {
    let user: readonly CompiledRule[] = this.ruleSetValue.rules.filter((r) => r.rule.source !== 'builtin');
    let problems: PolicyProblem[] = [];
    let broken = false;
    if (text !== undefined) {
      const r = this.check(text);
      problems = r.problems;
      broken = r.broken;
      // A draft replaces this machine's rules only: the team policy's stay as they are in force.
      if (!broken) user = buildRuleSet(this.builtin, [...this.teamRules, ...r.compiled]).rules.filter((c) => c.rule.source !== 'builtin');
    }
    const userRules = buildRuleSet([], user);
    const all = buildRuleSet(this.builtin, user);
    return { problems, broken, evaluateUser: (x, call) => evaluatePolicy(x, call, { rules: userRules, unresolved: this.opts.unresolved }), rule: (name) => all.byName.get(name) };
  }

  hitCount(name: string): number {
    return this.hits.get(name) ?? 0;
  }

  private count(result: PolicyResult): PolicyResult {
    for (const m of result.matched) this.hits.set(m.rule, (this.hits.get(m.rule) ?? 0) + 1);
    for (const m of result.logs) this.hits.set(m.rule, (this.hits.get(m.rule) ?? 0) + 1);
    if (result.matched.length + result.logs.length > 0) this.hitsDirty = true;
    return result;
  }

  /**
   * Frozen snapshots of the active rules for checkers. The same array comes back until the
   * policy changes or, when hit counts moved, the refresh interval has passed.
   */
  snapshots(): readonly RuleSnapshot[] {
    const now = (this.opts.now ?? Date.now)();
    const c = this.snapshotCache;
    if (c && c.version === this.versionValue && (!this.hitsDirty || now - c.at < (this.opts.snapshotRefreshMs ?? 1000))) return c.value;
    const value = toSnapshots(
      this.ruleSetValue.rules.map((r) => r.rule),
      this.hits,
    );
    this.snapshotCache = { at: now, version: this.versionValue, value };
    this.hitsDirty = false;
    return value;
  }
}

/** Where a start finds the text of the last policy file that loaded whole (`gatehouse doctor` looks there too). */
export function lastGoodPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.last-good`);
}

/** Where a start finds the text last put in force, when it had rules rejected. */
export function lastLoadedPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.last-loaded`);
}

function describe(problems: readonly PolicyProblem[]): string {
  const first = problems.slice(0, 3).map((p) => `line ${p.line}, column ${p.column}: ${p.message}`);
  return first.join('; ') + (problems.length > 3 ? `; and ${problems.length - 3} more` : '');
}

const NO_ALIASES: ReadonlyMap<string, string> = new Map();

/** The reason names the hard link when the rule matched the protected file it leads to. */
function explainLinks(r: PolicyResult, aliases: ReadonlyMap<string, string>): PolicyResult {
  for (const [link, target] of aliases) {
    if (r.decisive?.detail.includes(target)) return { ...r, reason: `${r.reason}; ${link} is a hard link to ${target}` };
  }
  return r;
}
