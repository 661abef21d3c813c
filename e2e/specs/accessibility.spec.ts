// Accessibility (issue #16 item 8): axe-core scans every view, in the dark theme and in the light
// theme that follows the system (prefers-color-scheme), and finds no serious or critical
// violation — colour contrast of text at least 4.5:1 included.
import AxeBuilder from '@axe-core/playwright';
import { test, expect } from '../fixtures.ts';
import { views } from '../pages/console-page.ts';

for (const scheme of ['dark', 'light'] as const) {
  test(`every view in the ${scheme} theme: no serious or critical axe violations`, async ({ console: app }) => {
    test.setTimeout(90_000);
    await app.page.emulateMedia({ colorScheme: scheme });
    await app.status.expectConnected();
    const found: string[] = [];
    for (const v of views) {
      await app.open(v);
      // The view settles (its first load) before it is scanned.
      await expect(app.view(v)).toBeVisible();
      await app.page.waitForLoadState('networkidle').catch(() => {});
      const result = await new AxeBuilder({ page: app.page }).exclude('.xterm').exclude('.monaco-editor').analyze();
      for (const violation of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
        found.push(`${v}: ${violation.id} (${violation.impact}) ×${violation.nodes.length}: ${violation.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
}
