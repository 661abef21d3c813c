// A network namespace with only loopback, for the end-to-end tests that run real agent CLIs
// (test/main/agents/claude-code-e2e.test.ts, test/main/agents/codex-e2e.test.ts): their mock model API, the host and the
// CLI all talk over 127.0.0.1 inside it, and nothing can leave the machine whatever the CLI tries.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cliPath, repoRoot } from './cli.js';
import { tempDir } from './temp.js';

/**
 * How to run node inside a fresh network namespace whose loopback is up: `argv` is the command
 * line up to (and including) node, to which the script and its arguments are appended. Or `why`
 * it cannot be done here, worded for a skip message.
 */
export function namespaceCommand(): { argv: string[] } | { why: string } {
  if (process.platform !== 'linux') return { why: 'network namespaces are Linux only' };
  const ip = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'].find((p) => existsSync(p));
  if (!ip) return { why: 'the ip command (iproute2) is not installed' };
  // Unprivileged users need a user namespace to own the network namespace.
  const asRoot = process.getuid?.() === 0 ? ['unshare', '-n'] : ['unshare', '--net', '--map-root-user'];
  const probe = spawnSync(asRoot[0]!, [...asRoot.slice(1), 'sh', '-c', `${ip} link set lo up`], { timeout: 10_000 });
  if (probe.status !== 0) return { why: `${asRoot.join(' ')} failed: ${String(probe.stderr).trim() || `exit ${probe.status}`}` };
  return { argv: [...asRoot, 'sh', '-c', `${ip} link set lo up && exec "$0" "$@"`, process.execPath] };
}

/** Runs `node SCRIPT CONFIG` through `argv` (namespaceCommand's), collecting its output to the end. */
export function runInNamespace(argv: string[], script: string, config: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [cmd, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, [...args, script, config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A file of an installed (dev) dependency, e.g. a real agent CLI's entry; null when it is not installed. */
export function packageFile(pkg: string, ...rel: string[]): string | null {
  try {
    const file = join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), ...rel);
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

/**
 * A real agent CLI's scenarios: test/support/RUNNER run inside a fresh loopback-only namespace
 * with `{root, cli, [key]: agent}` as its config (root a new temp folder, cli the built
 * Gatehouse). Or, printed, why it cannot run here (the CLI not installed: `missing`; no
 * namespace), for the caller to skip with.
 */
export async function runAgentScenarios(o: { label: string; key: string; agent: string | null; missing: string; runner: string }): Promise<{ skip: string } | { code: number | null; stdout: string; stderr: string }> {
  const ns = namespaceCommand();
  if (!o.agent || 'why' in ns) {
    const why = !o.agent ? o.missing : (ns as { why: string }).why;
    console.log(`${o.label} skipped: ${why}`);
    return { skip: why };
  }
  const root = tempDir(`gatehouse-${o.label}-`);
  const config = join(root, 'config.json');
  writeFileSync(config, JSON.stringify({ root, cli: cliPath, [o.key]: o.agent }));
  return runInNamespace(ns.argv, join(repoRoot, 'test', 'support', o.runner), config);
}
