// Gatehouse's own command line run by an agent (issue #24): the real shell judge records the
// programs a command starts, and the locked rule builtin.gatehouse-cli denies Gatehouse's CLI by
// its name and by this installation's files (under any name, through a link), while commands
// that only mention or read them stay untouched. The same against a real host: security corpus
// (fixtures/security-corpus/self-cli.json).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import { compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { buildRuleSet, evaluatePolicy } from '../../../main/policy/rules/engine.js';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import type { ToolCall } from '../../../main/policy/types.js';
import { cliPath, repoRoot } from '../../support/cli.js';
import { sharedTempDir } from '../../support/temp.js';

const temp = sharedTempDir('gatehouse-self-cli-');
const root = temp.dir;
const home = join(root, 'home');
const proj = join(home, 'proj');
// A Gatehouse installation somewhere else, as npm would lay it out.
const install = join(root, 'opt', 'gatehouse');
const bin = join(install, 'bin', 'gatehouse.js');

const bash = (command: string): ToolCall => ({ id: 'c1', agent: 'a', session: 's', tool: 'Bash', arguments: { command }, cwd: proj, source: 'hook', receivedAt: 0 });

function judge(command: string, cliFiles = [bin, join(install, 'out', 'main')]) {
  const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, cliFiles }), []);
  const c = bash(command);
  const x = extract(c, { home });
  return { x, r: evaluatePolicy(x, c, { rules }) };
}

beforeAll(async () => {
  await initExtractor();
  mkdirSync(join(install, 'bin'), { recursive: true });
  mkdirSync(join(install, 'out', 'main'), { recursive: true });
  writeFileSync(bin, '#!/usr/bin/env node\n');
  writeFileSync(join(install, 'out', 'main', 'cli.js'), '');
  mkdirSync(join(proj, 'node_modules', '.bin'), { recursive: true });
  mkdirSync(join(home, 'bin'), { recursive: true });
  // The CLI under names that say nothing: a link in the home, and npm's link in a project.
  symlinkSync(bin, join(home, 'bin', 'helper'));
  symlinkSync(bin, join(proj, 'node_modules', '.bin', 'tool'));
});
afterAll(() => temp.remove());

describe('builtin.gatehouse-cli', () => {
  it.each([
    'gatehouse url',
    'gatehouse approvals approve abc123',
    "echo '{}' | gatehouse adapters --stdio",
    '/usr/bin/env gatehouse url',
    "sh -c 'gatehouse url'",
    'sudo -u alice gatehouse url',
    'npx gatehouse@latest url',
    'npx -y gatehouse approvals approve x',
    'npx --package=@acme/gatehouse@2 gatehouse url',
    'npm exec gatehouse -- url',
    'pnpm dlx gatehouse url',
    'yarn gatehouse url',
    'bunx gatehouse url',
    'node ./node_modules/.bin/gatehouse url',
    'tsx /somewhere/bin/gatehouse.js url',
    'alias g=gatehouse; g url',
    'gаtehouse url',
  ])('denies `%s` by its name', (command) => {
    const { r } = judge(command);
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'builtin.gatehouse-cli' } });
    expect(r.reason).toContain("Agents may not run Gatehouse's own command line; it holds operator rights.");
    expect(r.decisive?.locked).toBe(true);
  });

  it.each([
    ['~/bin/helper url', 'a link in the home'],
    ['./node_modules/.bin/tool url', "npm's link in the project"],
    ['node ~/bin/helper url', 'a link run by node'],
    [`deno run -A ${bin} url`, 'the bin file run by deno'],
    [`node ${join(install, 'out', 'main', 'cli.js')} url`, 'the built bundle'],
  ])('denies `%s` (%s): this installation under another name', (command) => {
    const { x, r } = judge(command);
    expect(x.programs).toContain(command.includes('cli.js') ? join(install, 'out', 'main', 'cli.js') : bin);
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'builtin.gatehouse-cli' } });
  });

  it.each([
    'grep gatehouse README.md',
    'cat docs/gatehouse.md',
    'git log --grep gatehouse',
    'command -v gatehouse',
    'which gatehouse',
    `cat ${bin}`,
    `grep -n hook ~/bin/helper`,
    'echo "run gatehouse url" >> notes.txt',
  ])('leaves `%s` alone: it mentions or reads Gatehouse without running it', (command) => {
    const { r } = judge(command);
    expect(r.matched.map((m) => m.rule)).not.toContain('builtin.gatehouse-cli');
  });

  it("a policy store protects this installation's own files by default", () => {
    const store = new PolicyStore({ file: join(root, 'policy.yaml'), home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, watch: false });
    for (const command of [`node ${cliPath} url`, `${join(repoRoot, 'out', 'main', 'cli.js')} url`]) {
      const c = bash(command);
      expect(store.evaluate(extract(c, { home }), c).decider, command).toEqual({ kind: 'rule', rule: 'builtin.gatehouse-cli', origin: 'builtin' });
    }
    store.close();
  });
});
