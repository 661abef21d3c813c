// The operator side of a catalog: a source whose root the operator confirmed, refreshed through
// tuf-js (which enforces signatures, thresholds, version rollback, expiry and snapshot
// consistency), and installs that are verified before a single file lands in the plugins folder.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Updater, type TargetFile } from 'tuf-js';
import { loadManifest } from '../registry/manifest/load-manifest.js';
import { scanPlugin } from '../registry/scan/index.js';
import { judgeImports, refusal } from '../registry/manifest/wasm-abi.js';
import { readPluginModule } from '../registry/manifest/wasm-checks.js';
import { readModuleInfo } from '../registry/manifest/wasm-module-info.js';
import type { WasmSpec } from '../registry/types.js';
import { sha256Hex, unpackBundle } from './bundle.js';
import { FileFetcher } from './file-fetcher.js';
import { version as gatehouseVersion } from '../version.js';
import { bundleTarget, compareVersions, type IndexDoc, type RevocationsDoc, type SignedPermissions, type TargetCustom } from './publisher.js';

export class CatalogError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

export interface InstalledRecord {
  name: string;
  version: string;
  publisher: string;
  target: string;
  bundleSha256: string;
  keyIds: string[];
  /** The signed permissions of this version, to diff an update against. */
  permissions: SignedPermissions;
  dir: string;
  enabled: boolean;
  quarantined: { reason: string; at: string } | null;
}

export interface Consent {
  name: string;
  version: string;
  publisher: string;
  signerKeyIds: string[];
  reads: string[];
  writes: string[];
  reaches: string[];
  env: string[];
  limits: TargetCustom['limits'];
  scan: { signed: TargetCustom['scan']; local: { passed: boolean; totalWeight: number; findings: number } };
  source: TargetCustom['source'];
  /** Set for an update: what this version adds to (widened) or drops from (narrowed) the installed one's permissions. An update that widens needs an explicit approval of exactly these. */
  update: { from: string; widened: string[]; narrowed: string[] } | null;
}

export type CatalogEvent =
  | { type: 'catalog.installed'; catalog: string; name: string; version: string; keyIds: string[]; bundleSha256: string }
  | { type: 'catalog.quarantined'; catalog: string; name: string; version: string; reason: string };

export interface CatalogClientOptions {
  /** The source's name, shown to operators and written in audit events. */
  name: string;
  /** Where Gatehouse keeps this source's trusted metadata and install records. */
  stateDir: string;
  /** Where plugins are installed (one folder each). */
  pluginsDir: string;
  onEvent?: (e: CatalogEvent) => void;
  /** This Gatehouse's version, checked against a bundle's signed minimum ("dev" when run from source: not checked). */
  gatehouseVersion?: string;
}

interface SourceFile { location: string; rootKeyIds: string[] }

function baseUrl(location: string): string {
  if (/^https?:\/\//.test(location)) {
    // TUF's signatures protect the content over any transport; HTTPS is still required off this
    // machine so a network observer does not learn which plugins an operator installs.
    const u = new URL(location);
    if (u.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) throw new CatalogError('catalog.location', `the catalog URL ${JSON.stringify(location)} uses plain http; use https (plain http is only accepted on loopback)`);
    return location.replace(/\/?$/, '/');
  }
  if (!isAbsolute(location)) throw new CatalogError('catalog.location', `the catalog location ${JSON.stringify(location)} must be an absolute folder or an http(s) URL`);
  return pathToFileURL(resolve(location)).href.replace(/\/?$/, '/');
}

/** What an operator confirms before trusting a root: its key ids, threshold and expiry. Writes nothing. */
export function readRoot(rootJson: Buffer): { rootKeyIds: string[]; threshold: number | null; expires: string | null } {
  let root: { signed?: { _type?: string; expires?: string; roles?: { root?: { keyids?: string[]; threshold?: number } } } };
  try {
    root = JSON.parse(rootJson.toString('utf8'));
  } catch {
    throw new CatalogError('catalog.root', 'the root file is not JSON; pass the 1.root.json the publisher gave you');
  }
  const keyids = root.signed?.roles?.root?.keyids;
  if (root.signed?._type !== 'root' || !Array.isArray(keyids) || !keyids.every((k) => typeof k === 'string')) throw new CatalogError('catalog.root', 'the root file is not TUF root metadata (signed._type must be "root")');
  return { rootKeyIds: keyids, threshold: typeof root.signed.roles?.root?.threshold === 'number' ? root.signed.roles.root.threshold : null, expires: typeof root.signed.expires === 'string' ? root.signed.expires : null };
}

