// The publisher side of a catalog: keys, TUF metadata and bundles in a folder. A catalog folder
// `DIR` holds `keys/` (private keys; root and targets keys belong offline, see docs/catalog.md)
// and `repository/` (what a mirror serves: `metadata/` and `targets/`). Trust is The Update
// Framework's: root (2 of 3 keys, a year) names the targets, snapshot and timestamp keys; targets
// delegates `plugins/<publisher>/*` to each publisher's own key; snapshot and timestamp are short-lived
// so a mirror that stops updating ("freeze") is noticed within days.
import { generateKeyPairSync, createPrivateKey, sign as edSign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync, openSync, fchmodSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Metadata, MetadataKind, Signature } from '@tufjs/models';
import canonicalize from 'canonicalize';
import { loadManifest } from '../registry/manifest/load-manifest.js';
import { scanPlugin } from '../registry/scan/index.js';
import { packBundle, sha256Hex } from './bundle.js';

const DAY = 86_400_000;
export const EXPIRY = { root: 365 * DAY, targets: 90 * DAY, publisher: 90 * DAY, snapshot: 7 * DAY, timestamp: 1 * DAY } as const;
const SPEC = '1.0.31';
const PUBLISHER_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;

export interface CatalogKey {
  keyid: string;
  public: string; // hex, raw 32 bytes
  private: string; // PKCS#8 PEM
}

export interface SignedPermissions {
  read: string[];
  write: string[];
  hosts: string[];
  env: string[];
}

/** What the catalog signs about one bundle, beside its length and hash. */
export interface TargetCustom {
  name: string;
  publisher: string;
  kind: string;
  version: string;
  description: string;
  permissions: SignedPermissions;
  limits: { timeoutSecs: number; fuel?: number; memoryMb?: number };
  /** WebAssembly plugins: whether the log host functions are linked (permissions.log). */
  wasmLog?: boolean;
  manifestFile: string;
  manifestSha256: string;
  scan: { passed: boolean; totalWeight: number; findings: number; bundleSha256: string };
  minGatehouse: string;
  source: { repository: string; commit: string } | null;
}

export interface PublishOptions {
  /** The clock used for expiry dates (tests and reproducible builds). */
  now?: Date;
}

const rolePath = (dir: string, ...p: string[]): string => join(dir, 'repository', ...p);

