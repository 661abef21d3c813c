// Fail closed when a checker cannot run: a checker an operator enabled whose files then change is
// quarantined, and every call is blocked (naming it and what to do) until an operator approves
// the change; it does not silently drop out of the calls it was enabled to judge.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostWithChecker } from '../../support/checker-host.js';

describe('a quarantined checker in a real host', () => {
  it('blocks every call until an operator approves the change; then calls pass again', async () => {
    // `optional = true`: even so, a quarantined checker blocks (the flag comes from the changed files).
    const { host, dir } = hostWithChecker({ name: 'guard', script: 'allow.mjs', manifest: 'optional = true\n' });
    const decide = () => host.gateway.call({ agent: 'claude', session: 's1', tool: 'shell', arguments: { command: 'ls /tmp' }, source: 'api' }, { execute: false });
    try {
      await host.ready;
      await host.registry.enable('guard', 'op');
      expect((await decide()).decision).toBe('allow');

      writeFileSync(join(dir, 'allow.mjs'), '// changed behind the operator\'s back\n', { flag: 'a' });
      await host.registry.refreshFolder(dir);
      expect(host.registry.get('guard')?.status).toBe('quarantined');
      const blocked = await decide();
      expect(blocked.decision).toBe('deny');
      expect(blocked.decider).toMatchObject({ kind: 'checker', checker: 'guard', rule: 'checker.not_ready' });
      expect(blocked.reason).toMatch(/guard is quarantined: its files changed since an operator enabled it\. Review and approve the change, or disable it/);
      // `optional = true` comes from the changed files: it does not let calls through.
      expect((await decide()).decision).toBe('deny');

      await host.registry.approveChange('guard', 'op');
      expect((await decide()).decision).toBe('allow');
    } finally {
      await host.close('test done');
    }
  });
});
