// `gatehouse policy check`: a policy file checked as the host loads it, from the command line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const rule = (notMatch: string[]) => `rules:
  - name: no-deletes
    description: Nothing is deleted under /srv.
    actions: [delete]
    block_paths: ["/srv/**"]
    decision: deny
    message: Deleting under /srv is not allowed.
    examples:
      match: ["delete /srv/a.txt"]
      not_match: ${JSON.stringify(notMatch)}
`;

describe('gatehouse policy check', () => {
  it('a file that loads as written: exit 0 and what it holds', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'draft.yaml'), rule(['delete /tmp/a.txt']));
    const r = await runCli(['policy', 'check', join(dir, 'draft.yaml'), '--home', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/draft\.yaml: 1 rule, 2 examples \(0 failed\), 0 problems: it loads as written\.$/);
  });

  it('a failing example names its line, the rule is left out, exit 1', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'draft.yaml'), rule(['delete /tmp/a.txt', 'delete /srv/b.txt']));
    const r = await runCli(['policy', 'check', join(dir, 'draft.yaml'), '--home', dir, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { broken: boolean; rules: string[]; problems: { line: number; message: string }[]; examples: { ok: boolean }[] };
    expect(out).toMatchObject({ broken: false, rules: [] });
    expect(out.problems).toEqual([expect.objectContaining({ line: 10, message: expect.stringContaining('example "delete /srv/b.txt" should not match but does') })]);
    expect(out.examples.map((e) => e.ok)).toEqual([true, true, false]);
  });

  it('YAML that cannot be read is broken: the running host would keep its last good policy', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'policy.yaml'), 'rules: [oops\n');
    const r = await runCli(['policy', 'check', '--home', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/it cannot be loaded \(Gatehouse keeps the policy in force, also across a restart; with none ever loaded, it denies every call\)\.\n$/);
  });

  it('no file: one line saying where it looked, and the usage line', async () => {
    const dir = tempDir();
    const r = await runCli(['policy', 'check', '--home', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`gatehouse: No policy file at ${join(dir, 'policy.yaml')}. Pass the file to check, or the data folder with --home DIR.`, 'Usage: gatehouse policy check [options] [file]']);
  });
});