function writeSecret(path: string, text: string): void {
  // Created 0600 and fchmod'ed in case the file already existed with a wider mode.
  const fd = openSync(path, 'w', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

export function newKey(): CatalogKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  return { keyid: keyIdOf(raw), public: raw, private: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString() };
}

export function publicKeyJson(k: { public: string }): Record<string, unknown> {
  return { keytype: 'ed25519', scheme: 'ed25519', keyval: { public: k.public } };
}

/** TUF key ids: SHA-256 of the canonical JSON of the public key. */
export function keyIdOf(publicHex: string): string {
  return sha256Hex(canonicalize(publicKeyJson({ public: publicHex })) ?? '');
}

function signer(k: CatalogKey): (data: Buffer) => Signature {
  const priv = createPrivateKey(k.private);
  return (data) => new Signature({ keyID: k.keyid, sig: edSign(null, data, priv).toString('hex') });
}

export function readKey(dir: string, name: string): CatalogKey {
  const p = join(dir, 'keys', `${name}.json`);
  if (!existsSync(p)) throw new Error(`the key ${name} is not in ${join(dir, 'keys')}; bring the offline key back (see docs/catalog.md) and try again`);
  return JSON.parse(readFileSync(p, 'utf8')) as CatalogKey;
}

function saveKey(dir: string, name: string, k: CatalogKey): void {
  writeSecret(join(dir, 'keys', `${name}.json`), JSON.stringify(k, null, 2) + '\n');
}

function iso(d: Date, plusMs: number): string {
  return new Date(Math.floor((d.getTime() + plusMs) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

type Kind = 'root' | 'targets' | 'snapshot' | 'timestamp';
const KIND: Record<Kind, MetadataKind> = { root: MetadataKind.Root, targets: MetadataKind.Targets, snapshot: MetadataKind.Snapshot, timestamp: MetadataKind.Timestamp };

function signDoc(kind: Kind, signed: Record<string, unknown>, keys: CatalogKey[]): Record<string, unknown> {
  const md = Metadata.fromJSON(KIND[kind] as MetadataKind.Root, { signed, signatures: [] } as never);
  for (const k of keys) md.sign(signer(k), true);
  return md.toJSON() as Record<string, unknown>;
}

function writeAtomic(path: string, data: string | Buffer): void {
  writeFileSync(path + '.tmp', data);
  renameSync(path + '.tmp', path);
}

function writeMeta(dir: string, role: string, doc: Record<string, unknown>, consistent: boolean): Buffer {
  const bytes = Buffer.from(JSON.stringify(doc, null, 1) + '\n');
  const version = (doc.signed as { version: number }).version;
  if (consistent) writeAtomic(rolePath(dir, 'metadata', `${version}.${role}.json`), bytes);
  writeAtomic(rolePath(dir, 'metadata', `${role}.json`), bytes);
  return bytes;
}

function readMeta(dir: string, role: string): Record<string, unknown> {
  return JSON.parse(readFileSync(rolePath(dir, 'metadata', `${role}.json`), 'utf8')) as Record<string, unknown>;
}

export interface InitResult {
  rootKeyIds: string[];
  keys: { role: string; path: string; keep: string }[];
}

/** Creates keys and version 1 of every role. Refuses a folder that already holds a catalog. */
export function initCatalog(dir: string, opts: PublishOptions = {}): InitResult {
  if (existsSync(join(dir, 'keys')) || existsSync(join(dir, 'repository'))) throw new Error(`${dir} already holds a catalog (keys/ or repository/ exists); choose an empty folder`);
  mkdirSync(join(dir, 'keys'), { recursive: true, mode: 0o700 });
  mkdirSync(rolePath(dir, 'metadata'), { recursive: true });
  mkdirSync(rolePath(dir, 'targets'), { recursive: true });
  const now = opts.now ?? new Date();
  const roots = [newKey(), newKey(), newKey()];
  const targets = newKey();
  const snapshot = newKey();
  const timestamp = newKey();
  roots.forEach((k, i) => saveKey(dir, `root-${i + 1}`, k));
  saveKey(dir, 'targets', targets);
  saveKey(dir, 'snapshot', snapshot);
  saveKey(dir, 'timestamp', timestamp);
  const keys: Record<string, unknown> = {};
  for (const k of [...roots, targets, snapshot, timestamp]) keys[k.keyid] = publicKeyJson(k);
  const root = {
    _type: 'root', spec_version: SPEC, version: 1, expires: iso(now, EXPIRY.root), consistent_snapshot: true, keys,
    roles: {
      root: { keyids: roots.map((k) => k.keyid), threshold: 2 },
      targets: { keyids: [targets.keyid], threshold: 1 },
      snapshot: { keyids: [snapshot.keyid], threshold: 1 },
      timestamp: { keyids: [timestamp.keyid], threshold: 1 },
    },
  };
  writeMeta(dir, 'root', signDoc('root', root, roots), true);
  const targetsDoc = { _type: 'targets', spec_version: SPEC, version: 1, expires: iso(now, EXPIRY.targets), targets: {}, delegations: { keys: {}, roles: [] } };
  writeMeta(dir, 'targets', signDoc('targets', targetsDoc, [targets]), true);
  writeIndexAndRevocations(dir, { plugins: [] }, { revoked: [] }, now);
  return {
    rootKeyIds: roots.map((k) => k.keyid),
    keys: [
      ...roots.map((_, i) => ({ role: `root-${i + 1}`, path: join(dir, 'keys', `root-${i + 1}.json`), keep: 'offline, each with a different person; 2 of 3 sign a new root' })),
      { role: 'targets', path: join(dir, 'keys', 'targets.json'), keep: 'offline; needed to add a publisher, update the index or revoke' },
      { role: 'snapshot', path: join(dir, 'keys', 'snapshot.json'), keep: 'online, on the machine that runs `gatehouse catalog sign`' },
      { role: 'timestamp', path: join(dir, 'keys', 'timestamp.json'), keep: 'online; re-sign at least daily or clients refuse the catalog as frozen' },
    ],
  };
}

export interface IndexEntry {
  name: string;
  publisher: string;
  description: string;
  kind: string;
  latest: string;
  versions: string[];
  permissions: SignedPermissions;
  target: string;
}
export interface IndexDoc { plugins: IndexEntry[] }
export interface RevocationsDoc { revoked: { name: string; version: string; reason: string; at: string }[] }

function addTopTarget(targetsSigned: Record<string, unknown>, dir: string, path: string, bytes: Buffer): void {
  const hash = sha256Hex(bytes);
  writeAtomic(rolePath(dir, 'targets', `${hash}.${path}`), bytes);
  (targetsSigned.targets as Record<string, unknown>)[path] = { length: bytes.length, hashes: { sha256: hash } };
}

/** Re-signs top-level targets with new index.json/revocations.json, then snapshot and timestamp. Needs the targets key. */
export function writeIndexAndRevocations(dir: string, index: IndexDoc, revocations: RevocationsDoc, now: Date): void {
  const prev = readMeta(dir, 'targets').signed as Record<string, unknown>;
  const signed = { ...prev, version: (prev.version as number) + 1, expires: iso(now, EXPIRY.targets), targets: { ...(prev.targets as object) } };
  index.plugins.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  addTopTarget(signed, dir, 'index.json', Buffer.from(JSON.stringify(index) + '\n'));
  addTopTarget(signed, dir, 'revocations.json', Buffer.from(JSON.stringify(revocations) + '\n'));
  writeMeta(dir, 'targets', signDoc('targets', signed, [readKey(dir, 'targets')]), true);
  signSnapshotAndTimestamp(dir, { now });
}

export function readIndex(dir: string): IndexDoc {
  return readTopTarget(dir, 'index.json') as IndexDoc;
}
export function readRevocations(dir: string): RevocationsDoc {
  return readTopTarget(dir, 'revocations.json') as RevocationsDoc;
}
function readTopTarget(dir: string, path: string): unknown {
  const t = (readMeta(dir, 'targets').signed as { targets: Record<string, { hashes: { sha256: string } }> }).targets[path];
  if (!t) throw new Error(`the catalog in ${dir} has no ${path}`);
  return JSON.parse(readFileSync(rolePath(dir, 'targets', `${t.hashes.sha256}.${path}`), 'utf8'));
}

/** `gatehouse catalog sign`: new snapshot (listing every targets file's version) and timestamp. */
export function signSnapshotAndTimestamp(dir: string, opts: PublishOptions & { timestampExpiresMs?: number } = {}): void {
  const now = opts.now ?? new Date();
  const targets = readMeta(dir, 'targets').signed as { version: number; delegations?: { roles: { name: string }[] } };
  const meta: Record<string, unknown> = { 'targets.json': { version: targets.version } };
  for (const r of targets.delegations?.roles ?? []) meta[`${r.name}.json`] = { version: (readMeta(dir, r.name).signed as { version: number }).version };
  let snapVersion = 1;
  if (existsSync(rolePath(dir, 'metadata', 'snapshot.json'))) snapVersion = (readMeta(dir, 'snapshot').signed as { version: number }).version + 1;
  const snapDoc = signDoc('snapshot', { _type: 'snapshot', spec_version: SPEC, version: snapVersion, expires: iso(now, EXPIRY.snapshot), meta }, [readKey(dir, 'snapshot')]);
  const snapBytes = writeMeta(dir, 'snapshot', snapDoc, true);
  let tsVersion = 1;
  if (existsSync(rolePath(dir, 'metadata', 'timestamp.json'))) tsVersion = (readMeta(dir, 'timestamp').signed as { version: number }).version + 1;
  const ts = {
    _type: 'timestamp', spec_version: SPEC, version: tsVersion, expires: iso(now, opts.timestampExpiresMs ?? EXPIRY.timestamp),
    meta: { 'snapshot.json': { version: snapVersion, length: snapBytes.length, hashes: { sha256: sha256Hex(snapBytes) } } },
  };
  writeMeta(dir, 'timestamp', signDoc('timestamp', ts, [readKey(dir, 'timestamp')]), false);
}

/** Adds a publisher: a new key and a delegation of `plugins/<name>/*` to it. Needs the targets key. */
export function addPublisher(dir: string, name: string, opts: PublishOptions = {}): CatalogKey {
  if (!PUBLISHER_NAME.test(name)) throw new Error(`--publisher ${JSON.stringify(name)} is not a valid publisher name; use 1-40 lowercase letters, digits and dashes`);
  const role = `publisher-${name}`;
  const now = opts.now ?? new Date();
  const key = newKey();
  saveKey(dir, role, key);
  const prev = readMeta(dir, 'targets').signed as Record<string, unknown> & { delegations: { keys: Record<string, unknown>; roles: Record<string, unknown>[] } };
  if (prev.delegations.roles.some((r) => r.name === role)) throw new Error(`the publisher ${name} already exists`);
  const delegations = { keys: { ...prev.delegations.keys, [key.keyid]: publicKeyJson(key) }, roles: [...prev.delegations.roles, { name: role, keyids: [key.keyid], threshold: 1, terminating: true, paths: [`plugins/${name}/*`] }] };
  const pubDoc = { _type: 'targets', spec_version: SPEC, version: 1, expires: iso(now, EXPIRY.publisher), targets: {} };
  writeMeta(dir, role, signDoc('targets', pubDoc, [key]), true);
  const signed = { ...prev, version: (prev.version as number) + 1, expires: iso(now, EXPIRY.targets), delegations };
  writeMeta(dir, 'targets', signDoc('targets', signed, [readKey(dir, 'targets')]), true);
  signSnapshotAndTimestamp(dir, { now });
  return key;
}

export interface AddPluginOptions extends PublishOptions {
  publisher: string;
  source?: { repository: string; commit: string };
  minGatehouse?: string;
  /** Sign with this key instead of the publisher's own (tests of a wrong signer). */
  signWith?: CatalogKey;
}

/** `gatehouse catalog add`: packs, scans and signs one plugin folder as `plugins/<publisher>/<name>-<version>.bundle`. */
export async function addPlugin(dir: string, pluginDir: string, opts: AddPluginOptions): Promise<{ target: string; custom: TargetCustom }> {
  const now = opts.now ?? new Date();
  const loaded = loadManifest(pluginDir);
  if (!loaded.manifest) throw new Error(`the plugin in ${pluginDir} has an invalid manifest: ${loaded.problems.map((p) => p.message).join('; ')}`);
  const m = loaded.manifest;
  if (!m.version) throw new Error(`the plugin ${m.name} has no version in its manifest; set version = "x.y.z" so the catalog can order updates`);
  const role = `publisher-${opts.publisher}`;
  if (!existsSync(rolePath(dir, 'metadata', `${role}.json`))) addPublisher(dir, opts.publisher, { now });
  const { bytes } = packBundle(pluginDir);
  const bundleSha = sha256Hex(bytes);
  const scan = await scanPlugin(pluginDir, m);
  const custom: TargetCustom = {
    name: m.name, publisher: opts.publisher, kind: m.kind, version: m.version, description: m.description,
    permissions: { read: [...m.permissions.read], write: [...m.permissions.write], hosts: [...m.permissions.hosts], env: [...m.permissions.env] },
    limits: { timeoutSecs: m.timeoutSecs, ...(m.wasm ? { fuel: m.wasm.limits.fuel, memoryMb: m.wasm.limits.memoryMb } : {}) },
    ...(m.wasm ? { wasmLog: m.wasm.log } : {}),
    manifestFile: m.manifestFile,
    manifestSha256: sha256Hex(readFileSync(join(pluginDir, m.manifestFile))),
    // Bound to the bundle's hash so a scan result cannot be carried over to other bytes.
    scan: { passed: scan.passed, totalWeight: scan.totalWeight, findings: scan.findings.length, bundleSha256: bundleSha },
    minGatehouse: opts.minGatehouse ?? '0.1.0',
    source: opts.source ?? null,
  };
  // Flat under the publisher's folder: TUF's `*` matches one path segment, so `plugins/<publisher>/*` covers exactly these.
  const target = bundleTarget(opts.publisher, m.name, m.version);
  mkdirSync(rolePath(dir, 'targets', 'plugins', opts.publisher), { recursive: true });
  writeAtomic(rolePath(dir, 'targets', 'plugins', opts.publisher, `${bundleSha}.${m.name}-${m.version}.bundle`), bytes);
  const prev = readMeta(dir, role).signed as Record<string, unknown> & { version: number; targets: Record<string, unknown> };
  const signed = { ...prev, version: prev.version + 1, expires: iso(now, EXPIRY.publisher), targets: { ...prev.targets, [target]: { length: bytes.length, hashes: { sha256: bundleSha }, custom } } };
  writeMeta(dir, role, signDoc('targets', signed, [opts.signWith ?? readKey(dir, role)]), true);
  const index = readIndex(dir);
  const existing = index.plugins.find((p) => p.name === m.name);
  if (existing && existing.publisher !== opts.publisher) throw new Error(`the name ${m.name} belongs to the publisher ${existing.publisher}; choose another name`);
  const versions = [...new Set([...(existing?.versions ?? []), m.version])].sort(compareVersions);
  const latest = versions[versions.length - 1] as string;
  const entry: IndexEntry = existing && latest !== m.version
    ? { ...existing, versions }
    : { name: m.name, publisher: opts.publisher, description: m.description, kind: m.kind, latest, versions, permissions: custom.permissions, target };
  writeIndexAndRevocations(dir, { plugins: [...index.plugins.filter((p) => p.name !== m.name), entry] }, readRevocations(dir), now);
  return { target, custom };
}

export function bundleTarget(publisher: string, name: string, version: string): string {
  return `plugins/${publisher}/${name}-${version}.bundle`;
}

/** `gatehouse catalog revoke`: a signed revocation that quarantines installed copies on their next refresh. */
export function revokePlugin(dir: string, name: string, version: string, reason: string, opts: PublishOptions = {}): void {
  if (!reason.trim()) throw new Error('--reason is required: operators see it beside the quarantined plugin');
  const now = opts.now ?? new Date();
  const rev = readRevocations(dir);
  rev.revoked.push({ name, version, reason, at: now.toISOString() });
  writeIndexAndRevocations(dir, readIndex(dir), rev, now);
}

/** Numeric dotted versions (semver without pre-release ordering subtleties). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.+-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (Number.isNaN(pa[i] ?? 0) ? 0 : pa[i] ?? 0) - (Number.isNaN(pb[i] ?? 0) ? 0 : pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Replaces one of a publisher's signed targets (its bytes and/or custom metadata) and re-signs
 * with the publisher's key. Publishers use it to correct metadata; the tests use it to model a
 * publisher whose signed record does not match what the bundle holds.
 */
export function rewritePublisherTarget(dir: string, publisher: string, target: string, change: { bytes?: Buffer; custom?: (c: TargetCustom) => TargetCustom; renameTo?: string }, opts: PublishOptions = {}): void {
  const now = opts.now ?? new Date();
  const role = `publisher-${publisher}`;
  const prev = readMeta(dir, role).signed as Record<string, unknown> & { version: number; targets: Record<string, { length: number; hashes: { sha256: string }; custom: TargetCustom }> };
  const t = prev.targets[target];
  if (!t) throw new Error(`the publisher ${publisher} has no target ${target}`);
  let next = { ...t };
  if (change.bytes) {
    const sha = sha256Hex(change.bytes);
    const base = target.split('/').pop() as string;
    writeAtomic(rolePath(dir, 'targets', ...target.split('/').slice(0, -1), `${sha}.${base}`), change.bytes);
    next = { ...next, length: change.bytes.length, hashes: { sha256: sha }, custom: { ...next.custom, scan: { ...next.custom.scan, bundleSha256: sha } } };
  }
  if (change.custom) next = { ...next, custom: change.custom(next.custom) };
  const targets = { ...prev.targets };
  if (change.renameTo) delete targets[target];
  targets[change.renameTo ?? target] = next;
  const signed = { ...prev, version: prev.version + 1, expires: iso(now, EXPIRY.publisher), targets };
  writeMeta(dir, role, signDoc('targets', signed, [readKey(dir, role)]), true);
  signSnapshotAndTimestamp(dir, { now });
}
