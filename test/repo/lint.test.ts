// The lint setup does what docs/contributing.md says: npm test and npm run lint run ESLint with
// zero warnings allowed, the React hooks rules apply to the console, the promise rules to the
// host, the composition root is built in dependency order, and a disable comment must say why. Planted code is linted through ESLint's own API with
// the repository's eslint.config.js, as if it were the file at the given path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

const eslint = new ESLint({ cwd: repoRoot });

async function rulesHit(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, filePath) });
  return (result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`);
}

describe('lint', () => {
  it('runs in npm test and npm run lint with --max-warnings=0', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.lint).toBe('eslint --max-warnings=0 .');
    const testScript = readFileSync(join(repoRoot, 'scripts/test.mjs'), 'utf8');
    expect(testScript).toMatch(/\{ name: 'lint', cmd: bin\('eslint'\), args: \['--max-warnings=0',[^\n]*'\.'\] \}/);
  });

  it('applies the React hooks rules to renderer/ and not elsewhere', async () => {
    const component = [
      "import { useEffect, useState } from 'react';",
      'export function Counter({ on, step }: { on: boolean; step: number }) {',
      '  if (!on) return null;',
      '  const [n, setN] = useState(0);',
      '  useEffect(() => setN(n + step), []);',
      '  return n;',
      '}',
    ].join('\n');
    const hits = await rulesHit(component, 'renderer/src/components/planted.tsx');
    expect(hits).toContain('react-hooks/rules-of-hooks');
    expect(hits).toContain('react-hooks/exhaustive-deps');
    expect(await rulesHit(component, 'test/support/planted.tsx')).not.toContain('react-hooks/rules-of-hooks');
  });

  it('reports a floating promise in main/', { timeout: 120_000 }, async () => {
    // The promise rules need type information: the text is checked as an existing file of the project.
    const code = 'async function save(): Promise<void> {}\nexport function onClick(): void {\n  save();\n}\n';
    expect(await rulesHit(code, 'main/core/canonical-json.ts')).toEqual(['@typescript-eslint/no-floating-promises']);
  });

  it('reports a closure in main/host/ that reads a binding declared below it, and not hoisted functions or types', { timeout: 120_000 }, async () => {
    const forward = 'export function build() {\n  const onChange = () => gateway.sync();\n  const gateway = { sync: () => 1 };\n  return onChange;\n}\n';
    // Checked as an existing file of the project: main/ carries the type-aware rules too.
    expect(await rulesHit(forward, 'main/host/host-handlers.ts')).toEqual(['@typescript-eslint/no-use-before-define']);
    const hoisted = 'export function build(): Later {\n  return { n: later() };\n}\nfunction later() {\n  return 1;\n}\ninterface Later { n: number }\n';
    expect(await rulesHit(hoisted, 'main/host/host-handlers.ts')).toEqual([]);
  });

  it('refuses a disable comment without a reason, and one that suppresses nothing', async () => {
    const bare = '// eslint-disable-next-line no-control-regex\nexport const C = /[\\u0000-\\u001f]/;\n';
    expect(await rulesHit(bare, 'shared/planted.ts')).toEqual(['@eslint-community/eslint-comments/require-description']);
    const reasoned = '// eslint-disable-next-line no-control-regex -- control characters are the point\nexport const C = /[\\u0000-\\u001f]/;\n';
    expect(await rulesHit(reasoned, 'shared/planted.ts')).toEqual([]);
    const unused = '// eslint-disable-next-line no-control-regex -- no longer needed\nexport const C = /[a-z]/;\n';
    // ESLint reports an unused directive with no rule id.
    expect(await rulesHit(unused, 'shared/planted.ts')).toEqual(['fatal: Unused eslint-disable directive (no problems were reported from \'no-control-regex\').']);
  });
});