/** Checks a catalog location the way a refresh will use it (absolute folder, https, or http on loopback). */
export function checkLocation(location: string): void {
  baseUrl(location);
}

/**
 * Adds a source: the operator's root file becomes the only trust anchor for it. Returns the root's
 * key ids so the operator can compare them with what the publisher printed.
 */
export function addCatalogSource(stateDir: string, location: string, rootJson: Buffer): { rootKeyIds: string[] } {
  const keyids = readRoot(rootJson).rootKeyIds;
  baseUrl(location);
  mkdirSync(join(stateDir, 'metadata'), { recursive: true, mode: 0o700 });
  writeFileSync(join(stateDir, 'metadata', 'root.json'), rootJson);
  writeFileSync(join(stateDir, 'source.json'), JSON.stringify({ location, rootKeyIds: keyids } satisfies SourceFile, null, 2));
  return { rootKeyIds: keyids };
}

/** A newer signed version of an installed plugin, and how its permissions differ from the installed one's. */
export interface PendingUpdate {
  name: string;
  from: string;
  to: string;
  widened: string[];
  narrowed: string[];
}

export interface PluginPage {
  name: string;
  publisher: string;
  description: string;
  kind: string;
  version: string;
  versions: string[];
  latest: string;
  permissions: SignedPermissions;
  limits: TargetCustom['limits'];
  wasmLog: boolean | null;
  signerKeyIds: string[];
  scan: TargetCustom['scan'];
  source: TargetCustom['source'];
  minGatehouse: string;
  bundleSha256: string;
  length: number;
  installed: { version: string; enabled: boolean; quarantined: InstalledRecord['quarantined'] } | null;
}

/**
 * Until when the trusted metadata on disk is valid: the earliest expiry of timestamp, snapshot
 * and targets (tuf-js refuses the catalog once any of them expires). Null before the first refresh.
 */
export function validUntil(stateDir: string): string | null {
  let earliest: string | null = null;
  for (const role of ['timestamp', 'snapshot', 'targets']) {
    const p = join(stateDir, 'metadata', `${role}.json`);
    if (!existsSync(p)) return null;
    const e = (JSON.parse(readFileSync(p, 'utf8')) as { signed: { expires: string } }).signed.expires;
    if (earliest === null || Date.parse(e) < Date.parse(earliest)) earliest = e;
  }
  return earliest;
}

export class CatalogClient {
  constructor(private readonly opts: CatalogClientOptions) {}

  private source(): SourceFile {
    const p = join(this.opts.stateDir, 'source.json');
    if (!existsSync(p)) throw new CatalogError('catalog.unknown', `no catalog source in ${this.opts.stateDir}; add one with \`gatehouse catalog add-source\``);
    return JSON.parse(readFileSync(p, 'utf8')) as SourceFile;
  }

  private updater(): Updater {
    const base = baseUrl(this.source().location);
    const local = base.startsWith('file:');
    mkdirSync(join(this.opts.stateDir, 'downloads'), { recursive: true, mode: 0o700 });
    return new Updater({
      metadataDir: join(this.opts.stateDir, 'metadata'),
      metadataBaseUrl: base + 'metadata/',
      targetBaseUrl: base + 'targets/',
      targetDir: join(this.opts.stateDir, 'downloads'),
      ...(local ? { fetcher: new FileFetcher() } : {}),
      config: { fetchRetries: 0 },
    });
  }

