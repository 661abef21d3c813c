// The plugin registry: every plugin Gatehouse could run, what state it is in, and the only
// way to get one to run (verifyForRun), which checks the files against the operator's pin.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { loadManifest, MANIFEST_FILE_NAMES, type LoadResult } from './manifest/load-manifest.js';
import { scanPlugin } from './scan/index.js';
import { unattended, type Chunked } from '../chunked.js';
import { digestFolder, diffDigests, type FileChange, type FolderDigest } from './integrity.js';
import { pruneCopies, verifiedCopy } from './integrity-copy.js';
import type { TrustStore, TrustRecord } from './trust-store.js';
import { OperationError } from '../core/operation-error.js';
import { DEFAULT_THRESHOLDS, type PluginManifest, type Problem, type ScanResult, type ScanThresholds } from './types.js';
import type { Clock } from '../core/clock.js';
import { operatorName } from '../core/operator.js';
import { providerForFolder, providerOf } from './kinds/index.js';

export type PluginOrigin = 'home' | 'project' | 'cli';
export interface PluginSource {
  dir: string;
  origin: PluginOrigin;
}

/** Who enabled a plugin pinned for this run only, as the plugin's trust record shows it. */
export const ALLOWED_BY = 'serve --allowed-plugins';

export type PluginStatus = 'enabled' | 'disabled' | 'invalid' | 'quarantined' | 'scan_failed';

/** MCP's rule for tool names, which every name we hand to agents must satisfy. */
export const TOOL_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

export interface PluginEntry {
  /** The manifest's name, or the folder name when the manifest could not be read. */
  name: string;
  dir: string;
  origin: PluginOrigin;
  manifestFile: string | null;
  manifest: PluginManifest | null;
  problems: Problem[];
  scan: ScanResult | null;
  digest: FolderDigest | null;
  /** Names agents call this plugin's tools by. */
  toolNames: string[];
  /** Things the operator should know that are not errors (an override across places). */
  notes: string[];
  status: PluginStatus;
  /** Files that changed since the operator enabled it (quarantined only). */
  changes: FileChange[];
  /** Named by --allowed-plugins: enabled and pinned for this run only (never in trust.json). */
  runAllowed: boolean;
  trust: TrustRecord | null;
  /** A reload that failed; the previous version keeps serving meanwhile. */
  reloadProblems: Problem[];
}

export type PluginEvent =
  | { type: 'plugin.discovered'; name: string; dir: string; origin: PluginOrigin }
  | { type: 'plugin.invalid'; name: string; dir: string; problems: Problem[] }
  | { type: 'plugin.scanned'; name: string; passed: boolean; totalWeight: number; findings: number }
  | { type: 'plugin.enabled'; name: string; hash: string; scanOverride: string | null; forRun?: true }
  | { type: 'plugin.disabled'; name: string }
  | { type: 'plugin.trusted'; name: string; hash: string; reason: string }
  | { type: 'plugin.untrusted'; name: string; hash: string; reason: string | null }
  | { type: 'plugin.quarantined'; name: string; changes: FileChange[]; reason: string }
  | { type: 'plugin.rolled-back'; name: string; hash: string; files: { path: string; action: 'restored' | 'deleted' }[] }
  | { type: 'plugin.change-approved'; name: string; hash: string; scanOverride: string | null }
  | { type: 'plugin.reloaded'; name: string; hash: string }
  | { type: 'plugin.reload-failed'; name: string; problems: Problem[] }
  | { type: 'plugin.removed'; name: string; dir: string };

export interface RegistryDeps {
  sources: PluginSource[];
  trust: TrustStore;
  /** Names of built-in tools no plugin may take. */
  builtins?: readonly string[];
  denylist?: readonly string[];
  thresholds?: ScanThresholds;
  /** --allowed-plugins: enabled for this run, pinned for this run only. */
  allowedPlugins?: readonly string[];
  clock?: Clock;
  /** Every lifecycle step, for the audit log (actor: "host" or "operator:NAME"). */
  record?: (event: PluginEvent, actor: string) => void;
  /** The list changed: the renderer refreshes. */
  changed?: (names: string[]) => void;
  /**
   * Reads a folder with a mod.ts/mod.js and no manifest as a module plugin (its exports read in
   * a sandboxed child: main/runner/module/describe-module.ts). Without it such a folder stays
   * "no manifest".
   */
  describeModule?: (dir: string) => Promise<LoadResult>;
}

