// Where data lives: GATEHOUSE_HOME wins, else the platform's config folder plus `gatehouse`.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultHome, ensureHome, homePaths } from '../../../main/home.js';
import { tempDir } from '../../support/temp.js';

describe('defaultHome', () => {
  it('uses GATEHOUSE_HOME on every platform, made absolute', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(defaultHome({ GATEHOUSE_HOME: '/srv/gh', XDG_CONFIG_HOME: '/x', APPDATA: 'C:\\Users\\op\\AppData\\Roaming' }, platform)).toBe('/srv/gh');
    }
    expect(defaultHome({ GATEHOUSE_HOME: 'relative/gh' }, 'linux')).toBe(resolve('relative/gh'));
  });

  it('uses XDG_CONFIG_HOME on Linux, else ~/.config', () => {
    expect(defaultHome({ XDG_CONFIG_HOME: '/home/op/cfg' }, 'linux')).toBe('/home/op/cfg/gatehouse');
    expect(defaultHome({}, 'linux')).toBe(join(homedir(), '.config', 'gatehouse'));
    // An empty variable is the same as an unset one (XDG Base Directory spec).
    expect(defaultHome({ XDG_CONFIG_HOME: '' }, 'linux')).toBe(join(homedir(), '.config', 'gatehouse'));
    expect(defaultHome({ GATEHOUSE_HOME: '', XDG_CONFIG_HOME: '/c' }, 'freebsd')).toBe('/c/gatehouse');
  });

  it('uses ~/Library/Application Support on macOS, whatever XDG says', () => {
    expect(defaultHome({ XDG_CONFIG_HOME: '/home/op/cfg' }, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'gatehouse'));
  });

  it('uses APPDATA on Windows, else the roaming folder under the profile', () => {
    expect(defaultHome({ APPDATA: '/appdata' }, 'win32')).toBe(join('/appdata', 'gatehouse'));
    expect(defaultHome({}, 'win32')).toBe(join(homedir(), 'AppData', 'Roaming', 'gatehouse'));
  });
});

describe('ensureHome', () => {
  it('creates the folder owner-only and names the files in it', () => {
    const root = join(tempDir(), 'nested', 'home');
    const paths = ensureHome(root);
    expect(statSync(root).isDirectory()).toBe(true);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(paths).toMatchObject({ root, auditDb: join(root, 'audit.db'), serveJson: join(root, 'serve.json') });
    expect(homePaths(root)).toEqual(paths);
  });
});
