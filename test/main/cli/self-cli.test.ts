// Gatehouse's own command line run by an agent (issue #24): the real shell judge records the
// programs a command starts, and the locked rule builtin.gatehouse-cli denies Gatehouse's CLI by
// its name and by this installation's files (under any name, through a link), while commands
// that only mention or read them stay untouched. The same against a real host: security corpus
// (fixtures/security-corpus/self-cli.json).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedCodeFiles } from '../../../main/core/install-files.js';
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

function judge(command: string, cliFiles = [bin, join(install, 'out', 'main')], installFiles = installedCodeFiles(install, home, '')) {
  const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, cliFiles, installFiles }), []);
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

  // A review found `find <install>/bin -name '*.js' -exec node {} url \;` allowed: the program is
  // whatever the walk finds in a folder that holds the CLI.
  it.each([
    `find ${join(install, 'bin')} -name '*.js' -exec node {} url \\;`,
    `find ${install} -name gatehouse.js -exec node {} approvals list \\;`,
  ])('denies `%s`: it runs what it finds in a folder holding the CLI', (command) => {
    const { r } = judge(command);
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

  it('denies a find -exec over a folder holding the CLI named from where the call runs (`find . …`)', () => {
    const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, cliFiles: [bin, join(install, 'out', 'main')] }), []);
    for (const [command, cwd] of [["find . -name gatehouse.js -exec node {} url \\;", install], ['find bin -exec node {} url \\;', install]] as const) {
      const c: ToolCall = { ...bash(command), cwd };
      expect(evaluatePolicy(extract(c, { home }), c, { rules }), command).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'builtin.gatehouse-cli' } });
    }
  });

  it('leaves a find -exec over a folder without the CLI alone', () => {
    const { r } = judge("find . -name '*.test.js' -exec node {} \\;");
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

describe('builtin.gatehouse-install', () => {
  // A review ran an agent's code inside the host: the bundles load their packages from
  // node_modules (the extraction worker again each time it starts), and only bin/ and out/main/
  // were protected. Every folder Node looks in for them is, and the package.json Node reads.
  it.each([
    ['Write', { file_path: join(install, 'node_modules', 'picomatch', 'index.js'), content: 'x' }],
    ['Bash', { command: `sed -i 1a\\x ${join(install, 'node_modules', 'picomatch', 'index.js')}` }],
    ['Bash', { command: `mkdir -p ${join(install, 'out', 'node_modules', 'picomatch')}` }],
    ['Write', { file_path: join(install, 'package.json'), content: '{}' }],
    ['Write', { file_path: join(root, 'opt', 'node_modules', 'zod', 'index.js'), content: 'x' }],
    // A second review: the console the serve shell reads from disk, out/package.json, and the
    // folders Node looks in last (ws asks for bufferutil, which is not installed).
    ['Write', { file_path: join(install, 'out', 'renderer', 'index.html'), content: '<script>x</script>' }],
    ['Write', { file_path: join(install, 'out', 'package.json'), content: '{"type":"commonjs"}' }],
    ['Write', { file_path: join(home, '.node_modules', 'bufferutil', 'index.js'), content: 'x' }],
  ])('denies %s %j: a file this installation runs', (tool, args) => {
    const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, cliFiles: [bin, join(install, 'out', 'main')], installFiles: installedCodeFiles(install, home, '') }), []);
    const c: ToolCall = { ...bash(''), tool, arguments: args };
    const r = evaluatePolicy(extract(c, { home }), c, { rules });
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'builtin.gatehouse-install' } });
  });

  it("leaves the project's own node_modules alone when Gatehouse is installed elsewhere", () => {
    const rules = buildRuleSet(compileBuiltinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false, cliFiles: [bin, join(install, 'out', 'main')], installFiles: installedCodeFiles(install, home, '') }), []);
    const c = bash('npm install left-pad && touch node_modules/left-pad/x');
    expect(evaluatePolicy(extract(c, { home }), c, { rules }).matched.map((m) => m.rule)).not.toContain('builtin.gatehouse-install');
  });

  it("covers the project's node_modules when the project installed Gatehouse itself (npm i -D)", () => {
    const local = join(proj, 'node_modules', 'gatehouse');
    expect(installedCodeFiles(local, home, '')).toEqual(expect.arrayContaining([join(local, 'bin', 'gatehouse.js'), join(local, 'out'), join(local, 'package.json'), join(local, 'out', 'node_modules'), join(local, 'node_modules'), join(proj, 'node_modules')]));
    // Node never looks in a node_modules folder's own node_modules.
    expect(installedCodeFiles(local, home, '')).not.toContain(join(proj, 'node_modules', 'node_modules'));
  });
});