  /** tuf-js's errors name the role and the check; we add which step and which catalog. */
  private async step<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof CatalogError) throw err;
      const e = err as Error;
      // tuf-js's error classes do not set .name; the class name is what says which check failed.
      const kind = e.constructor?.name && e.constructor.name !== 'Error' ? e.constructor.name : e.name;
      throw new CatalogError('catalog.verify', `catalog ${this.opts.name}: ${what} failed: ${kind}: ${e.message}`);
    }
  }

  private async fetchTarget(u: Updater, path: string): Promise<{ info: TargetFile; bytes: Buffer }> {
    const info = await this.step(`looking up ${path}`, () => u.getTargetInfo(path));
    if (!info) throw new CatalogError('catalog.not-signed', `catalog ${this.opts.name}: ${path} is not signed by any key trusted for that path (for plugins/<publisher>/… only the publisher's delegated key counts)`);
    const file = join(this.opts.stateDir, 'downloads', `${randomBytes(6).toString('hex')}.part`);
    try {
      await this.step(`downloading ${path}`, () => u.downloadTarget(info, file));
      return { info, bytes: readFileSync(file) };
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Refreshes metadata and reads the signed index and revocations; then quarantines revoked installs. */
  async refresh(): Promise<{ index: IndexDoc; revocations: RevocationsDoc; expires: string }> {
    const u = this.updater();
    await this.step('refreshing metadata', () => u.refresh());
    const index = JSON.parse((await this.fetchTarget(u, 'index.json')).bytes.toString('utf8')) as IndexDoc;
    const revocations = JSON.parse((await this.fetchTarget(u, 'revocations.json')).bytes.toString('utf8')) as RevocationsDoc;
    this.applyRevocations(revocations);
    const expires = validUntil(this.opts.stateDir) ?? '';
    // The verified index is kept so updates and plugin pages can be answered offline, from the
    // last metadata that passed every check.
    writeFileSync(join(this.opts.stateDir, 'index.json'), JSON.stringify(index));
    return { index, revocations, expires };
  }

  /** The index as of the last successful refresh (null before the first). */
  lastIndex(): IndexDoc | null {
    const p = join(this.opts.stateDir, 'index.json');
    return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as IndexDoc) : null;
  }

  /** Newer versions of installed plugins in the last verified index, with what each widens or narrows. */
  updates(): PendingUpdate[] {
    const index = this.lastIndex();
    if (!index) return [];
    const out: PendingUpdate[] = [];
    for (const rec of this.installed()) {
      if (rec.quarantined) continue;
      const entry = index.plugins.find((p) => p.name === rec.name);
      if (!entry || compareVersions(entry.latest, rec.version) <= 0) continue;
      out.push({ name: rec.name, from: rec.version, to: entry.latest, ...permissionChanges(rec.permissions, entry.permissions) });
    }
    return out;
  }

  /**
   * A plugin page: the signed record of one version (the latest by default), looked up through
   * the trusted delegations without downloading the bundle.
   */
  async describe(name: string, version?: string): Promise<PluginPage> {
    const u = this.updater();
    await this.step('refreshing metadata', () => u.refresh());
    const index = JSON.parse((await this.fetchTarget(u, 'index.json')).bytes.toString('utf8')) as IndexDoc;
    const entry = index.plugins.find((p) => p.name === name);
    if (!entry) throw new CatalogError('catalog.not-found', `catalog ${this.opts.name} has no plugin named ${JSON.stringify(name)}`);
    const v = version ?? entry.latest;
    if (!entry.versions.includes(v)) throw new CatalogError('catalog.not-found', `catalog ${this.opts.name} has no version ${v} of ${name} (it has ${entry.versions.join(', ')})`);
    const target = bundleTarget(entry.publisher, name, v);
    const info = await this.step(`looking up ${target}`, () => u.getTargetInfo(target));
    if (!info) throw new CatalogError('catalog.not-signed', `catalog ${this.opts.name}: ${target} is not signed by any key trusted for that path`);
    const custom = info.custom as unknown as TargetCustom;
    const installed = this.installed().find((r) => r.name === name) ?? null;
    return {
      name, publisher: entry.publisher, description: custom.description, kind: custom.kind, version: v, versions: entry.versions, latest: entry.latest,
      permissions: custom.permissions, limits: custom.limits, wasmLog: custom.wasmLog ?? null, signerKeyIds: this.delegatedKeyIds(entry.publisher),
      scan: custom.scan, source: custom.source, minGatehouse: custom.minGatehouse, bundleSha256: info.hashes['sha256'] ?? '', length: info.length,
      installed: installed ? { version: installed.version, enabled: installed.enabled, quarantined: installed.quarantined } : null,
    };
  }

  /** Search over the signed index: every query word must appear in the name, description or publisher. */
  static search(index: IndexDoc, query: string): IndexDoc['plugins'] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return index.plugins.filter((p) => {
      const hay = `${p.name} ${p.description} ${p.publisher}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  }

  installed(): InstalledRecord[] {
    const p = join(this.opts.stateDir, 'installed.json');
    return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as InstalledRecord[]) : [];
  }
  private saveInstalled(list: InstalledRecord[]): void {
    const p = join(this.opts.stateDir, 'installed.json');
    writeFileSync(p + '.tmp', JSON.stringify(list, null, 2));
    renameSync(p + '.tmp', p);
  }

  /** Installed plugins stay disabled until the operator enables them. */
  setEnabled(name: string, enabled: boolean): InstalledRecord {
    const list = this.installed();
    const rec = list.find((r) => r.name === name);
    if (!rec) throw new CatalogError('catalog.not-installed', `${name} was not installed from catalog ${this.opts.name}`);
    if (enabled && rec.quarantined) throw new CatalogError('catalog.quarantined', `${name} is quarantined (${rec.quarantined.reason}); it cannot be enabled`);
    rec.enabled = enabled;
    this.saveInstalled(list);
    return rec;
  }

  private applyRevocations(rev: RevocationsDoc): void {
    const list = this.installed();
    let changed = false;
    for (const rec of list) {
      if (rec.quarantined) continue;
      const hit = rev.revoked.find((r) => r.name === rec.name && (r.version === '*' || r.version === rec.version));
      if (!hit) continue;
      // Moved out of the plugins folder so no registry scan or runner can pick it up again.
      const q = join(this.opts.stateDir, 'quarantine');
      mkdirSync(q, { recursive: true, mode: 0o700 });
      const dest = join(q, `${rec.name}-${rec.version}-${randomBytes(3).toString('hex')}`);
      if (existsSync(rec.dir)) renameSync(rec.dir, dest);
      rec.dir = dest;
      rec.enabled = false;
      rec.quarantined = { reason: hit.reason, at: new Date().toISOString() };
      changed = true;
      this.opts.onEvent?.({ type: 'catalog.quarantined', catalog: this.opts.name, name: rec.name, version: rec.version, reason: hit.reason });
    }
    if (changed) this.saveInstalled(list);
  }

  /**
   * Verifies and installs NAME[@VERSION]. `consent` sees everything the plugin may do before
   * anything is moved into the plugins folder; returning false leaves nothing on disk.
   */
  async install(spec: string, consent: (c: Consent) => boolean | Promise<boolean> = () => true): Promise<InstalledRecord> {
    const at = spec.lastIndexOf('@');
    const name = at > 0 ? spec.slice(0, at) : spec;
    const wanted = at > 0 ? spec.slice(at + 1) : undefined;
    const { index, revocations } = await this.refresh();
    const entry = index.plugins.find((p) => p.name === name);
    if (!entry) throw new CatalogError('catalog.not-found', `catalog ${this.opts.name} has no plugin named ${JSON.stringify(name)}; try \`gatehouse catalog search\``);
    const version = wanted ?? entry.latest;
    if (!entry.versions.includes(version)) throw new CatalogError('catalog.not-found', `catalog ${this.opts.name} has no version ${version} of ${name} (it has ${entry.versions.join(', ')})`);
    const revoked = revocations.revoked.find((r) => r.name === name && (r.version === '*' || r.version === version));
    if (revoked) throw new CatalogError('catalog.revoked', `${name}@${version} is revoked: ${revoked.reason}`);
    const prior = this.installed().find((r) => r.name === name && !r.quarantined);
    if (prior && compareVersions(version, prior.version) < 0 && !wanted) throw new CatalogError('catalog.downgrade', `${name} ${prior.version} is installed; ${version} is older, and a downgrade needs an explicit ${name}@${version}`);
    if (prior && prior.version === version) throw new CatalogError('catalog.installed', `${name}@${version} is already installed`);

    const u = this.updater();
    const target = bundleTarget(entry.publisher, name, version);
    const { info, bytes } = await this.fetchTarget(u, target);
    const custom = info.custom as unknown as TargetCustom;
    const bundleSha = sha256Hex(bytes);
    if (custom.name !== name || custom.version !== version || custom.publisher !== entry.publisher) throw new CatalogError('catalog.metadata', `${target}: the signed metadata names ${custom.publisher}/${custom.name}@${custom.version}, not what the index lists`);
    if (custom.scan?.bundleSha256 !== bundleSha) throw new CatalogError('catalog.metadata', `${target}: the signed scan result is for another bundle (${custom.scan?.bundleSha256}), not ${bundleSha}`);
    const running = this.opts.gatehouseVersion ?? gatehouseVersion;
    if (running !== 'dev' && custom.minGatehouse && compareVersions(custom.minGatehouse, running) > 0) throw new CatalogError('catalog.version', `${target} needs Gatehouse ${custom.minGatehouse} or later; this is ${running}. Update Gatehouse, or install an older version of ${name}`);
    const keyIds = this.delegatedKeyIds(entry.publisher);

    mkdirSync(this.opts.pluginsDir, { recursive: true });
    // Staged beside the source's state, not in the plugins folder, so the registry's watcher never
    // sees a half-checked folder; both live in GATEHOUSE_HOME, so the final rename stays on one disk.
    mkdirSync(join(this.opts.stateDir, 'staging'), { recursive: true, mode: 0o700 });
    const staging = join(this.opts.stateDir, 'staging', randomBytes(6).toString('hex'));
    try {
      try {
        unpackBundle(bytes, staging);
      } catch (err) {
        throw new CatalogError('catalog.bundle', `${target}: unsafe bundle refused: ${(err as Error).message}`);
      }
      const loaded = loadManifest(staging);
      if (!loaded.manifest) throw new CatalogError('catalog.manifest', `${target}: the manifest is invalid: ${loaded.problems.map((p) => p.message).join('; ')}`);
      const m = loaded.manifest;
      const manifestSha = sha256Hex(readFileSync(join(staging, m.manifestFile)));
      if (manifestSha !== custom.manifestSha256) throw new CatalogError('catalog.manifest', `${target}: the manifest's SHA-256 ${manifestSha} is not the signed ${custom.manifestSha256}`);
      if (m.name !== name) throw new CatalogError('catalog.manifest', `${target}: the manifest names ${m.name}, not ${name}`);
      const diff = permissionDiff(custom.permissions, m.permissions);
      if (diff) throw new CatalogError('catalog.permissions', `${target}: the manifest's permissions differ from the signed ones (${diff}); refused`);
      if (m.wasm) checkSignedImports(target, staging, m.wasm, custom);
      const local = await scanPlugin(staging, m);
      if (!local.passed) throw new CatalogError('catalog.scan', `${target}: the local scan failed (weight ${local.totalWeight}, ${local.findings.length} findings)`);
      const dest = join(this.opts.pluginsDir, name);
      // Said before the consent screen, so the operator is not asked about an install that cannot happen.
      if (!prior && existsSync(dest)) throw new CatalogError('catalog.exists', `${dest} already exists and was not installed from this catalog; remove or rename it first`);
      const ok = await consent({
        name, version, publisher: entry.publisher, signerKeyIds: keyIds,
        reads: custom.permissions.read, writes: custom.permissions.write, reaches: custom.permissions.hosts, env: custom.permissions.env,
        limits: custom.limits, scan: { signed: custom.scan, local: { passed: local.passed, totalWeight: local.totalWeight, findings: local.findings.length } }, source: custom.source,
        update: prior ? { from: prior.version, ...permissionChanges(prior.permissions, custom.permissions) } : null,
      });
      if (!ok) throw new CatalogError('catalog.declined', `the operator declined ${name}@${version}`);
      if (prior) {
        // The old copy is kept beside the state so an update can be rolled back by the operator.
        const old = join(this.opts.stateDir, 'previous', `${name}-${prior.version}`);
        mkdirSync(join(this.opts.stateDir, 'previous'), { recursive: true });
        rmSync(old, { recursive: true, force: true });
        if (existsSync(prior.dir)) renameSync(prior.dir, old);
      } else if (existsSync(dest)) {
        throw new CatalogError('catalog.exists', `${dest} already exists and was not installed from this catalog; remove or rename it first`);
      }
      renameSync(staging, dest);
      const rec: InstalledRecord = { name, version, publisher: entry.publisher, target, bundleSha256: bundleSha, keyIds, permissions: custom.permissions, dir: dest, enabled: false, quarantined: null };
      this.saveInstalled([...this.installed().filter((r) => r.name !== name), rec]);
      this.opts.onEvent?.({ type: 'catalog.installed', catalog: this.opts.name, name, version, keyIds, bundleSha256: bundleSha });
      return rec;
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** The key ids the trusted top-level targets delegate this publisher's path to (what the consent screen shows as signer). */
  private delegatedKeyIds(publisher: string): string[] {
    const t = JSON.parse(readFileSync(join(this.opts.stateDir, 'metadata', 'targets.json'), 'utf8')) as { signed: { delegations?: { roles: { name: string; keyids: string[] }[] } } };
    return t.signed.delegations?.roles.find((r) => r.name === `publisher-${publisher}`)?.keyids ?? [];
  }
}

/** Each permission an update adds or drops, as "hosts: api.example.com". */
export function permissionChanges(before: SignedPermissions, after: SignedPermissions): { widened: string[]; narrowed: string[] } {
  const widened: string[] = [];
  const narrowed: string[] = [];
  for (const k of ['read', 'write', 'hosts', 'env'] as const) {
    const b = new Set(before?.[k] ?? []);
    const a = new Set(after[k] ?? []);
    for (const x of a) if (!b.has(x)) widened.push(`${k}: ${x}`);
    for (const x of b) if (!a.has(x)) narrowed.push(`${k}: ${x}`);
  }
  return { widened, narrowed };
}

/** Empty when equal; otherwise names each list and what is extra or missing. */
export function permissionDiff(signed: SignedPermissions, actual: SignedPermissions): string {
  const out: string[] = [];
  for (const k of ['read', 'write', 'hosts', 'env'] as const) {
    const s = new Set(signed[k] ?? []);
    const a = new Set(actual[k] ?? []);
    const extra = [...a].filter((x) => !s.has(x));
    const missing = [...s].filter((x) => !a.has(x));
    if (extra.length) out.push(`${k} adds ${extra.join(', ')}`);
    if (missing.length) out.push(`${k} drops ${missing.join(', ')}`);
  }
  return out.join('; ');
}

/**
 * A WebAssembly module may import only what its SIGNED permissions grant (the same import-to-
 * permission mapping the registry applies to the manifest): the manifest could otherwise link
 * log functions, or a read/write/hosts function, that the publisher's signature never covered.
 */
function checkSignedImports(target: string, dir: string, wasm: WasmSpec, custom: TargetCustom): void {
  const read = readPluginModule(dir, wasm.module, wasm.limits.maxModuleMb * 2 ** 20);
  if (!read.bytes) throw new CatalogError('catalog.wasm-imports', `${target}: the module ${wasm.module} cannot be read: ${read.problems.map((p) => p.message).join('; ')}`);
  const info = readModuleInfo(read.bytes);
  const perms = custom.permissions;
  const refused = judgeImports(info.imports, { read: perms.read, write: perms.write, hosts: perms.hosts, log: custom.wasmLog === true }).filter((v) => !v.granted);
  if (refused.length) throw new CatalogError('catalog.wasm-imports', `${target}: the module's imports are not within its signed permissions: ${refused.map((v) => refusal(v).replace('the manifest does not grant it', 'the signed permissions do not grant it')).join('; ')}; refused`);
}
