// The guides and their screenshots stay true to each other:
// - every image a doc shows exists, has alt text, and lives in docs/images;
// - docs/images holds exactly the screenshots of e2e/support/docs-screenshots.json, each shown by
//   some doc, each a real PNG;
// - the screenshot spec takes every listed screenshot and nothing else (its `shoot` calls), so
//   `npm run docs:screenshots` regenerates every image in docs/ (npm test runs the spec itself,
//   into .tmp/screenshots, and fails when one can no longer be taken);
// - the README links the five guides;
// - every relative link in README.md and docs/*.md reaches a file, and its #anchor a heading.
// - the repository is self-contained: no tracked text file names the background files the project
//   started from (the protocol and design notes that lived beside the checkout, never in it), and
//   no markdown link in a tracked .md file resolves outside the repository root;
// - docs/architecture.md names every folder under main/ as `main/<path>/`, and its last section,
//   "Every source file", lists every source file of main/, preload/, renderer/src/ and shared/ by
//   its repository path, and no file that is gone.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_IMAGES_DIR, docScreenshotNames } from '../../e2e/support/docs-screenshots.ts';
import { repoRoot } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const execFileAsync = promisify(execFile);

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

// ---- the repository is self-contained ------------------------------------------------------------

/**
 * Names a file in the repository must not carry: the background notes the project began from
 * lived outside the checkout, so a clone has none of them. Spelt in pieces so this file does not
 * name them itself.
 */
const OUTSIDE_NAMES: RegExp[] = [new RegExp(`\\b${'PROTO' + 'COLS'}\\.md\\b`), new RegExp(`\\b${'DES' + 'IGN'}\\.md\\b`), new RegExp(`design ${'(card|brief)'}`, 'i')];

/** Tracked files (git ls-files), package-lock.json aside; without git, every file outside node_modules, out and .git. */
function trackedFiles(root: string): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter((f) => f !== '');
  } catch {
    const walk = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = dir === '' ? e.name : `${dir}/${e.name}`;
        if (e.isDirectory()) return ['node_modules', 'out', '.git'].includes(e.name) ? [] : walk(rel);
        return e.isFile() ? [rel] : [];
      });
    files = walk('');
  }
  // A file listed but deleted in the working tree (another change in progress) has nothing to check.
  return files.filter((f) => f !== 'package-lock.json' && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
}

/** Every place a file names something outside the repository: "path:line what". */
function outsideReferences(root: string, files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(join(root, file));
    if (bytes.subarray(0, 8000).includes(0)) continue; // binary (images, fonts)
    const text = bytes.toString('utf8');
    text.split('\n').forEach((line, i) => {
      for (const re of OUTSIDE_NAMES) if (re.test(line)) found.push(`${file}:${i + 1} names ${re.exec(line)![0]}`);
    });
    if (!file.endsWith('.md')) continue;
    for (const l of linksOf({ path: file, text })) {
      if (/^file:/i.test(l.target)) {
        found.push(`${where(l)}: a file: link`);
        continue;
      }
      if (isExternal(l.target) || l.target.startsWith('#')) continue;
      const path = l.target.split('#')[0] ?? '';
      const target = path.startsWith('/') ? resolve(root, '.' + path) : resolve(root, dirname(file), decodeURIComponent(path));
      const rel = relative(resolve(root), target);
      if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) found.push(`${where(l)}: resolves outside the repository (${rel})`);
    }
  }
  return found;
}

describe('the repository is self-contained', () => {
  it('no tracked text file (package-lock.json aside) names the outside protocol or design notes, and no markdown link resolves outside the repository root', () => {
    const files = trackedFiles(repoRoot);
    expect(files.length, 'git ls-files lists the repository').toBeGreaterThan(100);
    expect(files).toContain('test/repo/docs.test.ts');
    expect(outsideReferences(repoRoot, files)).toEqual([]);
  });

  it('the check finds what was planted in a copy: a comment naming the notes, a doc citing them, a link out of the root', () => {
    const root = tempDir('gatehouse-self-contained-');
    mkdirSync(join(root, 'docs'));
    mkdirSync(join(root, 'main'));
    writeFileSync(join(root, 'main', 'a.ts'), `// The flow of one call (${'DES' + 'IGN'}.md).\nexport const a = 1;\n`);
    writeFileSync(join(root, 'docs', 'guide.md'), `# Guide\n\nSee the [${'design ' + 'brief'}](guide.md) and [the notes](../../shared/notes.md).\n\n\`\`\`\n[in a code block](../../x.md)\n\`\`\`\n[fine](../README.md) [also fine](guide.md#guide)\n`);
    writeFileSync(join(root, 'README.md'), `Protocols: ${'PROTO' + 'COLS'}.md section 2.\n`);
    writeFileSync(join(root, 'package-lock.json'), `{"x": "${'PROTO' + 'COLS'}.md"}\n`);
    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '.'], { cwd: root });
    const files = trackedFiles(root);
    expect(files.sort()).toEqual(['README.md', 'docs/guide.md', 'main/a.ts']);
    const found = outsideReferences(root, files);
    expect(found.some((f) => f.startsWith('main/a.ts:1 names'))).toBe(true);
    expect(found.some((f) => f.startsWith('README.md:1 names'))).toBe(true);
    expect(found.some((f) => f.startsWith('docs/guide.md:3 names'))).toBe(true);
    expect(found.filter((f) => f.includes('resolves outside'))).toEqual([`docs/guide.md:3 [the notes](../../shared/notes.md): resolves outside the repository (${join('..', 'shared', 'notes.md')})`]);
    expect(found).toHaveLength(4);
  });
});

// ---- docs/architecture.md covers main/ ----------------------------------------------------------

