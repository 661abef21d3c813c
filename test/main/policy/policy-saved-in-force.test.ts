// Review of e3f2db0 (policy.yaml's last good copy): a restart brought back an older policy than the
// one in force, and two messages said something other than what was in force. Each of the first
// three tests failed on 3f8a534.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PolicyStore } from '../../../main/policy/rules/store.js';
import type { Extraction } from '../../../main/policy/types.js';

const HOME = '/home/u';
const GOOD = `version: 1
rules:
  - name: no-secret-dir
    actions: [read]
    block_paths: ["/srv/secret/**"]
    decision: deny
    message: nobody touches /srv/secret
`;
const read = (path: string): Extraction => ({ operations: ['read'], paths: [path], hosts: [], command: '', content: '', evasive: false, evasiveReasons: [] });
/** Resolves once the store, reloading on its own after a change on disk, says `f`: waits for its change events, no polling. */
const until = (store: PolicyStore, f: () => boolean): Promise<void> =>
  new Promise((resolve) => {
    if (f()) return resolve();
    const off = store.onChange(() => {
      if (!f()) return;
      off();
      resolve();
    });
  });

describe('policy.yaml: the policy in force, saved beside it', () => {
  it('a broken first start with no saved copy, then the file deleted: the message must not say a policy stays active while every call is denied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, GOOD.replace('decision: deny', 'decision: [deny'));
    const store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false });
    await store.start();
    onTestFinished(() => store.close());
    expect(store.evaluate(read('/srv/public/a'), null).decision).toBe('deny'); // fail closed: as designed
    rmSync(file);
    await until(store, () => /removed/.test(store.error ?? ''));
    const r = store.evaluate(read('/srv/public/a'), null);
    // What happens: every call is still denied ("…no earlier policy loaded whole…") while
    // store.error says "was removed; the last loaded policy stays active" — no policy was ever
    // loaded. Either the removal clears the deny-all (as a missing file does at a start) or the
    // message keeps saying every call is denied.
    // Was: still denied, while store.error said "was removed; the last loaded policy stays active".
    // Every call stays denied (an editor may be mid-save), and both the message and the reason say so.
    expect(r.decision).toBe('deny');
    expect(store.error).toMatch(/was removed after it failed to load.*every call is still denied/);
    expect(store.error).not.toMatch(/stays active/);
    expect(r.reason).toBe(store.error);
    // An empty file clears it, as the message says.
    writeFileSync(file, '');
    await until(store, () => store.error === null);
    expect(store.evaluate(read('/srv/public/a'), null).decision).not.toBe('deny');
  });

  it('a broken file edited into another broken file: the deny reason names the current error, not the first one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'rules: [\n');
    const store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false });
    await store.start();
    const first = store.error;
    writeFileSync(file, 'version: 7\nrules: []\n');
    store.reload();
    expect(store.problems[0]?.message).toMatch(/unsupported version 7/);
    // Was: error and the deny reason still quoted the YAML error of the first text.
    expect(store.error).not.toBe(first);
    expect(store.error).toMatch(/every call is denied until it is fixed: .*unsupported version 7/);
    expect(store.evaluate(read('/srv/public/a'), null).reason).toMatch(/unsupported version 7/);
  });

  it('a restart with a broken file begins from the policy in force, also when it loaded with a rule rejected (not from an older one that loaded whole)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    // v1 loads whole (saved): it allows reads of /srv/secret.
    const v1 = `version: 1
rules:
  - name: open-secret
    actions: [read]
    block_paths: ["/srv/secret/**"]
    decision: allow
`;
    writeFileSync(file, v1);
    let store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false });
    await store.start();
    // v2: the operator removes the allow rule and adds a deny; one other rule has a bad glob, so v2
    // is in force (minus that rule) but is never saved.
    const v2 = `${GOOD}  - name: typo
    actions: [read]
    block_paths: ["/srv/[abc"]
    decision: deny
`;
    writeFileSync(file, v2);
    store.reload();
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
    // v3: a typo breaks the file; the running host keeps v2's rules (deny).
    writeFileSync(file, v2.replace('decision: deny\n    message', 'decision: [deny\n    message'));
    store.reload();
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
    await store.close();
    // Restart: the saved copy is v1, whose allow rule the operator had removed.
    store = new PolicyStore({ file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false });
    await store.start();
    onTestFinished(() => store.close());
    expect(existsSync(join(dir, '.policy.yaml.last-good'))).toBe(true);
    // Was: 'allow' (v1's removed rule back) while store.error said "the last good policy stays active".
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
    expect(store.evaluate(read('/srv/secret/k'), null).reason).toMatch(/nobody touches \/srv\/secret/);
    expect(store.error).toMatch(/has errors, so the last good policy stays active/);
    expect(readFileSync(join(dir, '.policy.yaml.last-good'), 'utf8')).toBe(v1);
    expect(readFileSync(join(dir, '.policy.yaml.last-loaded'), 'utf8')).toBe(v2);
  });

  it('the file missing at a restart: the policy in force (with a rejected rule) stays, and the message names both saved copies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    const opts = { file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false };
    writeFileSync(file, GOOD.replace('decision: deny', 'decision: allow'));
    let store = new PolicyStore(opts);
    await store.start();
    writeFileSync(file, `${GOOD}  - name: typo\n    actions: [read]\n    block_paths: ["/srv/[abc"]\n    decision: deny\n`);
    store.reload();
    await store.close();
    rmSync(file);
    store = new PolicyStore(opts);
    await store.start();
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
    expect(store.error).toMatch(/is missing; the last good policy \(saved in .*\.policy\.yaml\.last-good and .*\.policy\.yaml\.last-loaded\) stays active/);
  });

  it('a text that loads whole is saved as both copies, so a stale copy in force never comes back over it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    const opts = { file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false };
    // In force before: an allow rule, with a rejected one beside it.
    writeFileSync(file, `${GOOD.replace('decision: deny', 'decision: allow')}  - name: typo\n    actions: [read]\n    block_paths: ["/srv/[abc"]\n    decision: deny\n`);
    let store = new PolicyStore(opts);
    await store.start();
    expect(existsSync(join(dir, '.policy.yaml.last-good'))).toBe(false);
    // Then a text that loads whole (the deny), then a typo, then a restart.
    writeFileSync(file, GOOD);
    store.reload();
    expect(readFileSync(join(dir, '.policy.yaml.last-loaded'), 'utf8')).toBe(GOOD);
    writeFileSync(file, GOOD.replace('decision: deny', 'decision: [deny'));
    store.reload();
    await store.close();
    store = new PolicyStore(opts);
    await store.start();
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
  });

  it('a start with only a copy in force that had rules rejected (none ever loaded whole) begins from it, not from denying every call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-r5-store-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'policy.yaml');
    const opts = { file, home: HOME, gatehouseHome: dir, caseInsensitive: false, hardLinks: false, watch: false };
    const v = `${GOOD}  - name: typo\n    actions: [read]\n    block_paths: ["/srv/[abc"]\n    decision: deny\n`;
    writeFileSync(file, v);
    let store = new PolicyStore(opts);
    await store.start();
    await store.close();
    writeFileSync(file, 'rules: [\n');
    store = new PolicyStore(opts);
    await store.start();
    expect(store.evaluate(read('/srv/public/a'), null).decision).not.toBe('deny');
    expect(store.evaluate(read('/srv/secret/k'), null).decision).toBe('deny');
    expect(store.error).toMatch(/has errors, so the last good policy stays active/);
  });
});
