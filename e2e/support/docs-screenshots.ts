// The screenshots the guides in docs/ show. The list itself is docs-screenshots.json (name →
// what it shows), so that scripts/docs-screenshots.mjs reads it too: e2e/specs/serve/
// docs-screenshots.spec.ts takes each of them from the real console, `npm run docs:screenshots`
// writes them into docs/images, and test/repo/docs.test.ts checks that docs/images holds exactly
// these, that a guide shows every one, and that the spec takes every one.
//
// Adding a screenshot: a name in the JSON, a `shoot(page, 'name')` in the spec, an image link in
// a guide, then `npm run docs:screenshots`.
import { isAbsolute, join, resolve } from 'node:path';
import list from './docs-screenshots.json' with { type: 'json' };

/** Name (docs/images/<name>.png) → what it shows. */
export const DOC_SCREENSHOTS: Readonly<typeof list> = list;

export type DocScreenshot = keyof typeof list;

export const docScreenshotNames = Object.keys(list) as DocScreenshot[];

/** Where the spec writes its PNGs; `npm run docs:screenshots` points it at a staging folder. */
export const SCREENSHOTS_DIR_ENV = 'GATEHOUSE_SCREENSHOTS_DIR';

/** Without the variable (as in `npm test`) the spec writes here, never into docs/. */
export const DEFAULT_SCREENSHOTS_DIR = '.tmp/screenshots';

/** Where the guides find them. */
export const DOCS_IMAGES_DIR = 'docs/images';

/** Every screenshot has this size, so the guides look the same page to page. */
export const SCREENSHOT_VIEWPORT = { width: 1280, height: 800 } as const;

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** The folder the spec writes into (absolute; relative values are taken from the repository root). */
export function screenshotsDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[SCREENSHOTS_DIR_ENV];
  const dir = given && given.trim() !== '' ? given : DEFAULT_SCREENSHOTS_DIR;
  return isAbsolute(dir) ? dir : join(repoRoot, dir);
}
