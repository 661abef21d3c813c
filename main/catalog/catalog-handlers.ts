// The console's catalog.* methods over the sources in GATEHOUSE_HOME/catalogs/. Installs and
// quarantines are written to the audit log with the catalog, version and signing key ids.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OperationError } from '../core/operation-error.js';
import { realTimers, type Timers } from '../core/clock.js';
import { addCatalogSource, CatalogClient, CatalogError, checkLocation, readRoot, validUntil, type CatalogEvent, type Consent } from './catalog-client.js';

export interface CatalogAudit {
  append(e: { type: string; actor: string; payload: Record<string, unknown> }): unknown;
}

export interface CatalogHandlerDeps {
  /** GATEHOUSE_HOME */
  home: string;
  audit: CatalogAudit;
  /** Lets the registry pick up a newly installed folder at once. */
  installed?: (dir: string) => Promise<void>;
  /** Whether the registry runs the plugin now (installed.json says only how it was installed: disabled). */
  isEnabled?: (name: string) => boolean;
  /** Lets the registry forget a folder a revocation moved away, so nothing can run it. */
  removed?: (dir: string) => Promise<void>;
  /** Tells consoles to refetch (the catalog.changed event). */
  changed?: (source: string) => void;
  /** Hours between scheduled refreshes (read each time, so a settings change applies at the next one); 0 turns it off. Absent: no schedule. */
  refreshHours?: () => number;
  /** Injected so tests move time by hand; the host passes the real ones. */
  timers?: Timers;
  /** The host is closing: a timer that fires now does nothing. */
  closed?: () => boolean;
  log?: (msg: string, err?: unknown) => void;
  /** The clock that stamps refreshes and times the first one (tests pass their fake one). */
  now?: () => number;
}

const HOUR = 3_600_000;
/** With the schedule off, how often the setting is looked at again. */
const RECHECK_MS = HOUR;
/** The earliest a scheduled refresh runs after the host starts. */
const FIRST_DELAY_MS = 5 * 60_000;

interface RefreshStatus { at: string; ok: boolean; error: string | null }

const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

