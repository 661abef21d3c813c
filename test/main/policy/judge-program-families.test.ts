// The judge's program handlers live in families (main/policy/extract/programs/<family>.ts), joined
// into one table (programs/index.ts). Each family holds the programs it is about, no program is in
// two families (the one listed last would silently win), and every shell and interpreter the shell
// model treats as reading code is in the table.
import { describe, expect, it } from 'vitest';
import { FAMILIES, joinFamilies, PROGRAMS } from '../../../main/policy/extract/programs/index.js';
import { INTERPRETERS, SHELLS } from '../../../main/policy/extract/shell/command-name.js';
import { extract, initExtractor } from '../../../main/policy/extract/index.js';
import type { ToolCall } from '../../../main/policy/types.js';

/** Programs each family must hold (a sample of each; the whole table is checked for overlaps). */
const EXPECTED: Record<string, string[]> = {
  builtins: ['cd', 'pushd', 'source', '.', 'eval', 'alias', 'unalias', 'trap', 'echo', 'printf', 'export'],
  files: ['cat', 'ls', 'find', 'fd', 'cp', 'mv', 'rm', 'ln', 'chmod', 'dd', 'tee', 'du', 'split'],
  text: ['grep', 'rg', 'sed', 'awk', 'gawk', 'sort', 'uniq', 'jq', 'xxd', 'base64', 'cut'],
  archive: ['tar', 'zip', 'unzip', 'cpio', 'gzip', 'zcat', '7z', 'restic'],
  network: ['curl', 'wget', 'ssh', 'scp', 'rsync', 'sftp', 'nc', 'dig', 'ping', 'ssh-keyscan'],
  'server-clients': ['psql', 'mysql', 'mariadb', 'redis-cli', 'mongosh'],
  vcs: ['git'],
  packages: ['npm', 'pnpm', 'yarn', 'pip', 'uv', 'npx', 'apt-get', 'brew', 'cargo'],
  'env-runners': ['poetry', 'pipenv', 'pdm', 'hatch', 'conda', 'bundle', 'nix-shell', 'nix', 'mise', 'ansible'],
  build: ['make', 'gmake', 'go', 'pytest', 'tsc', 'docker', 'podman'],
  interpreters: ['sh', 'bash', 'zsh', 'python', 'python3', 'node', 'perl', 'ruby', 'deno', 'bun', 'tsx', 'ts-node', 'osascript', 'expect'],
  wrappers: ['sudo', 'doas', 'su', 'env', 'timeout', 'nice', 'xargs', 'parallel', 'watch', 'command', 'exec', 'strace'],
  terminals: ['tmux', 'screen', 'byobu', 'dtach', 'abduco', 'zellij'],
  services: ['systemctl', 'service', 'at', 'crontab'],
  credentials: ['ssh-keygen', 'gpg', 'aws', 'gh', 'kubectl', 'pass'],
  editors: ['vi', 'vim', 'emacs', 'nano', 'man', 'gdb'],
};

describe('program families', () => {
  it('each family table lists its programs, and there is no family the test does not know', () => {
    expect(Object.keys(FAMILIES).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const [family, names] of Object.entries(EXPECTED)) {
      const table = FAMILIES[family] ?? {};
      expect(names.filter((n) => !Object.hasOwn(table, n)), `programs missing from programs/${family}.ts`).toEqual([]);
    }
  });

  it('no program is claimed by two families', () => {
    const owners = new Map<string, string[]>();
    for (const [family, table] of Object.entries(FAMILIES)) for (const n of Object.keys(table)) owners.set(n, [...(owners.get(n) ?? []), family]);
    expect([...owners].filter(([, fs]) => fs.length > 1)).toEqual([]);
    // The joined table is exactly the union: nothing added or dropped on the way.
    expect(Object.keys(PROGRAMS).sort()).toEqual([...owners.keys()].sort());
  });

  it('joining two families that claim one program fails at load, naming both', () => {
    const h = PROGRAMS.cat;
    if (!h) throw new Error('cat has no handler');
    expect(() => joinFamilies({ files: { cat: h }, text: { cat: h } })).toThrow(/programs\/text\.ts and programs\/files\.ts both handle cat/);
    // FOLLOWS naming a program no family handles is a load error too, not a silently missing wrap.
    expect(() => joinFamilies({ files: { cat: h } })).toThrow(/FOLLOWS names .*which has no handler/);
  });

  it('every shell and interpreter is in the table (run() has no fallback of its own)', () => {
    expect([...SHELLS, ...INTERPRETERS].filter((n) => !Object.hasOwn(PROGRAMS, n))).toEqual([]);
  });

  it('a shell found through the table still judges its inline code: bash -c reads what it names', async () => {
    await initExtractor();
    const call: ToolCall = { id: 'c1', agent: 'test', session: 's1', tool: 'Bash', arguments: { command: "bash -c 'cat ~/.ssh/id_rsa'" }, cwd: '/tmp', source: 'hook', receivedAt: 0 };
    const r = extract(call, { home: '/home/u', resolveSymlinks: false });
    expect(r.operations).toContain('read');
    expect(r.paths).toContain('/home/u/.ssh/id_rsa');
  });
});
