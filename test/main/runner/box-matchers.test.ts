// The project walk's matcher (anyOf in box.ts) must answer exactly as picomatch's matcher for the
// same list of globs: it decides which files a contained command cannot read and which settings it
// cannot change. Checked over the globs the locked rules and the box use and names built to trip
// a hand-joined expression (regex characters, `**` as a name, near misses, nested paths).
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { anyOf } from '../../../main/runner/box.js';

const rules = builtinRules({ home: '/home/u', gatehouseHome: '/home/u/.config/gatehouse', caseInsensitive: false });
const ruleGlobs = [...new Set(rules.flatMap((r) => [...r.block_paths, ...r.block_except]))];
const named = ruleGlobs.filter((g) => g.startsWith('**/')).map((g) => (g.endsWith('/**') ? g.slice(0, -3) : g));
const box = ['**/.env*', '**/*.pem', '**/*.key', '**/id_{rsa,dsa,ecdsa,ed25519,ecdsa_sk,ed25519_sk}', '**/.env.example'];
// Globs whose own text is a path their expression does not match (picomatch matches it anyway).
const odd = ['a(b)', '+(a)', '[x]', 'a{b}', '.claude/settings.json'];

const parts = ['.env', '.env.example', '.envrc', 'a.pem', 'x.key', 'id_rsa', 'id_rsa.pub', 'id_ed25519_sk', '.git', 'hooks', 'config', 'config.worktree', '.claude', 'settings.json', 'settings.local.json', '.github', 'copilot', 'agents', '**', 'a(b)', '[x]', 'spa ce', 'ünï', '.opencode', 'opencode.jsonc', '.gatehouse', 'plugins', 'src', 'x\\y', '$HOME', 'a{b}', '+(a)', '!neg', '.mcp.json', 'AGENTS.md', '.ENV', 'ID_RSA', 'Key.PEM', '.Claude', 'Settings.json', '.GIT', 'Hooks'];

function names(): string[] {
  const out: string[] = [...parts];
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  for (let i = 0; i < 4000; i++) {
    const depth = 2 + next(3);
    out.push(Array.from({ length: depth }, () => parts[next(parts.length)]).join('/'));
  }
  return out;
}

describe('anyOf: the walk’s matcher for a list of globs', () => {
  it('answers as picomatch does for the locked rules’ names and the box’s own, on every path tried', () => {
    expect(named.length).toBeGreaterThan(10);
    for (const globs of [named, box, [...named, ...box], odd, ['**'], []]) {
      const ours = anyOf(globs);
      const theirs = globs.length ? picomatch(globs, { dot: true }) : () => false;
      const differ = names().filter((n) => ours(n) !== theirs(n));
      expect(differ).toEqual([]);
    }
  });

  it('finds what it must: a key deep in the tree, settings by their path, not a template or a near miss', () => {
    const secret = anyOf(['**/.env*', '**/*.pem']);
    expect(secret('a/b/.env.local')).toBe(true);
    expect(secret('deep/er/cert.pem')).toBe(true);
    expect(secret('pkg.env')).toBe(false);
    const kept = anyOf(['**/.claude/settings.json', '**/.git/hooks']);
    expect(kept('x/.claude/settings.json')).toBe(true);
    expect(kept('.git/hooks')).toBe(true);
    expect(kept('.git/hooks.sample')).toBe(false);
    expect(kept('')).toBe(false);
  });
});
