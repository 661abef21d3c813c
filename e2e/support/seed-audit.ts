// A long audit log for specs about long work: written through the real store (chained and
// indexed, exactly as a host writes it) into a home before its host starts.
import { AuditStore } from '../../main/audit/audit-store.ts';
import { ensureHome } from '../../main/home.ts';

export function seedAuditLog(home: string, events: number): void {
  const paths = ensureHome(home);
  const store = new AuditStore({ path: paths.auditDb, log: () => {} });
  try {
    for (let i = 0; i < events; i++) store.append({ type: 'e2e.seeded', actor: 'host', payload: { i, note: 'seeded for a long-work spec' } });
  } finally {
    store.close();
  }
}
