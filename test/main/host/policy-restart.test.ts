// A broken policy.yaml keeps the last good policy while the host runs, and across a restart: the
// text of the last policy that loaded whole is kept beside the file, and a start that finds the
// file broken, with a rule rejected, or gone begins from it. With no such copy a broken file denies
// every call until it is fixed. A review restarted a host after a one-character typo and the
// operator's deny rule was gone (the call was allowed at full autonomy), while the console said
// the last good policy stayed active.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../main/host/create-host.js';
import { tempDir } from '../../support/temp.js';

const POLICY = `version: 1
rules:
  - name: no-secret-dir
    actions: [read, write, delete]
    block_paths: ["/srv/secret/**"]
    decision: deny
    message: nobody touches /srv/secret
`;

async function host(home: string): Promise<Host> {
  const h = createHost({ home, shell: 'serve', log: () => {}, projectDir: home, watch: false });
  await h.ready;
  return h;
}
const readSecret = (h: Host, id: string) => h.gateway.call({ agent: 'a', session: 's', tool: 'Read', arguments: { file_path: '/srv/secret/key.txt' }, source: 'hook', id }, { execute: false });

function newHome(): string {
  const home = join(tempDir('gatehouse-policy-restart-'), 'home');
  mkdirSync(join(home, 'plugins'), { recursive: true });
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ mode: 'live', autonomy: 'full' }));
  return home;
}

describe('policy.yaml broken, then the host restarts', () => {
  it('a syntax error: the deny rule holds while running and after a restart, and the message says so truly', { timeout: 60_000 }, async () => {
    const home = newHome();
    writeFileSync(join(home, 'policy.yaml'), POLICY);
    let h = await host(home);
    expect((await readSecret(h, 'c1')).decision).toBe('deny');
    writeFileSync(join(home, 'policy.yaml'), POLICY.replace('decision: deny', 'decision: [deny'));
    h.policy.reload();
    expect((await readSecret(h, 'c2')).decision).toBe('deny');
    await h.close('restart');
    h = await host(home);
    try {
      const after = await readSecret(h, 'c3');
      expect(after.decision).toBe('deny');
      expect(after.reason).toMatch(/nobody touches \/srv\/secret/);
      expect(h.policy.error).toMatch(/has errors, so the last good policy stays active/);
    } finally {
      await h.close('done');
    }
  });

  it('a rule rejected (a bad glob) keeps its saved version after a restart', { timeout: 60_000 }, async () => {
    const home = newHome();
    writeFileSync(join(home, 'policy.yaml'), POLICY);
    let h = await host(home);
    writeFileSync(join(home, 'policy.yaml'), POLICY.replace('"/srv/secret/**"', '"/srv/secret/**", "/srv/[abc"'));
    h.policy.reload();
    expect((await readSecret(h, 'c2')).decision).toBe('deny');
    await h.close('restart');
    h = await host(home);
    try {
      expect((await readSecret(h, 'c3')).decision).toBe('deny');
      expect(h.policy.error).toMatch(/no-secret-dir kept its last good version/);
    } finally {
      await h.close('done');
    }
  });

  it('the file deleted while the host was down: the saved policy stays, and an empty file clears the rules', { timeout: 60_000 }, async () => {
    const home = newHome();
    writeFileSync(join(home, 'policy.yaml'), POLICY);
    let h = await host(home);
    await h.close('restart');
    rmSync(join(home, 'policy.yaml'));
    h = await host(home);
    try {
      expect((await readSecret(h, 'c1')).decision).toBe('deny');
      expect(h.policy.error).toMatch(/is missing; the last good policy .* stays active/);
      writeFileSync(join(home, 'policy.yaml'), '');
      h.policy.reload();
      expect((await readSecret(h, 'c2')).decision).toBe('allow');
      expect(h.policy.error).toBeNull();
    } finally {
      await h.close('done');
    }
  });

  it('broken at the first start, with no policy ever loaded: every call is denied with the reason until the file is fixed', { timeout: 60_000 }, async () => {
    const home = newHome();
    writeFileSync(join(home, 'policy.yaml'), POLICY.replace('decision: deny', 'decision: [deny'));
    const h = await host(home);
    try {
      expect(existsSync(join(home, '.policy.yaml.last-good'))).toBe(false);
      const r = await h.gateway.call({ agent: 'a', session: 's', tool: 'Read', arguments: { file_path: '/srv/public/readme.txt' }, source: 'hook', id: 'c1' }, { execute: false });
      expect(r.decision).toBe('deny');
      expect(r.reason).toMatch(/policy\.yaml has errors and no earlier policy loaded whole, so every call is denied until it is fixed/);
      writeFileSync(join(home, 'policy.yaml'), POLICY);
      h.policy.reload();
      expect((await h.gateway.call({ agent: 'a', session: 's', tool: 'Read', arguments: { file_path: '/srv/public/readme.txt' }, source: 'hook', id: 'c2' }, { execute: false })).decision).toBe('allow');
      expect(existsSync(join(home, '.policy.yaml.last-good'))).toBe(true);
    } finally {
      await h.close('done');
    }
  });
});
