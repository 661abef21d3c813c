// axe-core through @axe-core/playwright, run in the page itself. By default the library runs axe
// in every frame and then finishes the run in a new blank page, which cost ~1 s per scan here
// against ~0.3 s for the scan itself (the accessibility spec makes 80 of them). The console has no
// frames of its own, so legacy mode (one run in the page) sees everything the default did.
// Only violations are reported: passes and incomplete checks are never read.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

export function axe(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ['violations'] });
}
