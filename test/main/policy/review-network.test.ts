// A hostile review's findings on hosts the judge did not see (ssh jump hosts and options, git's
// scp-like remote without a user, socat, toybox, TLS and RPC clients) and on git subcommands that
// write what they are told. The real-host decisions are in
// fixtures/security-corpus/review-network.json; these check what the judge extracts.
import { beforeAll, describe, expect, it } from 'vitest';
import { initExtractor } from '../../../main/policy/extract/index.js';
import { gitScpHost } from '../../../main/policy/extract/programs/vcs.js';
import { JUDGE_HOME as HOME, JUDGE_PROJ as PROJ, judgeBash as judge } from '../../support/judge.js';

beforeAll(async () => {
  await initExtractor();
});

describe("git's scp-like remote (connect.c: a / before the first : makes it local)", () => {
  const cases: Array<[string, string | null]> = [
    ['10.0.0.5:repo', '10.0.0.5'],
    ['git@10.0.0.5:repo', '10.0.0.5'],
    ['[127.0.0.1:7411]:repo', '127.0.0.1'],
    ['[git@::1]:repo', '::1'],
    ['git@[::1]:repo', '::1'],
    ['build.example:team/repo.git', 'build.example'],
    ['./a:b', null],
    ['dir/a:b', null],
    ['/srv/a:b', null],
    ['origin', null],
    ['https://example.com/x', null],
  ];
  for (const [remote, host] of cases) it(`${remote} → ${host ?? 'local'}`, () => expect(gitScpHost(remote)).toBe(host));
});

describe('hosts the judge reports', () => {
  const cases: Array<[string, string[]]> = [
    ['ssh -o ProxyJump=10.0.0.5 1.1.1.1', ['10.0.0.5', '1.1.1.1']],
    ["ssh -o 'ProxyJump 10.0.0.5' 1.1.1.1", ['10.0.0.5', '1.1.1.1']],
    ['scp -J 10.0.0.5 f 1.1.1.1:', ['10.0.0.5', '1.1.1.1']],
    ['sftp -oProxyJump=u@10.0.0.5:2222,1.1.1.2 1.1.1.1', ['10.0.0.5', '1.1.1.2', '1.1.1.1']],
    ["ssh -o 'ProxyCommand ssh -W %h:%p 1.1.1.2' 1.1.1.1", ['1.1.1.1', '1.1.1.2']],
    ['git fetch 10.0.0.5:repo', ['10.0.0.5']],
    ['git push origin HEAD:main', []],
    ['socat TCP-LISTEN:8080,fork TCP:169.254.169.254:80', ['169.254.169.254']],
    ['toybox nc 169.254.169.254 80', ['169.254.169.254']],
    ['openssl s_client -connect 169.254.169.254:80 -servername example.com', ['169.254.169.254']],
    ['gnutls-cli -p 443 10.0.0.5', ['10.0.0.5']],
    ['grpcurl -plaintext -d {} dns:///10.0.0.5:80 pkg.Svc/Get', ['10.0.0.5']],
  ];
  for (const [command, hosts] of cases) {
    it(command, () => {
      const r = judge(command);
      expect(r.hosts).toEqual(hosts);
      if (hosts.length) expect(r.operations).toContain('network');
    });
  }
});

describe('git subcommands that write what they are told', () => {
  const cases: Array<[string, string, 'read' | 'write']> = [
    ['git format-patch -o ~/.config/autostart HEAD~1', `${HOME}/.config/autostart`, 'write'],
    ['git bundle create ~/.bashrc HEAD', `${HOME}/.bashrc`, 'write'],
    ['git archive -o ~/.bashrc HEAD', `${HOME}/.bashrc`, 'write'],
    ['git worktree add ../wt', `${HOME}/wt`, 'write'],
    ['git submodule add https://example.com/x lib/x', `${PROJ}/lib/x`, 'write'],
    ['git init --template=/tmp/t newrepo', `${PROJ}/newrepo/.git/hooks`, 'write'],
    ['git clone --template /tmp/t https://example.com/x/lib.git', `${PROJ}/lib/.git/hooks`, 'write'],
    ['git config -f ~/.aws/credentials --list', `${HOME}/.aws/credentials`, 'read'],
  ];
  for (const [command, path, op] of cases) {
    it(command, () => {
      const r = judge(command);
      expect(r.paths).toContain(path);
      expect(r.operations).toContain(op);
    });
  }

  it('a bare repository given a template is unsure (its hooks folder is not a .git)', () => {
    expect(judge('git init --bare --template=/tmp/t r.git').evasive).toBe(true);
  });
});
