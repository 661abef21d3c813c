// The guides and their screenshots stay true to each other:
// - every image a doc shows exists, has alt text, and lives in docs/images;
// - docs/images holds exactly the screenshots of e2e/support/docs-screenshots.json, each shown by
//   some doc, each a real PNG;
// - the screenshot spec takes every listed screenshot and nothing else (its `shoot` calls), so
//   `npm run docs:screenshots` regenerates every image in docs/ (npm test runs the spec itself,
//   into .tmp/screenshots, and fails when one can no longer be taken);
// - the README links the five guides;
// - every relative link in README.md and docs/*.md reaches a file, and its #anchor a heading.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_IMAGES_DIR, docScreenshotNames } from '../e2e/support/docs-screenshots.ts';
import { repoRoot } from './support/cli.js';

const SPEC = 'e2e/specs/serve/docs-screenshots.spec.ts';

/** The five guides the README must link (issue 7, deliverable 5). */
const GUIDES = ['docs/guide-operator.md', 'docs/guide-plugin-author.md', 'docs/guide-policy.md', 'docs/guide-incident-review.md', 'docs/security-model.md'];

interface Doc {
  /** Relative to the repository root, with `/`. */
  path: string;
  text: string;
}

interface Link {
  doc: string;
  line: number;
  image: boolean;
  text: string;
  target: string;
}

function docs(): Doc[] {
  const files = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  return files.map((path) => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') }));
}

/**
 * The text with fenced code blocks blanked (same line count), and inline code blanked too unless
 * `keepInlineCode` — so examples never count as links, while a heading's code still names it.
 */
function prose(text: string, keepInlineCode = false): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      if (fenced) return '';
      return keepInlineCode ? line : line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    })
    .join('\n');
}

function linksOf(doc: Doc): Link[] {
  const out: Link[] = [];
  prose(doc.text)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        out.push({ doc: doc.path, line: i + 1, image: m[1] === '!', text: m[2] ?? '', target: m[3] ?? '' });
      }
    });
  return out;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Where a relative link points, from the repository root (no anchor). */
function resolveLink(link: Link): { file: string; anchor: string | null } {
  const [path = '', anchor] = link.target.split('#');
  const file = path === '' ? link.doc : relative(repoRoot, resolve(repoRoot, dirname(link.doc), decodeURIComponent(path))).split('\\').join('/');
  return { file, anchor: anchor === undefined ? null : decodeURIComponent(anchor) };
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown, true).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = (m[1] ?? '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Width and height from a PNG's IHDR chunk, or null when the file is not a PNG. */
function pngSize(file: string): { width: number; height: number } | null {
  const b = readFileSync(file);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (b.length < 24 || !b.subarray(0, 8).equals(signature) || b.subarray(12, 16).toString('latin1') !== 'IHDR') return null;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

const all = docs();
const links = all.flatMap(linksOf);
const imagesDir = join(repoRoot, DOCS_IMAGES_DIR);
const pngs = existsSync(imagesDir) ? readdirSync(imagesDir).filter((f) => f.toLowerCase().endsWith('.png')).sort() : [];
const where = (l: Link) => `${l.doc}:${l.line} ${l.image ? '!' : ''}[${l.text}](${l.target})`;

describe('screenshots in docs/images', () => {
  it('are exactly the ones the screenshot list names', () => {
    expect(pngs, `docs/images against e2e/support/docs-screenshots.json; run npm run docs:screenshots`).toEqual(docScreenshotNames.map((n) => `${n}.png`).sort());
  });

  it('are real PNG files, no wider than the screenshot viewport', () => {
    for (const f of pngs) {
      const size = pngSize(join(imagesDir, f));
      expect(size, `${f} is a PNG`).not.toBeNull();
      expect(size!.width, `${f} width`).toBeGreaterThan(100);
      expect(size!.width, `${f} width`).toBeLessThanOrEqual(1280);
      expect(size!.height, `${f} height`).toBeGreaterThan(100);
      expect(statSync(join(imagesDir, f)).size, `${f} holds a picture, not an empty page`).toBeGreaterThan(10_000);
    }
  });

  it('are each shown by a guide', () => {
    const shown = new Set(links.filter((l) => l.image && !isExternal(l.target)).map((l) => resolveLink(l).file));
    for (const f of pngs) expect(shown.has(`${DOCS_IMAGES_DIR}/${f}`), `${DOCS_IMAGES_DIR}/${f} is shown by some doc`).toBe(true);
  });

  it('are each taken by the screenshot spec, which takes no other', () => {
    // Comments out: they may show the form (`shoot(page, 'name')`) without taking a screenshot.
    const spec = readFileSync(join(repoRoot, SPEC), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const shot = [...spec.matchAll(/\bshoot\(\s*[^,()]+,\s*'([^']+)'/g)].map((m) => m[1]!);
    expect(shot.length, 'the spec has shoot(page, name) calls').toBeGreaterThan(0);
    expect([...new Set(shot)].sort()).toEqual([...docScreenshotNames].sort());
    expect(shot.length, 'no screenshot is taken twice (the second would overwrite the first)').toBe(new Set(shot).size);
  });
});

describe('images the docs show', () => {
  const images = links.filter((l) => l.image);

  it('exist, with alt text, under docs/images', () => {
    expect(images.length).toBeGreaterThan(0);
    for (const l of images) {
      expect(isExternal(l.target), `${where(l)}: images are local`).toBe(false);
      const { file } = resolveLink(l);
      expect(existsSync(join(repoRoot, file)), `${where(l)}: ${file} exists`).toBe(true);
      expect(file.startsWith(`${DOCS_IMAGES_DIR}/`), `${where(l)}: images live in ${DOCS_IMAGES_DIR}`).toBe(true);
      expect(l.text.trim().length, `${where(l)}: alt text says what the picture shows`).toBeGreaterThan(10);
    }
  });
});

describe('the guides', () => {
  it('exist and are linked from the README', () => {
    const readme = links.filter((l) => l.doc === 'README.md' && !l.image).map((l) => resolveLink(l).file);
    for (const g of GUIDES) {
      expect(existsSync(join(repoRoot, g)), `${g} exists`).toBe(true);
      expect(readme, `README.md links ${g}`).toContain(g);
    }
  });

  it('each show at least one screenshot, except the security model', () => {
    for (const g of GUIDES.filter((g) => g !== 'docs/security-model.md')) {
      expect(links.some((l) => l.doc === g && l.image), `${g} shows a screenshot`).toBe(true);
    }
  });
});

describe('relative links in README.md and docs/*.md', () => {
  it('reach a file, and an #anchor reaches a heading in it', () => {
    const broken: string[] = [];
    for (const l of links) {
      if (isExternal(l.target)) continue;
      const { file, anchor } = resolveLink(l);
      const full = join(repoRoot, file);
      if (!existsSync(full)) {
        broken.push(`${where(l)}: no file ${file}`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(full, 'utf8')).has(anchor)) broken.push(`${where(l)}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it('are read from the docs (the checks above are not vacuous)', () => {
    expect(links.filter((l) => !l.image && !isExternal(l.target)).length).toBeGreaterThan(20);
    expect(anchorsOf('# A, b & c\n## Claude Code in one step\n## Claude Code in one step\n## Tools (`pty = true`)\n```\n# not a heading\n```\n')).toEqual(
      new Set(['a-b--c', 'claude-code-in-one-step', 'claude-code-in-one-step-1', 'tools-pty--true']),
    );
  });
});
