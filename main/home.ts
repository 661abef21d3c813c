// Where Gatehouse keeps its data: one folder for both shells, so the Electron console and
// `gatehouse serve` see the same plugins, policy and audit log.
import { mkdirSync, chmodSync, closeSync, existsSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** GATEHOUSE_HOME, else the platform's config directory plus `gatehouse`. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.GATEHOUSE_HOME) return resolve(env.GATEHOUSE_HOME);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'gatehouse');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'gatehouse');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'gatehouse');
}

export interface HomePaths {
  root: string;
  auditDb: string;
  serveJson: string;
  plugins: string;
  policy: string;
  settings: string;
  /** First-run state: the example plugins copied, the Getting Started panel's progress. */
  firstRun: string;
  /** Team mode: the team policy version in force here, as its operator signed it (team-policy.ts). */
  teamPolicy: string;
}

/** Creates the home (owner-only: it holds tokens and the audit log) and returns its paths. */
export function ensureHome(root: string): HomePaths {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  try {
    chmodSync(root, 0o700);
  } catch {
    // Not ours to change (a shared mount); the files inside are still created 0600.
  }
  const paths = homePaths(root);
  mkdirSync(paths.plugins, { recursive: true, mode: 0o700 });
  return paths;
}

export function homePaths(root: string): HomePaths {
  return {
    root,
    auditDb: join(root, 'audit.db'),
    serveJson: join(root, 'serve.json'),
    plugins: join(root, 'plugins'),
    policy: join(root, 'policy.yaml'),
    settings: join(root, 'settings.json'),
    firstRun: join(root, 'first-run.json'),
    teamPolicy: join(root, 'team-policy.json'),
  };
}

/**
 * Writes a file only its owner can read (tokens, serve.json): a new temporary file, made 0600
 * with fchmod before a byte is written, then renamed over the old one. writeFileSync's `mode`
 * applies only when it creates the file, so rewriting a token file someone made 0644 kept it
 * readable by everyone; the rename replaces the old inode and its mode with it, and a reader
 * never sees half a token.
 */
export function writeSecretFile(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    // The umask can only take bits away from 0600, but a umask of 0o777 would leave the owner
    // unable to read it back: set the mode exactly.
    fchmodSync(fd, 0o600);
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Makes a file that holds secrets owner-only (0600): created so if missing, its mode fixed if
 * it exists with a wider one (a database made by an older version, or under a loose umask).
 */
export function ensureOwnerOnlyFile(path: string, opts: { create: boolean }): void {
  if (!existsSync(path)) {
    if (!opts.create) return;
    // 'a': create without truncating, should another process create it between the check and here.
    const fd = openSync(path, 'a', 0o600);
    try {
      fchmodSync(fd, 0o600);
    } finally {
      closeSync(fd);
    }
    return;
  }
  chmodSync(path, 0o600);
}
