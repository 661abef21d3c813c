// Rules: precedence (deny > ask > allow, priority, log never decides), locked built-in rules
// against every kind of user override, each built-in category, snapshots, and the cost per call.
import { describe, expect, it } from 'vitest';
import { buildRuleSet, evaluatePolicy } from '../../../main/policy/rules/engine.js';
import { builtinRules, compileBuiltinRules } from '../../../main/policy/rules/builtin.js';
import { toSnapshot, toSnapshots } from '../../../main/policy/rules/snapshot.js';
import { RULE_SNAPSHOT_KEYS } from '../../../main/core/checker-protocol.js';
import { call, CTX, GATEHOUSE_HOME, HOME, load, ruleSet, x } from '../../fixtures/policy/helpers.js';
import type { Extraction } from '../../../main/policy/types.js';

const judge = (ex: Extraction, yaml = '') => evaluatePolicy(ex, call(), { rules: ruleSet(yaml) });

describe('precedence', () => {
  const yaml = `
rules:
  - name: allow-work
    actions: [write]
    block_paths: ["~/work/**"]
    decision: allow
  - name: ask-work-config
    actions: [write]
    block_paths: ["~/work/config/**"]
    decision: ask
  - name: deny-work-secrets
    actions: [write]
    block_paths: ["~/work/config/secrets/**"]
    decision: deny
    priority: 500
  - name: log-work
    actions: [write]
    block_paths: ["~/work/**"]
    decision: log
`;

  it('deny beats ask beats allow, whatever the priorities', () => {
    expect(judge(x('write', [`${HOME}/work/a.txt`]), yaml)).toMatchObject({ decision: 'allow', decider: { kind: 'rule', rule: 'allow-work' } });
    expect(judge(x('write', [`${HOME}/work/config/app.yaml`]), yaml)).toMatchObject({ decision: 'ask', decider: { kind: 'rule', rule: 'ask-work-config' } });
    // The deny rule has the worst priority (500) and still wins.
    const r = judge(x('write', [`${HOME}/work/config/secrets/k`]), yaml);
    expect(r).toMatchObject({ decision: 'deny', decider: { kind: 'rule', rule: 'deny-work-secrets' } });
    expect(r.matched.map((m) => m.rule)).toEqual(['deny-work-secrets', 'ask-work-config', 'allow-work']);
  });

  it('within one decision the lower priority number decides', () => {
    const r = judge(
      x('write', [`${HOME}/p/x`]),
      `
rules:
  - { name: second, actions: [write], block_paths: ["~/p/**"], decision: ask, priority: 20, message: second }
  - { name: first, actions: [write], block_paths: ["~/p/**"], decision: ask, priority: 10, message: first }
  - { name: third, actions: [write], block_paths: ["~/p/**"], decision: ask, priority: 30 }
`,
    );
    expect(r.decider).toEqual({ kind: 'rule', rule: 'first', origin: 'policy.yaml:4' });
    expect(r.matched.map((m) => m.rule)).toEqual(['first', 'second', 'third']);
    expect(r.reason).toContain('first');
  });

  it('log rules are reported and never decide', () => {
    const r = judge(x('write', [`${HOME}/elsewhere/x`]), `rules:\n  - { name: log-all, actions: [write], decision: log }\n`);
    expect(r.logs.map((l) => l.rule)).toEqual(['log-all']);
    expect(r.decisive).toBeNull();
    // No rule decided: fail closed to ask, autonomy decides.
    expect(r.decision).toBe('ask');
    expect(r.decider).toEqual({ kind: 'autonomy', level: 'undecided' });
    const w = judge(x('write', [`${HOME}/work/a`]), yaml);
    expect(w.decision).toBe('allow');
    expect(w.logs.map((l) => l.rule)).toEqual(['log-work']);
  });

  it('disabled rules do not match', () => {
    const r = judge(x('write', [`${HOME}/p/x`]), `rules:\n  - { name: off, actions: [write], block_paths: ["~/p/**"], enabled: false }\n`);
    expect(r.decisive).toBeNull();
  });

  it('a rule matches on actions alone when it has neither paths nor hosts', () => {
    const y = `rules:\n  - { name: no-exec, actions: [execute], decision: deny }\n`;
    expect(judge(x(['read', 'execute'], ['/usr/bin/ls']), y).decision).toBe('deny');
    expect(judge(x(['read'], ['/usr/bin/ls']), y).decisive).toBeNull();
  });

  it('block_except carves holes in block_paths', () => {
    const y = `rules:\n  - { name: logs, actions: [delete], block_paths: ["/var/log/**"], block_except: ["/var/log/app/*.tmp"] }\n`;
    expect(judge(x('delete', ['/var/log/app/x.log']), y).decision).toBe('deny');
    expect(judge(x('delete', ['/var/log/app/x.tmp']), y).decisive).toBeNull();
  });

  it('block_hosts: globs and CIDRs', () => {
    const y = `rules:\n  - { name: no-pastebins, actions: [network], block_hosts: ["*.pastebin.com", "pastebin.com", "203.0.113.0/24"] }\n`;
    const resolutions = new Map([['api.pastebin.com', { addresses: ['104.20.0.1'] }]]);
    expect(evaluatePolicy(x('network', [], ['api.pastebin.com']), call(), { rules: ruleSet(y), resolutions }).decider).toMatchObject({ rule: 'no-pastebins' });
    expect(judge(x('network', [], ['203.0.113.9']), y).decider).toMatchObject({ rule: 'no-pastebins' });
    // 3405803785 is 203.0.113.9 in decimal.
    expect(judge(x('network', [], ['3405803785']), y).decider).toMatchObject({ rule: 'no-pastebins' });
  });

  it('an allow rule must cover the whole call: every operation, path and host', () => {
    const y = `rules:\n  - { name: allow-tmp, actions: [write], block_paths: ["/tmp/**"], decision: allow }\n`;
    expect(judge(x('write', ['/tmp/a']), y).decision).toBe('allow');
    // A second path outside /tmp is not allowed along with it.
    expect(judge(x('write', ['/tmp/a', `${HOME}/notes.txt`]), y).decisive).toBeNull();
    // An operation the rule does not name is not allowed along with it.
    expect(judge(x(['write', 'delete'], ['/tmp/a']), y).decisive).toBeNull();
    // A write with no known path is not "a write in /tmp".
    expect(judge(x('write', []), y).decisive).toBeNull();
  });
});

