// The tests' rebuild decision (test/support/build-freshness.ts, used by test/global-setup.ts):
// built output older than any of its sources is stale and rebuilt, so a single CLI test never
// runs last hour's bundle. Checked over a temp tree whose mtimes the test sets itself.
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_TARGETS, decideBuild, type BuildTarget } from '../support/build-freshness.js';
import { repoRoot } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function file(root: string, rel: string, at: Date): void {
  const path = join(root, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, rel);
  utimesSync(path, at, at);
}

const TARGETS: BuildTarget[] = [
  { jobs: ['cli', 'hook'], outputs: ['out/main/cli.js', 'out/main/hook.js'], sources: ['main', 'shared', 'bin', 'scripts/build.mjs'] },
  { jobs: ['renderer'], outputs: ['out/renderer/index.html'], sources: ['renderer', 'shared'] },
];

/** A tree built at T0+10 from sources last changed at T0. */
function builtTree(): string {
  const root = tempDir();
  file(root, 'main/cli/index.ts', T0);
  file(root, 'main/policy/deep/nested/rule.ts', T0);
  file(root, 'shared/contract.ts', T0);
  file(root, 'renderer/src/app.tsx', T0);
  file(root, 'bin/gatehouse.js', T0);
  file(root, 'scripts/build.mjs', T0);
  file(root, 'out/main/cli.js', later(10));
  file(root, 'out/main/hook.js', later(11));
  file(root, 'out/renderer/index.html', later(10));
  return root;
}

describe('rebuild decision', () => {
  it('output newer than every source is fresh', () => {
    const root = builtTree();
    expect(decideBuild(root, TARGETS).map((d) => d.state)).toEqual(['fresh', 'fresh']);
  });

  it('a touched source makes the targets built from it stale, naming the source and the oldest output', () => {
    const root = builtTree();
    utimesSync(join(root, 'main/policy/deep/nested/rule.ts'), later(20), later(20));
    expect(decideBuild(root, TARGETS)).toEqual([
      { jobs: ['cli', 'hook'], state: 'stale', reason: 'main/policy/deep/nested/rule.ts is newer than out/main/cli.js' },
      { jobs: ['renderer'], state: 'fresh', reason: 'out/renderer/index.html is newer than every source' },
    ]);
  });

  it('a shared source makes every target that reads it stale; so does the build script or bin/', () => {
    const root = builtTree();
    utimesSync(join(root, 'shared/contract.ts'), later(20), later(20));
    expect(decideBuild(root, TARGETS).map((d) => d.state)).toEqual(['stale', 'stale']);
    for (const rel of ['scripts/build.mjs', 'bin/gatehouse.js']) {
      const other = builtTree();
      utimesSync(join(other, rel), later(20), later(20));
      expect(decideBuild(other, TARGETS)[0]).toMatchObject({ state: 'stale', reason: `${rel} is newer than out/main/cli.js` });
    }
  });

  it('a source newer than one output but not the other is still stale: the oldest output counts', () => {
    const root = builtTree();
    // cli.js at +10, hook.js at +11: a change at +10.5 is in hook.js but maybe not in cli.js.
    utimesSync(join(root, 'main/cli/index.ts'), later(10.5), later(10.5));
    expect(decideBuild(root, TARGETS)[0]).toMatchObject({ state: 'stale', reason: 'main/cli/index.ts is newer than out/main/cli.js' });
  });

  it('a missing output is missing, whatever the times', () => {
    const root = builtTree();
    const partial = TARGETS.map((t) => ({ ...t, outputs: [...t.outputs, 'out/main/not-built.js'] }));
    expect(decideBuild(root, partial)[0]).toEqual({ jobs: ['cli', 'hook'], state: 'missing', reason: 'out/main/not-built.js does not exist' });
  });

  it('node_modules and dot folders under a source folder are not sources', () => {
    const root = builtTree();
    file(root, 'main/node_modules/pkg/index.js', later(30));
    file(root, 'main/.cache/x.js', later(30));
    expect(decideBuild(root, TARGETS).map((d) => d.state)).toEqual(['fresh', 'fresh']);
  });
});

describe("the repository's build targets", () => {
  it('name sources that exist and jobs that scripts/build.mjs knows, so a rename cannot switch the check off', () => {
    const build = readFileSync(join(repoRoot, 'scripts/build.mjs'), 'utf8');
    for (const t of BUILD_TARGETS) {
      for (const rel of t.sources) expect(existsSync(join(repoRoot, rel)), rel).toBe(true);
      for (const job of t.jobs) expect(build, job).toMatch(new RegExp(`^ {2}${job}: \\(\\) =>`, 'm'));
      for (const rel of t.outputs) expect(rel.startsWith('out/'), rel).toBe(true);
    }
  });
});
