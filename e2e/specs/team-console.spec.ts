// Issue #28, the console in team mode, end to end: a throwaway PostgreSQL cluster on loopback, two
// real `gatehouse serve --team URL --team-member NAME` hosts (alpha with the owner's URL, so it reads
// the whole team; beta an ordinary member), and alpha's console in Chromium. The status bar shows
// alpha's link; the Team view lists both members; the Audit view's team scope finds beta's call,
// with its member and its key masked; an ask on beta appears in alpha's inbox with its machine,
// filtered by machine, and is approved from there with alpha's operator key (after the console said
// how to make one), and beta's agent gets allow.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures.ts';
import { ConsolePage } from '../pages/console-page.ts';
import { ServeHost } from '../support/serve-host.ts';
import { findPgBin, startPgCluster, type PgCluster } from '../../test/support/pg-cluster.ts';
import { hookCall, teamDatabase, untilNotified } from '../../test/support/team-hosts.ts';
import { readServeFile } from '../../main/shells/serve/serve-file.ts';
import { homePaths } from '../../main/home.ts';
import { SHIPPED_CHANNEL } from '../../main/team/team-shipper.ts';

/** beta's agents ask about `make` in its own inbox (and so in the team inbox); calls run (live). */
const ASKING = { mode: 'live', autonomy: 'supervised', hookAsk: 'inbox' };

const pgFound = findPgBin();

/** A member host: `gatehouse serve --team URL --team-member NAME` in a home of its own. */
async function teamHost(url: string, name: string, settings?: Record<string, unknown>): Promise<ServeHost> {
  const home = join(mkdtempSync(join(tmpdir(), `gatehouse-e2e-team-${name}-`)), 'home');
  if (settings) {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(join(home, 'settings.json'), JSON.stringify(settings));
  }
  const host = new ServeHost({ home, args: ['--team', url, '--team-member', name] });
  await host.start();
  return host;
}

/** Resolves once every member named has shipped (an event holding `word`, if given): read now, then at each NOTIFY of a shipped batch. */
function untilShipped(url: string, names: string[], word?: string): Promise<true> {
  return untilNotified(url, SHIPPED_CHANNEL, async (c) => {
    const shipped = word
      ? (await c.query<{ name: string }>("SELECT DISTINCT member AS name FROM team_events WHERE search @@ to_tsquery('simple', $1)", [word])).rows.map((r) => r.name)
      : (await c.query<{ name: string }>('SELECT name FROM team_members WHERE shipped_seq > 0')).rows.map((r) => r.name);
    return names.every((n) => shipped.includes(n)) ? true : null;
  });
}

