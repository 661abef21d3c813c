// secretPaths with `within` (what bwrapArgs hides under the folders it shows because they are on
// PATH) must name exactly the secrets of the whole list that lie in those folders: it skips the
// locked rules' globs that cannot name a place there (placesBase), so a wrong base would leave a
// credential file visible in every sandbox.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinRules } from '../../../main/policy/rules/builtin.js';
import { existingPlaces, placesBase } from '../../../main/runner/box.js';
import { secretPaths, under } from '../../../main/runner/sandbox.js';
import { tempDir } from '../../support/temp.js';

function put(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'secret\n');
}

/** A home holding a credential for many of the locked rules' patterns, literal and wildcard ones. */
function populatedHome(): string {
  const home = join(tempDir('gatehouse-secret-paths-'), 'home');
  for (const f of ['.ssh/id_rsa', '.git-credentials', '.pgpass', '.npmrc', '.netrc', '.config/gh/hosts.yml', '.claude/.credentials.json', '.codex/auth.json', '.local/share/keyrings/login.keyring', '.vault-token', '.cargo/credentials.toml', '.cargo/bin/cargo', '.docker/config.json', '.aws/credentials', '.kube/config', '.mozilla/firefox/profiles.ini', '.local/bin/tool', '.config/google-chrome-beta/Default/Cookies', 'proj/README.md']) {
    put(join(home, f));
  }
  return home;
}

describe('secretPaths within folders', () => {
  it('names exactly the secrets of the whole list inside the given folders, for folders inside, holding and beside the home', () => {
    const home = populatedHome();
    const all = secretPaths(home);
    // The fixture is what the check is about: wildcard and literal patterns both found.
    expect(all).toContain(join(home, '.cargo', 'credentials.toml'));
    expect(all).toContain(join(home, '.git-credentials'));
    expect(all).toContain(join(home, '.config', 'google-chrome-beta'));
    const cases: string[][] = [
      [],
      [join(home, '.cargo')],
      [join(home, '.cargo', 'bin')],
      [join(home, '.local')],
      [join(home, '.local', 'bin')],
      [join(home, '.config')],
      // Inside a wildcard glob's base (~/.config for ~/.config/google-chrome*/**) and holding a place it names.
      [join(home, '.config', 'google-chrome-beta')],
      [join(home, 'proj')],
      [home],
      [dirname(home)],
      ['/'],
      ['/opt/elsewhere', join(home, '.claude')],
      ['/usr/local'],
    ];
    for (const within of cases) {
      expect(secretPaths(home, undefined, within).sort(), JSON.stringify(within)).toEqual(all.filter((s) => within.some((d) => under(s, d))).sort());
    }
  });

  it('each locked glob names only places in its base', () => {
    const home = populatedHome();
    const rules = builtinRules({ home, gatehouseHome: join(home, '.config', 'gatehouse'), caseInsensitive: false });
    const globs = rules.flatMap((r) => r.block_paths).filter((g) => g.startsWith('~/') || g.startsWith('/'));
    expect(globs.length).toBeGreaterThan(20);
    let named = 0;
    for (const g of globs) {
      const base = placesBase(g, home);
      expect(base, g).not.toBeNull();
      for (const p of existingPlaces(g, home)) {
        named++;
        expect(under(p, base!), `${g}: ${p} outside ${base}`).toBe(true);
      }
    }
    expect(named).toBeGreaterThan(5);
    expect(placesBase('~/.config/gh/**', home)).toBe(join(home, '.config', 'gh'));
    expect(placesBase('~/.mozilla/*/cookies.sqlite', home)).toBe(join(home, '.mozilla'));
    expect(placesBase('relative/*', home)).toBeNull();
  });
});
