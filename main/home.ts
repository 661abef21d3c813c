// Where Gatehouse keeps its data: one folder for both shells, so the Electron console and
// `gatehouse serve` see the same plugins, policy and audit log.
import { mkdirSync, chmodSync } from 'node:fs';
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
  };
}