/** Every folder under main/, nested ones too, as `main/<path>/`. */
function mainFolders(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => [`${dir}/${e.name}/`, ...walk(`${dir}/${e.name}`)]);
  return walk('main').sort();
}

const missingFrom = (doc: string, folders: string[]) => folders.filter((f) => !doc.includes(f));

/** The folders whose source files docs/architecture.md lists one by one. */
const SOURCE_ROOTS = ['main', 'preload', 'renderer/src', 'shared'];

/** Every source file under SOURCE_ROOTS (`*.ts`, `*.tsx`, not `*.d.ts`), as its repository path. */
function sourceFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) return walk(rel);
      return e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
    });
  return SOURCE_ROOTS.filter((r) => existsSync(join(root, r))).flatMap(walk).sort();
}

const INDEX_HEADING = '## Every source file';

/**
 * Source files the doc's "Every source file" section does not list (a mention elsewhere in the doc
 * does not count: the section is the index), and paths the section lists that are not among them.
 */
function sourceIndexGaps(doc: string, files: string[]): { missing: string[]; stale: string[] } {
  const start = doc.indexOf(`\n${INDEX_HEADING}\n`);
  const rest = start < 0 ? '' : doc.slice(start + 1);
  const end = rest.indexOf('\n## ');
  const section = end < 0 ? rest : rest.slice(0, end);
  const listed = new Set([...section.matchAll(/(?<![\w./-])(?:main|preload|renderer\/src|shared)\/[\w./-]*\.tsx?\b/g)].map((m) => m[0]));
  const present = new Set(files);
  return { missing: files.filter((f) => !listed.has(f)), stale: [...listed].filter((f) => !present.has(f)).sort() };
}

describe('docs/architecture.md', () => {
  it('names every folder under main/, nested ones included, literally as `main/<path>/` (e.g. main/policy/extract/)', () => {
    const folders = mainFolders(repoRoot);
    expect(folders).toContain('main/policy/extract/');
    expect(missingFrom(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8'), folders), 'folders under main/ that docs/architecture.md does not name').toEqual([]);
  });

  it('the check finds a folder planted in a copy of main/ that the doc does not name', () => {
    const root = tempDir('gatehouse-architecture-');
    for (const f of [...mainFolders(repoRoot), 'main/kernel/', 'main/policy/planted/']) mkdirSync(join(root, f), { recursive: true });
    const doc = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    expect(missingFrom(doc, mainFolders(root))).toEqual(['main/kernel/', 'main/policy/planted/']);
    // A bare folder name is not enough: "policy/planted/" under some heading does not count.
    expect(missingFrom(doc + '\npolicy/planted/ and kernel/\n', ['main/kernel/', 'main/policy/planted/'])).toEqual(['main/kernel/', 'main/policy/planted/']);
  });

  it(`lists every source file of main/, preload/, renderer/src/ and shared/ under "${INDEX_HEADING}", and no file that is gone`, () => {
    const files = sourceFiles(repoRoot);
    expect(files).toContain('main/policy/extract/paths.ts');
    expect(files).toContain('renderer/src/main.tsx');
    const { missing, stale } = sourceIndexGaps(readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8'), files);
    expect(missing, `source files to add to "${INDEX_HEADING}" in docs/architecture.md, one line each`).toEqual([]);
    expect(stale, `paths listed under "${INDEX_HEADING}" in docs/architecture.md that no longer exist: remove or rename them`).toEqual([]);
  });

  it('the check finds a source file planted in a copy, and one listed but removed there', () => {
    const root = tempDir('gatehouse-architecture-files-');
    const planted = ['main/policy/planted.ts', 'renderer/src/views/planted-view.tsx'];
    const files = [...sourceFiles(repoRoot).filter((f) => f !== 'shared/csp.ts'), ...planted, 'main/planted.d.ts', 'main/policy/planted.js'];
    for (const f of files) {
      mkdirSync(join(root, dirname(f)), { recursive: true });
      writeFileSync(join(root, f), '');
    }
    const doc = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    expect(sourceIndexGaps(doc, sourceFiles(root))).toEqual({ missing: planted, stale: ['shared/csp.ts'] });
    // Named outside the section does not count: only the index does.
    expect(sourceIndexGaps(`${doc}\n## Later\n\n\`${planted[0]}\` and \`${planted[1]}\`\n`, sourceFiles(root)).missing).toEqual(planted);
  });
});

describe("the README's command table", () => {
  // Every command `gatehouse --help` lists, and every subcommand of the ones with a list, is named
  // in the README's Commands table (it went stale as commands were added: catalog, adapters, url).
  // Each command's help is its own process (a second or more on a loaded machine): all at once.
  it('names every command the CLI has', async () => {
    const cli = join(repoRoot, 'bin', 'gatehouse.js');
    const help = async (args: string[]) => (await execFileAsync(process.execPath, [cli, ...args, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })).stdout;
    // The Commands section only, up to the next heading (Examples: lists `  gatehouse …` lines too).
    const commandsOf = (text: string) => [...text.split(/^Commands:$/m)[1]!.split(/^\S/m)[0]!.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Commands'), readme.indexOf('## Development'));
    const tops = commandsOf(await help([]));
    const subs = await Promise.all(tops.map((top) => help([top])));
    tops.forEach((top, i) => {
      expect(table, `gatehouse ${top}`).toMatch(new RegExp(`\`gatehouse ${top}\\b`));
      const sub = subs[i]!;
      if (!/^Commands:$/m.test(sub)) return;
      for (const s of commandsOf(sub)) expect(table, `gatehouse ${top} ${s}`).toMatch(new RegExp(`\`gatehouse ${top}[^\`]*\\b${s}\\b`));
    });
  }, 60_000);
});