describe('locked built-in rules survive any user policy', () => {
  const sshKey = `${HOME}/.ssh/id_ed25519`;

  it('a user allow of ~/.ssh with the best priority cannot override the locked deny', () => {
    const r = judge(
      x('read', [sshKey]),
      `rules:\n  - { name: let-me-read-ssh, actions: [read, write, delete, copy, move], block_paths: ["~/.ssh/**"], decision: allow, priority: -1000000 }\n`,
    );
    expect(r.decision).toBe('deny');
    expect(r.decider).toEqual({ kind: 'rule', rule: 'builtin.credentials.ssh', origin: 'builtin' });
    expect(r.matched.map((m) => m.rule)).toEqual(['builtin.credentials.ssh', 'let-me-read-ssh']);
  });

  it('a user ask or log rule on ~/.ssh does not soften the deny', () => {
    const r = judge(
      x('read', [sshKey]),
      `rules:\n  - { name: ask-ssh, actions: [read], block_paths: ["~/.ssh/**"], decision: ask, priority: -5 }\n  - { name: log-ssh, actions: [read], block_paths: ["~/.ssh/**"], decision: log }\n`,
    );
    expect(r.decision).toBe('deny');
    expect(r.decider).toMatchObject({ rule: 'builtin.credentials.ssh' });
  });

  it('a user rule taking a built-in name (to replace or disable it) is rejected', () => {
    for (const body of [
      '{ name: builtin.credentials.ssh, actions: [read], decision: allow }',
      '{ name: builtin.credentials.ssh, actions: [read], block_paths: ["~/.ssh/**"], enabled: false }',
      '{ name: builtin.my-own, actions: [read] }',
    ]) {
      const loaded = load(`rules:\n  - ${body}\n`);
      expect(loaded.compiled).toEqual([]);
      expect(loaded.problems[0]?.message).toMatch(/belongs to a built-in rule/);
      expect(loaded.problems[0]).toMatchObject({ line: 2 });
      // And the built-in still denies.
      expect(evaluatePolicy(x('read', [sshKey]), call(), { rules: ruleSet(`rules:\n  - ${body}\n`, { allowProblems: true }) }).decision).toBe('deny');
    }
  });

  it('fields that would unlock or re-source a rule are rejected', () => {
    const loaded = load(`rules:\n  - { name: sneaky, actions: [read], block_paths: ["~/.ssh/**"], decision: allow, locked: true, source: builtin }\n`);
    expect(loaded.compiled).toEqual([]);
    expect(loaded.problems.map((p) => p.message)).toEqual([expect.stringContaining('unknown field "locked" (only built-in rules are locked)'), expect.stringContaining('unknown field "source"')]);
  });

  it('a user allow of everything (no paths, all actions) still cannot reach credentials, system files or metadata', () => {
    const y = `rules:\n  - { name: yolo, actions: [read, write, delete, copy, move, execute, network], decision: allow, priority: -1 }\n`;
    expect(judge(x('read', [sshKey]), y).decision).toBe('deny');
    expect(judge(x('write', ['/etc/passwd']), y).decision).toBe('deny');
    expect(judge(x('network', [], ['169.254.169.254']), y).decision).toBe('deny');
    expect(judge(x('write', ['/tmp/ok']), y).decision).toBe('allow');
  });

  it('a user allow cannot silence an evasive command (at least ask)', () => {
    const y = `rules:\n  - { name: yolo, actions: [read, write, delete, copy, move, execute, network], decision: allow }\n`;
    const r = judge(x('execute', [], [], { evasive: true, evasiveReasons: ['eval builds the command'] }), y);
    expect(r.decision).toBe('ask');
    expect(r.decider).toMatchObject({ rule: 'builtin.evasive-command' });
    expect(r.reason).toContain('eval builds the command');
  });

  it('user block_except cannot carve into a built-in rule', () => {
    const y = `rules:\n  - { name: except-ssh, actions: [read], block_paths: ["/nowhere/**"], block_except: ["~/.ssh/**"], decision: deny }\n`;
    expect(judge(x('read', [sshKey]), y).decider).toMatchObject({ rule: 'builtin.credentials.ssh' });
  });
});