export class RegistryError extends OperationError {
  constructor(readonly code: 'not_found' | 'invalid' | 'scan_failed' | 'quarantined' | 'disabled' | 'state', message: string) {
    super(code, message);
  }
}

export class PluginRegistry {
  private entries = new Map<string, PluginEntry>();
  /** list()'s answer until the next change of `entries`: every agent call asks for it (Gateway.tools). */
  private sorted: PluginEntry[] | null = null;
  private readonly thresholds: ScanThresholds;
  private readonly clock: Clock;
  private readonly allowed: Set<string>;
  private readonly adapterListeners = new Set<(dir: string) => void>();

  constructor(private readonly deps: RegistryDeps) {
    this.thresholds = deps.thresholds ?? DEFAULT_THRESHOLDS;
    this.clock = deps.clock ?? { now: () => Date.now() };
    this.allowed = new Set(deps.allowedPlugins ?? []);
  }

  /** Told when an adapter folder in a plugin place changed on disk (the watcher's reload found it), for main/adapters/. */
  onAdapterFolder(listener: (dir: string) => void): () => void {
    this.adapterListeners.add(listener);
    return () => this.adapterListeners.delete(listener);
  }

  get sources(): readonly PluginSource[] {
    return this.deps.sources;
  }

  /**
   * Full discovery: every source folder, in order; later sources override earlier ones. As a job
   * it reports plugins loaded and may be cancelled between them; the new list replaces the old
   * one only once every folder was loaded, so a cancelled rescan changes nothing.
   */
  async refreshAll(job: Chunked = unattended): Promise<void> {
    const folders = this.deps.sources.flatMap((source) => pluginFolders(source.dir).map((dir) => ({ dir, origin: source.origin })));
    job.progress(0, folders.length);
    const found: PluginEntry[] = [];
    for (const f of folders) {
      found.push(await this.load(f.dir, f.origin));
      job.progress(found.length, folders.length);
      if (found.length < folders.length) await job.checkpoint();
    }
    const next = this.resolveNames(found);
    const before = this.entries;
    this.entries = next;
    this.sorted = null;
    for (const e of next.values()) {
      const old = before.get(e.name);
      if (!old || old.dir !== e.dir) this.record({ type: 'plugin.discovered', name: e.name, dir: e.dir, origin: e.origin });
      this.recordState(e, old);
      this.pinAllowed(e);
    }
    for (const old of before.values()) if (!next.has(old.name)) this.record({ type: 'plugin.removed', name: old.name, dir: old.dir });
    this.deps.changed?.([...new Set([...before.keys(), ...next.keys()])]);
  }

  /**
   * One plugin folder changed on disk. The new version is validated and scanned first; an
   * enabled plugin whose files no longer match its pin is quarantined, not reloaded; a failed
   * reload of an unpinned plugin keeps the previous version and shows the error.
   */
  async refreshFolder(dir: string): Promise<void> {
    const existing = [...this.entries.values()].find((e) => e.dir === dir);
    if (existsSync(dir) && isAdapterFolder(dir)) {
      // Not a plugin of ours: main/adapters/ reads it (a folder that became an adapter leaves the list).
      if (existing) {
        this.entries.delete(existing.name);
        this.sorted = null;
        this.record({ type: 'plugin.removed', name: existing.name, dir });
        this.deps.changed?.([existing.name]);
      }
      for (const l of this.adapterListeners) l(dir);
      return;
    }
    if (!existsSync(dir)) {
      if (existing) {
        this.entries.delete(existing.name);
        this.sorted = null;
        this.record({ type: 'plugin.removed', name: existing.name, dir });
        this.deps.changed?.([existing.name]);
      }
      return;
    }
    const source = this.deps.sources.find((s) => dir.startsWith(s.dir));
    if (!source) return;
    const fresh = await this.load(dir, source.origin);
    if (existing && existing.name !== fresh.name) {
      // Renamed in its manifest: rediscover everything so overrides and collisions are right.
      await this.refreshAll();
      return;
    }
    const competing = [...this.entries.values()].filter((e) => e.name === fresh.name && e.dir !== dir);
    if (competing.length) {
      await this.refreshAll();
      return;
    }
    this.applyNameRules(fresh);
    fresh.notes.push(...(existing?.notes.filter((n) => n.includes('overrides')) ?? []));
    this.entries.set(fresh.name, fresh);
    this.sorted = null;
    if (!existing) this.record({ type: 'plugin.discovered', name: fresh.name, dir, origin: fresh.origin });
    else if (fresh.status !== 'quarantined' && fresh.digest && existing.digest?.hash !== fresh.digest.hash) {
      this.record({ type: 'plugin.reloaded', name: fresh.name, hash: fresh.digest.hash });
    }
    this.recordState(fresh, existing);
    this.pinAllowed(fresh);
    this.deps.changed?.([fresh.name]);
  }

