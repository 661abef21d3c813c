// `gatehouse catalog …` through the real built CLI: a publisher builds a catalog from the example
// plugin, an operator adds it, searches, installs only after consenting, and a revocation
// quarantines the copy on the next refresh.
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

describe('gatehouse catalog', () => {
  it('init, add, add-source, search, install (consent first), revoke and quarantine', { timeout: 90_000 }, async () => {
    const work = tempDir('gatehouse-catalog-cli-');
    const cat = join(work, 'cat');
    const home = join(work, 'home');
    const env = { GATEHOUSE_HOME: home };
    const init = await runCli(['catalog', 'init', cat], env);
    expect(init.code, init.stderr).toBe(0);
    const rootIds = [...init.stdout.matchAll(/^ {2}([0-9a-f]{64})$/gm)].map((m) => m[1]);
    expect(rootIds).toHaveLength(3);
    expect(init.stdout).toMatch(/root-1: .*keys\/root-1\.json\n {4}keep offline/);

    const add = await runCli(['catalog', 'add', cat, join(repoRoot, 'examples/plugins/hello'), '--publisher', 'acme', '--source-repo', 'https://example.org/hello', '--source-commit', 'abc123'], env);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('Signed plugins/acme/hello-1.0.0.bundle (scan passed');

    const src = await runCli(['catalog', 'add-source', join(cat, 'repository'), '--root', join(cat, 'repository/metadata/1.root.json'), '--name', 'example', '--home', home], env);
    expect(src.code, src.stderr).toBe(0);
    for (const id of rootIds) expect(src.stdout).toContain(id);
    expect(src.stdout).toMatch(/1 plugin\(s\); metadata valid until \d{4}-/);

    const search = await runCli(['catalog', 'search', 'greets', '--home', home], env);
    expect(search.stdout).toBe('hello\t1.0.0\tacme\texample\tGreets someone by name.\n');

    const noConsent = await runCli(['catalog', 'install', 'hello', '--home', home], env);
    expect(noConsent.code).toBe(1);
    expect(noConsent.stdout).toContain('may read:  nothing');
    expect(noConsent.stdout).toContain('source:    https://example.org/hello @ abc123');
    expect(noConsent.stderr).toBe('Nothing installed: rerun with --yes to consent to the above.\n');
    expect(existsSync(join(home, 'plugins', 'hello'))).toBe(false);

    const install = await runCli(['catalog', 'install', 'hello', '--yes', '--home', home], env);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain('(disabled until you enable it: gatehouse plugin enable hello)');
    expect(readFileSync(join(home, 'plugins', 'hello', 'tool.toml'), 'utf8')).toContain('name = "hello"');
    expect((await runCli(['catalog', 'list', '--home', home], env)).stdout).toMatch(/^example {2}\(metadata valid until \d{4}-\d\d-\d\dT[^)]+\)\n {2}hello 1\.0\.0 disabled\n$/);
    expect((await runCli(['catalog', 'updates', '--home', home], env)).stdout).toBe('No updates waiting (as of the last refresh; `gatehouse catalog search` refreshes).\n');
    // Enabled the ordinary way, it is listed as enabled (it was listed as installed: disabled).
    expect((await runCli(['plugin', 'enable', 'hello', '--home', home], env)).code).toBe(0);
    expect((await runCli(['catalog', 'list', '--home', home], env)).stdout).toMatch(/\n {2}hello 1\.0\.0 enabled\n$/);
    // A newer version published and seen by a refresh is listed as waiting, with what it widens.
    const v2 = join(work, 'hello-1.1.0');
    cpSync(join(repoRoot, 'examples/plugins/hello'), v2, { recursive: true });
    writeFileSync(join(v2, 'tool.toml'), readFileSync(join(v2, 'tool.toml'), 'utf8').replace('version = "1.0.0"', 'version = "1.1.0"'));
    expect((await runCli(['catalog', 'add', cat, v2, '--publisher', 'acme', '--source-repo', 'https://example.org/hello', '--source-commit', 'def456'], env)).code).toBe(0);
    await runCli(['catalog', 'search', '--home', home], env); // a refresh
    expect((await runCli(['catalog', 'updates', '--home', home], env)).stdout).toBe('example  hello 1.0.0 -> 1.1.0\n');

    expect((await runCli(['catalog', 'revoke', cat, 'hello', '--version', '1.0.0', '--reason', 'greets too loudly'], env)).code).toBe(0);
    await runCli(['catalog', 'search', '--home', home], env); // a refresh
    const list = await runCli(['catalog', 'list', '--home', home], env);
    expect(list.stdout).toMatch(/^example {2}\(metadata valid until [^)]+\)\n {2}hello 1\.0\.0 QUARANTINED: greets too loudly\n$/);
    expect(existsSync(join(home, 'plugins', 'hello'))).toBe(false);

    // Both went through a host, so both are in the audit log.
    const audit = await runCli(['audit', 'search', '--json', '--type', 'catalog.installed', '--type', 'catalog.quarantined', '--home', home], env);
    const types = (JSON.parse(audit.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }).events.map((e) => [e.type, e.payload.name, e.payload.version]);
    expect(types.sort()).toEqual([['catalog.installed', 'hello', '1.0.0'], ['catalog.quarantined', 'hello', '1.0.0']]);
  });
});
