// A rule compiled for matching: globs and CIDRs turned into matchers once, at load, so judging a
// call is a bitmask test plus a few regex tests.
import { resolve } from 'node:path';
import { hookPlaceOf } from '../git-hooks-path.js';
import { OPERATIONS, type Decision, type Extraction, type Operation, type Rule, type RuleDecision, type Severity, type ToolCall } from '../types.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { blockedCategory, BLOCKED_HOST_NAMES, compileHostPattern, normalizeHost, parseIpLiteral, type HostPattern, type Resolutions } from '../network.js';
import { compilePathPattern, type PathContext, type PathPattern } from './paths.js';
import { isGatehouseProgram, isPackageScripts } from '../extract/self-cli.js';
import picomatch from 'picomatch';

/**
 * Rules with behaviour beyond paths and hosts (built-in only). `self-cli`: the rule's paths are
 * matched against the programs a call starts, not the paths it touches, and a program named as
 * Gatehouse's CLI matches wherever it is (extract/self-cli.ts).
 */
export type SpecialMatch = 'evasive' | 'ssrf' | 'self-cli' | 'hooks-path';

export interface CompiledRule {
  readonly rule: Readonly<Rule>;
  readonly actionMask: number;
  readonly paths: PathPattern;
  readonly except: PathPattern;
  readonly hosts: HostPattern;
  readonly special: SpecialMatch | null;
  /** An allow rule's binding to a tool, exact commands or exact arguments; null when it has none. */
  readonly binding: CallBinding | null;
  /** What `~` means, for a special that reads the user's files (hooks-path: the user's Git config). */
  readonly home: string;
}

/** What an "always" rule is bound to beyond paths and hosts (see Rule.tools/commands/arguments). */
export interface CallBinding {
  readonly tools: ReadonlySet<string> | null;
  readonly commands: ReadonlySet<string> | null;
  /** [argument name, canonical JSON of its value]. */
  readonly args: readonly (readonly [string, string])[] | null;
}

/** One rule that matched a call, and why. */
export interface RuleMatch {
  rule: string;
  origin: string;
  source: Rule['source'];
  /** Usually the rule's decision; the SSRF rule asks instead of denying for unresolved names when configured to. */
  decision: RuleDecision;
  severity: Severity;
  priority: number;
  locked: boolean;
  message: string;
  /** What matched, e.g. `path /home/u/.ssh/id_rsa matches ~/.ssh/**`. */
  detail: string;
}

/** How names that DNS could not resolve are judged by the built-in network rule. */
export type UnresolvedPolicy = 'deny' | 'ask';

export const OP_BIT: Readonly<Record<Operation, number>> = Object.freeze(Object.fromEntries(OPERATIONS.map((op, i) => [op, 1 << i])) as Record<Operation, number>);
const RECURSIVE_OPS = OP_BIT.delete | OP_BIT.move | OP_BIT.copy;

export function opMask(ops: readonly Operation[]): number {
  let m = 0;
  for (const op of ops) m |= OP_BIT[op] ?? 0;
  return m;
}

export function compileRule(rule: Rule, ctx: PathContext, special: SpecialMatch | null = null): CompiledRule {
  const frozen: Readonly<Rule> = Object.freeze({
    ...rule,
    actions: Object.freeze([...rule.actions]) as Operation[],
    block_paths: Object.freeze([...rule.block_paths]) as string[],
    block_except: Object.freeze([...rule.block_except]) as string[],
    block_hosts: Object.freeze([...rule.block_hosts]) as string[],
  });
  return Object.freeze({
    rule: frozen,
    actionMask: opMask(rule.actions),
    paths: compilePathPattern(rule.block_paths, ctx),
    except: compilePathPattern(rule.block_except, ctx),
    hosts: compileHostPattern(special === 'ssrf' ? [] : rule.block_hosts),
    special,
    binding: compileBinding(rule),
    home: ctx.home,
  });
}

function compileBinding(rule: Rule): CallBinding | null {
  if (rule.tools === undefined && rule.commands === undefined && rule.arguments === undefined) return null;
  return Object.freeze({
    tools: rule.tools ? new Set(rule.tools) : null,
    commands: rule.commands ? new Set(rule.commands) : null,
    args: rule.arguments ? Object.freeze(Object.entries(rule.arguments).map(([k, v]) => Object.freeze([k, canonicalJson(v)] as const))) : null,
  });
}

/**
 * Triggerfish's name for a plugin tool, `plugin_<plugin>_<tool>`, which rules written for
 * Triggerfish use: `weather__forecast` is also `plugin_weather_forecast`. Other names have none.
 */
export function triggerfishAlias(tool: string): string {
  const at = tool.indexOf('__');
  return at > 0 ? `plugin_${tool.slice(0, at)}_${tool.slice(at + 2)}` : '';
}

/**
 * Does the call itself fit the rule's binding? Without the call (a policy example given as
 * operations and paths) a bound rule covers nothing: it allows a tool and command, not an effect.
 */
