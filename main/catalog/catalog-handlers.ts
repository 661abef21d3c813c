// The console's catalog.* methods over the sources in GATEHOUSE_HOME/catalogs/. Installs and
// quarantines are written to the audit log with the catalog, version and signing key ids.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { OperationError } from '../core/operation-error.js';
import { CatalogClient, CatalogError, type CatalogEvent, type Consent } from './catalog-client.js';

export interface CatalogAudit {
  append(e: { type: string; actor: string; payload: Record<string, unknown> }): unknown;
}

export interface CatalogHandlerDeps {
  /** GATEHOUSE_HOME */
  home: string;
  audit: CatalogAudit;
  /** Lets the registry pick up a newly installed folder at once. */
  installed?: (dir: string) => Promise<void>;
  /** Lets the registry forget a folder a revocation moved away, so nothing can run it. */
  removed?: (dir: string) => Promise<void>;
}

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
  return {
    'catalog.sources': () => ({
      sources: names().map((name) => {
        const dir = join(root, name);
        const src = JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8')) as { location: string; rootKeyIds: string[] };
        let expires: string | null = null;
        try {
          expires = (JSON.parse(readFileSync(join(dir, 'metadata', 'timestamp.json'), 'utf8')) as { signed: { expires: string } }).signed.expires;
        } catch {
          expires = null; // never refreshed
        }
        const installed = new CatalogClient({ name, stateDir: dir, pluginsDir: join(deps.home, 'plugins') }).installed().map((r) => ({ name: r.name, version: r.version, enabled: r.enabled, quarantined: r.quarantined }));
        return { name, location: src.location, rootKeyIds: src.rootKeyIds, expires, installed };
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
    'catalog.install': async ({ source, spec, consent, allowWider }: { source: string; spec: string; consent: boolean; allowWider?: boolean | undefined }, ctx: { operator: string }) => {
      let shown: Consent | null = null;
      try {
        const rec = await client(source, `operator:${ctx.operator}`).install(spec, (c) => {
          shown = c;
          return consent && (!c.update?.widened.length || allowWider === true);
        });
        await settle();
        await deps.installed?.(rec.dir);
        return { consent: shown, installed: rec };
      } catch (err) {
        await settle();
        if (err instanceof CatalogError && err.code === 'catalog.declined' && shown) return { consent: shown, installed: null };
        return fail(err);
      }
    },
  };
}