  list(): PluginEntry[] {
    this.sorted ??= [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name));
    // A copy: callers may sort or filter what they get.
    return [...this.sorted];
  }

  get(name: string): PluginEntry | undefined {
    return this.entries.get(name);
  }

  require(name: string): PluginEntry {
    const e = this.entries.get(name);
    if (!e) throw new RegistryError('not_found', `No plugin named "${name}". Run \`gatehouse plugin list\` to see the plugins found.`);
    return e;
  }

  /** Enabling pins the folder's current hash. A failed scan needs an override reason. */
  async enable(name: string, operator: string, overrideReason?: string): Promise<PluginEntry> {
    const current = await this.reloadNow(this.require(name));
    if (current.status === 'invalid') throw new RegistryError('invalid', `${name} is invalid and cannot be enabled: ${firstError(current)}`);
    // An operator enabling a plugin pinned for this run only makes the pin last beyond the run.
    if (current.trust && current.status === 'enabled' && !this.deps.trust.pinnedForRun(name)) return current;
    if (current.trust && current.status === 'quarantined') {
      throw new RegistryError('quarantined', `${name} changed since it was enabled; review the change and approve it instead.`);
    }
    const next = this.pinEnabled(current, operator, operator, this.checkScan(current, overrideReason, operator));
    this.deps.changed?.([name]);
    return next;
  }

  /**
   * Pins the files of a plugin being enabled, so that from now on any change quarantines it:
   * by an operator (enable), or for this run by `serve --allowed-plugins` (pinAllowed). One path
   * for both, with one audit event (plugin.enabled).
   */
  private pinEnabled(current: PluginEntry, by: string, operator: string, override: TrustRecord['scanOverride'], forRun = false): PluginEntry {
    const rec = this.deps.trust.pin(current.name, current.dir, current.digest!, by, this.clock.now(), override, { forRun });
    const next: PluginEntry = { ...current, trust: rec, changes: [], status: 'enabled' };
    this.entries.set(current.name, next);
    this.sorted = null;
    this.record({ type: 'plugin.enabled', name: current.name, hash: rec.hash, scanOverride: override?.reason ?? null, ...(forRun ? { forRun: true } : {}) }, `operator:${operator}`);
    return next;
  }

  /**
   * A plugin `serve --allowed-plugins` enables (valid, scan passed, not pinned by an operator) is
   * pinned the first time it is loaded: a later change of its files quarantines it exactly as it
   * would an operator-enabled plugin. Security-sensitive: without the pin a reload re-hashed the
   * swapped code and ran it (issue #24, finding 6).
   */
  private pinAllowed(e: PluginEntry): PluginEntry {
    if (!e.runAllowed || e.trust || e.status !== 'enabled' || !e.digest) return e;
    return this.pinEnabled(e, ALLOWED_BY, operatorName(), null, true);
  }

  async disable(name: string, operator: string): Promise<PluginEntry> {
    const e = this.require(name);
    this.deps.trust.unpin(name);
    this.allowed.delete(name);
    const next = await this.reloadNow({ ...e, trust: null, runAllowed: false });
    this.record({ type: 'plugin.disabled', name }, `operator:${operator}`);
    this.deps.changed?.([name]);
    return next;
  }

  /** Re-approves a quarantined plugin: pins its current files after validating and scanning them. */
  async approveChange(name: string, operator: string, overrideReason?: string): Promise<PluginEntry> {
    const e = this.require(name);
    if (e.status !== 'quarantined') throw new RegistryError('state', `${name} is not quarantined; nothing to approve.`);
    const current = await this.reloadNow(e);
    if (current.problems.some((p) => p.severity === 'error')) throw new RegistryError('invalid', `${name} is invalid and cannot be approved: ${firstError(current)}`);
    const override = this.checkScan(current, overrideReason, operator);
    const rec = this.deps.trust.pin(name, current.dir, current.digest!, operator, this.clock.now(), override);
    const next: PluginEntry = { ...current, trust: rec, changes: [], status: 'enabled' };
    this.entries.set(name, next);
    this.sorted = null;
    this.record({ type: 'plugin.change-approved', name, hash: rec.hash, scanOverride: override?.reason ?? null }, `operator:${operator}`);
    this.deps.changed?.([name]);
    return next;
  }

  /**
   * Undoes a quarantining change: puts the approved copy of each changed or removed file back
   * and deletes the added ones, then checks the folder hashes to the pin again. Refused, with
   * nothing touched, when a changed file has no kept copy (a link, or over the copy size limit).
   */
  async rollBack(name: string, operator: string): Promise<PluginEntry> {
    const e = this.require(name);
    if (e.status !== 'quarantined' || !e.trust) throw new RegistryError('state', `${name} is not quarantined; there is no change to roll back.`);
    if (e.trust.dir !== e.dir) throw new RegistryError('state', `${name} was enabled from ${e.trust.dir} but is now provided by ${e.dir}; remove the other folder instead of rolling back.`);
    const pinned = new Map(e.trust.files.map((f) => [f.path, f]));
    const plan: { path: string; from: string | null }[] = [];
    for (const c of e.changes) {
      if (c.change === 'added') {
        plan.push({ path: c.path, from: null });
        continue;
      }
      const kept = this.deps.trust.snapshotPath(name, c.path);
      if (!kept) {
        const why = pinned.get(c.path)?.kind === 'l' ? 'it is a symbolic link' : 'it is larger than the copies Gatehouse keeps';
        throw new RegistryError('state', `${name} cannot be rolled back: no approved copy of ${c.path} was kept (${why}). Restore it by hand, or review the change and approve it.`);
      }
      plan.push({ path: c.path, from: kept });
    }
    // Deletions first: an added link where a folder was must go before files are put back under it.
    const root = realpathSync(e.dir);
    for (const step of [...plan.filter((p) => p.from === null), ...plan.filter((p) => p.from !== null)]) {
      const target = join(e.dir, step.path);
      // rm first even for a restore: copyFileSync would write through a link planted at the path.
      rmSync(target, { force: true, recursive: true });
      if (step.from === null) continue;
      mkdirSync(dirname(target), { recursive: true });
      // Never write outside the plugin folder, whatever links its folders have become.
      const parent = realpathSync(dirname(target));
      if (parent !== root && !parent.startsWith(root + sep)) throw new RegistryError('state', `${name} cannot be rolled back: ${step.path} now lies outside the plugin folder (through a link). Restore it by hand.`);
      // The approved bytes and mode (the pin covers the executable bit).
      copyFileSync(step.from, target);
      chmodSync(target, statSync(step.from).mode & 0o777);
    }
    const next = await this.reloadNow(this.require(name));
    if (next.status !== 'enabled') {
      const left = next.changes.map((c) => `${c.path} ${c.change}`).join(', ') || 'the folder hash differs';
      throw new RegistryError('state', `${name} was rolled back but still does not match the approved files (${left}); it stays quarantined.`);
    }
    this.record({ type: 'plugin.rolled-back', name, hash: e.trust.hash, files: plan.map((p) => ({ path: p.path, action: p.from === null ? 'deleted' : 'restored' })) }, `operator:${operator}`);
    this.deps.changed?.([name]);
    return next;
  }

  /**
   * An operator's mark that lets the manifest's `sandbox = "none"` take effect (or takes it
   * back). Only for a plugin pinned by an operator and unchanged since: the mark is bound to
   * that pin, so an approved change or a disable drops it.
   */
  setTrusted(name: string, operator: string, trusted: boolean, reason?: string): PluginEntry {
    const e = this.require(name);
    const why = reason?.trim() ?? '';
    if (!trusted) {
      if (!e.trust?.trusted) throw new RegistryError('state', `${name} is not marked trusted; there is nothing to take back.`);
      const rec = this.deps.trust.setTrusted(name, null);
      return this.trustChanged({ ...e, trust: rec }, { type: 'plugin.untrusted', name, hash: rec.hash, reason: why || null }, operator);
    }
    if (!why) throw new RegistryError('state', `Trusting ${name} needs a reason: it will run without the OS sandbox, and the reason is recorded in the audit log.`);
    if (e.manifest?.sandbox !== 'none') throw new RegistryError('state', `${name} does not ask to run without the sandbox (its manifest has no sandbox = "none"), so trusting it would change nothing.`);
    if (!e.trust) throw new RegistryError('disabled', `${name} must be enabled (its files pinned) before it can be trusted${e.runAllowed ? '; --allowed-plugins enables it for this run without a pin' : ''}. Enable it first: gatehouse plugin enable ${name}.`);
    // The files must still be the pinned ones: trust is given for what the operator reviewed.
    this.verifyForRun(name);
    const rec = this.deps.trust.setTrusted(name, { reason: why, by: operator, at: this.clock.now() });
    return this.trustChanged({ ...this.require(name), trust: rec }, { type: 'plugin.trusted', name, hash: rec.hash, reason: why }, operator);
  }

  private trustChanged(next: PluginEntry, event: PluginEvent, operator: string): PluginEntry {
    this.entries.set(next.name, next);
    this.sorted = null;
    this.record(event, `operator:${operator}`);
    this.deps.changed?.([next.name]);
    return next;
  }

  /**
   * The gate in front of every execution: re-hashes the folder now and compares it with what
   * the operator approved, so a file swapped after validation is caught, not run. With `copyTo`
   * (a private cache folder) `runDir` is an immutable copy of exactly the verified files, which
   * the caller runs instead of the plugin's own folder; a mismatch quarantines the plugin.
   */
  verifyForRun(name: string, opts: { copyTo?: string } = {}): { dir: string; manifest: PluginManifest; hash: string; runDir: string } {
    const e = this.require(name);
    if (!e.manifest || e.status === 'invalid') throw new RegistryError('invalid', `${name} is invalid: ${firstError(e)}`);
    if (e.status === 'quarantined') throw new RegistryError('quarantined', `${name} is quarantined: its files changed since it was enabled. Review and approve the change first.`);
    if (e.status !== 'enabled') throw new RegistryError('disabled', `${name} is not enabled. Enable it in the Plugins view or with \`gatehouse plugin enable ${name}\`.`);
    const expected = e.trust?.hash ?? e.digest?.hash;
    const now = digestFolder(e.dir);
    if (now.hash !== expected) {
      const changes = diffDigests(e.trust?.files ?? e.digest?.files ?? [], now.files);
      this.quarantine(e, changes, now, 'files changed after validation');
      throw new RegistryError('quarantined', `${name} was not run: its files changed after they were approved (${changes.map((c) => `${c.path} ${c.change}`).join(', ')}). It is quarantined until an operator approves the change.`);
    }
    if (opts.copyTo === undefined) return { dir: e.dir, manifest: e.manifest, hash: now.hash, runDir: e.dir };
    // What runs is a copy of the bytes just hashed (integrity-copy.ts): a swap after this check
    // cannot change it. A folder that changes while it is copied is caught here as well.
    const copy = verifiedCopy(e.dir, now.hash, opts.copyTo);
    if (!copy.ok) {
      const changes = diffDigests(e.trust?.files ?? e.digest?.files ?? [], copy.digest.files);
      this.quarantine(e, changes, copy.digest, 'files changed while they were verified for a run');
      throw new RegistryError('quarantined', `${name} was not run: its files changed while they were being verified (${changes.map((c) => `${c.path} ${c.change}`).join(', ')}). It is quarantined until an operator approves the change.`);
    }
    if (!copy.reused) {
      // A new digest: copies of versions no plugin is pinned to any more are of no use.
      const pinned = new Set<string>();
      for (const other of this.entries.values()) {
        const h = other.trust?.hash ?? other.digest?.hash;
        if (h) pinned.add(h);
      }
      pinned.add(now.hash);
      pruneCopies(opts.copyTo, pinned);
    }
    return { dir: e.dir, manifest: e.manifest, hash: now.hash, runDir: copy.dir };
  }

  /** Loads a folder into an entry: manifest, validation, scan, digest, trust and status. */
  private async load(dir: string, origin: PluginOrigin): Promise<PluginEntry> {
    const { loaded, problems, digest, scan } = await readPluginFolder(dir, { ...this.deps, thresholds: this.thresholds });
    const name = loaded.manifest?.name ?? nameFromProblems(dir);
    const trust = this.deps.trust.get(name) ?? null;
    const entry: PluginEntry = {
      name,
      dir,
      origin,
      manifestFile: loaded.manifestFile,
      manifest: loaded.manifest,
      problems,
      scan,
      digest,
      toolNames: [],
      notes: [],
      status: 'disabled',
      changes: [],
      runAllowed: this.allowed.has(name),
      trust,
      reloadProblems: [],
    };
    this.applyNameRules(entry);
    return entry;
  }

  private async reloadNow(e: PluginEntry): Promise<PluginEntry> {
    const fresh = await this.load(e.dir, e.origin);
    fresh.notes = e.notes;
    this.applyNameRules(fresh);
    this.entries.set(fresh.name, fresh);
    this.sorted = null;
    this.recordState(fresh, e);
    return fresh;
  }

  /** Tool names, built-in collisions and the status; called whenever an entry is (re)built. */
  private applyNameRules(e: PluginEntry): void {
    if (e.manifest) {
      const r = nameRules(e.manifest, e.manifestFile, this.deps.builtins ?? []);
      e.toolNames = r.toolNames;
      e.problems.push(...r.problems);
    }
    e.status = this.statusOf(e);
  }

  private statusOf(e: PluginEntry): PluginStatus {
    if (!e.manifest || e.problems.some((p) => p.severity === 'error')) {
      // A pinned plugin that broke is still quarantined: the files are not what was approved.
      if (e.trust && e.digest && e.digest.hash !== e.trust.hash) {
        e.changes = diffDigests(e.trust.files, e.digest.files);
        return 'quarantined';
      }
      return 'invalid';
    }
    if (e.trust) {
      if (e.trust.dir !== e.dir || !e.digest || e.digest.hash !== e.trust.hash) {
        e.changes = e.digest ? diffDigests(e.trust.files, e.digest.files) : [];
        if (e.trust.dir !== e.dir) e.notes.push(`Enabled from ${e.trust.dir}, but now provided by ${e.dir}.`);
        return 'quarantined';
      }
      return 'enabled';
    }
    if (e.scan && !e.scan.passed) return 'scan_failed';
    if (e.runAllowed) return 'enabled';
    return 'disabled';
  }

  /** Within one place a duplicate name is an error; a later place overrides an earlier one. */
  private resolveNames(found: PluginEntry[]): Map<string, PluginEntry> {
    const out = new Map<string, PluginEntry>();
    const byKey = new Map<string, PluginEntry[]>();
    for (const e of found) {
      const key = `${e.origin}\0${sourceOf(this.deps.sources, e.dir)}\0${e.name}`;
      byKey.set(key, [...(byKey.get(key) ?? []), e]);
    }
    for (const group of byKey.values()) {
      if (group.length < 2) continue;
      for (const e of group) {
        const others = group.filter((o) => o !== e).map((o) => o.dir);
        e.problems.push({ file: e.manifestFile ?? '.', path: 'name', severity: 'error', code: 'plugin.name-collision', message: `Two plugins in the same place are named "${e.name}" (${[e.dir, ...others].join(' and ')}); rename one.` });
        e.status = this.statusOf(e);
      }
    }
    for (const e of found) {
      const prev = out.get(e.name);
      const key = `${e.name}\0${e.dir}`;
      if (prev && prev.dir !== e.dir && sourceOf(this.deps.sources, prev.dir) !== sourceOf(this.deps.sources, e.dir)) {
        e.notes.push(`Overrides the plugin "${e.name}" in ${prev.dir} (a later plugin folder wins).`);
      } else if (prev && prev.dir !== e.dir) {
        // Same place, same name: both carry the collision error; keep both visible.
        out.set(key, e);
        continue;
      }
      out.set(e.name, e);
    }
    return out;
  }

  private checkScan(e: PluginEntry, overrideReason: string | undefined, operator: string): TrustRecord['scanOverride'] {
    if (!e.scan || e.scan.passed) return null;
    const reason = overrideReason?.trim();
    if (!reason) {
      throw new RegistryError('scan_failed', `${e.name} failed the security scan (${e.scan.findings.length} findings, total weight ${e.scan.totalWeight}). Fix the findings, or enable it anyway with a reason (--override-reason "…"), which is audited.`);
    }
    return { reason, by: operator, at: this.clock.now() };
  }

  private quarantine(e: PluginEntry, changes: FileChange[], digest: FolderDigest, reason: string): void {
    const next: PluginEntry = { ...e, digest, changes, status: 'quarantined' };
    this.entries.set(e.name, next);
    this.sorted = null;
    this.record({ type: 'plugin.quarantined', name: e.name, changes, reason });
    this.deps.changed?.([e.name]);
  }

  private recordState(e: PluginEntry, old: PluginEntry | undefined): void {
    const same = old && old.status === e.status && old.digest?.hash === e.digest?.hash;
    if (same) return;
    if (e.status === 'invalid') this.record({ type: 'plugin.invalid', name: e.name, dir: e.dir, problems: e.problems.filter((p) => p.severity === 'error') });
    else if (e.status === 'quarantined') this.record({ type: 'plugin.quarantined', name: e.name, changes: e.changes, reason: 'files changed since the plugin was enabled' });
    if (e.scan && e.manifest) this.record({ type: 'plugin.scanned', name: e.name, passed: e.scan.passed, totalWeight: e.scan.totalWeight, findings: e.scan.findings.length });
  }

  private record(event: PluginEvent, actor = 'host'): void {
    this.deps.record?.(event, actor);
  }
}