test.describe('the console in team mode', () => {
  let cluster: PgCluster | undefined;
  const hosts: ServeHost[] = [];

  test.beforeEach(({ shell }, testInfo) => {
    // The Electron shell takes no team URL yet (docs/team.md); the serve shell does.
    testInfo.skip(shell !== 'serve', 'team mode runs in the serve shell');
    if ('missing' in pgFound) {
      console.log(`[team-console] not run: ${pgFound.missing}`);
      testInfo.skip(true, pgFound.missing);
    }
  });

  test.afterEach(async () => {
    for (const h of hosts.splice(0)) {
      await h.stop();
      rmSync(join(h.home, '..'), { recursive: true, force: true });
    }
    await cluster?.destroy();
    cluster = undefined;
  });

  test('the status bar shows the link, the Team view lists the members, the audit team scope finds the other member’s call, the inbox shows and approves its ask', async ({ blankPage: page }) => {
    test.setTimeout(120_000);
    cluster = await startPgCluster();
    const url = await teamDatabase(cluster, 'e2e');
    hosts.push(await teamHost(url, 'alpha'), await teamHost(url, 'beta', ASKING));
    const [alpha] = hosts as [ServeHost, ServeHost];
    await untilShipped(url, ['alpha', 'beta']);

    await page.goto(await alpha.newConsoleUrl());
    const app = new ConsolePage(page);
    await app.status.expectConnected();
    await expect(app.status.team).toHaveAttribute('data-state', 'up');
    await expect(app.status.team).toContainText('Team: up as alpha');

    const view = await app.open('team');
    await expect(view.getByTestId('team-link')).toHaveAttribute('data-state', 'up');
    await expect(view.getByTestId('team-link-member')).toHaveText('alpha');
    const members = view.getByTestId('team-member');
    await expect(members).toHaveCount(2);
    await expect(members.nth(0)).toHaveAttribute('data-member', 'alpha');
    await expect(members.nth(1)).toHaveAttribute('data-member', 'beta');
    // The owner's URL reads every member: no note about a member's own rows.
    await expect(view.getByTestId('team-own-only')).toHaveCount(0);

    // The Audit view's team scope: a call on beta, found from alpha's console with its member, the key masked.
    const [, beta] = hosts as [ServeHost, ServeHost];
    const key = `ghp_${'f9e8d7c6b5'.repeat(4)}`;
    expect((await hookCall(readServeFile(homePaths(beta.home).serveJson)!, 'e2e-team', 1, { name: 'Read', input: { file_path: `/tmp/lanternteam-${key}.txt` } })).status).toBe(200);
    await untilShipped(url, ['beta'], 'lanternteam');
    const audit = await app.open('audit');
    await expect(audit.getByTestId('audit-scope')).toHaveAttribute('data-scope', 'local');
    await audit.getByTestId('audit-scope-team').click();
    await expect(audit.getByTestId('audit-scope')).toHaveAttribute('data-scope', 'team');
    await app.audit.search.fill('lanternteam');
    await app.audit.search.press('Enter');
    await audit.getByTestId('audit-facet-type').selectOption('call.received');
    const row = app.audit.rows.filter({ has: page.getByTestId('audit-member') });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('audit-member')).toHaveText('beta');
    await row.click();
    await expect(app.audit.detail).toHaveAttribute('data-member', 'beta');
    await expect(app.audit.detail.getByTestId('audit-detail-member')).toHaveText('beta');
    await expect(app.audit.detail.getByTestId('audit-detail-json')).toContainText('ghp_[REDACTED]');
    await expect(app.audit.detail.getByTestId('audit-detail-json')).not.toContainText(key);
    // Local again: alpha's own log never saw beta's call.
    await audit.getByTestId('audit-scope-local').click();
    await expect(app.audit.total).toHaveAttribute('data-total', '0');

    // The inbox's machine column and filter: beta's ask waits among the other machines.
    const asked = hookCall(readServeFile(homePaths(beta.home).serveJson)!, 'e2e-team-ask', 2, { name: 'Bash', input: { command: 'make' } });
    const inbox = await app.open('approvals');
    const ask = inbox.getByTestId('team-ask');
    await expect(ask).toHaveCount(1);
    await expect(ask.getByTestId('team-ask-machine')).toHaveText('beta');
    await expect(ask.getByTestId('team-ask-tool')).toHaveText('Bash');
    await expect(ask.getByTestId('team-ask-arguments')).toHaveText('{"command":"make"}');
    // The folder it runs in is part of what is signed: shown beside the arguments.
    await expect(ask.getByTestId('team-ask-cwd')).toHaveText('/tmp');
    await inbox.getByTestId('approvals-filter-machine').selectOption('alpha');
    await expect(ask).toHaveCount(0);
    await inbox.getByTestId('approvals-filter-machine').selectOption('beta');
    await expect(ask).toHaveCount(1);
    // No operator key in alpha's home yet: the console says how to make one.
    await ask.getByTestId('team-ask-approve').click();
    const result = inbox.getByTestId('team-ask-result');
    await expect(result).toHaveAttribute('data-ok', 'false');
    await expect(result).toContainText('gatehouse operator create NAME');
    // As an operator would, on alpha's machine (registering a key needs the owner's URL).
    execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'gatehouse.js'), 'operator', 'create', 'ana', '--home', alpha.home], { env: { ...process.env, GATEHOUSE_TEAM_URL: url }, stdio: 'pipe' });
    await ask.getByTestId('team-ask-approve').click();
    await expect(result).toHaveAttribute('data-ok', 'true');
    await expect(result).toContainText('as ana');
    const answer = JSON.parse((await asked).body) as { hookSpecificOutput: { permissionDecision: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('allow');
    // beta applied it and closed the ask: it leaves the list.
    await expect(ask).toHaveCount(0);
  });
});
