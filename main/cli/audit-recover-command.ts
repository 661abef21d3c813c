// `gatehouse audit recover`: a damaged audit log is kept aside, untouched, and a new chain starts
// whose first event records the break (main/audit/audit-recover.ts). Refused while a host uses the
// data folder, and when the log is intact (nothing to recover).
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { defaultHome, homePaths } from '../home.js';
import { acquireHostLock } from '../host/host-lock.js';
import { operatorName } from '../core/operator.js';
import { UsageError } from '../core/usage-error.js';
import { examplesHelp } from './gatehouse-command.js';
import { displayText } from '../../shared/display-text.js';

export function addAuditRecoverCommand(audit: Command): void {
  audit
    .command('recover')
    .description('Keep a damaged audit log aside (audit.db.corrupt-<time>) and start a new chain whose first event records the break.')
    .option('--home <dir>', 'data folder')
    .option('--reason <text>', 'why, in your words (recorded with what Gatehouse found)')
    .addHelpText('after', examplesHelp(['gatehouse audit recover --home ~/.config/gatehouse'], 'The old file is moved, never changed or deleted; the new chain\'s first event (audit.chain-restarted) names it with its size and SHA-256. Inbox items and grants kept in the old file stay there.'))
    .action(async (o: { home?: string; reason?: string }) => {
      const paths = homePaths(o.home ?? defaultHome());
      if (!existsSync(paths.auditDb)) throw new UsageError(`No audit log at ${paths.auditDb}. Pass the data folder with --home DIR.`);
      const { diagnose, recoverAuditLog } = await import('../audit/audit-recover.js');
      // No host may have the log open while it is moved: the lock is what hosts take at start.
      const lock = acquireHostLock(paths.root);
      try {
        const found = diagnose(paths.auditDb);
        if (found === null) throw new UsageError(`The audit log ${paths.auditDb} is intact (every page checks out and the chain verifies); there is nothing to recover.`);
        const reason = o.reason ? `${found} (operator: ${o.reason})` : found;
        const r = recoverAuditLog(paths.auditDb, reason, { actor: `operator:${operatorName()}` });
        console.log(displayText(`Kept the old audit log as ${r.movedTo} (${r.size} bytes, SHA-256 ${r.sha256}); it was: ${found}.`));
        console.log(displayText(`Started a new chain in ${paths.auditDb}; its first event (audit.chain-restarted, row ${r.seq}) records the break. Gatehouse starts on it now.`));
      } finally {
        lock.release();
      }
    });
}