/** What reading one plugin folder found: the registry's entries and `gatehouse plugin validate`/`scan` are built from this one reading. */
export interface FolderReading {
  loaded: LoadResult;
  /** The manifest's problems, and the folder's when it cannot be hashed. */
  problems: Problem[];
  digest: FolderDigest | null;
  /** Null when the folder could not be read; else the scan of every file and of the manifest's text the model reads. */
  scan: ScanResult | null;
}

/**
 * Reads a plugin folder exactly as the registry does: the manifest (or, for a folder with a
 * mod.ts/mod.js and no manifest, the module's exports), its digest, and the security scan with
 * that manifest, so a module's systemPrompt and tool descriptions are scanned too. The CLI's
 * validate and scan use this same reading: a verdict differing from the registry's would let a
 * plugin pass one and fail the other (issue #26).
 */
export async function readPluginFolder(dir: string, deps: Pick<RegistryDeps, 'denylist' | 'describeModule' | 'thresholds'>): Promise<FolderReading> {
  let loaded = loadManifest(dir, { ...(deps.denylist ? { denylist: deps.denylist } : {}) });
  // A folder without a manifest may be a kind found by its entry file (a module's mod.ts); the host's loader reads it.
  if (loaded.manifestFile === null && deps.describeModule && providerForFolder(dir)) loaded = await deps.describeModule(dir);
  let digest: FolderDigest | null = null;
  const problems = [...loaded.problems];
  try {
    digest = digestFolder(dir);
  } catch (err) {
    problems.push({ file: '.', severity: 'error', code: 'plugin.unreadable', message: (err as Error).message });
  }
  const scan = digest ? await scanPlugin(dir, loaded.manifest, deps.thresholds ?? DEFAULT_THRESHOLDS) : null;
  return { loaded, problems, digest, scan };
}