function bindingCovers(b: CallBinding, x: Extraction, call: ToolCall | null | undefined): boolean {
  if (!call) return false;
  if (b.tools && !b.tools.has(call.tool) && !b.tools.has(triggerfishAlias(call.tool))) return false;
  if (b.commands && (x.command === '' || !b.commands.has(x.command))) return false;
  if (b.args) {
    const args = call.arguments ?? {};
    for (const [k, want] of b.args) {
      if (!Object.hasOwn(args, k)) return false;
      let got: string;
      try {
        got = canonicalJson(args[k]);
      } catch {
        return false;
      }
      if (got !== want) return false;
    }
  }
  return true;
}

const blockedName = picomatch(BLOCKED_HOST_NAMES as string[], { nocase: true, dot: true });
/** The operation names of each mask, built once: every allow match names its operations. */
const OP_NAMES: readonly string[] = Array.from({ length: 1 << OPERATIONS.length }, (_, mask) => OPERATIONS.filter((op) => (mask & OP_BIT[op]) !== 0).join(', '));
const opNames = (mask: number): string => OP_NAMES[mask & ((1 << OPERATIONS.length) - 1)] ?? '';

function matchOf(c: CompiledRule, detail: string, decision: RuleDecision = c.rule.decision, message: string | undefined = c.rule.message): RuleMatch {
  const r = c.rule;
  return { rule: r.name, origin: r.origin, source: r.source, decision, severity: r.severity, priority: r.priority, locked: r.locked, message, detail };
}

export interface MatchOptions {
  resolutions?: Resolutions | undefined;
  unresolved?: UnresolvedPolicy | undefined;
  /** The call itself, for allow rules bound to a tool, command or arguments. */
  call?: ToolCall | null | undefined;
  /**
   * Paths no rule's paths can match (RuleSet.untouched), or, asked with the rule, that rule's
   * paths cannot: skipped without testing.
   */
  untouched?: ((path: string, rule?: CompiledRule) => boolean) | undefined;
}

/**
 * Does `c` match the call? Blocking rules (deny, ask, log) match when any of their actions is
 * among the call's operations and any path or host matches. Allow rules must cover the whole
 * call — every operation, every path and every host — so that allowing one harmless file never
 * carries an unrelated write along with it; an evasive call is never covered.
 */
export function matchRule(c: CompiledRule, x: Extraction, mask: number, opts: MatchOptions = {}): RuleMatch | null {
  const r = c.rule;
  if (c.special === 'evasive') return x.evasive ? matchOf(c, `evasive: ${x.evasiveReasons.join('; ') || 'static analysis cannot see through the command'}`) : null;
  if ((c.actionMask & mask) === 0) return null;
  if (r.decision === 'allow') {
    if (!coversCall(c, x, mask, opts.resolutions, opts.untouched)) return null;
    if (c.binding && !bindingCovers(c.binding, x, opts.call)) return null;
    return matchOf(c, c.binding?.commands ? `allows exactly this command (${opNames(mask)})` : `allows ${opNames(mask)}`);
  }
  if (c.special === 'ssrf') return matchSsrf(c, x, opts);
  if (c.special === 'self-cli') return matchSelfCli(c, x, opts.call?.cwd);
  if (c.special === 'hooks-path') return matchHooksPath(c, x, opts.call?.cwd);
  if (c.paths.empty && c.hosts.source.length === 0) return matchOf(c, `operation ${opNames(c.actionMask & mask)}`);
  if (!c.paths.empty) {
    // Containment: deleting, moving or copying a folder reaches every protected tree inside it, and
    // so does any operation on a path the call reaches as a whole tree (`grep -r . ~/.config`).
    const recursiveOps = (c.actionMask & mask & RECURSIVE_OPS) !== 0;
    const trees = x.recursive;
    for (const p of x.paths) {
      if (opts.untouched?.(p, c)) continue;
      const glob = c.paths.match(p);
      if (glob !== null && c.except.match(p) === null) return matchOf(c, `path ${p} matches ${glob}`);
      if (recursiveOps || (trees !== undefined && trees.includes(p))) {
        const inner = c.paths.containsProtected(p);
        if (inner !== null && c.except.match(p) === null) return matchOf(c, `path ${p} contains ${inner}`);
      }
    }
  }
  if (c.hosts.source.length > 0) {
    for (const h of x.hosts) {
      const why = c.hosts.match(h, opts.resolutions?.get(normalizeHost(h)));
      if (why !== null) return matchOf(c, why);
    }
  }
  return null;
}

function coversCall(c: CompiledRule, x: Extraction, mask: number, resolutions: Resolutions | undefined, untouched: MatchOptions['untouched']): boolean {
  if (x.evasive || (mask & ~c.actionMask) !== 0) return false;
  if (c.paths.empty && c.hosts.source.length === 0) return true;
  if (x.paths.length + x.hosts.length === 0) return false;
  for (const p of x.paths) if (c.paths.empty || untouched?.(p, c) || c.paths.match(p) === null || c.except.match(p) !== null) return false;
  for (const h of x.hosts) if (!c.hosts.covers(h, resolutions?.get(normalizeHost(h)))) return false;
  return true;
}

