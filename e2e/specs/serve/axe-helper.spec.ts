// The accessibility scans run axe through e2e/support/axe.ts (in the page, violations only): a
// scan that found nothing would pass every accessibility check, so this one plants violations
// the specs look for (contrast, a nameless button, an image without alt text) and expects each.
import { test, expect } from '../../fixtures.ts';
import { axe } from '../../support/axe.ts';

test('the axe scan the specs use finds planted violations, in the region it is given', async ({ blankPage: page }) => {
  await page.setContent(`<!doctype html><html lang="en"><head><title>planted</title></head><body><main>
    <section id="bad"><p style="color:#777;background:#888">low contrast</p><button></button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></section>
    <section id="good"><p style="color:#000;background:#fff">readable</p><button>Named</button></section>
  </main></body></html>`);
  const ids = (r: { violations: { id: string }[] }) => r.violations.map((v) => v.id).sort();
  expect(ids(await axe(page).analyze())).toEqual(expect.arrayContaining(['button-name', 'color-contrast', 'image-alt']));
  expect(ids(await axe(page).include('#good').analyze())).toEqual([]);
});