/** The names agents call a plugin's tools by, and the problems of those names (MCP's rule, a built-in's name). */
export function nameRules(m: PluginManifest, manifestFile: string | null, builtins: readonly string[]): { toolNames: string[]; problems: Problem[] } {
  const problems: Problem[] = [];
  if (builtins.includes(m.name)) {
    problems.push({ file: manifestFile ?? '.', path: 'name', severity: 'error', code: 'plugin.builtin-collision', message: `The name "${m.name}" belongs to a built-in tool; rename the plugin.` });
  }
  const single = m.tools.length === 1 && m.tools[0]!.name === m.name;
  // The kind says how its tools are named (a module's always <plugin>__<tool>, as Triggerfish prefixes them); a kind without tools lists none.
  const naming = providerOf(m).toolNaming;
  const toolNames = naming === 'none' ? [] : single && naming === 'single-by-plugin-name' ? [m.name] : m.tools.map((t) => `${m.name}__${t.name}`);
  for (const t of toolNames) {
    if (!TOOL_NAME_RE.test(t)) {
      problems.push({ file: manifestFile ?? '.', severity: 'error', code: 'tool.name', message: `The tool name agents would see, "${t}", breaks MCP's rule (1-64 of A-Z a-z 0-9 _ -); shorten the plugin or tool name.` });
    }
  }
  return { toolNames, problems };
}