/**
 * The built-in network rule: every host, literal or name, judged by the address it reaches.
 * Names are judged by what DNS returned for this call (`resolutions`); a name without an answer
 * is denied (or asked, when configured), because the tool might get a different answer.
 */
function matchSsrf(c: CompiledRule, x: Extraction, opts: MatchOptions): RuleMatch | null {
  for (const raw of x.hosts) {
    const host = normalizeHost(raw);
    const ip = parseIpLiteral(host);
    if (ip) {
      const b = blockedCategory(ip);
      if (b) return matchOf(c, `host ${raw} is ${ip.toString()}, a ${b.category} address (${b.cidr})`);
      continue;
    }
    if (blockedName(host)) return matchOf(c, `host ${raw} is a ${/local/.test(host) ? 'loopback' : 'cloud-metadata'} name`);
    const res = opts.resolutions?.get(host);
    if (!res || 'error' in res) {
      const why = res ? `DNS failed: ${res.error}` : 'not resolved before the decision';
      // Headlined as what happened (DNS), not as the rule's "private address" message: the
      // address is unknown, and an operator chasing a private address would look in the wrong place.
      const headline = res ? `DNS lookup of ${raw} failed, so its address could not be checked: network destinations are checked after DNS resolution.` : `${raw} was not resolved before the decision, so its address could not be checked.`;
      return matchOf(c, `host ${raw} could not be resolved (${why}); network destinations are checked after DNS resolution`, opts.unresolved ?? 'deny', headline);
    }
    for (const a of res.addresses) {
      const addr = parseIpLiteral(a);
      const b = addr ? blockedCategory(addr) : null;
      if (b) return matchOf(c, `host ${raw} resolves to ${a}, a ${b.category} address (${b.cidr})`);
    }
  }
  return null;
}

/** Gatehouse's own CLI among the programs the call starts: by its name, or by this installation's files. */
function matchSelfCli(c: CompiledRule, x: Extraction, cwd: string | undefined): RuleMatch | null {
  for (const program of x.programs ?? []) {
    if (isGatehouseProgram(program)) return matchOf(c, `the command starts ${program}, Gatehouse's command line`);
    // A relative one is a folder named from where the call runs (`find . -name gatehouse.js -exec
    // node {} url \;`, `find bin -exec …`). Joined, not resolved, for a bare name (every call's
    // `git`, `npm`, `ls`): a decision's hot path; no file-system look-up either way.
    const p = program.startsWith('/') ? program : !cwd?.startsWith('/') ? null : program === '.' ? cwd : program.includes('/') || program === '..' ? resolve(cwd, program) : `${cwd === '/' ? '' : cwd}/${program}`;
    if (p === null) continue;
    // A package manager running package.json scripts (`npm start`, `yarn serve`, `node --run x`):
    // in Gatehouse's installation, or a folder under it (npm looks upward for package.json), its
    // scripts start the command line (`npm run serve` is `node bin/gatehouse.js serve`).
    if (isPackageScripts(p)) {
      for (let dir = p.slice(0, p.lastIndexOf('/')); dir !== ''; dir = dir.slice(0, dir.lastIndexOf('/'))) {
        if (c.paths.match(`${dir}/bin/gatehouse.js`) !== null) return matchOf(c, `the command runs the package.json scripts of ${dir}, Gatehouse's installation, which start its command line`);
      }
      continue;
    }
    // The CLI's own files by path (a relative program is only looked at as a folder: two set look-ups).
    const glob = p === program ? c.paths.match(p) : null;
    if (glob !== null) return matchOf(c, `the command starts ${program}, which is Gatehouse's own ${glob}`);
    // A folder as the program: whatever is found in it runs (`find <install>/bin -exec node {} url \;`).
    const inner = c.paths.containsProtected(p);
    if (inner !== null) return matchOf(c, `the command starts what it finds in ${program}, which holds Gatehouse's own ${inner}`);
  }
  return null;
}

/** A path the call changes inside the folder its repository's Git config runs hooks from (git-hooks-path.ts). */
function matchHooksPath(c: CompiledRule, x: Extraction, cwd: string | undefined): RuleMatch | null {
  // Not `untouched`: that index knows only rules with globs, and this one has none.
  for (const p of x.paths) {
    if (!p.startsWith('/')) continue;
    const place = hookPlaceOf(p, c.home, cwd);
    if (place !== null) return matchOf(c, `path ${p} is ${p === place ? '' : 'in '}${place}, which decides the hooks Git runs (core.hooksPath, or a config file Git includes)`);
  }
  return null;
}

export const DECISION_RANK: Readonly<Record<RuleDecision, number>> = { deny: 0, ask: 1, allow: 2, log: 3 };

/** Precedence: deny over ask over allow; then lower priority; then locked; then definition order. */
export function compareMatches(a: RuleMatch, b: RuleMatch): number {
  return DECISION_RANK[a.decision] - DECISION_RANK[b.decision] || a.priority - b.priority || Number(b.locked) - Number(a.locked);
}

export const isDecision = (d: RuleDecision): d is Decision => d !== 'log';
