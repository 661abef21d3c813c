// What git's content-printing commands read (issue #24), against real repositories made by the
// real git: the index in each of its on-disk versions (2, 3 with extended flags, 4 with
// prefix-compressed names), a linked work tree whose `.git` is a file, and the commands' reads.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { indexPaths, repoOf, trackedEnvFiles } from '../../../main/policy/extract/git-objects.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { tempDir } from '../../support/temp.js';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

/** A repository tracking .env, deploy/.env.production, .env.example and src files. */
function repo(): string {
  const dir = tempDir('gatehouse-git-objects-');
  mkdirSync(join(dir, 'deploy'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, '.env'), 'K=1\n');
  writeFileSync(join(dir, '.env.example'), 'K=\n');
  writeFileSync(join(dir, 'deploy', '.env.production'), 'K=2\n');
  writeFileSync(join(dir, 'src', 'a.ts'), 'a\n');
  writeFileSync(join(dir, 'src', 'ab.ts'), 'b\n');
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'init');
  return dir;
}

const ALL = ['.env', '.env.example', 'deploy/.env.production', 'src/a.ts', 'src/ab.ts'];

beforeAll(() => initExtractor());

describe('the git index', () => {
  it('reads every path of versions 2, 3 (extended flags) and 4 (compressed names)', () => {
    const dir = repo();
    expect(indexPaths(readFileSync(join(dir, '.git', 'index')), 20)).toEqual(ALL);
    // An intent-to-add entry carries the extended flags, which make the index version 3.
    writeFileSync(join(dir, 'src', 'new.ts'), 'n\n');
    git(dir, 'add', '-N', 'src/new.ts');
    git(dir, 'update-index', '--index-version', '3');
    expect(indexPaths(readFileSync(join(dir, '.git', 'index')), 20)).toEqual([...ALL, 'src/new.ts'].sort());
    git(dir, 'update-index', '--index-version', '4');
    expect(readFileSync(join(dir, '.git', 'index')).readUInt32BE(4)).toBe(4);
    expect(indexPaths(readFileSync(join(dir, '.git', 'index')), 20)).toEqual([...ALL, 'src/new.ts'].sort());
    expect(trackedEnvFiles(repoOf(dir)!)).toEqual(['.env', 'deploy/.env.production']);
  });

  it('finds the repository of a linked work tree through its .git file', () => {
    const dir = repo();
    const wt = join(tempDir('gatehouse-git-wt-'), 'wt');
    git(dir, 'worktree', 'add', '-q', wt);
    const r = repoOf(join(wt, 'src'));
    expect(r?.top).toBe(wt);
    expect(trackedEnvFiles(r!)).toEqual(['.env', 'deploy/.env.production']);
  });

  it('an index that is not one is unsure, not empty', () => {
    const dir = repo();
    writeFileSync(join(dir, '.git', 'index'), 'garbage that is not an index');
    expect(typeof trackedEnvFiles(repoOf(dir)!)).toBe('string');
    const x = extract({ id: '1', agent: 'a', session: 's', tool: 'Bash', arguments: { command: 'git diff' }, cwd: dir, source: 'hook', receivedAt: 0 });
    expect(x.evasive).toBe(true);
  });
});

describe('git commands that print contents', () => {
  const paths = (dir: string, command: string, cwd = dir) => extract({ id: '1', agent: 'a', session: 's', tool: 'Bash', arguments: { command }, cwd, source: 'hook', receivedAt: 0 });

  it('REV:PATH, :PATH and :N:PATH are paths from the top; ./ and ../ from the folder git runs in', () => {
    const dir = repo();
    expect(paths(dir, 'git show HEAD:.env', join(dir, 'src')).paths).toContain(join(dir, '.env'));
    expect(paths(dir, 'git show :./a.ts', join(dir, 'src')).paths).toContain(join(dir, 'src', 'a.ts'));
    expect(paths(dir, 'git cat-file -p :0:deploy/.env.production').paths).toContain(join(dir, 'deploy', '.env.production'));
  });

  it('a patch of a folder reads the .env files tracked in it, and no others', () => {
    const dir = repo();
    const x = paths(dir, 'git diff HEAD~0 -- deploy');
    expect(x.paths).toContain(join(dir, 'deploy', '.env.production'));
    expect(x.paths).not.toContain(join(dir, '.env'));
    expect(paths(dir, 'git log -p -- src').paths.some((p) => p.endsWith('.env'))).toBe(false);
    expect(paths(dir, 'git archive HEAD:deploy').paths).toContain(join(dir, 'deploy', '.env.production'));
  });
});