export function catalogHandlers(deps: CatalogHandlerDeps) {
  const root = join(deps.home, 'catalogs');
  const names = (): string[] => (existsSync(root) ? readdirSync(root).filter((n) => existsSync(join(root, n, 'source.json'))).sort() : []);
  const pending: Promise<void>[] = [];
  const client = (name: string, actor: string): CatalogClient => {
    if (!names().includes(name)) throw new OperationError('not-found', `no catalog source named ${JSON.stringify(name)}; add it with \`gatehouse catalog add-source\``);
    return new CatalogClient({ name, stateDir: join(root, name), pluginsDir: join(deps.home, 'plugins'), onEvent: (e) => record(e, actor) });
  };
  const record = (e: CatalogEvent, actor: string): void => {
    const { type, ...payload } = e;
    // Quarantine follows a signed revocation found by a refresh, whoever triggered it: the host acts.
    deps.audit.append({ type, actor: type === 'catalog.quarantined' ? 'host' : actor, payload });
    if (e.type === 'catalog.quarantined' && deps.removed) pending.push(deps.removed(join(deps.home, 'plugins', e.name)));
  };
  /** Waits for the registry to have forgotten every quarantined folder before a method answers. */
  const settle = async (): Promise<void> => {
    await Promise.all(pending.splice(0));
  };
  const fail = (err: unknown): never => {
    if (err instanceof CatalogError) throw new OperationError('invalid', err.message);
    throw err;
  };
  const status = (name: string): RefreshStatus | null => {
    const p = join(root, name, 'refresh.json');
    return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as RefreshStatus) : null;
  };
  const now = deps.now ?? Date.now;
  const setStatus = (name: string, s: RefreshStatus): void => writeFileSync(join(root, name, 'refresh.json'), JSON.stringify(s));
  /** Updates already audited as waiting, so a refresh every few hours does not repeat them. */
  const announced = new Set<string>();
  const updateErrors = new Map<string, string>();

  /**
   * One refresh of every source: tuf-js verification (a failure keeps the last valid metadata,
   * and the source reports until when it stays valid), revocations applied (quarantine, audited),
   * then each newer version: same or narrower permissions are installed into the plugin's folder,
   * where the registry's approve-change flow takes over (an enabled plugin is quarantined with the
   * file diff until the operator approves it); wider ones wait for catalog.approveUpdate.
   */
  const refreshAll = async (actor: string) => {
    const out: { source: string; ok: boolean; error: string | null; expires: string | null }[] = [];
    for (const name of names()) {
      const c = client(name, actor);
      const at = new Date(now()).toISOString();
      try {
        await c.refresh();
        setStatus(name, { at, ok: true, error: null });
      } catch (err) {
        setStatus(name, { at, ok: false, error: (err as Error).message });
        out.push({ source: name, ok: false, error: (err as Error).message, expires: validUntil(join(root, name)) });
        deps.changed?.(name);
        continue;
      }
      await settle();
      for (const u of c.updates()) {
        const key = `${name}\0${u.name}@${u.to}`;
        if (u.widened.length) {
          if (!announced.has(key)) {
            announced.add(key);
            deps.audit.append({ type: 'catalog.update-waiting', actor: 'host', payload: { catalog: name, name: u.name, from: u.from, to: u.to, widened: u.widened, narrowed: u.narrowed } });
          }
          continue;
        }
        try {
          // The signed version's own permissions are checked again here: the index could list narrower ones than the bundle's signature.
          const rec = await c.install(`${u.name}@${u.to}`, (consent) => !consent.update?.widened.length);
          updateErrors.delete(key);
          await deps.installed?.(rec.dir);
        } catch (err) {
          updateErrors.set(key, (err as Error).message);
          if (!announced.has(key)) {
            announced.add(key);
            deps.audit.append({ type: 'catalog.update-failed', actor: 'host', payload: { catalog: name, name: u.name, from: u.from, to: u.to, error: (err as Error).message } });
          }
        }
      }
      await settle();
      out.push({ source: name, ok: true, error: null, expires: validUntil(join(root, name)) });
      deps.changed?.(name);
    }
    return { sources: out };
  };

  // The schedule: one timer at a time, re-armed after each refresh, the interval read from the settings each time.
  let running: Promise<unknown> | null = null;
  /**
   * The first timer after start counts from the last refresh on disk, so a host restarted more
   * often than the interval still refreshes (revocations must not wait for an uptime of 6 h); it
   * waits at least FIRST_DELAY_MS so start-up is not also a network round to every catalog.
   */
  const firstDelay = (every: number): number => {
    const stamps = names().map((n) => status(n)?.at).map((at) => (at ? Date.parse(at) : Number.NaN));
    if (stamps.length === 0) return every;
    const oldest = stamps.some((t) => Number.isNaN(t)) ? Number.NEGATIVE_INFINITY : Math.min(...stamps);
    return Math.min(every, Math.max(FIRST_DELAY_MS, oldest + every - now()));
  };
  let first = true;
  const arm = (): void => {
    if (!deps.refreshHours) return;
    const timers = deps.timers ?? realTimers;
    const hours = deps.refreshHours();
    const every = hours > 0 ? hours * HOUR : RECHECK_MS;
    const delay = first && hours > 0 ? firstDelay(every) : every;
    first = false;
    timers.setTimeout(() => {
      if (deps.closed?.()) return;
      if (hours <= 0 || deps.refreshHours!() <= 0) {
        arm();
        return;
      }
      running = refreshAll('host')
        .catch((err: unknown) => deps.log?.('scheduled catalog refresh failed', err))
        .finally(() => {
          running = null;
          if (!deps.closed?.()) arm();
        });
    }, delay);
  };
  arm();

  return {
    'catalog.sources': () => ({
      sources: names().map((name) => {
        const dir = join(root, name);
        const src = JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8')) as { location: string; rootKeyIds: string[] };
        let expires: string | null;
        try {
          expires = validUntil(dir); // null: never refreshed
        } catch {
          expires = null; // unreadable trusted metadata: the next refresh starts from the root again
        }
        const installed = new CatalogClient({ name, stateDir: dir, pluginsDir: join(deps.home, 'plugins') }).installed().map((r) => ({ name: r.name, version: r.version, enabled: deps.isEnabled ? deps.isEnabled(r.name) : r.enabled, quarantined: r.quarantined }));
        return { name, location: src.location, rootKeyIds: src.rootKeyIds, expires, lastRefresh: status(name), installed };
      }),
    }),
    'catalog.search': async ({ query }: { query: string }, ctx: { operator: string }) => {
      const results = [];
      const errors = [];
      for (const name of names()) {
        try {
          const { index } = await client(name, `operator:${ctx.operator}`).refresh();
          for (const p of CatalogClient.search(index, query)) results.push({ source: name, name: p.name, publisher: p.publisher, description: p.description, kind: p.kind, latest: p.latest, versions: p.versions, permissions: p.permissions });
        } catch (err) {
          errors.push({ source: name, message: (err as Error).message });
        }
      }
      await settle();
      return { results, errors };
    },
    'catalog.previewSource': ({ location, rootJson }: { location: string; rootJson: string }) => {
      try {
        checkLocation(location);
        return readRoot(Buffer.from(rootJson, 'utf8'));
      } catch (err) {
        return fail(err);
      }
    },
    'catalog.addSource': async ({ name, location, rootJson, confirmKeyIds }: { name: string; location: string; rootJson: string; confirmKeyIds: string[] }, ctx: { operator: string }) => {
      if (names().includes(name)) throw new OperationError('invalid', `name: a catalog source named ${JSON.stringify(name)} already exists; choose another name`);
      let keyIds: string[];
      try {
        checkLocation(location);
        keyIds = readRoot(Buffer.from(rootJson, 'utf8')).rootKeyIds;
      } catch (err) {
        return fail(err);
      }
      // The confirmation is bound to the key ids: a root swapped after the operator looked is refused.
      if (!sameSet(keyIds, confirmKeyIds)) throw new OperationError('invalid', 'confirmKeyIds: the root file\'s key ids are not the ones confirmed; preview the root again and compare its key ids with the publisher\'s');
      addCatalogSource(join(root, name), location, Buffer.from(rootJson, 'utf8'));
      deps.audit.append({ type: 'catalog.source-added', actor: `operator:${ctx.operator}`, payload: { catalog: name, location, rootKeyIds: keyIds } });
      const at = new Date(now()).toISOString();
      let error: string | null = null;
      try {
        await client(name, `operator:${ctx.operator}`).refresh();
      } catch (err) {
        error = (err as Error).message;
      }
      setStatus(name, { at, ok: error === null, error });
      await settle();
      deps.changed?.(name);
      return { name, rootKeyIds: keyIds, expires: validUntil(join(root, name)), error };
    },
    'catalog.plugin': async ({ source, name, version }: { source: string; name: string; version?: string | undefined }, ctx: { operator: string }) => {
      try {
        const { source: sourceRepo, ...page } = await client(source, `operator:${ctx.operator}`).describe(name, version);
        await settle();
        return { ...page, source, sourceRepo };
      } catch (err) {
        await settle();
        return fail(err);
      }
    },
    'catalog.refresh': async (_: unknown, ctx: { operator: string }) => {
      // A refresh already under way (the schedule) is waited for rather than run twice at once.
      if (running) await running;
      return refreshAll(`operator:${ctx.operator}`);
    },
    'catalog.updates': () => ({
      updates: names().flatMap((name) =>
        new CatalogClient({ name, stateDir: join(root, name), pluginsDir: join(deps.home, 'plugins') }).updates().map((u) => ({ source: name, ...u, error: updateErrors.get(`${name}\0${u.name}@${u.to}`) ?? null })),
      ),
    }),
    'catalog.approveUpdate': async ({ source, name, version, widened }: { source: string; name: string; version: string; widened: string[] }, ctx: { operator: string }) => {
      let shown: Consent | null = null;
      try {
        const c = client(source, `operator:${ctx.operator}`);
        const prior = c.installed().find((r) => r.name === name && !r.quarantined);
        if (!prior) throw new OperationError('invalid', `name: ${name} is not installed from catalog ${source}; install it first`);
        const rec = await c.install(`${name}@${version}`, (consent) => {
          shown = consent;
          // Exactly what the operator approved: a signed version that widens anything else is refused.
          return sameSet(consent.update?.widened ?? [], widened);
        });
        const update = (shown as Consent | null)?.update ?? { from: prior.version, widened: [], narrowed: [] };
        deps.audit.append({ type: 'catalog.update-approved', actor: `operator:${ctx.operator}`, payload: { catalog: source, name, from: update.from, to: version, widened: update.widened, narrowed: update.narrowed } });
        await settle();
        await deps.installed?.(rec.dir);
        deps.changed?.(source);
        return { installed: { name: rec.name, version: rec.version }, widened: update.widened, narrowed: update.narrowed };
      } catch (err) {
        await settle();
        const s = shown as Consent | null;
        if (err instanceof CatalogError && err.code === 'catalog.declined' && s) {
          throw new OperationError('invalid', `widened: ${name}@${version} widens ${s.update?.widened.join(', ') || 'nothing'}, but the approval named ${widened.join(', ') || 'nothing'}; review the update again`);
        }
        return fail(err);
      }
    },
    'catalog.install': async ({ source, spec, consent, allowWider }: { source: string; spec: string; consent: boolean; allowWider?: boolean | undefined }, ctx: { operator: string }) => {
      let shown: Consent | null = null;
      try {
        const rec = await client(source, `operator:${ctx.operator}`).install(spec, (c) => {
          shown = c;
          return consent && (!c.update?.widened.length || allowWider === true);
        });
        await settle();
        await deps.installed?.(rec.dir);
        deps.changed?.(source);
        return { consent: shown, installed: rec };
      } catch (err) {
        await settle();
        if (err instanceof CatalogError && err.code === 'catalog.declined' && shown) return { consent: shown, installed: null };
        return fail(err);
      }
    },
  };
}