describe('built-in categories', () => {
  const deny = (ex: Extraction, rule: string) => {
    const r = judge(ex);
    expect(r.decision, JSON.stringify(ex)).toBe('deny');
    expect(r.decider, JSON.stringify(ex)).toMatchObject({ kind: 'rule', rule });
  };
  const notDecided = (ex: Extraction) => expect(judge(ex).decisive, JSON.stringify(ex)).toBeNull();

  it('credentials: read, write, delete, copy, move all denied', () => {
    for (const op of ['read', 'write', 'delete', 'copy', 'move'] as const) {
      deny(x(op, [`${HOME}/.ssh/id_rsa`]), 'builtin.credentials.ssh');
      deny(x(op, [`${HOME}/.aws/credentials`]), 'builtin.credentials.cloud');
      deny(x(op, [`${HOME}/.gnupg/private-keys-v1.d/a.key`]), 'builtin.credentials.gnupg');
      deny(x(op, [`${HOME}/.config/gcloud/application_default_credentials.json`]), 'builtin.credentials.cloud');
      deny(x(op, [`${HOME}/.kube/config`]), 'builtin.credentials.cloud');
      deny(x(op, [`${HOME}/.docker/config.json`]), 'builtin.credentials.cloud');
      deny(x(op, ['/srv/app/.env']), 'builtin.credentials.env-files');
      deny(x(op, [`${HOME}/proj/.env.production`]), 'builtin.credentials.env-files');
      deny(x(op, [`${HOME}/.local/share/keyrings/login.keyring`]), 'builtin.credentials.stores');
      deny(x(op, [`${HOME}/.password-store/bank.gpg`]), 'builtin.credentials.stores');
      deny(x(op, [`${HOME}/.netrc`]), 'builtin.credentials.stores');
    }
    // The directory itself counts, and templates are not secrets.
    deny(x('read', [`${HOME}/.ssh`]), 'builtin.credentials.ssh');
    notDecided(x('read', [`${HOME}/proj/.env.example`]));
    notDecided(x('read', [`${HOME}/.sshx/notes`]));
  });

  it('deleting, moving or copying a folder that holds credentials is denied too', () => {
    deny(x('delete', [`${HOME}/.config`]), 'builtin.credentials.cloud');
    deny(x('copy', [`${HOME}/.config`, '/tmp/exfil']), 'builtin.credentials.cloud');
    deny(x('move', [`${HOME}/.aws-old`, `${HOME}/.aws`]), 'builtin.credentials.cloud');
    // A plain read of the parent (an `ls ~/.config`) is not.
    notDecided(x('read', [`${HOME}/.config`]));
  });

  it('system: writes and deletes under /etc, /boot, /sys, /proc; reads are fine', () => {
    deny(x('write', ['/etc/sudoers']), 'builtin.system.write');
    deny(x('delete', ['/boot/vmlinuz']), 'builtin.system.write');
    deny(x('write', ['/sys/kernel/mm/x']), 'builtin.system.write');
    deny(x('write', ['/proc/sys/kernel/core_pattern']), 'builtin.system.write');
    deny(x('move', ['/etc/hosts', '/tmp/hosts']), 'builtin.system.write');
    notDecided(x('read', ['/etc/hosts']));
  });

  it('shell start-up files and git hooks: writes denied, reads fine', () => {
    for (const f of ['.bashrc', '.bash_profile', '.profile', '.zshrc', '.zprofile', '.config/fish/config.fish']) deny(x('write', [`${HOME}/${f}`]), 'builtin.shell-startup');
    // What bash runs from them: Debian's ~/.bashrc sources ~/.bash_aliases; bash-completion runs the rest in every interactive shell.
    for (const f of ['.bash_aliases', '.bash_completion', '.bash_completion.d/evil', '.local/share/bash-completion/completions/git']) deny(x('write', [`${HOME}/${f}`]), 'builtin.shell-startup');
    notDecided(x('read', [`${HOME}/.bash_aliases`]));
    notDecided(x('read', [`${HOME}/.bashrc`]));
    deny(x('write', [`${HOME}/proj/.git/hooks/pre-commit`]), 'builtin.git-hooks');
    deny(x('delete', ['/srv/repo/.git/hooks/post-checkout']), 'builtin.git-hooks');
    notDecided(x('read', [`${HOME}/proj/.git/hooks/pre-commit`]));
  });

  it('rm -rf of / or ~ (or a folder holding ~)', () => {
    deny(x('delete', ['/']), 'builtin.delete-root-or-home');
    deny(x('delete', [HOME]), 'builtin.delete-root-or-home');
    deny(x('delete', [`${HOME}/`]), 'builtin.delete-root-or-home');
    deny(x('delete', ['/home']), 'builtin.delete-root-or-home');
    deny(x('move', [HOME, '/tmp/h']), 'builtin.delete-root-or-home');
    notDecided(x('delete', [`${HOME}/build/tmp`]));
  });

  it("Gatehouse's own home: no read, no write", () => {
    for (const op of ['read', 'write', 'delete', 'copy', 'move'] as const) {
      deny(x(op, [`${GATEHOUSE_HOME}/serve.json`]), 'builtin.gatehouse-home');
      deny(x(op, [`${GATEHOUSE_HOME}/audit.db`]), 'builtin.gatehouse-home');
      deny(x(op, [`${GATEHOUSE_HOME}/policy.yaml`]), 'builtin.gatehouse-home');
    }
    deny(x('read', [GATEHOUSE_HOME]), 'builtin.gatehouse-home');
    notDecided(x('read', [`${GATEHOUSE_HOME}-other/x`]));
  });

  it('paths are matched case-insensitively where the file system is', () => {
    const ex = x('read', [`${HOME}/.SSH/id_rsa`]);
    const insensitive = buildRuleSet(compileBuiltinRules({ ...CTX, caseInsensitive: true }), []);
    expect(evaluatePolicy(ex, call(), { rules: insensitive }).decider).toMatchObject({ rule: 'builtin.credentials.ssh' });
    // On a case-sensitive file system ~/.SSH is another folder.
    expect(judge(ex).decisive).toBeNull();
  });

  it('each built-in rule is locked, sourced builtin, and deny (evasive: ask)', () => {
    for (const r of builtinRules(CTX)) {
      expect(r).toMatchObject({ source: 'builtin', locked: true, enabled: true });
      expect(r.decision).toBe(r.name === 'builtin.evasive-command' ? 'ask' : 'deny');
    }
  });
});

describe('snapshots', () => {
  it('have exactly the protocol fields and are deeply frozen', () => {
    const rule = builtinRules(CTX)[0]!;
    const s = toSnapshot(rule, 7);
    expect(Object.keys(s).sort()).toEqual([...RULE_SNAPSHOT_KEYS].sort());
    expect(s.hit_count).toBe(7);
    expect(Object.isFrozen(s) && Object.isFrozen(s.actions) && Object.isFrozen(s.block_paths) && Object.isFrozen(s.block_except) && Object.isFrozen(s.block_hosts)).toBe(true);
    const all = toSnapshots(builtinRules(CTX), new Map([[rule.name, 3]]));
    expect(Object.isFrozen(all)).toBe(true);
    expect(all[0]?.hit_count).toBe(3);
    expect(() => (s.actions as string[]).push('x')).toThrow();
  });
});
