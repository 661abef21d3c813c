// Incident review queries over the audit log: search (FTS5 + facets), one event with its call,
// a session's timeline, export as JSONL. Being built (issue #6): until then each answers that
// it is not available, so no caller mistakes an empty result for "nothing happened".
import type { RequestOf, ResponseOf } from '../../shared/contract.js';
import type { AuditStore } from './audit-store.js';
import { OperationError } from '../host/operation-error.js';

export class AuditQuery {
  constructor(private readonly deps: { store: AuditStore }) {}

  private unavailable(what: string): never {
    void this.deps;
    throw new OperationError('unavailable', `${what} is not available in this build yet.`);
  }

  search(_req: RequestOf<'audit.search'>): ResponseOf<'audit.search'> {
    return this.unavailable('Audit search');
  }
  get(_seq: number): ResponseOf<'audit.get'> {
    return this.unavailable('Audit event lookup');
  }
  session(_session: string, _limit: number): ResponseOf<'audit.session'> {
    return this.unavailable('The session timeline');
  }
  export(_req: RequestOf<'audit.export'>): ResponseOf<'audit.export'> {
    return this.unavailable('Audit export');
  }
}
