// `npm run docs:screenshots`: the one command that regenerates every screenshot in docs/images.
//
// 1. builds out/ (the screenshots show the console as this checkout builds it);
// 2. runs e2e/specs/serve/docs-screenshots.spec.ts in the serve-chromium project, writing into a
//    staging folder (.tmp/docs-screenshots) through GATEHOUSE_SCREENSHOTS_DIR;
// 3. only if every test passed and every screenshot of e2e/support/docs-screenshots.json was
//    written: replaces docs/images/*.png with the staged ones. A failed run leaves docs/images as
//    it was; a screenshot dropped from the list disappears from docs/images.
//
// `npm test` runs the same spec without the variable: it writes into .tmp/screenshots and never
// touches docs/. test/repo/docs.test.ts checks that docs/images, the list, the spec and the guides agree.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const spec = 'e2e/specs/serve/docs-screenshots.spec.ts';
const staging = join(root, '.tmp', 'docs-screenshots');
const images = join(root, 'docs', 'images');
const names = Object.keys(JSON.parse(readFileSync(join(root, 'e2e', 'support', 'docs-screenshots.json'), 'utf8')));

function run(cmd, args, env = {}) {
  console.log(`\n> ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env }, shell: process.platform === 'win32' });
  return r.status ?? 1;
}

function fail(message) {
  console.error(`\ndocs:screenshots: ${message}; docs/images was not changed.`);
  process.exit(1);
}

if (run(process.execPath, ['scripts/build.mjs']) !== 0) fail('the build failed');

rmSync(staging, { recursive: true, force: true });
const playwright = join(root, 'node_modules', '.bin', 'playwright');
if (run(playwright, ['test', spec, '--project', 'serve-chromium'], { GATEHOUSE_SCREENSHOTS_DIR: staging }) !== 0) fail('the screenshot spec failed');

const taken = existsSync(staging) ? readdirSync(staging).filter((f) => f.endsWith('.png')) : [];
const missing = names.filter((n) => !taken.includes(`${n}.png`));
if (missing.length) fail(`the spec passed but did not write ${missing.map((n) => `${n}.png`).join(', ')}`);
const extra = taken.filter((f) => !names.includes(f.slice(0, -4)));
if (extra.length) fail(`the spec wrote ${extra.join(', ')}, which e2e/support/docs-screenshots.json does not list`);

mkdirSync(images, { recursive: true });
for (const f of readdirSync(images)) if (f.endsWith('.png')) rmSync(join(images, f));
for (const n of names) copyFileSync(join(staging, `${n}.png`), join(images, `${n}.png`));
rmSync(staging, { recursive: true, force: true });
console.log(`\ndocs:screenshots: wrote ${names.length} screenshots to docs/images (${names.join(', ')}).`);
