// The signed plugin catalog in a real browser against a real `gatehouse serve`: the spec builds
// a catalog from examples/plugins with the publisher commands (`gatehouse catalog init/add`) and
// serves it over loopback HTTP. The operator adds it in the Catalog view (confirming the root's
// key ids), searches, opens the plugin page, installs through the consent screen, enables it, and
// an MCP client calls it. Then the publisher adds a version that reaches a host, the operator
// refreshes, and the update waits for approval with the widened permission shown; approved, and
// then revoked by the catalog, it is quarantined at the next refresh with the reason.
import { axe } from '../support/axe.ts';
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { hostCall, httpAgent, resultText } from '../support/agents.ts';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'bin', 'gatehouse.js');
const gatehouse = (...args: string[]): string => execFileSync(process.execPath, [cli, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Serious or critical axe violations inside one element, in both themes. */
async function axeBoth(page: import('@playwright/test').Page, selector: string): Promise<string[]> {
  const bad: string[] = [];
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const scan = await axe(page).include(selector).analyze();
    bad.push(...scan.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${selector} ${scheme}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`));
  }
  return bad;
}

/** A static file server for the catalog's repository folder, on loopback (what a mirror serves). */
async function serveFolder(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const rel = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/+/, '');
    const file = join(dir, rel);
    if (rel.startsWith('..') || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

test.use({ homeSetup: { settings: { mode: 'live', autonomy: 'full' } } });

test('add the example catalog, search, install with the consent screen, enable, call it through MCP; a wider update waits for approval', async ({ console: app, home }) => {
  test.setTimeout(120_000);
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-e2e-catalog-'));
  const cat = join(work, 'catalog');
  const init = gatehouse('catalog', 'init', cat);
  const rootKeyIds = [...init.matchAll(/^ {2}([0-9a-f]{64})$/gm)].map((m) => m[1]!);
  expect(rootKeyIds).toHaveLength(3);
  gatehouse('catalog', 'add', cat, join(root, 'examples', 'plugins', 'hello'), '--publisher', 'examples');
  const { url, server } = await serveFolder(join(cat, 'repository'));
  try {
    await app.status.expectConnected();
    // The first run copied the example hello into the plugins folder; the operator removes that
    // copy so the catalog's signed one can take its place.
    rmSync(join(home, 'plugins', 'hello'), { recursive: true, force: true });
    await expect.poll(async () => (await hostCall<{ plugins: { name: string }[] }>(home, 'plugins.list')).plugins.map((p) => p.name)).not.toContain('hello');

    const view = await app.open('catalog');
    await app.page.getByTestId('catalog-add-source').click();
    const dialog = app.page.getByTestId('catalog-add-dialog');
    await dialog.getByTestId('catalog-add-name').fill('examples');
    await dialog.getByTestId('catalog-add-location').fill(url);
    await dialog.getByTestId('catalog-add-root').setInputFiles(join(cat, 'repository', 'metadata', '1.root.json'));
    await dialog.getByTestId('catalog-add-check').click();
    // The root's key ids, for comparison with what `catalog init` printed, before anything is trusted.
    const preview = dialog.getByTestId('catalog-add-preview');
    for (const k of rootKeyIds) await expect(preview).toContainText(k);
    const addBad = await axeBoth(app.page, '[data-testid="catalog-add-dialog"]');
    expect(addBad, addBad.join('\n')).toEqual([]);
    await expect(view.getByTestId('catalog-source')).toHaveCount(0);
    await dialog.getByTestId('catalog-add-trust').click();
    await expect(dialog.getByTestId('catalog-add-result')).toContainText('Metadata valid until');
    await dialog.getByTestId('catalog-add-done').click();
    const source = view.getByTestId('catalog-source');
    await expect(source).toHaveAttribute('data-name', 'examples');
    await expect(source.getByTestId('catalog-source-expires').locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT/);

    // The schedule: every 6 h by default, saved as a setting.
    const hours = view.getByTestId('catalog-refresh-hours');
    await expect(hours).toHaveValue('6');
    await hours.fill('12');
    await view.getByTestId('catalog-refresh-hours-save').click();
    await expect(view.getByTestId('catalog-refresh-hours-note')).toHaveText('Saved: every 12 h.');
    expect((await hostCall<{ catalogRefreshHours?: number }>(home, 'settings.get')).catalogRefreshHours).toBe(12);

    // Search, and the plugin page with its signed record.
    await view.getByTestId('catalog-query').fill('greets');
    await view.getByTestId('catalog-search').click();
    const result = view.getByTestId('catalog-result');
    await expect(result).toHaveCount(1);
    await expect(result).toHaveAttribute('data-name', 'hello');
    await result.getByTestId('catalog-open').click();
    const page = view.getByTestId('catalog-page');
    await expect(page.getByTestId('catalog-page-description')).toHaveText('Greets someone by name.');
    await expect(page.getByTestId('catalog-page-scan')).toContainText('passed');
    await expect(page.getByTestId('catalog-page-signer').locator('li')).toHaveCount(1);

    // The consent screen: what it may do, verified before anything is written; nothing installed until Install.
    await page.getByTestId('catalog-install').click();
    const consent = app.page.getByTestId('catalog-consent');
    await expect(consent.getByTestId('catalog-consent-progress')).toHaveAttribute('data-phase', 'ready');
    await expect(consent.getByTestId('catalog-consent-permissions').locator('[data-perm="hosts"]')).toContainText('nothing');
    await expect(consent.getByTestId('catalog-consent-limits')).toContainText('5 s per call');
    await expect(consent.getByTestId('catalog-consent-scan')).toContainText('publisher’s: passed');
    const consentBad = await axeBoth(app.page, '[data-testid="catalog-consent"]');
    expect(consentBad, consentBad.join('\n')).toEqual([]);
    // Keyboard reachable: Tab reaches Install.
    await consent.getByTestId('catalog-consent-install').focus();
    await app.page.keyboard.press('Enter');
    await expect(consent.getByTestId('catalog-consent-progress')).toHaveAttribute('data-phase', 'installed');
    await consent.getByTestId('catalog-consent-enable').click();
    await expect(consent.getByTestId('catalog-consent-enabled')).toHaveText('Enabled: agents can call it now.');
    await consent.getByTestId('catalog-consent-done').click();
    await expect(view.getByTestId('catalog-installed-row')).toHaveAttribute('data-state', 'installed');

    // An agent calls it through MCP.
    const agent = await httpAgent(home, 'e2e-catalog-agent');
    try {
      await expect.poll(async () => (await agent.listTools()).tools.map((t) => t.name)).toContain('hello');
      const r = await agent.callTool({ name: 'hello', arguments: { name: 'Ada' } });
      expect(r.isError ?? false, resultText(r as never)).toBe(false);
      expect(resultText(r as never)).toContain('Ada');
    } finally {
      await agent.close();
    }

    // The publisher adds 1.1.0, which reaches a host: the refresh shows it waiting, with what widened.
    const next = join(work, 'hello-1.1.0');
    cpSync(join(root, 'examples', 'plugins', 'hello'), next, { recursive: true });
    const toml = join(next, 'tool.toml');
    writeFileSync(toml, readFileSync(toml, 'utf8').replace('version = "1.0.0"', 'version = "1.1.0"') + '\n[permissions]\nhosts = ["api.example.com"]\n');
    gatehouse('catalog', 'add', cat, next, '--publisher', 'examples');
    await view.getByTestId('catalog-refresh').click();
    const update = view.getByTestId('catalog-update');
    await expect(update).toHaveAttribute('data-to', '1.1.0');
    await expect(update.getByTestId('catalog-update-widened')).toContainText('+ hosts: api.example.com');
    await expect(update.getByTestId('catalog-update-approve')).toHaveText('Approve the wider permissions');
    // Still 1.0.0 until the operator approves.
    await expect(view.getByTestId('catalog-installed-row').locator('td').nth(1)).toHaveText('1.0.0');

    // axe: the view with a source, a plugin page and an update waiting, in both themes.
    const viewBad = await axeBoth(app.page, '[data-testid="view-catalog"]');
    expect(viewBad, viewBad.join('\n')).toEqual([]);

    await update.getByTestId('catalog-update-approve').click();
    await expect(view.getByTestId('catalog-update')).toHaveCount(0);
    await expect(view.getByTestId('catalog-installed-row').locator('td').nth(1)).toHaveText('1.1.0');

    // A signed revocation quarantines the installed copy at the next refresh, with its reason.
    gatehouse('catalog', 'revoke', cat, 'hello', '--version', '1.1.0', '--reason', 'reaches a host it does not need');
    await view.getByTestId('catalog-refresh').click();
    const row = view.getByTestId('catalog-installed-row');
    await expect(row).toHaveAttribute('data-state', 'revoked');
    await expect(row).toContainText('reaches a host it does not need');
    await expect.poll(async () => (await hostCall<{ plugins: { name: string }[] }>(home, 'plugins.list')).plugins.map((p) => p.name)).not.toContain('hello');
  } finally {
    server.close();
    rmSync(work, { recursive: true, force: true });
  }
});