/**
 * Whether the plugin's `sandbox = "none"` takes effect: an operator marked it trusted, for the
 * pin it is enabled with, and the files are still that pin (a changed plugin is quarantined and
 * loses the mark when the change is approved).
 */
export function runsTrusted(e: PluginEntry | undefined): boolean {
  const t = e?.trust;
  return !!e && !!t?.trusted && e.status === 'enabled' && e.manifest?.sandbox === 'none' && t.trusted.hash === t.hash && e.digest?.hash === t.hash && t.dir === e.dir;
}

/** A gatehouse.toml that declares a terminal adapter kind (read by main/adapters/, which the registry must not import). */
function isAdapterToml(file: string): boolean {
  try {
    return /^\s*kind\s*=\s*["'](adapter|macro|matcher)["']/m.test(readFileSync(file, 'utf8').slice(0, 65536));
  } catch {
    return false;
  }
}

/** A terminal adapter's folder (ptywright's manifest.toml and no tool manifest, or a gatehouse.toml of an adapter kind): read by main/adapters/, not here. */
export function isAdapterFolder(dir: string): boolean {
  return (existsSync(join(dir, 'manifest.toml')) && !MANIFEST_FILE_NAMES.some((n) => existsSync(join(dir, n)))) || isAdapterToml(join(dir, 'gatehouse.toml'));
}

/** Sub-folders of a plugin place; a missing place is simply empty. */
export function pluginFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const d of readdirSync(root, { withFileTypes: true })) {
    if (d.name.startsWith('.')) continue;
    const full = join(root, d.name);
    try {
      if (isAdapterFolder(full)) continue;
      if (d.isDirectory() || (d.isSymbolicLink() && statSync(full).isDirectory())) out.push(d.isSymbolicLink() ? realpathSync(full) : full);
    } catch {
      // A dangling symlink is not a plugin.
    }
  }
  return out.sort();
}

function sourceOf(sources: readonly PluginSource[], dir: string): string {
  return sources.find((s) => dir.startsWith(s.dir))?.dir ?? '';
}

function nameFromProblems(dir: string): string {
  return basename(dir);
}

function firstError(e: PluginEntry): string {
  const p = e.problems.find((x) => x.severity === 'error');
  return p ? `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message}` : 'no manifest';
}
